// The gate as vitest tests: `await gate({...})` at the top level of a test file runs
// `check` in process (the engine inside Node) while vitest collects the file, then
// registers what it found as tests, so `npx vitest run` is green when the store shows only
// its known classes, and each new class is a failing test named after it, whose message
// holds its scenario file, the command that replays it and its HTML report (the
// interleaving drawn step by step, written beside the scenario).
//
//   // reconcile.test.ts
//   import { gate } from "reconcile-sim/vitest";
//   await gate({ adapter: "reconcile/adapter.ts", known: "known", seeds: 1000 });

import { describe, test } from "vitest";
import { check, report as writeReports } from "./index.js";

/**
 * Run the check `options` describe (as `check`'s) and register its results as tests in a
 * `describe` block named after the store: one per scenario replayed, one per new failure
 * (class), one for the fuzzing, one for the determinism check, and one for files that
 * could not be written. Returns the check's result.
 */
export async function gate(options) {
  const r = await check(options);
  const pages = await reportsOf(options, r.found);
  const report = r.result;
  const store = report.batches[0]?.store ?? r.found[0]?.store ?? "the store";
  describe(`reconcile-sim check: ${store}`, () => {
    for (const s of report.scenarios) {
      test(`scenario ${s.path}`, () => {
        if (!s.ok) throw new Error(`${s.path}: expected ${s.requirement}, got ${s.got ?? "no violation"}\nreplay: ${s.replay}`);
      });
    }
    for (const f of r.found) {
      test(`new class: ${f.name} [${f.invariant}]`, () => {
        const saved = f.notSaved ? `NOT SAVED: ${f.notSaved}` : `saved: ${f.path} (${f.steps} steps)\nreplay: ${f.replay}\nreport: ${pages.get(f.path) ?? "not written"}`;
        const seed = f.seed == null ? "a scenario" : `seed ${f.seed}`;
        throw new Error(`a new class on ${f.store} (found by ${seed}): ${f.name} [${f.invariant}]\n${saved}`);
      });
    }
    test(`fuzz: ${report.batches.reduce((n, b) => n + b.seeds, 0)} seeds, no new class`, () => {
      if (r.failingBatches.length > 0) {
        throw new Error(`failing batches (each new class is a test of its own):\n  ${r.failingBatches.join("\n  ")}`);
      }
    });
    test("determinism: the first seeds run again alike", () => {
      if (report.suspects.length > 0) throw new Error(r.text);
    });
    test("every result was written", () => {
      if (r.notWritten.length > 0) throw new Error(`not written:\n  ${r.notWritten.join("\n  ")}`);
    });
    test("the check passes", () => {
      if (r.failed) throw new Error(`${r.settings}${r.text}`);
    });
  });
  return r;
}

/** The HTML report of each saved new class, by scenario path (or why it has none). */
async function reportsOf(options, found) {
  const files = found.filter((f) => !f.notSaved).map((f) => f.path);
  const pages = new Map();
  if (files.length === 0) return pages;
  try {
    const { cwd, adapter, store, name, freshModule, deltaPrefix, args, root } = options;
    const r = await writeReports({ cwd, adapter, store, name, freshModule, deltaPrefix, args, root, files });
    r.reports.forEach((p, i) => pages.set(files[i], p.page ?? `not written (${p.error})`));
  } catch (e) {
    for (const f of files) pages.set(f, `not written (${e instanceof Error ? e.message : e})`);
  }
  return pages;
}
