// The engine inside Node against the CLI with `exec:`: the same seeds give the same table
// and byte-identical scenario files; an adapter that throws is a crash of the run; bad
// commands are clear errors. Needs the workspace installed (`npm ci` at the root), the engine
// built (`npm run build -w node`) and the CLI ($RECONCILE_SIM, default
// ../target/checked/reconcile-sim).

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { assertGate, check, drive, execStore, fuzz } from "../index.js";

// Printed commands name the CLI alike in process and from the spawned binary.
process.env.RECONCILE_SIM_INVOKED_AS = "reconcile-sim";
const require = createRequire(import.meta.url);
const { Engine } = require("../native.cjs").load();
const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const cli = process.env.RECONCILE_SIM ?? join(root, "target", "checked", "reconcile-sim");
const { makeResponder } = require(join(root, "adapters", "node", "protocol.js"));
const tabs = require(join(root, "adapters", "node", "tabs.js"));
const { makeDurable } = require(join(root, "adapters", "node", "durable.js"));

const scratch = () => mkdtempSync(join(tmpdir(), "reconcile-sim-node-"));

/**
 * The reference adapter's responder for `variant`, as `adapters/node/store.js` serves it
 * (its store named `node:<variant>`, unless `name` says otherwise).
 */
const reference = (variant, name = `node:${variant}`) => async () => ({
  respond: makeResponder({ name, makeStore: () => tabs.makeStore(variant), features: ["state"] }),
});

/** Every file of `dir`, name → bytes (the CLI also writes its details file: left out). */
function files(dir) {
  const out = {};
  for (const name of readdirSync(dir).sort()) {
    if (name !== "fuzz-details.txt") out[name] = readFileSync(join(dir, name), "utf8");
  }
  return out;
}

