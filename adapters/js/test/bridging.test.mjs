// The store's API calls become effects; responses resolve its promises; its own ids are
// bridged to the harness's message ids; a boot fetch rides on the reset answer.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fetchResponse, jsAdapter, postResponse, userSend } from "./helpers.mjs";

const uuid = (n) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

test("a POST is a post effect; its promise resolves on post-response and the continuation's effects land in that answer", async () => {
  const a = await jsAdapter("chat.mjs");
  await a.reset();
  await a.event({ type: "status", status: "idle" });
  const sent = await a.input(userSend(1));
  assert.deepEqual(sent.effects, [{ effect: "post", message_id: 1, text: "msg:m1" }]);
  assert.deepEqual(sent.render.find((r) => r.role === "user"), { from: "live", id: "m1", role: "user", text: "msg:m1" });
  // The store awaits the POST, binds the row to the turn and refreshes: one fetch.
  const answered = await a.input(postResponse(1, { outcome: "started", turn_id: 1 }));
  assert.deepEqual(answered.effects, [{ effect: "fetch", request_id: 1 }]);
  assert.deepEqual(answered.render.find((r) => r.role === "user"), { from: "live", id: "m1", role: "user", turn_id: 1, text: "msg:m1" });
  // The fetch resolves with app-shaped chunks; the continuation replaces chunks and drops the bound row.
  const chunks = [
    { seq: 1, turn_id: 1, role: "user", text: "msg:m1", message_ids: [1] },
    { seq: 2, turn_id: 1, role: "assistant", text: "txt:t1.1" },
    { seq: 3, turn_id: 1, role: "tool-call", text: "call" },
  ];
  const fetched = await a.input(fetchResponse(1, chunks, [1]));
  assert.deepEqual(fetched.effects, []);
  assert.deepEqual(
    fetched.render.filter((r) => r.from === "sealed"),
    [
      { from: "sealed", seq: 1, role: "user", turn_id: 1, text: "msg:m1" },
      { from: "sealed", seq: 2, role: "assistant", turn_id: 1, text: "txt:t1.1" },
      { from: "sealed", seq: 3, role: "tool-call", turn_id: 1, text: "call" },
    ],
  );
  assert.equal(fetched.render.filter((r) => r.id === "m1").length, 0);
  await a.close();
});

test("a fetch-response for a request the store never made is ignored", async () => {
  const a = await jsAdapter("chat.mjs");
  await a.reset();
  const before = await a.event({ type: "turn-sealed", turn_id: 1 });
  assert.deepEqual(before.effects, [{ effect: "fetch", request_id: 1 }]);
  const stray = await a.input(fetchResponse(7, [{ seq: 1, turn_id: 1, role: "user", text: "msg:m1" }]));
  assert.equal(stray.type, "output");
  assert.deepEqual(stray.render, before.render);
  await a.close();
});

test("ids the store mints (after an await) are bridged to harness message ids both ways", async () => {
  const a = await jsAdapter("chat.mjs");
  await a.reset();
  await a.event({ type: "status", status: "idle" });
  await a.input(userSend(1));
  await a.input(userSend(2));
  // message-queued names harness message 2; the store renames its row to queued-<its uuid>.
  const queued = await a.event({ type: "message-queued", message_id: 2 });
  assert.deepEqual(
    queued.render.filter((r) => r.role === "user").map((r) => r.id),
    ["m1", "queued-m2"],
  );
  // message-consumed arrives with store ids; a message this store never posted gets `m<n>`.
  const consumed = await a.event({ type: "message-consumed", message_ids: [2, 9] });
  assert.deepEqual(consumed.render.at(-1).text, `consumed:${uuid(2)},m9`);
  assert.deepEqual(
    consumed.render.filter((r) => r.role === "user").map((r) => r.id),
    ["m1"],
  );
  await a.close();
});

test("a POST made later (here newest first) is matched to its user-send by text", async () => {
  const a = await jsAdapter("chat.mjs", ["post-on-scroll"]);
  await a.reset();
  assert.deepEqual((await a.input(userSend(1))).effects, []);
  assert.deepEqual((await a.input(userSend(2))).effects, []);
  const posted = await a.input({ input: "scroll", at_bottom: true });
  assert.deepEqual(posted.effects, [
    { effect: "post", message_id: 2, text: "msg:m2" },
    { effect: "post", message_id: 1, text: "msg:m1" },
  ]);
  assert.deepEqual(
    posted.render.map((r) => r.id),
    ["m1", "m2"],
  );
  await a.close();
});

test("a POST with no user-send waiting for it is a crash", async () => {
  const a = await jsAdapter("chat.mjs", ["rogue-post"]);
  await a.reset();
  const crash = await a.input({ input: "scroll", at_bottom: true });
  assert.equal(crash.type, "error");
  assert.match(crash.message, /the store POSTed "msg:rogue" \(its id rogue\) but no user-send is waiting for a POST/);
  await a.close();
});

test("boot: the reset answer carries the boot fetch and the render; a later fetch-response resolves it", async () => {
  const plain = await jsAdapter("chat.mjs");
  assert.deepEqual(await plain.reset(), { type: "reset", id: 2 });
  await plain.close();

  const a = await jsAdapter("chat.mjs", ["boot"]);
  assert.deepEqual(await a.reset(), { type: "reset", effects: [{ effect: "fetch", request_id: 1 }], render: [], id: 2 });
  const loaded = await a.input(fetchResponse(1, [{ seq: 1, turn_id: 1, role: "user", text: "msg:m1" }], [1]));
  assert.deepEqual(loaded.render, [{ from: "sealed", seq: 1, role: "user", turn_id: 1, text: "msg:m1" }]);
  // The next store fetch gets the next request id.
  assert.deepEqual((await a.event({ type: "turn-sealed", turn_id: 1 })).effects, [{ effect: "fetch", request_id: 2 }]);
  // The same without a boot hook: a fetch the factory itself starts rides on the reset answer too.
  const b = await jsAdapter("chat.mjs", ["open-in-factory"]);
  assert.deepEqual(await b.reset(), { type: "reset", effects: [{ effect: "fetch", request_id: 1 }], render: [], id: 2 });
  await b.close();
  // A reset starts over: request ids from 1 again, nothing pending survives.
  assert.deepEqual((await a.reset()).effects, [{ effect: "fetch", request_id: 1 }]);
  const stale = await a.input(fetchResponse(2, [{ seq: 1, turn_id: 1, role: "user", text: "msg:m1" }]));
  assert.deepEqual(stale.render, []);
  await a.close();
});
