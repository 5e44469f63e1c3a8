#!/usr/bin/env node
// Per-seed agreement between this store and a built-in store of reconcile-sim.
//
//   node scripts/agreement.mjs [--seeds N] [--keep current|membership] [--verbatim] [--history]
//
// For each seed, the built-in store's run (`run --store KEEP --seed N --json`) is written as
// a scenario (its whole main-phase schedule); then every scenario is replayed on this store
// with one `check --store exec:…`. Where both stores answer alike the replay is exactly
// this store's fuzz run of that seed, so equal verdicts mean agreement. Deltas are joined
// with a space unless --verbatim (for oracles that find content only between whitespace),
// and the tab opens without its history fetch unless --history (the scenarios name the
// built-in store's request ids, which a boot fetch would shift).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i === -1 ? dflt : argv[i + 1];
};
const seeds = Number(opt("--seeds", "2000"));
const keep = opt("--keep", "current");
const verbatim = argv.includes("--verbatim");
const history = argv.includes("--history");
const bin = process.env.RECONCILE_SIM || "reconcile-sim";

const dir = mkdtempSync(join(tmpdir(), "reconcile-sim-agreement-"));
const out = mkdtempSync(join(tmpdir(), "reconcile-sim-agreement-out-")); // run/check write failures here
try {
  const builtIn = new Map();
  for (let seed = 0; seed < seeds; seed++) {
    const r = spawnSync(bin, ["run", "--store", keep, "--seed", String(seed), "--json", "--max-shrink-iters", "0", "--out", out], { encoding: "utf8" });
    if (r.error) throw r.error;
    const run = JSON.parse(r.stdout);
    const verdict = run.outcome.verdict === "fail" ? run.outcome.invariant : "pass";
    builtIn.set(seed, verdict);
    const scenario = { version: 1, description: `${keep} seed ${seed}`, store: keep, seed, expect: verdict === "pass" ? null : verdict, config: run.config, steps: run.steps };
    writeFileSync(join(dir, `seed-${String(seed).padStart(6, "0")}.json`), JSON.stringify(scenario));
  }
  const extra = [...(keep === "membership" ? ["membership"] : []), ...(history ? [] : ["no-history"])];
  const store = `exec:reconcile-sim-adapter adapter.ts${extra.length > 0 ? ` -- ${extra.join(" ")}` : ""}`;
  const env = { ...process.env, PATH: `${join(process.cwd(), "node_modules", ".bin")}:${process.env.PATH}` };
  if (!verbatim) env.RECONCILE_SIM_ADAPTER_DELTA_PREFIX = " ";
  const c = spawnSync(bin, ["check", "--store", store, "--scenarios", dir, "--seeds", "0", "--json", "--out", out], { encoding: "utf8", env, maxBuffer: 1 << 28 });
  const report = JSON.parse(c.stdout);
  const differ = [];
  for (const s of report.scenarios) {
    const seed = Number(/seed-(\d+)/.exec(s.path)[1]);
    const mine = s.got ?? "pass";
    if (mine !== builtIn.get(seed) || s.skipped) differ.push({ seed, builtIn: builtIn.get(seed), example: mine, skipped: s.skipped });
  }
  console.log(`${store} vs --store ${keep}, deltas ${verbatim ? "verbatim" : "joined with a space"}: ${seeds - differ.length}/${seeds} seeds agree`);
  for (const d of differ) console.log(`  seed ${d.seed}: built-in ${d.builtIn}, example ${d.example}${d.skipped ? ` (${d.skipped} steps skipped)` : ""}`);
  process.exitCode = differ.length === 0 ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
}
