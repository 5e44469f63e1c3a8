// The recorder: what the page's own fetch and WebSocket carry on the mapping's routes and
// socket, into a log; texts replaced by placeholders unless the app opts out.
import { test } from "node:test";
import assert from "node:assert/strict";
import { record } from "../dist/record.js";

const network = {
  origin: "https://chat.example.com",
  socket: "wss://chat.example.com/ws",
  routes: { "GET /api/rows": "fetch", "POST /api/messages": "post" },
  codec: { fields: { type: "kind" }, eventNames: { "turn-start": "turn.start", "text-delta": "turn.delta" } },
};

function fakePage() {
  const g = globalThis;
  const saved = { fetch: g.fetch, WebSocket: g.WebSocket };
  g.fetch = async (input, init) => {
    const url = new URL(String(input), network.origin);
    const body = url.pathname === "/api/rows"
      ? { rows: [{ seq: 1, turnId: "t-9", role: "user", text: "my secret words", clientMessageIds: ["a1"] }] }
      : { status: "started", turnId: "t-9" };
    return new Response(JSON.stringify(body));
  };
  class FakeSocket extends EventTarget {
    constructor(url) { super(); this.url = url; }
  }
  g.WebSocket = FakeSocket;
  return () => Object.assign(g, saved);
}

async function session(options) {
  const restore = fakePage();
  const recorder = record(network, options);
  recorder.send("my secret words");
  await fetch("/api/messages", { method: "POST", body: JSON.stringify({ clientMessageId: "a1", content: "my secret words" }) });
  const ws = new WebSocket("wss://chat.example.com/ws");
  ws.dispatchEvent(Object.assign(new Event("message"), { data: JSON.stringify({ kind: "turn.start", turnId: "t-9" }) }));
  ws.dispatchEvent(Object.assign(new Event("message"), { data: JSON.stringify({ kind: "turn.delta", turnId: "t-9", text: "the answer" }) }));
  await fetch("/api/rows");
  await fetch("/elsewhere").catch(() => {});
  const log = JSON.parse(recorder.dump());
  recorder.uninstall();
  restore();
  return log;
}

test("a default dump holds no text the user or the agent wrote", async () => {
  const log = await session();
  const text = JSON.stringify(log);
  assert.equal(log.format, "reconcile-sim-log");
  assert.equal(log.private, true);
  assert.ok(!text.includes("secret") && !text.includes("answer"), text);
  // The same text, the same placeholder (the import compares them).
  const send = log.entries.find((e) => e.kind === "send");
  const post = log.entries.find((e) => e.kind === "request" && e.route === "post");
  assert.equal(send.text, "<text#1>");
  assert.equal(post.text, "<text#1>");
  assert.deepEqual(log.entries.map((e) => e.kind), ["send", "request", "response", "frame", "frame", "request", "response"]);
  assert.deepEqual(log.entries[3].event, { type: "turn-start", turn: "t-9" });
});

test("an app that opts in keeps its texts; the ring buffer says what it dropped", async () => {
  const log = await session({ private: false, limit: 3 });
  assert.equal(log.dropped, 4);
  assert.equal(log.entries.length, 3);
  assert.ok(JSON.stringify(log).includes("my secret words"));
});

test("rows a codec's chunk hook reshapes are read back through its unchunk; clear() starts a new log", async () => {
  const restore = fakePage();
  const g = globalThis;
  g.fetch = async () =>
    new Response(JSON.stringify({ rows: [{ seq: 4, turnId: "7", role: "assistant", type: "tool_call", data: { input: "a tool's input" }, clientMessageIds: [] }] }));
  const recorder = record(
    {
      ...network,
      codec: {
        ...network.codec,
        unchunk: (row) => ({ seq: row.seq, turnId: row.turnId, role: row.type === "tool_call" ? "tool-call" : row.role, text: row.data.input ?? row.data.text, messageIds: row.clientMessageIds }),
      },
    },
    { private: false },
  );
  recorder.send("before");
  recorder.clear();
  await fetch("/api/rows");
  const log = JSON.parse(recorder.dump());
  recorder.uninstall();
  restore();
  // Without unchunk the row's role would be "assistant" and its text missing (it is in `data`).
  assert.deepEqual(log.entries.map((e) => e.kind), ["request", "response"]);
  assert.equal(log.entries[0].id, 1);
  assert.deepEqual(log.entries[1].fetch.rows, [{ seq: 4, turn: "7", role: "tool-call", messages: [], text: "a tool's input" }]);
});
