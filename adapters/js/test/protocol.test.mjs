// Framing, ids, errors and stdout hygiene of the protocol loop.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Adapter, fixture, jsAdapter, userSend } from "./helpers.mjs";
import { defineAdapter, normaliseWorld } from "../dist/index.js";

test("hello answers the protocol and the mapping's name; a wrong version is an error", async () => {
  const a = new Adapter([fixture("chat.mjs")]);
  assert.deepEqual(await a.request({ type: "hello", protocol: 2, id: 1 }), {
    type: "error",
    message: "unsupported protocol 2; this adapter speaks 1",
    id: 1,
  });
  assert.deepEqual(await a.request({ type: "hello", protocol: 1, id: 2 }), { type: "hello", protocol: 1, name: "test:chat", clock: "every pending timer runs after each input", id: 2 });
  assert.equal(await a.close(), 0);
});

test("hello announces the extensions the mapping speaks: boot when a new store asks for something, state with snapshot()", async () => {
  const features = async (args) => {
    const a = new Adapter([fixture("chat.mjs"), ...args]);
    const hello = await a.request({ type: "hello", protocol: 1, id: 1 });
    // The first reset answers what a new store asks for, as every later one does.
    const first = await a.request({ type: "reset", id: 2 });
    const second = await a.request({ type: "reset", id: 3 });
    assert.deepEqual({ ...first, id: 3 }, second);
    await a.close();
    return hello.features;
  };
  assert.equal(await features([]), undefined);
  assert.deepEqual(await features(["boot"]), ["boot"]);
  assert.deepEqual(await features(["open-in-factory"]), ["boot"]);
  assert.deepEqual(await features(["snapshot"]), ["state"]);
  assert.deepEqual(await features(["boot", "snapshot"]), ["boot", "state"]);
});

test("a mapping that cannot make a store announces nothing, and the first reset says why", async () => {
  const a = new Adapter([fixture("chat.mjs"), "throw-in-factory"]);
  const hello = await a.request({ type: "hello", protocol: 1, id: 1 });
  assert.equal(hello.type, "hello");
  assert.equal(hello.features, undefined);
  const reset = await a.request({ type: "reset", id: 2 });
  assert.equal(reset.type, "error");
  assert.match(reset.message, /factory failed on purpose/);
  await a.close();
});

test("requests before hello or reset, unknown types and non-JSON lines are errors; blank lines are ignored", async () => {
  const a = new Adapter([fixture("chat.mjs")]);
  assert.equal((await a.request({ type: "reset", id: 1 })).type, "error");
  await a.hello();
  const early = await a.input(userSend(1));
  assert.equal(early.type, "error");
  assert.match(early.message, /input before reset/);
  a.write("\n   \nnot json\n");
  const bad = JSON.parse(await a.line());
  assert.equal(bad.type, "error");
  assert.equal(bad.id, null);
  assert.match(bad.message, /not JSON/);
  const unknown = await a.request({ type: "frobnicate" });
  assert.equal(unknown.type, "error");
  assert.match(unknown.message, /unknown request type/);
  await a.close();
});

test("ids are echoed; pipelined requests are answered in order; unknown fields are ignored", async () => {
  const a = await jsAdapter("chat.mjs");
  a.write(
    [
      { type: "reset", id: 10, future: true },
      { type: "input", id: 11, input: { input: "event", event: { type: "status", status: "idle", extra: 1 }, note: "x" } },
      { type: "input", id: 12, input: { ...userSend(1), extra: [1, 2] } },
    ]
      .map((m) => JSON.stringify(m))
      .join("\n") + "\n",
  );
  const answers = [JSON.parse(await a.line()), JSON.parse(await a.line()), JSON.parse(await a.line())];
  assert.deepEqual(
    answers.map((x) => [x.type, x.id]),
    [
      ["reset", 10],
      ["output", 11],
      ["output", 12],
    ],
  );
  assert.deepEqual(answers[2].effects, [{ effect: "post", message_id: 1, text: "msg:m1" }]);
  await a.close();
});

test("a request cut across reads, even inside a multi-byte character, is read whole", async () => {
  const a = await jsAdapter("chat.mjs");
  await a.reset();
  await a.event({ type: "status", status: "idle" });
  const line = Buffer.from(JSON.stringify({ type: "input", id: 4, input: { input: "user-send", message_id: 1, text: "msg:m1 é✓" } }) + "\n");
  const cut = line.indexOf(Buffer.from("é")) + 1; // between the two bytes of é
  a.proc.stdin.write(line.subarray(0, cut));
  await new Promise((r) => setTimeout(r, 100));
  a.proc.stdin.write(line.subarray(cut));
  const out = JSON.parse(await a.line());
  assert.deepEqual(out.effects, [{ effect: "post", message_id: 1, text: "msg:m1 é✓" }]);
  await a.close();
});

