#!/usr/bin/env node
// A slow but correct adapter, for the tests of time budgets, progress and Ctrl-C
// (sim/tests/it/robust.rs): `node slow.js MS VARIANT` is the reference adapter's VARIANT
// (adapters/node) taking MS milliseconds over every input, as a store that renders
// through a real UI framework might. Slow is not a fault: every answer is right.

"use strict";

const path = require("path");
const node = path.join(__dirname, "../../../adapters/node");
const { serve } = require(path.join(node, "protocol.js"));
const tabs = require(path.join(node, "tabs.js"));
const { makeDurable } = require(path.join(node, "durable.js"));

const ms = Number(process.argv[2]);
const variant = process.argv[3];
const make = () => (variant === "durable" ? makeDurable() : tabs.makeStore(variant));
if (!Number.isFinite(ms) || ms < 0 || make() === undefined) {
  process.stderr.write(`usage: node slow.js MS VARIANT; got ${JSON.stringify(process.argv.slice(2))}\n`);
  process.exit(2);
}
const sleep = (t) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, t);
// With RECONCILE_SIM_SLOW_READY=DIR, the adapter writes DIR/PID when it handles its first
// input: the tests signal a run only once it is under way, not while an adapter is still
// starting (a signal then stops the store before it ran anything, and there is no trace).
const ready = process.env.RECONCILE_SIM_SLOW_READY;
let saidReady = false;

serve({
  name: `slow:${ms}ms:${variant}`,
  makeStore: () => {
    const store = make();
    return {
      handle(input) {
        if (ready && !saidReady) {
          saidReady = true;
          require("fs").writeFileSync(path.join(ready, String(process.pid)), "");
        }
        sleep(ms);
        return store.handle(input);
      },
      render: () => store.render(),
    };
  },
});
