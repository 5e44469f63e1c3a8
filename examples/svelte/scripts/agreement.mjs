#!/usr/bin/env node
// Per-seed agreement between this store and a built-in store of reconcile-sim.
//
//   node scripts/agreement.mjs [--seeds N] [--seed-start S] [--keep current|membership]
//                              [--spaced] [--history] [--jobs J]
//
// For each seed, the built-in store's run (`run --store KEEP --seed N --json`) is written as
// a scenario (its whole main-phase schedule, up to its first violation). Then the scenarios
// are replayed with `check --scenarios DIR --seeds 0 --allow-empty --json`, once on the built-in store and
// once on this store (`exec:…`). Where both stores answer alike, the replay is exactly this
// store's fuzz run of that seed, so equal verdicts mean agreement: a seed agrees when both
// replays end with the same invariant and the same root-cause class (or both pass) and no
// step of the schedule was skipped on this store. The built-in replay must also reproduce
// the run's own verdict (a check of the harness).
//
// Deltas reach the store as the harness sends them and the store appends them verbatim,
// as a real store does; --spaced hands them over with a leading space instead
// (RECONCILE_SIM_ADAPTER_DELTA_PREFIX=" "). The tab opens without its history fetch unless
// --history: the scenarios name the built-in store's request ids, which a boot fetch would
// shift by one. Exit 0 when every seed agrees, 1 when some differ (listed), 2 when broken.
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const argv = process.argv.slice(2);
const known = new Set(["--seeds", "--seed-start", "--keep", "--jobs", "--spaced", "--verbatim", "--history"]);
for (const a of argv) {
  if (a.startsWith("--") && !known.has(a)) {
    console.error(`agreement: unknown option ${a}`);
    process.exit(2);
  }
}
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i === -1 ? dflt : argv[i + 1];
};
const seeds = Number(opt("--seeds", "2000"));
const seedStart = Number(opt("--seed-start", "0"));
const keep = opt("--keep", "current");
const jobs = Number(opt("--jobs", "2"));
const spaced = argv.includes("--spaced"); // --verbatim is the default, accepted for clarity
const history = argv.includes("--history");
const bin = process.env.RECONCILE_SIM || "reconcile-sim";

/** `check` on every scenario of `dir` with `store`: path → {got, class, skipped}. */
function replay(store, dir, out, env) {
  const c = spawnSync(bin, ["check", "--store", store, "--scenarios", dir, "--seeds", "0", "--allow-empty", "--json", "--max-shrink-iters", "0", "--out", out], {
    encoding: "utf8",
    env,
    maxBuffer: 1 << 30,
  });
  if (c.error) throw c.error;
  if (c.status !== 0 && c.status !== 1) throw new Error(`check --store ${store} exited ${c.status}:\n${c.stderr}`);
  const byPath = new Map();
  for (const s of JSON.parse(c.stdout).scenarios) {
    byPath.set(s.path, { got: s.got ?? "pass", class: s.class ? JSON.stringify(s.class) : null, skipped: s.skipped });
  }
  return byPath;
}

const verdictText = (v) => (v.got === "pass" ? "pass" : `${v.got} ${v.class ?? "(no class)"}`);

const dir = mkdtempSync(join(tmpdir(), "reconcile-sim-agreement-"));
const out = mkdtempSync(join(tmpdir(), "reconcile-sim-agreement-out-")); // run/check write failures here
try {
  const run = promisify(execFile);
  const ran = new Map();
  let next = seedStart;
  const worker = async () => {
    while (next < seedStart + seeds) {
      const seed = next++;
      const { stdout } = await run(bin, ["run", "--store", keep, "--seed", String(seed), "--json", "--max-shrink-iters", "0", "--out", out], {
        maxBuffer: 1 << 28,
      }).catch((e) => (e.code === 1 ? e : Promise.reject(e))); // exit 1: the run found a violation
      const r = JSON.parse(stdout);
      const verdict = r.outcome.verdict === "fail" ? r.outcome.invariant : "pass";
      ran.set(seed, verdict);
      const scenario = { version: 1, description: `${keep} seed ${seed}`, store: keep, seed, expect: verdict === "pass" ? null : verdict, config: r.config, steps: r.steps };
      writeFileSync(join(dir, `seed-${String(seed).padStart(6, "0")}.json`), JSON.stringify(scenario));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));

  const extra = [...(keep === "membership" ? ["membership"] : []), ...(history ? [] : ["no-history"])];
  const store = `exec:reconcile-sim-adapter adapter.ts${extra.length > 0 ? ` -- ${extra.join(" ")}` : ""}`;
  const env = { ...process.env, PATH: `${binDir()}:${process.env.PATH}` };
  if (spaced) env.RECONCILE_SIM_ADAPTER_DELTA_PREFIX = " ";
  else delete env.RECONCILE_SIM_ADAPTER_DELTA_PREFIX;
  const builtIn = replay(keep, dir, out, process.env);
  const example = replay(store, dir, out, env);

  const differ = [];
  let harness = 0;
  for (const [path, b] of builtIn) {
    const seed = Number(/seed-(\d+)/.exec(path)[1]);
    if (b.got !== ran.get(seed)) {
      harness++;
      console.log(`  seed ${seed}: the built-in run gave ${ran.get(seed)}, its replay ${b.got} (harness inconsistency)`);
    }
    const e = example.get(path);
    if (!e || e.got !== b.got || e.class !== b.class || e.skipped > 0) differ.push({ seed, b, e });
  }
  const agree = builtIn.size - differ.length;
  console.log(`${store} vs --store ${keep}, deltas ${spaced ? "joined with a space" : "verbatim"}, seeds ${seedStart}..${seedStart + seeds}: ${agree}/${builtIn.size} seeds agree (invariant and class)`);
  const failing = new Map();
  for (const b of builtIn.values()) if (b.got !== "pass") failing.set(b.got, (failing.get(b.got) ?? 0) + 1);
  const total = [...failing.values()].reduce((a, n) => a + n, 0);
  const per = [...failing].sort().map(([inv, n]) => `${inv} ${n}`).join(", ");
  const classes = new Set([...builtIn.values()].filter((b) => b.class).map((b) => b.class)).size;
  console.log(`  the built-in store fails on ${total} of these seeds (${per || "none"}; ${classes} classes)`);
  for (const { seed, b, e } of differ) {
    console.log(`  seed ${seed}: built-in ${verdictText(b)}; example ${e ? verdictText(e) : "missing"}${e?.skipped ? ` (${e.skipped} steps skipped)` : ""}`);
  }
  process.exitCode = harness > 0 || builtIn.size !== seeds ? 2 : differ.length === 0 ? 0 : 1;
} catch (e) {
  console.error(`agreement: ${e.stack ?? e}`);
  process.exitCode = 2;
} finally {
  rmSync(dir, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
}

/** The nearest `node_modules/.bin` above this directory holding reconcile-sim-adapter (the workspace root's, in the repository). */
function binDir() {
  for (let dir = process.cwd(); ; dir = dirname(dir)) {
    const bin = join(dir, "node_modules", ".bin");
    if (existsSync(join(bin, "reconcile-sim-adapter"))) return bin;
    if (dirname(dir) === dir) throw new Error("reconcile-sim-adapter is not installed: run npm ci at the repository root");
  }
}
