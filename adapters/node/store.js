#!/usr/bin/env node
// The reference adapter: `node adapters/node/store.js [--async] VARIANT`, where VARIANT is one of
// the note's stores (current, membership, naive, fix-a, fix-ab, fix-abc, canary) or `durable`
// (durable.js, the store that keeps a live row until a snapshot proves it durable) in one of
// its render policies: `durable` (in place), `durable-arrival`, `durable-db-order`.
// Speaks docs/protocol.md on stdin/stdout; used as
//   reconcile-sim fuzz --store exec:'node adapters/node/store.js current' --seeds 1000
// `--world SETTING` (repeatable) declares the backend's contract in the `hello` answer
// (`world`: `--world ordered-socket --world consume_reasons=true`), as a real app's adapter
// declares what its backend always or never does.

"use strict";

const { serve, serveAsync } = require("./protocol");
const tabs = require("./tabs");
const { makeDurable, DURABLE_VARIANTS } = require("./durable");

/** A fresh store of `variant`, or undefined for an unknown name. */
const makeStore = (variant) =>
  Object.hasOwn(DURABLE_VARIANTS, variant) ? makeDurable(DURABLE_VARIANTS[variant]) : tabs.makeStore(variant);
const VARIANTS = [...tabs.VARIANTS, ...Object.keys(DURABLE_VARIANTS)];

// `--async` serves through the asynchronous loop (what a wrapped real store uses); the
// differential test runs both loops.
const args = process.argv.slice(2);
const useAsync = args.includes("--async");
const world = args.flatMap((a, i) => (args[i - 1] === "--world" ? [a] : []));
const variant = args.find((a, i) => !a.startsWith("--") && args[i - 1] !== "--world");
if (makeStore(variant) === undefined) {
  process.stderr.write(`usage: node store.js VARIANT (one of: ${VARIANTS.join(", ")}); got ${JSON.stringify(variant)}\n`);
  process.exit(2);
}
// `features: ["state"]`: the stores answer `state` with a digest of their whole state, so
// `explore` merges equal states through this adapter as it does in process.
(useAsync ? serveAsync : serve)({ name: `node:${variant}`, makeStore: () => makeStore(variant), features: ["state"], world });
