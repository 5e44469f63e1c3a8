// From what a real store renders (messages, some with parts) to the protocol's render rows.
//
// A real `groupRowsToMessages(chunks)` merges durable chunk rows into messages with parts
// (an assistant message holding text, tool-call and tool-result parts), and the store
// shows `groupRowsToMessages(chunks) ++ live`. Which message is sealed is only implicit:
// by default a message is sealed when it has parts and every part carries the `seq` of the
// chunk row it came from, and live otherwise. Each sealed part becomes one sealed row; a
// live message becomes one live row (one per part if it has parts).
//
// Real shapes: a tool batch part (`{type: "tool_batch", calls: [{input, output}, …]}`)
// is a call and a result each (two rows); a sealed part without a `seq` of its own takes
// the seq of the chunk row it shows (`seqOf`, which `Harness.flatten` fills from the chunk
// rows the store was given); a part that cannot be placed is an error naming it.

import { type LiveRow, type RenderRow, type Role } from "./wire.js";

/** A part of a message: one chunk row for sealed messages. Any of the text/kind field names work. */
export interface PartLike {
  seq?: number;
  /** `text`, `tool-call`, `tool-result` (or a role). */
  kind?: string;
  type?: string;
  role?: string;
  text?: string;
  content?: string;
  turnId?: number | string | null;
  /** A tool batch: each call is a tool-call row and, when it has an output, a tool-result row. */
  calls?: readonly ToolCallLike[];
}

/** One call of a tool batch. The call's text is `input` (or `args`, `text`), the result's `output` (or `result`). */
export interface ToolCallLike {
  input?: unknown;
  args?: unknown;
  text?: string;
  output?: unknown;
  result?: unknown;
}

export interface MessageLike {
  id?: string;
  role?: string;
  turnId?: number | string | null;
  text?: string;
  content?: string;
  parts?: readonly PartLike[];
  seq?: number;
}

export interface FlattenOptions<M> {
  /** Is this message sealed (from `chunks`)? Default: it has parts and every part has a numeric `seq`, or it has a `seq`. */
  isSealed?(message: M): boolean;
  /** The message's parts (default `message.parts`). */
  parts?(message: M): readonly PartLike[] | undefined;
  /** The turn a message is bound to (default `message.turnId`); `undefined`/`null` for an unbound row. */
  turnId?(message: M): number | null | undefined;
  /** The row id of a live message (default `message.id`). */
  id?(message: M): string;
  /** One part as the parts it shows (default: a tool batch's calls and results; other parts as they are). */
  expand?(part: PartLike): readonly PartLike[];
  /** The seq of a sealed part that carries none: the chunk row with this turn, role and text (undefined: none). */
  seqOf?(turnId: number, role: Role, text: string): number | undefined;
  /** Reads a turn id the app spells otherwise (default: numbers, and strings of digits). */
  decodeTurnId?(id: unknown): number;
}

const isRole = (r: unknown): r is Role => r === "user" || r === "assistant" || r === "tool-call" || r === "tool-result";

function partRole(part: PartLike, messageRole: unknown, messageId: unknown): Role {
  const role = part.role;
  if (role !== undefined && isRole(role)) return role;
  const kind = part.kind ?? part.type;
  if (kind === "tool-call" || kind === "tool-result") return kind;
  if (kind !== undefined && isRole(kind)) return kind;
  if (isRole(messageRole)) return messageRole;
  throw new Error(`cannot tell the role of a part (${JSON.stringify(part)}) of message ${JSON.stringify(messageId)}`);
}

const textOf = (x: { text?: string; content?: string }): string => {
  const text = x.text;
  return text !== undefined ? text : (x.content ?? "");
};

const asText = (v: unknown): string => (typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v));

/** The default `expand`: a tool batch's calls as tool-call and tool-result parts. */
export function expandToolBatch(part: PartLike): readonly PartLike[] {
  const calls = part.calls;
  if (!Array.isArray(calls)) return [part];
  const out: PartLike[] = [];
  for (const c of calls as readonly ToolCallLike[]) {
    const turnId = part.turnId;
    out.push({ kind: "tool-call", text: asText(c.input ?? c.args ?? c.text), turnId });
    const result = c.output ?? c.result;
    if (result !== undefined && result !== null) out.push({ kind: "tool-result", text: asText(result), turnId });
  }
  return out;
}

function turnNumber(id: unknown, decode: ((id: unknown) => number) | undefined): number | undefined {
  if (id === undefined || id === null) return undefined;
  if (typeof id === "number") return id;
  if (decode !== undefined) return decode(id);
  if (typeof id === "string" && /^-?\d+$/.test(id)) return Number(id);
  throw new Error(`cannot read the turn id ${JSON.stringify(id)}: pass decodeTurnId (or declare network.codec.ids)`);
}

function allSeqs(parts: readonly PartLike[] | undefined): boolean {
  if (parts === undefined || parts.length === 0) return false;
  for (let i = 0; i < parts.length; i++) if (typeof parts[i]!.seq !== "number") return false;
  return true;
}

