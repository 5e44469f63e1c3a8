// Deliberately faulty (or merely unusual) exec adapters, for sim/tests/it/exec.rs:
// `node faulty.js MODE`.
//
// Each fault mode behaves exactly like the reference `current` store (adapters/node) until
// the first `turn-start` event reaches it (or, for the handshake modes, from the start),
// and then commits one fault. The harness must report each as a `crash` finding with its
// own cause, the scenario so far and the stderr tail, kill the process (and everything it
// started), and never hang.
//
//   exit           prints to stderr and exits with status 3
//   hang           stops answering (sleeps for an hour)
//   garbage        answers a line that is not JSON
//   wrong-type     answers {"type":"reset"} to an input
//   no-render      answers an output without "render"
//   bad-effect     answers an effect the protocol does not have
//   extra-line     answers twice (caught at the next input by the id check)
//   throw          the store throws: an "error" answer (the process stays usable)
//   close-stdout   closes its stdout and lives on
//   grandchild     starts a grandchild that holds stdout open, then exits with status 5
//   bad-version    answers hello with protocol 99
//   no-hello       answers hello with an output
//   die-on-load    exits before reading anything (like a syntax error in the store)
//
// And modes that are not faults:
//
//   slow-start     sleeps 3 s before it reads anything, then is the `current` store
//   leak           the `durable` store (which passes every run), keeping a counter across
//                  `reset` (a state leak): from its second run in a process on, its render
//                  has one more live row, so a run's verdict depends on what the process
//                  served before, and every failure it shows is the leak's
//   boot           announces the `boot` feature: every new store asks for a fetch at once
//                  (request 1, answered by a reconcile like any other)
//   boot-unannounced  the same effects on reset without announcing `boot` (ignored by
//                  the harness, as before the extension)
//   pid-file FILE  the `current` store; the first process writes its pid to FILE (so a
//                  test can kill it while it idles in the pool)
//   state          announces the `state` feature and answers `state` with the store's digest
//   clock          the `current` store; its hello states a virtual-clock setting (`clock`)
//   slow [START_MS [EVERY_MS [N]]]
//                  the `durable` store (which passes), slow: sleeps START_MS (default 3000) before it reads
//                  anything, and EVERY_MS (default 1000) before answering every Nth input
//                  (default 50) the process is given, counted across runs (issue 11's slow
//                  store: which run meets the slow input depends on what the process served
//                  before, so a timeout there does not happen again on replay)
//   affinity FILE  the `durable` store (which passes); appends the CPUs its main thread may run on to FILE
//                  when it starts ("start 0-1") and at the second input of each run
//                  ("input 0"), when the harness has had the answer to the first (so a
//                  test sees where the harness put it, starting and started)
//   random-ids     the `current` store, but every live row's id gets a random suffix: its
//                  verdicts are right, its renders differ from run to run (nondeterministic)

"use strict";

const childProcess = require("child_process");
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const { makeStore } = require(path.join(__dirname, "../../../adapters/node/tabs.js"));
const { makeDurable } = require(path.join(__dirname, "../../../adapters/node/durable.js"));

const mode = process.argv[2];
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
process.stderr.write(`faulty adapter starting in mode ${mode}\n`);
if (mode === "die-on-load") {
  process.stderr.write("ReferenceError: storeModule is not defined\n");
  process.exit(1);
}
if (mode === "slow-start") sleep(3000);
const slowArgs = process.argv.slice(3).map(Number);
const slow = mode === "slow" ? { start: slowArgs[0] ?? 3000, every: slowArgs[1] ?? 1000, n: slowArgs[2] ?? 50 } : null;
if (slow !== null) sleep(slow.start);
let inputs = 0;
let runInputs = 0;
const cpus = () => (fs.readFileSync("/proc/self/status", "utf8").match(/Cpus_allowed_list:\s*(\S+)/) || [])[1];
if (mode === "affinity") fs.appendFileSync(process.argv[3], `start ${cpus()}\n`);
if (mode === "pid-file") {
  try {
    fs.writeFileSync(process.argv[3], String(process.pid), { flag: "wx" });
  } catch (e) {
    // not the first process
  }
}

