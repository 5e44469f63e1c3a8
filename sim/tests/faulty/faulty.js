// Deliberately faulty exec adapters, for sim/tests/exec.rs: `node faulty.js MODE`.
//
// Each mode behaves exactly like the reference `current` store (adapters/node) until the
// first `turn-start` event reaches it (or, for the handshake modes, from the start), and
// then commits one fault. The harness must report each as a `crash` finding with the
// scenario so far and the stderr tail, kill the process, and never hang.
//
//   exit           prints to stderr and exits with status 3
//   hang           stops answering (sleeps for an hour)
//   garbage        answers a line that is not JSON
//   wrong-type     answers {"type":"reset"} to an input
//   no-render      answers an output without "render"
//   bad-effect     answers an effect the protocol does not have
//   extra-line     answers twice (caught at the next input by the id check)
//   throw          the store throws: an "error" answer (the process stays usable)
//   bad-version    answers hello with protocol 99
//   no-hello       answers hello with an output
//   die-on-load    exits before reading anything (like a syntax error in the store)

"use strict";

const fs = require("fs");
const path = require("path");
const { makeStore } = require(path.join(__dirname, "../../../adapters/node/tabs.js"));

const mode = process.argv[2];
process.stderr.write(`faulty adapter starting in mode ${mode}\n`);
if (mode === "die-on-load") {
  process.stderr.write("ReferenceError: storeModule is not defined\n");
  process.exit(1);
}

let requestId = null;
const out = (obj) => fs.writeSync(1, (typeof obj === "string" ? obj : JSON.stringify({ ...obj, id: requestId })) + "\n");
let store = null;

function answer(msg) {
  requestId = msg.id;
  if (msg.type === "hello") {
    if (mode === "bad-version") return out({ type: "hello", protocol: 99 });
    if (mode === "no-hello") return out({ type: "output", effects: [], render: [] });
    return out({ type: "hello", protocol: 1, name: `faulty:${mode}` });
  }
  if (msg.type === "reset") {
    store = makeStore("current");
    return out({ type: "reset" });
  }
  const input = msg.input;
  if (input.input === "event" && input.event.type === "turn-start") {
    process.stderr.write(`fault '${mode}' on turn-start t${input.event.turn_id}\n`);
    switch (mode) {
      case "exit":
        process.exit(3);
      case "hang":
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3600 * 1000);
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
        out({ type: "output", effects: [], render: store.render() });
        return out({ type: "output", effects: [], render: store.render() });
      case "throw":
        return out({ type: "error", message: "TypeError: cannot read properties of undefined (reading 'turnId')" });
    }
  }
  const effects = store.handle(input);
  return out({ type: "output", effects, render: store.render() });
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
