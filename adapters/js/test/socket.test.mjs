// The routed WebSocket (socket.ts): what a store's `new WebSocket(url)` gives, checked
// against what a browser's gives where a store can see it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { routedWebSocket } from "../dist/socket.js";

const tick = () => new Promise((resolve) => setImmediate(resolve));

function server(acceptAll = true) {
  const ends = [];
  const WebSocket = routedWebSocket(new URL("https://app.test"), (end) => {
    ends.push(end);
    return acceptAll;
  });
  return { WebSocket, ends };
}

test("a connection opens in a microtask; frames arrive as MessageEvents, to on* attributes and listeners alike", async () => {
  const { WebSocket, ends } = server();
  const ws = new WebSocket("/ws?tab=1");
  assert.equal(ws.url, "wss://app.test/ws?tab=1"); // relative, and https → wss
  assert.equal(ws.readyState, WebSocket.CONNECTING);
  assert.equal(ws.OPEN, 1);
  assert.throws(() => ws.send("too early"), { name: "InvalidStateError" });
  const seen = [];
  ws.onopen = () => seen.push("open");
  ws.onmessage = (e) => seen.push(`attr ${e.data} ${e instanceof MessageEvent} ${e.origin}`);
  ws.addEventListener("message", (e) => seen.push(`listener ${e.data}`));
  await tick();
  assert.equal(ws.readyState, WebSocket.OPEN);
  ends[0].send('{"a":1}');
  await tick();
  ws.onmessage = null; // the attribute's listener stays in its place, calling nothing
  ends[0].send("second");
  await tick();
  assert.deepEqual(seen, ["open", 'attr {"a":1} true wss://app.test', 'listener {"a":1}', "listener second"]);
  ws.send("dropped: the harness's backend answers with events");
});

test("close: validated as the standard says, clean, code 1000 when none is given; the server's close is the store's", async () => {
  const { WebSocket, ends } = server();
  const ws = new WebSocket("wss://app.test/ws");
  await tick();
  assert.throws(() => ws.close(1001), { name: "InvalidAccessError" });
  assert.throws(() => ws.close(1000, "x".repeat(124)), { name: "SyntaxError" });
  const closes = [];
  ws.onclose = (e) => closes.push([e.code, e.reason, e.wasClean, ws.readyState]);
  let serverSaw = 0;
  ends[0].addEventListener("close", () => serverSaw++);
  ws.close();
  assert.equal(ws.readyState, WebSocket.CLOSING);
  ws.close(3000); // closing already: nothing
  await tick();
  assert.deepEqual(closes, [[1000, "", true, WebSocket.CLOSED]]);
  assert.equal(serverSaw, 1);

  const other = new WebSocket("ws://app.test/ws");
  await tick();
  const seen = [];
  other.addEventListener("close", (e) => seen.push([e.code, e.reason, e.wasClean]));
  ends[1].close(1001, "going away");
  await tick();
  assert.deepEqual(seen, [[1001, "going away", true]]);
});

test("a refused connection fails as a browser's does; a bad URL throws", async () => {
  const { WebSocket } = server(false);
  const ws = new WebSocket("wss://elsewhere.test/ws");
  const seen = [];
  ws.onerror = () => seen.push("error");
  ws.onclose = (e) => seen.push(`close ${e.code} ${e.wasClean}`);
  await tick();
  assert.deepEqual(seen, ["error", "close 1006 false"]);
  assert.throws(() => new WebSocket("ftp://app.test/ws"), { name: "SyntaxError" });
  assert.throws(() => new WebSocket("wss://app.test/ws#frag"), { name: "SyntaxError" });
  assert.throws(() => new WebSocket("http://[bad"), { name: "SyntaxError" });
});