const FAULTS = ["exit", "hang", "garbage", "wrong-type", "no-render", "bad-effect", "extra-line", "throw", "close-stdout", "grandchild"];
const features = { boot: ["boot"], state: ["state"] }[mode];
let requestId = null;
const out = (obj) => fs.writeSync(1, (typeof obj === "string" ? obj : JSON.stringify({ ...obj, id: requestId })) + "\n");
let store = null;
let resets = 0;

function render() {
  let rows = store.render();
  if (mode === "random-ids") {
    rows = rows.map((r) => (r.from === "live" ? { ...r, id: `${r.id}-${Math.random().toString(36).slice(2, 8)}` } : r));
  }
  if (mode === "leak" && resets > 1) rows.push({ from: "live", id: `leak-${resets}`, role: "assistant", text: `leaked:${resets}` });
  return rows;
}

function answer(msg) {
  requestId = msg.id;
  if (msg.type === "hello") {
    if (mode === "bad-version") return out({ type: "hello", protocol: 99 });
    if (mode === "no-hello") return out({ type: "output", effects: [], render: [] });
    const clock = mode === "clock" ? { clock: "timers run when due; the clock moves 250 ms per input" } : {};
    return out({ type: "hello", protocol: 1, name: `faulty:${mode}`, ...(features ? { features } : {}), ...clock });
  }
  if (msg.type === "reset") {
    store = mode === "slow" || mode === "affinity" || mode === "leak" ? makeDurable() : makeStore("current");
    runInputs = 0;
    resets += 1; // never reset: the leak
    if (mode === "boot" || mode === "boot-unannounced") {
      const request = store.nextRequest++;
      store.inFlight.set(request, null);
      process.stderr.write(`boot: fetch f${request}\n`);
      return out({ type: "reset", effects: [{ effect: "fetch", request_id: request }], render: render() });
    }
    return out({ type: "reset" });
  }
  if (msg.type === "state") {
    return out({ type: "state", digest: crypto.createHash("sha256").update(store.digest()).digest("hex") });
  }
  const input = msg.input;
  inputs += 1;
  runInputs += 1;
  if (mode === "affinity" && runInputs === 2) fs.appendFileSync(process.argv[3], `input ${cpus()}\n`);
  if (slow !== null && inputs % slow.n === 0) process.stderr.write(`slow: input ${inputs} of this process, sleeping ${slow.every} ms\n`);
  if (input.input === "event" && input.event.type === "turn-start" && FAULTS.includes(mode)) {
    process.stderr.write(`fault '${mode}' on turn-start t${input.event.turn_id}\n`);
    switch (mode) {
      case "exit":
        process.exit(3);
      case "hang":
        sleep(3600 * 1000);
        return;
      case "garbage":
        return out("this is not json");
      case "wrong-type":
        return out({ type: "reset" });
      case "no-render":
        return out({ type: "output", effects: [] });
      case "bad-effect":
        return out({ type: "output", effects: [{ effect: "teleport" }], render: [] });
      case "extra-line":
        store.handle(input);
        out({ type: "output", effects: [], render: render() });
        return out({ type: "output", effects: [], render: render() });
      case "throw":
        return out({ type: "error", message: "TypeError: cannot read properties of undefined (reading 'turnId')\n    at handleEvent (tabs.svelte.ts:42:7)" });
      case "close-stdout":
        fs.closeSync(1);
        sleep(3600 * 1000);
        return;
      case "grandchild": {
        const child = childProcess.spawn("sleep", ["300"], { stdio: "inherit" });
        process.stderr.write(`grandchild ${child.pid}\n`);
        process.exit(5);
      }
    }
  }
  if (slow !== null && inputs % slow.n === 0) sleep(slow.every);
  const effects = store.handle(input);
  return out({ type: "output", effects, render: render() });
}

const buf = Buffer.alloc(1 << 16);
let pending = "";
for (;;) {
  const n = fs.readSync(0, buf, 0, buf.length, null);
  if (n === 0) process.exit(0);
  pending += buf.toString("utf8", 0, n);
  let nl;
  while ((nl = pending.indexOf("\n")) !== -1) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    answer(JSON.parse(line));
  }
}
