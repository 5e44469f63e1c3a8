// The adapter side of reconcile-sim's exec protocol (docs/protocol.md), version 1:
// JSON lines over stdin/stdout, one answer line per request line, in order.
//
// `serve({ name, makeStore })` runs the loop until stdin closes. `makeStore()` returns a
// fresh store: `{ handle(input) -> effects[], render() -> rows[] }`, where `input`,
// `effects` and `rows` are the protocol's JSON values. An exception thrown by the store
// is answered as an `error` (the harness reports it as a crash of the store).
//
// Reads and writes are synchronous: no event-loop hop per message, and when the harness
// has sent several lines that arrived together, their answers leave in one write.
// Nothing else may write to stdout (use stderr for logs: the harness captures its tail).

"use strict";

const fs = require("fs");
const { StringDecoder } = require("string_decoder");

const PROTOCOL = 1;

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

function serve({ name, makeStore }) {
  let store = null;
  let greeted = false;

  // Every answer echoes its request's id.
  const answer = (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch (e) {
      return { type: "error", id: null, message: `request is not JSON: ${e.message}` };
    }
    const reply = respond(msg);
    reply.id = msg.id;
    return reply;
  };

  const respond = (msg) => {
    if (msg.type === "hello") {
      if (msg.protocol !== PROTOCOL) {
        return { type: "error", message: `unsupported protocol ${msg.protocol}; this adapter speaks ${PROTOCOL}` };
      }
      greeted = true;
      return { type: "hello", protocol: PROTOCOL, name };
    }
    if (!greeted) return { type: "error", message: `expected hello first, got ${msg.type}` };
    if (msg.type === "reset") {
      store = makeStore();
      return { type: "reset" };
    }
    if (msg.type === "input") {
      if (store === null) return { type: "error", message: "input before reset" };
      try {
        const effects = store.handle(msg.input);
        return { type: "output", effects, render: store.render() };
      } catch (e) {
        return { type: "error", message: String((e && e.stack) || e) };
      }
    }
    return { type: "error", message: `unknown request type ${JSON.stringify(msg.type)}` };
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

module.exports = { serve, PROTOCOL };