test("stdout carries only the protocol: console.* and process.stdout.write go to stderr", async () => {
  const a = await jsAdapter("chat.mjs", ["noise"]);
  await a.reset();
  await a.event({ type: "status", status: "idle" });
  const out = await a.input(userSend(1));
  assert.equal(out.type, "output");
  await a.close();
  assert.match(a.stderr, /sending 00000000-0000-4000-8000-000000000001/);
  assert.match(a.stderr, /stray write/);
  assert.equal(a.stdout, ""); // no partial line left over either
});

test("a store that throws is a crash of that input; the process serves the next run", async () => {
  const a = await jsAdapter("chat.mjs");
  await a.reset();
  const crash = await a.event({ type: "tool-call", turn_id: 1, call: 1, text: "throw" });
  assert.equal(crash.type, "error");
  assert.match(crash.message, /tool-call handler exploded/);
  assert.match(crash.message, /at /); // the stack
  assert.equal((await a.reset()).type, "reset");
  assert.equal((await a.event({ type: "tool-call", turn_id: 1, call: 1, text: "ok" })).type, "output");
  await a.close();
});

test("a rejection the store leaves unhandled crashes the input whose continuation rejected", async () => {
  const a = await jsAdapter("chat.mjs", ["throw-after-fetch"]);
  await a.reset();
  const sealed = await a.event({ type: "turn-sealed", turn_id: 1 });
  assert.deepEqual(sealed.effects, [{ effect: "fetch", request_id: 1 }]);
  const crash = await a.input({ input: "fetch-response", request_id: 1, snapshot_seq: 0, chunks: [], written_turns: [] });
  assert.equal(crash.type, "error");
  assert.match(crash.message, /reconcile exploded/);
  await a.close();
});

test("a render row the protocol cannot carry is an error naming the row", async () => {
  const a = await jsAdapter("chat.mjs", ["bad-render"]);
  await a.reset();
  const bad = await a.event({ type: "status", status: "idle" });
  assert.equal(bad.type, "error");
  assert.match(bad.message, /render row 1 is sealed but has no numeric seq/);
  await a.close();
});

test("the adapter exits when stdin closes", async () => {
  const a = await jsAdapter("chat.mjs");
  await a.reset();
  assert.equal(await a.close(), 0);
});

test("hello carries the backend's contract the mapping declares, as --world values; none declared, no field", async () => {
  const world = async (args) => {
    const a = new Adapter([fixture("chat.mjs"), ...args]);
    const hello = await a.request({ type: "hello", protocol: 1, id: 1 });
    await a.close();
    return hello.world;
  };
  assert.equal(await world([]), undefined);
  assert.deepEqual(await world(["world-list"]), ["ordered-socket", "consume_reasons=true", "sends_per_client=1..=2"]);
  // The object form, normalised to the same strings: the profile first, then each option as written.
  assert.deepEqual(await world(["world-object"]), [
    "ordered-socket",
    "consume_reasons=true",
    "queued_texts=false",
    "sends_per_client=1..=2",
    "ws_reorder_window=1",
  ]);
});

test("a malformed contract fails where it is written, naming the entry", async () => {
  assert.throws(() => normaliseWorld(["ordered socket"]), /world: entry 0 "ordered socket" is not one --world value/);
  assert.throws(() => normaliseWorld([42]), /world: entry 0 is 42, not a string/);
  assert.throws(() => normaliseWorld({ sends_per_client: 1.5 }), /sends_per_client must be a whole number >= 0, got 1.5/);
  assert.throws(() => normaliseWorld({ turn_failures: null }), /turn_failures has the value null/);
  assert.throws(() => normaliseWorld({ profile: "a=b" }), /profile must be a profile's name/);
  assert.throws(() => defineAdapter(() => ({}), { world: "ordered-socket" }), /expected an array of strings or an object/);
  const a = new Adapter([fixture("chat.mjs"), "world-bad"]);
  assert.notEqual(await a.exited, 0);
  assert.match(a.stderr, /world: entry 0 "ordered socket" is not one --world value/);
});
