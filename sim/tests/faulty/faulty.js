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
//   leak           keeps a counter across `reset` (a state leak): from its second run in a
//                  process on, its render has one more live row, so a run's verdict
//                  depends on what the process served before
//   boot           announces the `boot` feature: every new store asks for a fetch at once
//                  (request 1, answered by a reconcile like any other)
//   boot-unannounced  the same effects on reset without announcing `boot` (ignored by
//                  the harness, as before the extension)
//   pid-file FILE  the `current` store; the first process writes its pid to FILE (so a
//                  test can kill it while it idles in the pool)
//   state          announces the `state` feature and answers `state` with the store's digest

"use strict";

const childProcess = require("child_process");
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const { makeStore } = require(path.join(__dirname, "../../../adapters/node/tabs.js"));

const mode = process.argv[2];
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
process.stderr.write(`faulty adapter starting in mode ${mode}\n`);
if (mode === "die-on-load") {
  process.stderr.write("ReferenceError: storeModule is not defined\n");
  process.exit(1);
}
if (mode === "slow-start") sleep(3000);
if (mode === "pid-file") {
  try {
    fs.writeFileSync(process.argv[3], String(process.pid), { flag: "wx" });
  } catch (e) {
    // not the first process
  }
}

const features = { boot: ["boot"], state: ["state"] }[mode];
let requestId = null;
const out = (obj) => fs.writeSync(1, (typeof obj === "string" ? obj : JSON.stringify({ ...obj, id: requestId })) + "\n");
let store = null;
let resets = 0;

function render() {
  const rows = store.render();
  if (mode === "leak" && resets > 1) rows.push({ from: "live", id: `leak-${resets}`, role: "assistant", text: `leaked:${resets}` });
  return rows;
}

function answer(msg) {
  requestId = msg.id;
  if (msg.type === "hello") {
    if (mode === "bad-version") return out({ type: "hello", protocol: 99 });
    if (mode === "no-hello") return out({ type: "output", effects: [], render: [] });
    return out({ type: "hello", protocol: 1, name: `faulty:${mode}`, ...(features ? { features } : {}) });
  }
  if (msg.type === "reset") {
    store = makeStore("current");
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
  if (input.input === "event" && input.event.type === "turn-start") {
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
