// flattenMessages: a render of messages with parts (sealed only implicitly) to protocol rows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { expandToolBatch, flattenMessages, sealedRows } from "../dist/index.js";

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

test("a message's one seq stands for one row: several parts find their own rows (seqOf), never one seq for all", () => {
  const grouped = [
    {
      id: "msg-2",
      seq: 2,
      role: "assistant",
      turnId: 1,
      parts: [
        { type: "text", text: "txt:t1.1" },
        { type: "tool_calls", calls: [{ id: "c1", name: "search", arguments: "call:a", result: "result:a" }] },
        { type: "text", text: "txt:t1.1" },
      ],
    },
  ];
  const rows = [
    [2, "assistant", "txt:t1.1"],
    [3, "tool-call", "call:a"],
    [4, "tool-result", "result:a"],
    [5, "assistant", "txt:t1.1"],
  ];
  const seqOf = (t, role, text, taken) => rows.find(([seq, r, x]) => r === role && x === text && !taken.has(seq))?.[0];
  assert.deepEqual(flattenMessages(grouped, { seqOf, toolBatch: { input: "arguments" } }), [
    { from: "sealed", seq: 2, role: "assistant", turn_id: 1, text: "txt:t1.1" },
    { from: "sealed", seq: 3, role: "tool-call", turn_id: 1, text: "call:a" },
    { from: "sealed", seq: 4, role: "tool-result", turn_id: 1, text: "result:a" },
    { from: "sealed", seq: 5, role: "assistant", turn_id: 1, text: "txt:t1.1" },
  ]);
  // Without a way to find each part's row, one seq shown for four rows would be a render
  // the store never made: an error saying what to do.
  assert.throws(
    () => flattenMessages(grouped, { toolBatch: { input: "arguments" } }),
    /cannot place a sealed part of message "msg-2": turn 1 assistant "txt:t1.1" has no seq of its own, and its message's seq \(2\) stands for one of its rows only \(use harness.flatten/,
  );
  // A message of one row keeps its seq.
  assert.deepEqual(flattenMessages([{ id: "u", seq: 9, role: "user", turnId: 2, parts: [{ type: "text", text: "msg:m1" }] }]), [
    { from: "sealed", seq: 9, role: "user", turn_id: 2, text: "msg:m1" },
  ]);
});

test("tool batch field names: a call's text and result read from the declared fields (a list is tried in order)", () => {
  const part = { kind: "batch", toolCalls: [{ arguments: { q: "x" }, output: null, result: "r" }, { arguments: "call:b" }] };
  assert.deepEqual(expandToolBatch(part, { calls: "toolCalls", input: "arguments", output: ["output", "result"] }), [
    { kind: "tool-call", text: '{"q":"x"}', turnId: undefined },
    { kind: "tool-result", text: "r", turnId: undefined },
    { kind: "tool-call", text: "call:b", turnId: undefined },
  ]);
  // The defaults do not know `arguments`: the part is not a batch without `calls`, and a call's text is input/args/text.
  assert.deepEqual(expandToolBatch({ calls: [{ arguments: "a", input: "i" }] }), [{ kind: "tool-call", text: "i", turnId: undefined }]);
});
