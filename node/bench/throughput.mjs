// Throughput of the engine inside Node against the CLI, measured in one run (the
// machines are shared: only ratios taken side by side mean anything):
//
//   node bench/throughput.mjs [SEEDS] [ROUNDS]     (default 2000 seeds, 2 rounds)
//
// Rows: the Svelte example's store (examples/svelte, its mapping adapter.ts) through
// `exec:` (`fuzz --jobs 2`) and in process (1 and 2 workers); the Node reference store
// (adapters/node, `current`) in process against the Rust `current` (`--jobs 1`). Each
// round runs every row once, in order; the table gives each row's median wall time and
// its ratio to the in-process row it is compared with. Needs the CLI ($RECONCILE_SIM,
// default ../target/release/reconcile-sim) and the engine built.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { drive, fuzz } from "../index.js";

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const root = dirname(here);
const cli = process.env.RECONCILE_SIM ?? join(root, "target", "release", "reconcile-sim");
const seeds = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 2);
const example = join(root, "examples", "svelte");
const require = createRequire(import.meta.url);
const { Engine } = require("../native.cjs").load();
const { makeResponder } = require(join(root, "adapters", "node", "protocol.js"));
const tabs = require(join(root, "adapters", "node", "tabs.js"));
const now = () => Number(process.hrtime.bigint()) / 1e9;

function cliRun(args, cwd) {
  const out = mkdtempSync(join(tmpdir(), "bench-"));
  const t = now();
  const r = spawnSync(cli, [...args, "--out", out], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, PATH: `${join(root, "node_modules", ".bin")}:${process.env.PATH}` },
  });
  const s = now() - t;
  rmSync(out, { recursive: true, force: true });
  if (r.status !== 0 && r.status !== 1) throw new Error(`${args.join(" ")}: exit ${r.status}\n${r.stderr}`);
  return s;
}

async function inProcess(workers) {
  const out = mkdtempSync(join(tmpdir(), "bench-"));
  const t = now();
  await fuzz({ adapter: "adapter.ts", cwd: example, seeds, workers, out });
  const s = now() - t;
  rmSync(out, { recursive: true, force: true });
  return s;
}

async function referenceInProcess() {
  const out = mkdtempSync(join(tmpdir(), "bench-"));
  const t = now();
  const engine = new Engine(JSON.stringify({ command: "fuzz", store: "exec:node adapters/node/store.js current", dir: root, seeds, out }));
  await drive(engine, async () => ({ respond: makeResponder({ name: "node:current", makeStore: () => tabs.makeStore("current"), features: ["state"] }) }));
  const s = now() - t;
  rmSync(out, { recursive: true, force: true });
  return s;
}

const rows = [
  ["svelte example, exec: (fuzz --jobs 2)", () => cliRun(["fuzz", "--store", "exec:reconcile-sim-adapter adapter.ts", "--seeds", String(seeds), "--jobs", "2"], example), "svelte in process, 1 worker"],
  ["svelte in process, 1 worker", () => inProcess(1), null],
  ["svelte in process, 2 workers", () => inProcess(2), "svelte in process, 1 worker"],
  ["Rust current (fuzz --jobs 1)", () => cliRun(["fuzz", "--store", "current", "--seeds", String(seeds), "--jobs", "1"], root), null],
  ["reference store (node) in process, 1 worker", referenceInProcess, "Rust current (fuzz --jobs 1)"],
];
const times = new Map(rows.map(([name]) => [name, []]));
for (let r = 0; r < rounds; r++) {
  for (const [name, run] of rows) times.get(name).push(await run());
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${seeds} seeds, ${rounds} rounds, medians (wall s)`);
for (const [name, , against] of rows) {
  const m = median(times.get(name));
  const ratio = against === null ? "" : `  ${(m / median(times.get(against))).toFixed(2)}× ${against}`;
  console.log(`${name.padEnd(46)} ${m.toFixed(2).padStart(7)}${ratio}`);
}
