// flattenMessages: a render of messages with parts (sealed only implicitly) to protocol rows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { flattenMessages, sealedRows } from "../dist/index.js";

test("sealed messages (every part has a seq) become one sealed row per part, tool parts keep their role", () => {
  const rows = flattenMessages([
    { id: "chunk-1", role: "user", turnId: 1, parts: [{ kind: "text", seq: 1, text: "msg:m1" }] },
    {
      id: "chunk-2",
      role: "assistant",
      turnId: 1,
      text: "ignored for sealed messages",
      parts: [
        { kind: "text", seq: 2, text: "txt:t1.1" },
        { kind: "tool-call", seq: 3, text: "call" },
        { type: "tool-result", seq: 4, text: "[USER INTERRUPT] msg:m2" },
        { kind: "text", seq: 5, content: "txt:t1.2" },
      ],
    },
  ]);
  assert.deepEqual(rows, [
    { from: "sealed", seq: 1, role: "user", turn_id: 1, text: "msg:m1" },
    { from: "sealed", seq: 2, role: "assistant", turn_id: 1, text: "txt:t1.1" },
    { from: "sealed", seq: 3, role: "tool-call", turn_id: 1, text: "call" },
    { from: "sealed", seq: 4, role: "tool-result", turn_id: 1, text: "[USER INTERRUPT] msg:m2" },
    { from: "sealed", seq: 5, role: "assistant", turn_id: 1, text: "txt:t1.2" },
  ]);
});

test("live messages become live rows; an unbound row has no turn_id; parts of a live message become rows", () => {
  const rows = flattenMessages([
    { id: "queued-abc", role: "user", text: "msg:m2" },
    { id: "u1", role: "user", turnId: null, text: "msg:m3" },
    { id: "a1", role: "assistant", turnId: 2, text: "txt:t2.1" },
    { id: "a2", role: "assistant", turnId: 2, parts: [{ kind: "text", text: "txt:t2.2" }, { kind: "tool-call", text: "c" }] },
  ]);
  assert.deepEqual(rows, [
    { from: "live", id: "queued-abc", role: "user", text: "msg:m2" },
    { from: "live", id: "u1", role: "user", text: "msg:m3" },
    { from: "live", id: "a1", role: "assistant", turn_id: 2, text: "txt:t2.1" },
    { from: "live", id: "a2", role: "assistant", turn_id: 2, text: "txt:t2.2" },
    { from: "live", id: "a2#1", role: "tool-call", turn_id: 2, text: "c" },
  ]);
});

test("a message with a seq of its own is sealed; accessors override the defaults", () => {
  assert.deepEqual(flattenMessages([{ seq: 7, role: "user", turnId: 3, text: "msg:m1" }]), [
    { from: "sealed", seq: 7, role: "user", turn_id: 3, text: "msg:m1" },
  ]);
  const custom = flattenMessages([{ key: "x", role: "assistant", turn: "t4", sealed: false, text: "hi" }], {
    isSealed: (m) => m.sealed,
    id: (m) => m.key,
    turnId: (m) => Number(m.turn.slice(1)),
  });
  assert.deepEqual(custom, [{ from: "live", id: "x", role: "assistant", turn_id: 4, text: "hi" }]);
});

test("what cannot become a protocol row is an error saying why", () => {
  assert.throws(() => flattenMessages([{ role: "user", text: "no id" }]), /live message has no string id/);
  assert.throws(() => flattenMessages([{ id: "x", role: "system", text: "?" }]), /no valid role/);
  assert.throws(() => flattenMessages([{ id: "x", role: "user", parts: [{ seq: 1, text: "t" }] }]), /no numeric turn id/);
});

test("sealedRows maps app-shaped chunk rows", () => {
  assert.deepEqual(sealedRows([{ seq: 1, turnId: 1, role: "user", text: "msg:m1" }]), [
    { from: "sealed", seq: 1, role: "user", turn_id: 1, text: "msg:m1" },
  ]);
});

test("real shapes: a tool batch is a call and a result each; sealed parts without seqs take them from seqOf", () => {
  const seqs = new Map([["1 user msg:m1", 1], ["1 tool-call call:a", 2], ["1 tool-result result:a", 3], ["1 tool-call call:b", 4]]);
  const messages = [
    { id: "msg-1", role: "user", turnId: "1", parts: [{ type: "text", text: "msg:m1" }], pending: false },
    {
      id: "msg-2",
      role: "assistant",
      turnId: "1",
      parts: [{ type: "tool_batch", calls: [{ callId: "1", input: "call:a", output: "result:a" }, { callId: "2", input: "call:b" }] }],
      pending: false,
    },
    { id: "live-1", role: "assistant", turnId: "2", parts: [{ type: "tool_batch", calls: [{ callId: "1", input: "call:c", output: "result:c" }] }], pending: true },
  ];
  const rows = flattenMessages(messages, { isSealed: (m) => !m.pending, seqOf: (t, role, text) => seqs.get(`${t} ${role} ${text}`) });
  assert.deepEqual(rows, [
    { from: "sealed", seq: 1, role: "user", turn_id: 1, text: "msg:m1" },
    { from: "sealed", seq: 2, role: "tool-call", turn_id: 1, text: "call:a" },
    { from: "sealed", seq: 3, role: "tool-result", turn_id: 1, text: "result:a" },
    { from: "sealed", seq: 4, role: "tool-call", turn_id: 1, text: "call:b" },
    { from: "live", id: "live-1", role: "tool-call", turn_id: 2, text: "call:c" },
    { from: "live", id: "live-1#1", role: "tool-result", turn_id: 2, text: "result:c" },
  ]);
  // A sealed part that matches no chunk row the store was given cannot be placed: an error naming it.
  const stray = [{ id: "msg-9", role: "assistant", turnId: "1", parts: [{ type: "text", text: "txt:never" }], pending: false }];
  assert.throws(
    () => flattenMessages(stray, { isSealed: () => true, seqOf: () => undefined }),
    /cannot place a sealed part of message "msg-9": turn 1 assistant "txt:never" matches no chunk row the store was given/,
  );
});
