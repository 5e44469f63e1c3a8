// The adapter side of reconcile-sim's exec protocol (docs/protocol.md), version 1:
// JSON lines over stdin/stdout, one answer line per request line, in order.
//
// `serve({ name, makeStore, features })` runs the loop until stdin closes. `makeStore()`
// returns a fresh store: `{ handle(input) -> effects[], render() -> rows[] }`, where
// `input`, `effects` and `rows` are the protocol's JSON values. An exception thrown by the
// store is answered as an `error` (the harness reports it as a crash of the store).
//
// `features` (optional) lists the protocol extensions the store supports, announced in
// the `hello` answer; each needs a hook on the store:
//   "state"  `digest() -> string`: the store's complete state, canonically (every field
//            that can influence a later answer or render; `canonicalJson` below helps).
//            Answered to a `state` request as its SHA-256, hex.
//   "boot"   `boot() -> effects[]`: what a freshly made store asks for at once (a real
//            `openTab` starts a history fetch). Called on `reset`, whose answer then
//            carries these `effects` and the `render`.
//
// `serve` reads and writes synchronously: no event-loop hop per message, and when the
// harness has sent several lines that arrived together, their answers leave in one write.
// `serveAsync` (same arguments) is for stores that await: `handle` may return a Promise,
// and pending callbacks run before the render is read. It is slower, not different.
// Nothing else may write to stdout (use stderr for logs: the harness captures its tail).

"use strict";

const crypto = require("crypto");
const fs = require("fs");
const { StringDecoder } = require("string_decoder");

const PROTOCOL = 1;

/** The protocol extensions this implementation knows (docs/protocol.md). */
const FEATURES = ["boot", "state"];

/**
 * Canonical JSON: objects with their keys sorted, `undefined` fields left out, Maps as
 * arrays of [key, value] entries sorted by key, Sets as sorted arrays. Equal values give
 * equal strings, whatever order their fields or entries were made in.
 */
function canonicalJson(value) {
  const canon = (v) => {
    if (v instanceof Map) {
      return [...v.entries()].map(([k, x]) => [canon(k), canon(x)]).sort((a, b) => compare(a[0], b[0]));
    }
    if (v instanceof Set) return [...v].map(canon).sort(compare);
    if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : canon(x)));
    if (v !== null && typeof v === "object") {
      const out = {};
      for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = canon(v[k]);
      return out;
    }
    return v;
  };
  const compare = (a, b) => {
    const x = JSON.stringify(a);
    const y = JSON.stringify(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };
  return JSON.stringify(canon(value));
}

function writeAll(text) {
  const data = Buffer.from(text, "utf8");
  let off = 0;
  while (off < data.length) {
    try {
      off += fs.writeSync(1, data, off, data.length - off);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
      sleepMs(1);
    }
  }
}

