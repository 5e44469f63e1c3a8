// An adapter is a deterministic function of the requests since its last reset: minted ids,
// time, randomness and timers restart with every reset; state digests merge equal states.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fetchResponse, jsAdapter, postResponse, userSend } from "./helpers.mjs";

const session = [
  { input: "event", event: { type: "status", status: "idle" } },
  userSend(1),
  { input: "event", event: { type: "turn-start", turn_id: 1 } },
  postResponse(1, { outcome: "started", turn_id: 1 }),
  { input: "event", event: { type: "text-delta", turn_id: 1, text: "txt:t1.1" } },
  { input: "event", event: { type: "text-delta", turn_id: 1, text: "txt:t1.2" } },
  { input: "event", event: { type: "status", status: "running" } },
  userSend(2),
  { input: "event", event: { type: "message-queued", message_id: 2 } },
  { input: "event", event: { type: "turn-sealed", turn_id: 1 } },
  fetchResponse(2, [{ seq: 1, turn_id: 1, role: "user", text: "msg:m1" }], [1]),
  fetchResponse(1, [], []),
];

async function play(a) {
  const answers = [];
  for (const input of session) {
    const { id, ...rest } = await a.input(input);
    answers.push(rest);
  }
  return answers;
}

test("the same requests after a reset give the same answers (ids, time, randomness, timers)", async () => {
  const a = await jsAdapter("chat.mjs", ["boot"]);
  const { id: _1, ...boot1 } = await a.reset();
  const first = await play(a);
  const { id: _2, ...boot2 } = await a.reset();
  const second = await play(a);
  assert.deepEqual(boot2, boot1);
  assert.deepEqual(second, first);
  assert.ok(first.every((x) => x.type === "output"), JSON.stringify(first));
  // A fresh process agrees too.
  const b = await jsAdapter("chat.mjs", ["boot"]);
  await b.reset();
  assert.deepEqual(await play(b), first);
  await a.close();
  await b.close();
  // What made it deterministic: the debounced status ran in its own input's answer, at
  // virtual time +100 ms, with the seeded random numbers; the assistant row's id is minted.
  assert.equal(first[0].render.find((r) => r.id === "status").text, "status:idle@100 r=0.358890");
  assert.equal(first[6].render.find((r) => r.id === "status").text, "status:running@200 r=0.105903");
  assert.equal(first[5].render.find((r) => r.role === "assistant" && r.turn_id === 1).text, "txt:t1.1txt:t1.2");
});

test("a store that sets timers without ever stopping is an error, not a hang", async () => {
  const a = await jsAdapter("timers.mjs");
  await a.reset();
  const crash = await a.input(userSend(1));
  assert.equal(crash.type, "error");
  assert.match(crash.message, /timers kept firing/);
  assert.equal((await a.reset()).type, "reset");
  await a.close();
});

test("state digests: equal after different paths to the same state, different otherwise", async () => {
  const digestAfter = async (inputs, args = ["snapshot"]) => {
    const a = await jsAdapter("chat.mjs", args);
    await a.reset();
    for (const input of inputs) {
      assert.equal((await a.input(input)).type, "output");
      assert.equal((await a.state()).type, "state");
    }
    const s = await a.state();
    await a.close();
    return s.digest;
  };
  const status = (s) => ({ input: "event", event: { type: "status", status: s } });
  const sealed = (t) => ({ input: "event", event: { type: "turn-sealed", turn_id: t } });

  const idleThenRunning = await digestAfter([status("idle"), status("running")]);
  const runningTwice = await digestAfter([status("running"), status("running")]);
  const idleOnly = await digestAfter([status("idle")]);
  assert.match(idleThenRunning, /^[0-9a-f]{64}$/);
  assert.equal(idleThenRunning, runningTwice);
  assert.notEqual(idleThenRunning, idleOnly);

  // A pending fetch resumes code the snapshot cannot see: it counts by where it came from.
  const sealedAfterA = await digestAfter([status("idle"), status("running"), sealed(1)]);
  const sealedAfterB = await digestAfter([status("running"), status("running"), sealed(1)]);
  const otherSeal = await digestAfter([status("running"), status("running"), sealed(2)]);
  assert.equal(sealedAfterA, sealedAfterB);
  assert.notEqual(sealedAfterA, otherSeal);
});

test("a state request without a snapshot() in the mapping is an error", async () => {
  const a = await jsAdapter("chat.mjs");
  await a.reset();
  const s = await a.state();
  assert.equal(s.type, "error");
  assert.match(s.message, /no snapshot\(\)/);
  await a.close();
});
