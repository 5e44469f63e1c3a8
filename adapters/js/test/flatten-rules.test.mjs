// render.ts rule by rule (issue 52, the StrykerJS round): which message is sealed, where a
// part's role, text, turn and seq come from, a tool batch's rows, and every problem a
// render can have, each named as the adapter reports it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { expandToolBatch, flattenMessages, sealedRows } from "../dist/index.js";
import { renderProblem } from "../dist/render.js";

const live = (id, role, text, turn_id) => (turn_id === undefined ? { from: "live", id, role, text } : { from: "live", id, role, turn_id, text });
const sealed = (seq, role, turn_id, text) => ({ from: "sealed", seq, role, turn_id, text });

test("a part's role: its role, else its kind or type (tool kinds or a role), else the message's; none is an error naming both", () => {
  const rows = flattenMessages([
    {
      id: "a",
      role: "assistant",
      turnId: 1,
      parts: [
        { role: "tool-result", kind: "text", text: "r" },
        { role: "bogus", kind: "tool-call", text: "c" },
        { type: "tool-result", text: "r2" },
        { kind: "user", text: "u" },
        { type: "assistant", text: "t" },
        { kind: "text", text: "m" },
        { text: "plain" },
      ],
    },
  ]);
  assert.deepEqual(
    rows.map((r) => r.role),
    ["tool-result", "tool-call", "tool-result", "user", "assistant", "assistant", "assistant"],
  );
  assert.throws(
    () => flattenMessages([{ id: "x", role: "system", turnId: 1, parts: [{ kind: "text", text: "t" }] }]),
    /cannot tell the role of a part \(\{"kind":"text","text":"t"\}\) of message "x"/,
  );
});