/**
 * `groupRowsToMessages(chunks) ++ live`, as protocol render rows. Each field of a message
 * is read once (live messages are usually `$state` proxies, where every read costs).
 */
export function flattenMessages<M extends MessageLike>(messages: Iterable<M>, options: FlattenOptions<M> = {}): RenderRow[] {
  const rows: RenderRow[] = [];
  const { isSealed, parts: partsOf, turnId: turnIdOf, id: idOf, expand = expandToolBatch } = options;
  for (const m of messages) {
    const own = partsOf !== undefined ? partsOf(m) : m.parts;
    const parts = own === undefined ? undefined : own.flatMap((p) => expand(p));
    const t = turnIdOf !== undefined ? turnIdOf(m) : m.turnId;
    const turnId = turnNumber(t, options.decodeTurnId);
    const seq = isSealed === undefined ? m.seq : undefined;
    const role = m.role;
    if (isSealed !== undefined ? isSealed(m) : typeof seq === "number" || allSeqs(parts)) {
      const sealedParts = parts !== undefined && parts.length > 0 ? parts : [m as PartLike];
      for (const p of sealedParts) rows.push(sealedRow(m, p, turnId, options));
      continue;
    }
    const id = idOf !== undefined ? idOf(m) : m.id;
    if (typeof id !== "string") throw new Error(`a live message has no string id: ${JSON.stringify(m)}`);
    if (parts !== undefined && parts.length > 0) {
      parts.forEach((p, i) => {
        const pt = p.turnId === undefined ? turnId : turnNumber(p.turnId, options.decodeTurnId);
        rows.push(liveRow(i === 0 ? id : `${id}#${i}`, partRole(p, role, id), pt, textOf(p)));
      });
    } else {
      if (!isRole(role)) throw new Error(`live message ${JSON.stringify(id)} has no valid role: ${JSON.stringify(role)}`);
      rows.push(liveRow(id, role, turnId, textOf(m)));
    }
  }
  return rows;
}

/** One sealed part as a row: its own seq, the message's, or the chunk row it shows (`seqOf`). */
function sealedRow<M extends MessageLike>(m: M, p: PartLike, turnId: number | undefined, options: FlattenOptions<M>): RenderRow {
  const pt = p.turnId === undefined || p.turnId === null ? turnId : turnNumber(p.turnId, options.decodeTurnId);
  const role = partRole(p, m.role, m.id);
  const text = textOf(p);
  if (typeof pt !== "number") throw new Error(`a sealed part of message ${JSON.stringify(m.id)} has no numeric turn id: ${JSON.stringify(p)}`);
  let seq = p.seq ?? m.seq;
  if (typeof seq !== "number" && options.seqOf !== undefined) seq = options.seqOf(pt, role, text);
  if (typeof seq !== "number") {
    const why = options.seqOf === undefined ? "has no seq" : "matches no chunk row the store was given (turn, role and text)";
    throw new Error(`cannot place a sealed part of message ${JSON.stringify(m.id)}: turn ${pt} ${role} ${JSON.stringify(text)} ${why}`);
  }
  return { from: "sealed", seq, role, turn_id: pt, text };
}

function liveRow(id: string, role: Role, turnId: number | null | undefined, text: string): LiveRow {
  return turnId === undefined || turnId === null
    ? { from: "live", id, role, text }
    : { from: "live", id, role, turn_id: turnId, text };
}

/** Sealed rows straight from chunk rows in app shape (`{seq, turnId, role, text}`). */
export function sealedRows(chunks: Iterable<{ seq: number; turnId: number; role: string; text: string }>): RenderRow[] {
  const rows: RenderRow[] = [];
  for (const c of chunks) {
    if (!isRole(c.role)) throw new Error(`chunk seq ${c.seq} has role ${JSON.stringify(c.role)}`);
    rows.push({ from: "sealed", seq: c.seq, role: c.role, turn_id: c.turnId, text: c.text });
  }
  return rows;
}

/** Checks one render before it goes on the wire; returns a message naming the first bad row, or undefined. */
export function renderProblem(rows: unknown): string | undefined {
  if (!Array.isArray(rows)) return `render() must return an array of rows, got ${typeof rows}`;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as Record<string, unknown> | null;
    const bad = (why: string) => `render row ${i} ${why}: ${JSON.stringify(r)}`;
    if (r === null || typeof r !== "object") return bad("is not an object");
    if (!isRole(r.role)) return bad("has no valid role");
    if (typeof r.text !== "string") return bad("has no string text");
    if (r.from === "sealed") {
      if (typeof r.seq !== "number") return bad("is sealed but has no numeric seq");
      if (typeof r.turn_id !== "number") return bad("is sealed but has no numeric turn_id");
    } else if (r.from === "live") {
      if (typeof r.id !== "string") return bad("is live but has no string id");
      if (r.turn_id !== undefined && typeof r.turn_id !== "number") return bad("has a turn_id that is not a number");
    } else {
      return bad('has no from ("sealed" or "live")');
    }
  }
  return undefined;
}
