// The store's own fetch and WebSocket routed to the harness (network.ts), the app's wire
// format (codec.ts) and the virtual clock's declared step.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Adapter, fetchResponse, fixture, jsAdapter, postResponse, userSend } from "./helpers.mjs";

const debug = (answer, id) => JSON.parse(answer.render.find((r) => r.id === id).text);

test("the store's own GET is a fetch effect; the fetch-response reaches it in the app's shape", async () => {
  const a = await jsAdapter("network.mjs");
  const boot = await a.reset();
  assert.deepEqual(boot.effects, [{ effect: "fetch", request_id: 1 }], a.stderr);
  const chunks = [
    { seq: 1, turn_id: 1, role: "user", text: "msg:m1", message_ids: [1] },
    { seq: 2, turn_id: 1, role: "tool-call", text: "call:a" },
    { seq: 3, turn_id: 1, role: "tool-result", text: "result:a" },
    { seq: 4, turn_id: 1, role: "tool-call", text: "call:b" },
  ];
  const out = await a.input(fetchResponse(1, chunks, [1]));
  assert.equal(out.type, "output", JSON.stringify(out));
  assert.deepEqual(debug(out, "rows"), [
    // ids spelled as strings; a tool row's call is its number within the turn, a result answers the call before it
    { seq: 1, turnId: "1", role: "user", text: "msg:m1", messageIds: ["m1"] },
    { seq: 2, turnId: "1", role: "tool-call", text: "call:a", callId: "1" },
    { seq: 3, turnId: "1", role: "tool-result", text: "result:a", callId: "1" },
    { seq: 4, turnId: "1", role: "tool-call", text: "call:b", callId: "2" },
  ]);
  await a.close();
});

test("the store's own POST is a post effect; the post-response answers it; events reach its socket as frames", async () => {
  const a = await jsAdapter("network.mjs");
  await a.reset();
  const sent = await a.input(userSend(1));
  assert.deepEqual(sent.effects, [{ effect: "post", message_id: 1, text: "msg:m1" }], a.stderr);
  const answered = await a.input(postResponse(1, { outcome: "started", turn_id: 3 }));
  assert.deepEqual(debug(answered, "posts"), [{ messageId: "00000000-0000-4000-8000-000000000001", status: "started", turnId: "3" }]);
  const started = await a.event({ type: "turn-start", turn_id: 3 });
  const tool = await a.event({ type: "tool-call", turn_id: 3, call: 1, text: "call:a" });
  assert.deepEqual(debug(started, "frames"), [{ kind: "turn.start", turnId: "3", tabId: "tab-1" }]);
  assert.deepEqual(debug(tool, "frames")[1], { kind: "tool-call", turnId: "3", callId: "1", text: "call:a", tabId: "tab-1" });
  await a.close();
});

test("a POST without an id: the post effect carries none, and the store learns the id the backend minted", async () => {
  const a = await jsAdapter("network.mjs", ["no-id"]);
  await a.reset();
  const sent = await a.input(userSend(1));
  assert.deepEqual(sent.effects, [{ effect: "post", text: "msg:m1" }], a.stderr);
  const answered = await a.input({ input: "post-response", response: { outcome: "queued" }, server_id: 901 });
  assert.deepEqual(debug(answered, "posts"), [{ messageId: "m901", status: "queued" }]);
  await a.close();
});

test("a minted id has one spelling in every event, response and row, before and after the POST response binds it", async () => {
  const a = await jsAdapter("network.mjs", ["no-id"]);
  await a.reset();
  await a.input(userSend(1));
  // The backend queued the message and said so on the socket before the POST's answer came back.
  const queued = await a.event({ type: "message-queued", message_id: 901 });
  const before = debug(queued, "frames").at(-1).messageId;
  const answered = await a.input({ input: "post-response", response: { outcome: "queued" }, server_id: 901 });
  const response = debug(answered, "posts")[0].messageId;
  const consumed = await a.event({ type: "message-consumed", message_ids: [901] });
  const after = debug(consumed, "frames").at(-1).messageIds[0];
  await a.input({ input: "event", event: { type: "turn-sealed", turn_id: 1 } });
  await a.close();
  // The store can match the message-queued it got before its POST was answered with the
  // message-consumed it gets after, and with its POST's answer.
  assert.deepEqual([before, response, after], ["m901", "m901", "m901"]);
});

test("harness.flatten: each part of a grouped message gets its own row's seq; tool batches are read with the codec's field names", async () => {
  const a = await jsAdapter("network.mjs", ["grouped"]);
  await a.reset();
  const chunks = [
    { seq: 1, turn_id: 1, role: "user", text: "msg:m1", message_ids: [1] },
    { seq: 2, turn_id: 1, role: "assistant", text: "txt:t1.1" },
    { seq: 3, turn_id: 1, role: "tool-call", text: "call:a" },
    { seq: 4, turn_id: 1, role: "tool-result", text: "result:a" },
    { seq: 5, turn_id: 1, role: "tool-call", text: "call:b" },
    { seq: 6, turn_id: 1, role: "tool-result", text: "result:b" },
    { seq: 7, turn_id: 1, role: "assistant", text: "txt:t1.1" },
  ];
  const out = await a.input(fetchResponse(1, chunks, [1]));
  assert.equal(out.type, "output", JSON.stringify(out));
  // One message (seq 2) holds rows 2-7; the same text twice in one turn is two rows.
  assert.deepEqual(
    out.render.filter((r) => r.from === "sealed"),
    chunks.map((c) => ({ from: "sealed", seq: c.seq, role: c.role, turn_id: 1, text: c.text })),
  );
  await a.close();
});