test("the reference store in process gives the CLI's exec: table and byte-identical scenario files", async () => {
  const inside = scratch();
  const outside = scratch();
  try {
    const store = "exec:node adapters/node/store.js fix-ab";
    const engine = new Engine(JSON.stringify({ command: "fuzz", store, dir: root, seeds: 150, out: inside }));
    const result = await drive(engine, reference("fix-ab"));
    const ran = spawnSync(cli, ["fuzz", "--store", store, "--seeds", "150", "--jobs", "1", "--out", outside], { cwd: root, encoding: "utf8" });
    assert.equal(ran.status, 1, ran.stderr);
    const printed = ran.stdout;
    const table = printed.split("\n").slice(0, 3).join("\n") + "\n";
    assert.equal(result.table.split("\n").slice(0, 3).join("\n") + "\n", table);
    assert.equal(result.failed, true, "fix-ab fails some seeds");
    const saved = files(inside);
    assert.ok(Object.keys(saved).length > 0, "failures were saved");
    assert.deepEqual(saved, files(outside));
  } finally {
    rmSync(inside, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});

test("a store that passes in process passes, and nothing is saved", async () => {
  const out = scratch();
  try {
    const engine = new Engine(JSON.stringify({ command: "fuzz", store: "exec:node adapters/node/store.js durable", dir: root, seeds: 40, out }));
    const { makeDurable } = require(join(root, "adapters", "node", "durable.js"));
    const result = await drive(engine, async () => ({
      respond: makeResponder({ name: "node:durable", makeStore: () => makeDurable(), features: ["state"] }),
    }));
    assert.equal(result.failed, false, result.table);
    assert.equal(result.runs, 40);
    assert.deepEqual(readdirSync(out), []);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test("an adapter that throws crashes the runs it serves, with its words", async () => {
  const out = scratch();
  try {
    const engine = new Engine(JSON.stringify({ command: "fuzz", store: "exec:node adapters/node/store.js current", dir: root, seeds: 3, out, noClasses: true }));
    let made = 0;
    const result = await drive(engine, async () => {
      made += 1;
      const inner = await reference("current")();
      return {
        respond(msg) {
          if (msg.type === "input" && msg.input.input === "user-send") throw new Error("the mapping broke");
          return inner.respond(msg);
        },
      };
    });
    assert.equal(result.failed, true);
    const row = result.table.split("\n")[2];
    assert.match(row, /3\/3\s+\d+ \(crash\)$/, result.table);
    assert.ok(made >= 1);
    assert.match(JSON.stringify(result.result), /the adapter failed: Error: the mapping broke/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test("bad commands are errors that say what is wrong, and a finished engine says so", async () => {
  assert.throws(() => new Engine("{"), /bad engine command/);
  assert.throws(() => new Engine(JSON.stringify({ command: "explore", store: "exec:x", seeds: 1 })), /unknown command 'explore' \(the engine runs: fuzz, check, report\)/);
  assert.throws(() => new Engine(JSON.stringify({ command: "fuzz", store: "exec:x", seeds: 0 })), /seeds 0 runs nothing/);
  assert.throws(() => new Engine(JSON.stringify({ command: "fuzz", store: "current", seeds: 1 })), /bad exec store 'current': it does not start with 'exec:'/);
  const engine = new Engine(JSON.stringify({ command: "fuzz", store: "exec:node adapters/node/store.js current", dir: root, seeds: 1, out: scratch() }));
  await drive(engine, reference("current"));
  assert.throws(() => engine.next(null, null), /the engine's command is over/);
});

test("a worker waiting for the others' failures stops with the reason when the meeting is abandoned", async () => {
  const native = require("../native.cjs").load();
  const meeting = native.openMeeting(2);
  const out = scratch();
  try {
    assert.throws(
      () => new Engine(JSON.stringify({ command: "fuzz", store: CURRENT, dir: root, seeds: 100, out, meeting })),
      /a meeting is for a shard of a parallel fuzz/,
    );
    assert.throws(
      () => new Engine(JSON.stringify({ command: "fuzz", store: CURRENT, dir: root, seeds: 100, out, shard: [1, 2], meeting: 999999 })),
      /no meeting 999999 is open/,
    );
    // Shard 1 runs here; shard 2's worker "dies": another thread abandons the meeting,
    // before or after shard 1 comes to it (this thread is blocked while it waits).
    const engine = new Engine(JSON.stringify({ command: "fuzz", store: CURRENT, dir: root, seeds: 100, out, shard: [1, 2], meeting }));
    const other = new Worker(
      `const { load } = require(${JSON.stringify(join(root, "node", "native.cjs"))});
       load().abandonMeeting(${meeting}, "worker 2 exited with code 1");`,
      { eval: true },
    );
    await new Promise((done, failed) => other.once("exit", done).once("error", failed));
    await assert.rejects(drive(engine, reference("current")), /worker 2 exited with code 1/);
  } finally {
    native.closeMeeting(meeting);
    rmSync(out, { recursive: true, force: true });
  }
});

test("the shrinking limits are the CLI's: one replay per failure leaves its scenarios not 1-minimal", async () => {
  const runs = [];
  for (const limit of [{}, { maxShrinkIters: 1 }]) {
    const out = scratch();
    try {
      const command = { command: "fuzz", store: CURRENT, dir: root, seeds: 40, noClasses: true, out, ...limit };
      const result = await drive(new Engine(JSON.stringify(command)), reference("current"));
      runs.push(result.result.scenarios.map((s) => s.one_minimal));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }
  const [unlimited, limited] = runs;
  assert.ok(unlimited.length > 0 && unlimited.every((m) => m === true), JSON.stringify(unlimited));
  assert.equal(limited.length, unlimited.length);
  assert.ok(limited.every((m) => m === false), JSON.stringify(limited));
  assert.throws(() => new Engine(JSON.stringify({ command: "fuzz", store: CURRENT, seeds: 1, maxShrinkTime: "5s" })), /unknown field `maxShrinkTime`/);
});

test("the exec: store a mapping's options name is the command line that serves it", () => {
  assert.equal(execStore({ adapter: "adapter.ts" }), "exec:reconcile-sim-adapter adapter.ts");
  assert.equal(
    execStore({ adapter: "my dir/adapter.ts", freshModule: true, args: ["membership"] }),
    "exec:reconcile-sim-adapter 'my dir/adapter.ts' --fresh-module -- membership",
  );
});

test("the Svelte example's mapping in process gives the CLI's exec: table and byte-identical scenario files", async () => {
  const example = join(root, "examples", "svelte");
  const bin = join(root, "node_modules", ".bin");
  assert.ok(existsSync(join(bin, "reconcile-sim-adapter")), `run npm ci in ${root} first`);
  const inside = scratch();
  const outside = scratch();
  try {
    const [realTimeout, RealDate, realRandom] = [globalThis.setTimeout, globalThis.Date, Math.random];
    const result = await fuzz({ adapter: "adapter.ts", cwd: example, seeds: 60, out: inside });
    // The test runner's own timers, clock and random are back once the command is over.
    assert.equal(globalThis.setTimeout, realTimeout);
    assert.equal(globalThis.Date, RealDate);
    assert.equal(Math.random, realRandom);
    await new Promise((done) => setTimeout(done, 5));
    const ran = spawnSync(cli, ["fuzz", "--store", "exec:reconcile-sim-adapter adapter.ts", "--seeds", "60", "--jobs", "1", "--out", outside], {
      cwd: example,
      encoding: "utf8",
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    assert.equal(ran.status, 1, ran.stderr);
    assert.equal(result.settings + result.table, ran.stdout.split("\n").slice(0, 4).join("\n") + "\n");
    const saved = files(inside);
    assert.ok(Object.keys(saved).length > 0, "failures were saved");
    assert.deepEqual(saved, files(outside));
    // On two worker threads (a shard each, merged): the same table and files.
    const parallel = scratch();
    try {
      const two = await fuzz({ adapter: "adapter.ts", cwd: example, seeds: 60, workers: 2, out: parallel });
      assert.equal(two.settings + two.table, result.settings + result.table);
      assert.equal(two.runs, 60);
      assert.deepEqual(files(parallel), saved);
    } finally {
      rmSync(parallel, { recursive: true, force: true });
    }
  } finally {
    rmSync(inside, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});

test("one name per exec store: a baseline the CLI made gates the engine, and one the engine made gates the CLI", async () => {
  // The CLI started as a shell user starts it (the adapter by its path in node_modules/.bin),
  // the engine as vitest does (`reconcile-sim-adapter adapter.ts`): two command lines, one
  // store, which its adapter names `js:adapter.ts` in both. Before it was named by the
  // command line, and neither baseline was one of the other's store.
  const example = join(root, "examples", "svelte");
  const shell = `exec:${join(root, "node_modules", ".bin", "reconcile-sim-adapter")} adapter.ts`;
  const [empty, byCli, byEngine, out] = [scratch(), scratch(), scratch(), scratch()];
  const cliCheck = (args) =>
    spawnSync(cli, ["check", "--store", shell, "--scenarios", empty, "--allow-empty", "--seeds", "60", "--jobs", "1", "--no-check-determinism", "--json", ...args], {
      cwd: example,
      encoding: "utf8",
    });
  const witnesses = (dir) => readdirSync(dir).filter((f) => f.endsWith(".json"));
  try {
    const made = cliCheck(["--out", byCli]);
    assert.equal(made.status, 1, made.stderr);
    assert.ok(witnesses(byCli).length > 0, "the CLI saved the classes it found");
    for (const f of witnesses(byCli)) {
      assert.match(f, /^js_adapter\.ts-/, "named by the name the adapter states");
      const sc = JSON.parse(readFileSync(join(byCli, f), "utf8"));
      assert.equal(sc.store, shell);
      assert.equal(sc.store_name, "js:adapter.ts");
    }
    const options = { adapter: "adapter.ts", cwd: example, scenarios: empty, allowEmpty: true, seeds: 60, noCheckDeterminism: true, out };
    const engine = await check({ ...options, known: byCli });
    assert.equal(engine.failed, false, engine.text);
    assert.equal(engine.result.scenarios.length, witnesses(byCli).length);
    assert.ok(engine.result.scenarios.every((s) => s.verdict === "known"), engine.text);

    const found = await fuzz({ adapter: "adapter.ts", cwd: example, seeds: 60, out: byEngine });
    assert.equal(found.failed, true);
    assert.deepEqual(witnesses(byEngine), witnesses(byCli), "the same files, named alike");
    const gated = cliCheck(["--known", byEngine, "--out", out]);
    assert.equal(gated.status, 0, gated.stdout + gated.stderr);
    const report = JSON.parse(gated.stdout);
    assert.ok(report.scenarios.length > 0 && report.scenarios.every((s) => s.verdict === "known"), gated.stdout);
  } finally {
    for (const d of [empty, byCli, byEngine, out]) rmSync(d, { recursive: true, force: true });
  }
});

const CURRENT = "exec:node adapters/node/store.js current";

test("a new project's gate needs no scenarios folder; a folder named that is not there is an error", async () => {
  const dir = scratch();
  try {
    const missing = join(dir, "scenarios");
    const command = { command: "check", store: "exec:node adapters/node/store.js durable", dir: root, scenarios: missing, seeds: 40, out: join(dir, "out") };
    const durable = async () => ({ respond: makeResponder({ name: "node:durable", makeStore: () => makeDurable(), features: ["state"] }) });
    const r = await drive(new Engine(JSON.stringify(command)), durable);
    assert.equal(r.failed, false, r.text);
    assert.ok(r.text.startsWith(`scenarios: none (no ${missing} folder here; --scenarios DIR replays a folder of them)\n`), r.text);
    await assert.rejects(
      async () => drive(new Engine(JSON.stringify({ ...command, scenariosNamed: true })), durable),
      /cannot read the scenarios directory/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * `check` through the engine on the store named `current` (its command line and the name its
 * adapter states), served by `variant` (a bug planted when it is another).
 */
async function gate(variant, known, out) {
  const command = { command: "check", store: CURRENT, dir: root, scenarios: known, known, seeds: 200, out };
  return drive(new Engine(JSON.stringify(command)), reference(variant, "node:current"));
}

test("the gate in process passes a store with only its known classes and names a new one, as the CLI does", async () => {
  const known = scratch();
  const out = scratch();
  try {
    // The baseline: the classes fuzzing finds on the store, saved as witnesses.
    const found = await drive(new Engine(JSON.stringify({ command: "fuzz", store: CURRENT, dir: root, seeds: 200, out: known })), reference("current"));
    assert.equal(found.failed, true);
    const passing = await gate("current", known, out);
    assert.equal(passing.failed, false, passing.text);
    assert.match(passing.text, /known classes: \d+ (.|\n)*check: PASS\n$/);
    await assertGate(passing);
    const ran = spawnSync(cli, ["check", "--store", CURRENT, "--scenarios", known, "--known", known, "--seeds", "200", "--jobs", "1", "--out", out], {
      cwd: root,
      encoding: "utf8",
    });
    assert.equal(ran.status, 0, ran.stdout + ran.stderr);
    assert.equal(passing.text, ran.stdout);
    // Bug A planted back (the note's `naive` store behind the same name): red, naming the class.
    const failing = await gate("naive", known, out);
    assert.equal(failing.failed, true);
    assert.match(failing.text, /NEW class queued row \(bound to no turn\) disappears at a fetch response/);
    assert.match(failing.text, /NEW class on exec:node adapters\/node\/store\.js current: .*\n.*\n +replay: .*replay /);
    await assert.rejects(assertGate(failing), /reconcile-sim: the gate failed\n(.|\n)*NEW class(.|\n)*check: FAIL/);
    // Each new class's HTML page, as the vitest gate names it: written beside its scenario.
    const files = failing.found.map((f) => f.path);
    const pages = await drive(new Engine(JSON.stringify({ command: "report", store: CURRENT, dir: root, files })), reference("naive"));
    assert.equal(pages.reports.length, files.length);
    for (const p of pages.reports) {
      assert.equal(p.page, p.file.replace(/\.json$/, ".html"), JSON.stringify(p));
      assert.match(readFileSync(p.page, "utf8"), /✗ FAIL: <span class="invariant">/);
    }
  } finally {
    rmSync(known, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
});