test("a part's text: text (even empty), else content, else nothing; a live message without parts is one row of its text", () => {
  const rows = flattenMessages([
    { id: "a", role: "assistant", parts: [{ text: "", content: "not this" }, { content: "c" }, {}] },
    { id: "b", role: "user", content: "from content" },
    { id: "c", role: "user", text: "from text", content: "not this" },
  ]);
  assert.deepEqual(rows, [
    live("a", "assistant", ""),
    live("a#1", "assistant", "c"),
    live("a#2", "assistant", ""),
    live("b", "user", "from content"),
    live("c", "user", "from text"),
  ]);
  assert.throws(() => flattenMessages([{ id: "d", role: "bot", text: "x" }]), /live message "d" has no valid role: "bot"/);
  assert.throws(() => flattenMessages([{ id: 7, role: "user", text: "x" }]), /a live message has no string id: \{"id":7/);
});

test("a tool batch: each call a tool-call row (input, args or text) and a result row when it has an output (output or result)", () => {
  const batch = {
    type: "tool_batch",
    turnId: 4,
    calls: [
      { input: "i" },
      { args: { q: 1 }, output: { ok: true } },
      { text: "t", result: "r" },
      { input: null, args: "a", output: null, result: "late" },
      { input: 0, output: 0 },
    ],
  };
  assert.deepEqual(expandToolBatch(batch), [
    { kind: "tool-call", text: "i", turnId: 4 },
    { kind: "tool-call", text: '{"q":1}', turnId: 4 },
    { kind: "tool-result", text: '{"ok":true}', turnId: 4 },
    { kind: "tool-call", text: "t", turnId: 4 },
    { kind: "tool-result", text: "r", turnId: 4 },
    { kind: "tool-call", text: "a", turnId: 4 },
    { kind: "tool-result", text: "late", turnId: 4 },
    { kind: "tool-call", text: "0", turnId: 4 },
    { kind: "tool-result", text: "0", turnId: 4 },
  ]);
  assert.deepEqual(expandToolBatch({ kind: "text", text: "x" }), [{ kind: "text", text: "x" }]);
  assert.deepEqual(expandToolBatch({ calls: [{}] }), [{ kind: "tool-call", text: "", turnId: undefined }]);
  // A null text is no text (not "null"); a null result (output absent) is no result row.
  assert.deepEqual(expandToolBatch({ turnId: 1, calls: [{ text: null }, { input: "n", result: null }] }), [
    { kind: "tool-call", text: "", turnId: 1 },
    { kind: "tool-call", text: "n", turnId: 1 },
  ]);
  // A custom expand replaces it; parts come from the accessor when given.
  const rows = flattenMessages([{ id: "m", role: "assistant", turnId: 2, items: [{ kind: "text", text: "x" }], parts: [{ text: "ignored" }] }], {
    parts: (m) => m.items,
    expand: (p) => [p, { ...p, text: `${p.text}!` }],
  });
  assert.deepEqual(rows, [live("m", "assistant", "x", 2), live("m#1", "assistant", "x!", 2)]);
});

test("turn ids: numbers as they are, strings of digits read, others only with decodeTurnId; a part's own turn wins", () => {
  const rows = flattenMessages([
    { id: "a", role: "assistant", turnId: 3, text: "n" },
    { id: "b", role: "assistant", turnId: "-12", text: "s" },
    { id: "c", role: "user", turnId: null, text: "u" },
    { id: "d", role: "assistant", turnId: 5, parts: [{ text: "x", turnId: "6" }, { text: "y" }] },
  ]);
  assert.deepEqual(rows, [
    live("a", "assistant", "n", 3),
    live("b", "assistant", "s", -12),
    live("c", "user", "u"),
    live("d", "assistant", "x", 6),
    live("d#1", "assistant", "y", 5),
  ]);
  // Only a whole string of digits: not "1a", not "a12" (a number at its end), not an array whose string is digits.
  for (const [turnId, shown] of [["1a", '"1a"'], ["a12", '"a12"'], [[5], "\\[5\\]"]]) {
    assert.throws(() => flattenMessages([{ id: "e", role: "assistant", turnId, text: "" }]), new RegExp(`cannot read the turn id ${shown}: pass decodeTurnId`));
  }
  const decoded = flattenMessages([{ id: "f", role: "assistant", turnId: "t9", parts: [{ text: "p", turnId: "t8" }] }], {
    decodeTurnId: (id) => Number(String(id).slice(1)),
  });
  assert.deepEqual(decoded, [live("f", "assistant", "p", 8)]);
  // The accessor's turn, not the message's field.
  assert.deepEqual(flattenMessages([{ id: "g", role: "user", turnId: 1, text: "u" }], { turnId: () => undefined }), [live("g", "user", "u")]);
});

test("sealed: a seq on the message or on every part (not on an empty list of parts); isSealed overrides, seqs from the part, the message or seqOf", () => {
  assert.deepEqual(flattenMessages([{ id: "e", role: "user", turnId: 1, parts: [], text: "t" }]), [live("e", "user", "t", 1)]);
  assert.deepEqual(flattenMessages([{ id: "s", role: "user", turnId: 1, seq: 4, parts: [{ text: "p" }] }]), [sealed(4, "user", 1, "p")]);
  assert.deepEqual(flattenMessages([{ id: "s", role: "user", turnId: 1, seq: 4, parts: [] }]), [sealed(4, "user", 1, "")]);
  // isSealed decides alone: a message with a seq it calls live is live, and its seq is not read.
  assert.deepEqual(flattenMessages([{ id: "l", role: "user", seq: 9, text: "t" }], { isSealed: () => false }), [live("l", "user", "t")]);
  const viaSeqOf = flattenMessages([{ id: "q", role: "assistant", turnId: "2", parts: [{ text: "a" }, { text: "b", seq: 11 }] }], {
    isSealed: () => true,
    seqOf: (turn, role, text) => (turn === 2 && role === "assistant" && text === "a" ? 10 : undefined),
  });
  assert.deepEqual(viaSeqOf, [sealed(10, "assistant", 2, "a"), sealed(11, "assistant", 2, "b")]);
  // The part's own turn (also when the message has none), else the message's.
  assert.deepEqual(
    flattenMessages([{ id: "p", role: "assistant", parts: [{ text: "a", seq: 1, turnId: 7 }, { text: "b", seq: 2, turnId: null }] }], { turnId: () => 6 }),
    [sealed(1, "assistant", 7, "a"), sealed(2, "assistant", 6, "b")],
  );
  assert.throws(
    () => flattenMessages([{ id: "n", role: "user", parts: [{ text: "t", seq: 1 }] }]),
    /a sealed part of message "n" has no numeric turn id: \{"text":"t","seq":1\}/,
  );
  assert.throws(
    () => flattenMessages([{ id: "z", role: "user", turnId: 1, text: "t" }], { isSealed: () => true }),
    /cannot place a sealed part of message "z": turn 1 user "t" has no seq$/,
  );
});

test("sealedRows: a chunk row of no known role is an error naming its seq", () => {
  assert.deepEqual(sealedRows([{ seq: 2, turnId: 1, role: "tool-call", text: "c" }]), [sealed(2, "tool-call", 1, "c")]);
  assert.throws(() => sealedRows([{ seq: 5, turnId: 1, role: "system", text: "x" }]), /chunk seq 5 has role "system"/);
});

test("renderProblem names the first row the protocol cannot carry, and why", () => {
  assert.equal(renderProblem([]), undefined);
  assert.equal(renderProblem([sealed(1, "user", 1, "t"), live("a", "assistant", "x", 2), live("b", "user", "y")]), undefined);
  assert.equal(renderProblem({}), "render() must return an array of rows, got object");
  assert.equal(renderProblem("rows"), "render() must return an array of rows, got string");
  const cases = [
    [null, "is not an object"],
    ["row", "is not an object"],
    [{ from: "live", id: "a", role: "system", text: "" }, "has no valid role"],
    [{ from: "live", id: "a", role: "user", text: 1 }, "has no string text"],
    [{ from: "sealed", seq: "1", turn_id: 1, role: "user", text: "" }, "is sealed but has no numeric seq"],
    [{ from: "sealed", seq: 1, turn_id: "1", role: "user", text: "" }, "is sealed but has no numeric turn_id"],
    [{ from: "live", id: 3, role: "user", text: "" }, "is live but has no string id"],
    [{ from: "live", id: "a", turn_id: "2", role: "user", text: "" }, "has a turn_id that is not a number"],
    [{ from: "draft", role: "user", text: "" }, 'has no from ("sealed" or "live")'],
  ];
  for (const [row, why] of cases) {
    assert.equal(renderProblem([live("ok", "user", "fine"), row]), `render row 1 ${why}: ${JSON.stringify(row)}`);
  }
});
