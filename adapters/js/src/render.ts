// From what a real store renders (messages, some with parts) to the protocol's render rows.
//
// A real `groupRowsToMessages(chunks)` merges durable chunk rows into messages with parts
// (an assistant message holding text, tool-call and tool-result parts), and the store
// shows `groupRowsToMessages(chunks) ++ live`. Which message is sealed is only implicit:
// by default a message is sealed when it has parts and every part carries the `seq` of the
// chunk row it came from, and live otherwise. Each sealed part becomes one sealed row; a
// live message becomes one live row (one per part if it has parts).
//
// Real shapes: a tool batch part (`{type: "tool_batch", calls: [{input, output}, …]}`,
// field names declared by `toolBatch`) is a call and a result each (two rows); a sealed
// part without a `seq` of its own takes the seq of the chunk row it shows (`seqOf`, which
// `Harness.flatten` fills from the chunk rows the store was given), also when its message
// carries one `seq` for all its rows; a part that cannot be placed is an error naming it.

import { type LiveRow, type RenderRow, type Role, type SealedRow } from "./wire.js";

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

/** One call of a tool batch. By default the call's text is `input` (or `args`, `text`), the result's `output` (or `result`). */
export interface ToolCallLike {
  input?: unknown;
  args?: unknown;
  text?: string;
  output?: unknown;
  result?: unknown;
}

/**
 * Where a tool batch keeps things, for apps whose names differ from the defaults
 * (`{ input: "arguments" }` for OpenAI-style calls). A list names fields tried in order.
 */