test("a request no route handles fails the input, naming it; it does not hang", async () => {
  const a = await jsAdapter("network.mjs", ["unrouted"]);
  await a.reset();
  const answer = await a.input(userSend(1));
  assert.equal(answer.type, "error");
  assert.match(answer.message, /the store requested GET https:\/\/app\.test\/api\/analytics, which no route handles \(routes: GET \/api\/tabs\/:tab\/rows, POST \/api\/messages\)/);
  await a.close();
});

test("a store using XMLHttpRequest: its GET and POST are routed as fetch's are; an unrouted one errors and fails the input, naming it", async () => {
  const a = await jsAdapter("network.mjs", ["xhr"]);
  const boot = await a.reset();
  assert.deepEqual(boot.effects, [{ effect: "fetch", request_id: 1 }], a.stderr);
  const out = await a.input(fetchResponse(1, [{ seq: 1, turn_id: 1, role: "user", text: "msg:m1", message_ids: [1] }], [1]));
  assert.deepEqual(debug(out, "rows"), [{ seq: 1, turnId: "1", role: "user", text: "msg:m1", messageIds: ["m1"] }]);
  const sent = await a.input(userSend(2));
  assert.deepEqual(sent.effects, [{ effect: "post", message_id: 2, text: "msg:m2" }], a.stderr);
  const answered = await a.input(postResponse(2, { outcome: "started", turn_id: 3 }));
  assert.deepEqual(debug(answered, "posts"), [{ messageId: "00000000-0000-4000-8000-000000000001", status: "started", turnId: "3" }]);
  await a.close();

  const unrouted = await jsAdapter("network.mjs", ["xhr", "unrouted"]);
  await unrouted.reset();
  const answer = await unrouted.input(userSend(1));
  assert.equal(answer.type, "error");
  assert.match(answer.message, /the store requested GET https:\/\/app\.test\/api\/analytics, which no route handles/);
  await unrouted.close();
});

test("two connections to the declared socket: each gets every event as a frame", async () => {
  const a = await jsAdapter("network.mjs", ["two-sockets"]);
  await a.reset();
  const started = await a.event({ type: "turn-start", turn_id: 3 });
  const frame = { kind: "turn.start", turnId: "3", tabId: "tab-1" };
  assert.deepEqual(debug(started, "frames"), [frame]);
  assert.deepEqual(debug(started, "second"), [frame]);
  await a.close();
});

test("a WebSocket to another URL fails the run, naming both URLs", async () => {
  const a = await jsAdapter("network.mjs", ["wrong-socket"]);
  const answer = await a.reset();
  assert.equal(answer.type, "error");
  assert.match(answer.message, /opened a WebSocket to wss:\/\/elsewhere\.test\/ws, which is not the declared socket \(network\.socket: wss:\/\/app\.test\/ws\)/);
  await a.close();
});

test("the virtual clock: a timer waits for its time; the declared step per input brings it, and hello says so", async () => {
  const still = await jsAdapter("network.mjs", ["timer"]);
  await still.reset();
  for (let i = 0; i < 4; i++) assert.equal(debug(await still.input({ input: "scroll", at_bottom: true }), "fired"), false);
  await still.close();

  const a = new Adapter([fixture("network.mjs"), "timer", "step"]);
  assert.equal((await a.hello()).clock, "timers run when due; the clock moves 1000 ms per input");
  await a.reset();
  const fired = [];
  for (let i = 0; i < 4; i++) fired.push(debug(await a.input({ input: "scroll", at_bottom: true }), "fired"));
  assert.deepEqual(fired, [false, false, true, true]); // set at 0 ms for 3000 ms: due at the third input
  await a.close();
});

test("a socket client kept in a module singleton: each run's store gets its events (the run's connections close at reset)", async () => {
  const a = await jsAdapter("singleton.mjs");
  for (let run = 1; run <= 3; run++) {
    const boot = await a.reset();
    assert.equal(boot.type, "reset", `run ${run}: ${JSON.stringify(boot)}\n${a.stderr}`);
    const started = await a.event({ type: "turn-start", turn_id: 1 });
    assert.equal(started.type, "output", `run ${run}: ${JSON.stringify(started)}`);
    // The frame reached the new store, addressed by the codec to the tab the store minted.
    assert.deepEqual(debug(started, "frames"), [{ type: "turn-start", turnId: 1, tab: debug(started, "tab") }]);
    assert.equal(debug(started, "connects"), run); // the singleton saw its connection close, and connected again
  }
  await a.close();
});

test("teardown(): the mapping lets go of what outlives a reset; one that throws fails the next reset, saying why", async () => {
  const listeners = async (args) => {
    const a = await jsAdapter("singleton.mjs", args);
    const seen = [];
    for (let run = 1; run <= 3; run++) {
      await a.reset();
      seen.push(debug(await a.event({ type: "status", status: "idle" }), "listeners"));
    }
    await a.close();
    return seen;
  };
  assert.deepEqual(await listeners([]), [1, 2, 3]); // every earlier store still subscribed to the singleton
  assert.deepEqual(await listeners(["teardown"]), [1, 1, 1]);

  const a = await jsAdapter("singleton.mjs", ["throw-teardown"]);
  assert.equal((await a.reset()).type, "reset");
  const again = await a.reset();
  assert.equal(again.type, "error");
  assert.match(again.message, /the previous run's teardown\(\) failed, so this store may not start fresh:\nError: teardown failed on purpose/);
  await a.close();
});