function sleepMs(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * The protocol state machine shared by both loops: returns `respond(msg)`, the reply to
 * one parsed request. With `settle` (an async function), inputs are answered by a Promise:
 * the store's `handle` is awaited, then `settle()`, then `render()` is read.
 */
function makeResponder({ name, makeStore, features = [], world = [] }, settle) {
  for (const f of features) {
    if (!FEATURES.includes(f)) throw new Error(`unknown protocol feature ${JSON.stringify(f)}; known: ${FEATURES.join(", ")}`);
  }
  const boots = features.includes("boot");
  const digests = features.includes("state");
  let store = null;
  let greeted = false;
  const reply = (msg, body) => {
    body.id = msg.id;
    return body;
  };
  const fail = (msg, e) => reply(msg, { type: "error", message: String((e && e.stack) || e) });
  return (msg) => {
    if (msg.type === "hello") {
      if (msg.protocol !== PROTOCOL) {
        return reply(msg, { type: "error", message: `unsupported protocol ${msg.protocol}; this adapter speaks ${PROTOCOL}` });
      }
      greeted = true;
      const hello = { type: "hello", protocol: PROTOCOL, name };
      if (features.length > 0) hello.features = features;
      if (world.length > 0) hello.world = world;
      return reply(msg, hello);
    }
    if (!greeted) return reply(msg, { type: "error", message: `expected hello first, got ${msg.type}` });
    if (msg.type === "reset") {
      try {
        store = makeStore();
        if (!boots) return reply(msg, { type: "reset" });
        const current = store;
        if (settle !== undefined) {
          return (async () => {
            try {
              const effects = await current.boot();
              await settle();
              return reply(msg, { type: "reset", effects, render: current.render() });
            } catch (e) {
              return fail(msg, e);
            }
          })();
        }
        const effects = current.boot();
        return reply(msg, { type: "reset", effects, render: current.render() });
      } catch (e) {
        store = null;
        return fail(msg, e);
      }
    }
    if (msg.type === "state" && digests) {
      if (store === null) return reply(msg, { type: "error", message: "state before reset" });
      try {
        const digest = crypto.createHash("sha256").update(String(store.digest())).digest("hex");
        return reply(msg, { type: "state", digest });
      } catch (e) {
        return fail(msg, e);
      }
    }
    if (msg.type === "input") {
      if (store === null) return reply(msg, { type: "error", message: "input before reset" });
      const current = store;
      if (settle !== undefined) {
        return (async () => {
          try {
            const effects = await current.handle(msg.input);
            await settle();
            return reply(msg, { type: "output", effects, render: current.render() });
          } catch (e) {
            return fail(msg, e);
          }
        })();
      }
      try {
        const effects = current.handle(msg.input);
        return reply(msg, { type: "output", effects, render: current.render() });
      } catch (e) {
        return fail(msg, e);
      }
    }
    return reply(msg, { type: "error", message: `unknown request type ${JSON.stringify(msg.type)}` });
  };
}

function parse(line) {
  try {
    return { msg: JSON.parse(line) };
  } catch (e) {
    return { error: { type: "error", id: null, message: `request is not JSON: ${e.message}` } };
  }
}

/** The synchronous loop, for stores whose `handle` returns effects directly. */
function serve(options) {
  const respond = makeResponder(options);
  const answer = (line) => {
    const { msg, error } = parse(line);
    return error !== undefined ? error : respond(msg);
  };

  const decoder = new StringDecoder("utf8");
  const buf = Buffer.allocUnsafe(1 << 16);
  let pending = "";
  for (;;) {
    let n;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if (e.code === "EAGAIN") { sleepMs(1); continue; }
      if (e.code === "EOF") return;
      throw e;
    }
    if (n === 0) return; // stdin closed: the harness is done with us
    pending += decoder.write(buf.subarray(0, n));
    let out = "";
    let start = 0;
    let nl;
    while ((nl = pending.indexOf("\n", start)) !== -1) {
      const line = pending.slice(start, nl);
      start = nl + 1;
      if (line.trim() === "") continue;
      out += JSON.stringify(answer(line)) + "\n";
    }
    pending = pending.slice(start);
    if (out !== "") writeAll(out);
  }
}

/**
 * The asynchronous loop, for stores that await (a real store's `reloadChunksFromApi`
 * awaits its fetch): `handle` may return a Promise of the effects. After it settles, the
 * loop also lets every pending timer and I/O callback run (one `setImmediate` turn) before
 * it reads `render()`, so the answer shows the state the input led to. Requests are
 * handled one at a time, in order.
 */
async function serveAsync(options) {
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const respond = makeResponder(options, settle);
  const readline = require("readline");
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === "") continue;
    const { msg, error } = parse(line);
    const reply = error !== undefined ? error : await respond(msg);
    writeAll(JSON.stringify(reply) + "\n");
  }
}

module.exports = { serve, serveAsync, makeResponder, canonicalJson, PROTOCOL, FEATURES };