export interface ToolBatchFields {
  /** The part's field holding the calls (default `calls`). */
  calls?: string;
  /** The call's field holding its text (default `input`, then `args`, then `text`). */
  input?: string | readonly string[];
  /** The call's field holding its result; absent or null: no result yet (default `output`, then `result`). */
  output?: string | readonly string[];
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
  /** One part as the parts it shows (default: a tool batch's calls and results, read with `toolBatch`; other parts as they are). */
  expand?(part: PartLike): readonly PartLike[];
  /** The field names of a tool batch (default `calls`, `input`/`args`/`text`, `output`/`result`). */
  toolBatch?: ToolBatchFields;
  /**
   * The seq of a sealed part that carries none (or whose message's one `seq` stands for
   * several rows): the chunk row with this turn, role and text that this render has not
   * placed yet (`taken`: the seqs placed so far); undefined: none.
   */
  seqOf?(turnId: number, role: Role, text: string, taken: ReadonlySet<number>): number | undefined;
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

const DEFAULT_INPUT = ["input", "args", "text"] as const;
const DEFAULT_OUTPUT = ["output", "result"] as const;

/** The first of `fields` that `call` has (not undefined or null). */
function field(call: ToolCallLike, fields: string | readonly string[]): unknown {
  const c = call as Record<string, unknown>;
  if (typeof fields === "string") return c[fields];
  for (const f of fields) {
    const v = c[f];
    if (v !== undefined && v !== null) return v;
  }
  return undefined;
}

/** The default `expand`: a tool batch's calls as tool-call and tool-result parts (field names from `fields`). */
export function expandToolBatch(part: PartLike, fields: ToolBatchFields = {}): readonly PartLike[] {
  const calls = fields.calls === undefined ? part.calls : (part as Record<string, unknown>)[fields.calls];
  if (!Array.isArray(calls)) return [part];
  const input = fields.input ?? DEFAULT_INPUT;
  const output = fields.output ?? DEFAULT_OUTPUT;
  const out: PartLike[] = [];
  for (const c of calls as readonly ToolCallLike[]) {
    const turnId = part.turnId;
    out.push({ kind: "tool-call", text: asText(field(c, input)), turnId });
    const result = field(c, output);
    if (result !== undefined && result !== null) out.push({ kind: "tool-result", text: asText(result), turnId });
  }
  return out;
}

/**
 * The default expansion of a message's parts: `parts` itself when none is a tool batch (no
 * copy: a render reads every message's parts on every answer), else a copy with each
 * batch's calls and results in its place.
 */
function expandBatches(parts: readonly PartLike[], fields: ToolBatchFields | undefined, callsField: string): readonly PartLike[] {
  const n = parts.length;
  for (let i = 0; i < n; i++) {
    if (Array.isArray((parts[i] as Record<string, unknown>)[callsField])) {
      const out: PartLike[] = [];
      for (let j = 0; j < n; j++) {
        const p = parts[j]!;
        if (j < i || !Array.isArray((p as Record<string, unknown>)[callsField])) out.push(p);
        else for (const q of expandToolBatch(p, fields)) out.push(q);
      }
      return out;
    }
  }
  return parts;
}

/** Turn ids spelled as strings, read once each (every render reads every row's). */
const DECODED = new Map<string, number>();
const DECODED_MAX = 4096;

function turnNumber(id: unknown, decode: ((id: unknown) => number) | undefined): number | undefined {
  if (id === undefined || id === null) return undefined;
  if (typeof id === "number") return id;
  if (decode !== undefined) return decode(id);
  if (typeof id === "string") {
    const known = DECODED.get(id);
    if (known !== undefined) return known;
    if (/^-?\d+$/.test(id)) {
      if (DECODED.size >= DECODED_MAX) DECODED.clear();
      DECODED.set(id, Number(id));
      return Number(id);
    }
  }
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
  const { isSealed, parts: partsOf, turnId: turnIdOf, id: idOf, toolBatch, expand } = options;
  const callsField = toolBatch?.calls ?? "calls";
  /** The seqs of the sealed rows placed so far: a chunk row is shown once. */
  const taken = new Set<number>();
  for (const m of messages) {
    const own = partsOf !== undefined ? partsOf(m) : m.parts;
    const parts =
      own === undefined ? undefined : expand !== undefined ? own.flatMap((p) => expand(p)) : expandBatches(own, toolBatch, callsField);
    const t = turnIdOf !== undefined ? turnIdOf(m) : m.turnId;
    const turnId = turnNumber(t, options.decodeTurnId);
    const seq = isSealed === undefined ? m.seq : undefined;
    const role = m.role;
    if (isSealed !== undefined ? isSealed(m) : typeof seq === "number" || allSeqs(parts)) {
      const sealedParts = parts !== undefined && parts.length > 0 ? parts : [m as PartLike];
      const several = sealedParts.length > 1;
      for (const p of sealedParts) {
        const row = sealedRow(m, p, turnId, several, taken, options);
        taken.add(row.seq);
        rows.push(row);
      }
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

/**
 * One sealed part as a row: its own seq, else the chunk row it shows (`seqOf`), else the
 * message's. A message's one `seq` is the seq of one of its rows only: when it holds
 * several (`several`), each part's seq comes from its own chunk row, and without `seqOf`
 * to find it that is an error, never one seq shown for several rows.
 */
function sealedRow<M extends MessageLike>(
  m: M,
  p: PartLike,
  turnId: number | undefined,
  several: boolean,
  taken: ReadonlySet<number>,
  options: FlattenOptions<M>,
): SealedRow {
  const pt = p.turnId === undefined || p.turnId === null ? turnId : turnNumber(p.turnId, options.decodeTurnId);
  const role = partRole(p, m.role, m.id);
  const text = textOf(p);
  if (typeof pt !== "number") throw new Error(`a sealed part of message ${JSON.stringify(m.id)} has no numeric turn id: ${JSON.stringify(p)}`);
  // A message of one row: its seq is that row's. Of several: each part finds its own row.
  let seq = p.seq;
  if (typeof seq !== "number" && !several) seq = m.seq;
  if (typeof seq !== "number" && options.seqOf !== undefined) seq = options.seqOf(pt, role, text, taken);
  if (typeof seq !== "number") {
    const why =
      options.seqOf !== undefined
        ? "matches no chunk row the store was given (turn, role and text)"
        : several && typeof m.seq === "number"
          ? `has no seq of its own, and its message's seq (${m.seq}) stands for one of its rows only (use harness.flatten, which finds each part's row)`
          : "has no seq";
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
