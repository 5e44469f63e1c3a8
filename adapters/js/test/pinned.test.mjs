// Behaviours of the adapter that a held-out mutation audit found unpinned (issue 52): the
// backend's socket is the declared URL's path too, not only its host; `Harness.flatten`
// reads turn ids in the codec's own spelling; a route's parameters reach it decoded; a
// message whose parts have a `seq` only in part is live, not sealed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { flattenMessages } from "../dist/index.js";
import { jsAdapter } from "./helpers.mjs";

const debug = (answer, id) => JSON.parse(answer.render.find((r) => r.id === id).text);

/** `body(adapter)` on the fixture started with `args`, the adapter closed however it ends (a failed assertion must not leave it running). */
async function withAdapter(args, body) {
  const a = await jsAdapter("pinned.mjs", args);
  try {
    await body(a);
  } finally {
    await a.close();
  }
}

const emptyHistory = { input: "fetch-response", request_id: 1, snapshot_seq: 0, chunks: [], written_turns: [] };

test("a WebSocket to the declared host on another path is not the backend's socket: the run fails naming both", async () => {
  for (const [flag, opened] of [
    ["socket-path", "wss://app.test/events?token=1"],
    ["socket-slash", "wss://app.test/ws/"],
  ]) {
    await withAdapter([flag], async (a) => {
      const answer = await a.reset();
      assert.equal(answer.type, "error", `${flag}: ${JSON.stringify(answer)}`);
      assert.equal(answer.message.includes(`opened a WebSocket to ${opened}, which is not the declared socket (network.socket: wss://app.test/ws)`), true, answer.message);
    });
  }
  // The declared path, with a query string of its own: the backend's socket.
  await withAdapter([], async (a) => {
    const boot = await a.reset();
    assert.deepEqual(boot.effects, [{ effect: "fetch", request_id: 1 }], a.stderr);
    const answered = await a.input(emptyHistory);
    assert.equal(answered.type, "output", JSON.stringify(answered));
    const started = await a.event({ type: "turn-start", turn_id: 3 });
    assert.equal(started.type, "output", JSON.stringify(started));
  });
});

test("a route's parameters reach it percent-decoded; the URL it is given stays as requested", async () => {
  await withAdapter([], async (a) => {
    await a.reset();
    const out = await a.input(emptyHistory);
    assert.deepEqual(debug(out, "profile"), {
      params: { name: "Ada Lovelace/é" },
      path: "/api/users/Ada%20Lovelace%2F%C3%A9/profile",
    });
  });
});

test("Harness.flatten reads turn ids in the codec's spelling (codec.ids decode), as the store's socket gave them", async () => {
  await withAdapter([], async (a) => {
    await a.reset();
    await a.input(emptyHistory);
    await a.event({ type: "turn-start", turn_id: 3 });
    const out = await a.event({ type: "text-delta", turn_id: 3, text: "txt:t3.1" });
    assert.equal(out.type, "output", JSON.stringify(out));
    assert.deepEqual(out.render[0], { from: "live", id: "a-turn-3", role: "assistant", turn_id: 3, text: "txt:t3.1" });
  });
  // Without the codec's decode, flattenMessages cannot read such an id, and says so; with it, it can.
  const m = [{ id: "a", role: "assistant", turnId: "turn-12", text: "x" }];
  assert.throws(() => flattenMessages(m), /cannot read the turn id "turn-12": pass decodeTurnId/);
  assert.deepEqual(flattenMessages(m, { decodeTurnId: (id) => Number(id.slice(5)) }), [
    { from: "live", id: "a", role: "assistant", turn_id: 12, text: "x" },
  ]);
});

test("a message whose first part has a seq and a later part none is live: one live row per part, not an error", () => {
  const parts = [
    { kind: "text", seq: 5, text: "txt:t2.1" },
    { kind: "tool-call", text: "call:a" },
    { kind: "text", text: "txt:t2.2" },
  ];
  assert.deepEqual(flattenMessages([{ id: "a", role: "assistant", turnId: 2, parts }]), [
    { from: "live", id: "a", role: "assistant", turn_id: 2, text: "txt:t2.1" },
    { from: "live", id: "a#1", role: "tool-call", turn_id: 2, text: "call:a" },
    { from: "live", id: "a#2", role: "assistant", turn_id: 2, text: "txt:t2.2" },
  ]);
  // Only the last part without one: live too. Every part with one: sealed rows.
  const lastBare = [parts[0], { kind: "tool-call", seq: 6, text: "call:a" }, parts[2]];
  assert.equal(flattenMessages([{ id: "a", role: "assistant", turnId: 2, parts: lastBare }]).every((r) => r.from === "live"), true);
  const all = [parts[0], { kind: "tool-call", seq: 6, text: "call:a" }, { kind: "text", seq: 7, text: "txt:t2.2" }];
  assert.deepEqual(
    flattenMessages([{ id: "a", role: "assistant", turnId: 2, parts: all }]).map((r) => [r.from, r.seq]),
    [["sealed", 5], ["sealed", 6], ["sealed", 7]],
  );
  // No parts at all and no seq: live, one row.
  assert.deepEqual(flattenMessages([{ id: "b", role: "user", parts: [], text: "msg:m1" }]), [{ from: "live", id: "b", role: "user", text: "msg:m1" }]);
});
