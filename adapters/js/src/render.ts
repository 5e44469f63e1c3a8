// From what a real store renders (messages, some with parts) to the protocol's render rows.
//
// A real `groupRowsToMessages(chunks)` merges durable chunk rows into messages with parts
// (an assistant message holding text, tool-call and tool-result parts), and the store
// shows `groupRowsToMessages(chunks) ++ live`. Which message is sealed is only implicit:
// by default a message is sealed when it has parts and every part carries the `seq` of the
// chunk row it came from, and live otherwise. Each sealed part becomes one sealed row; a
// live message becomes one live row (one per part if it has parts).

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
  turnId?: number | null;
}

export interface MessageLike {
  id?: string;
  role?: string;
  turnId?: number | null;
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
  const { isSealed, parts: partsOf, turnId: turnIdOf, id: idOf } = options;
  for (const m of messages) {
    const parts = partsOf !== undefined ? partsOf(m) : m.parts;
    const t = turnIdOf !== undefined ? turnIdOf(m) : m.turnId;
    const turnId = t === null ? undefined : t;
    const seq = isSealed === undefined ? m.seq : undefined;
    const role = m.role;
    if (isSealed !== undefined ? isSealed(m) : typeof seq === "number" || allSeqs(parts)) {
      const sealedParts = parts !== undefined && parts.length > 0 ? parts : [m as PartLike];
      for (const p of sealedParts) {
        const pseq = p.seq ?? m.seq;
        const pt = p.turnId ?? turnId;
        if (typeof pseq !== "number") throw new Error(`a sealed part of message ${JSON.stringify(m.id)} has no seq`);
        if (typeof pt !== "number") throw new Error(`sealed row seq ${pseq} has no numeric turn id`);
        rows.push({ from: "sealed", seq: pseq, role: partRole(p, role, m.id), turn_id: pt, text: textOf(p) });
      }
      continue;
    }
    const id = idOf !== undefined ? idOf(m) : m.id;
    if (typeof id !== "string") throw new Error(`a live message has no string id: ${JSON.stringify(m)}`);
    if (parts !== undefined && parts.length > 0) {
      parts.forEach((p, i) => rows.push(liveRow(i === 0 ? id : `${id}#${i}`, partRole(p, role, id), p.turnId ?? turnId, textOf(p))));
    } else {
      if (!isRole(role)) throw new Error(`live message ${JSON.stringify(id)} has no valid role: ${JSON.stringify(role)}`);
      rows.push(liveRow(id, role, turnId, textOf(m)));
    }
  }
  return rows;
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
