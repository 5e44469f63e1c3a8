#!/usr/bin/env node
// The reference adapter: `node adapters/node/store.js VARIANT`, where VARIANT is one of
// the note's stores (current, membership, naive, fix-a, fix-ab, fix-abc, canary).
// Speaks docs/protocol.md on stdin/stdout; used as
//   reconcile-sim fuzz --store exec:'node adapters/node/store.js current' --seeds 1000

"use strict";

const { serve } = require("./protocol");
const { makeStore, VARIANTS } = require("./tabs");

const variant = process.argv[2];
if (makeStore(variant) === undefined) {
  process.stderr.write(`usage: node store.js VARIANT (one of: ${VARIANTS.join(", ")}); got ${JSON.stringify(variant)}\n`);
  process.exit(2);
}
serve({ name: `node:${variant}`, makeStore: () => makeStore(variant) });
