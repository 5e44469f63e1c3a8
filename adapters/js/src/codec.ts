// The app's wire format, declared once: how the harness's events, chunk rows, fetch and
// POST answers look on the app's own socket and REST routes. Every part is optional; the
// defaults are the usual camelCase shapes (`AppEvent`, `AppChunk`, `{messageId, status}`).
//
// The codec turns harness values (already in app shape: camelCase, message ids as the
// store's own strings) into what the app's code reads off the network, and reads back the
// little the harness needs from what the app sends (a POST's message id and text).

import type { AppChunk, AppEvent, AppFetchResponse, RunContext } from "./app.js";
import type { ToolBatchFields } from "./render.js";
import type { PostResponse } from "./wire.js";

/** How the app spells turn ids (and tool-call ids): numbers, strings, or a pair of functions. */
export type IdSpelling = "number" | "string" | { encode(n: number): string | number; decode(id: unknown): number };

/** A chunk row as the codec sees it: `call` is the tool call's number within its turn (1, 2, …) for tool rows. */
export interface CodecChunk extends AppChunk {
  call?: number;
}

/** What the harness needs from the app's POST body. `id` absent: the backend mints one (`--world server_ids=true`). */
export interface PostRequest {
  id?: string | undefined;
  text: string;
}

/**
 * The app's wire format. Every hook receives the run's context last (`ctx`: the ids the
 * store minted, the route params its requests carried, such as the tab id it minted at
 * boot, and whatever the mapping put in `ctx.values`), so a codec needs no module variable.
 */
export interface AppCodec {
  /** Turn and call ids as the app spells them (default `"number"`). */
  ids?: IdSpelling;
  /** Event type names the app uses instead of the harness's (`{ "turn-start": "turn_started" }`). */
  eventNames?: Partial<Record<AppEvent["type"], string>>;
  /** Field names the app uses instead of the defaults, in events and rows (`{ turnId: "turn_id" }`). */
  fields?: Record<string, string>;
  /**
   * Where a tool batch part (a message part holding several tool calls and their results)
   * keeps its calls, and each call its text and its result: `{ input: "arguments" }`.
   * `Harness.flatten` splits such parts into call and result rows with these names.
   */
  toolBatch?: ToolBatchFields;
  /** The whole socket frame for an event, after names, fields and ids were applied (default: the event itself). */
  event?(event: Record<string, unknown>, ctx: RunContext): unknown;
  /** A chunk row in the app's schema (default: `AppChunk` with ids spelled, fields renamed). */
  chunk?(chunk: CodecChunk, ids: IdCodec, ctx: RunContext): unknown;
  /**
   * The inverse of `chunk`, read only by the recorder (record.ts): one row of the app's
   * history body back as the harness's chunk, ids as the app spells them (the log keeps
   * them opaque). Needed when `chunk` reshapes a row beyond renaming fields (the production
   * example nests the text in `data` and spells tool rows by `type`); without it the
   * recorder reads rows through `fields`.
   */
  unchunk?(row: unknown): { seq: number; turnId: unknown; role: AppChunk["role"]; text: string; messageIds?: unknown[] };
  /** The body answering the history GET (default `{ chunks, snapshotSeq, writtenTurns }`). */
  history?(response: { requestId: number; snapshotSeq: number; chunks: unknown[]; writtenTurns: unknown[] }, ctx: RunContext): unknown;
  /** Reads the app's POST body (default: `id` / `messageId` / `clientMessageId` / `clientId`, and `text` / `content`). */
  postRequest?(body: unknown, ctx: RunContext): PostRequest;
  /**
   * The body answering the POST (default `{ messageId, status, turnId? }`, `status` being
   * `started` or `queued`). `messageId` is the store's id for the message: the one its
   * POST carried, or for an id-less POST the id the backend minted, spelled as every
   * event and chunk row spells it (`m902`).
   */
  postResponse?(response: PostResponse, messageId: string, ids: IdCodec, ctx: RunContext): unknown;
}

/** Turn-id spelling, both ways. */
export interface IdCodec {
  encode(n: number): string | number;
  decode(id: unknown): number;
}

export function idCodec(spelling: IdSpelling | undefined): IdCodec {
  if (spelling === undefined || spelling === "number") return { encode: (n) => n, decode: (id) => decodeNumber(id) };
  if (spelling === "string") return { encode: (n) => String(n), decode: (id) => decodeNumber(id) };
  return spelling;
}

/** Turn ids spelled as strings, read once each (a render reads every row's on every answer). */
const DECODED = new Map<string, number>();

function decodeNumber(id: unknown): number {
  if (typeof id === "string") {
    const known = DECODED.get(id);
    if (known !== undefined) return known;
  }
  const n = typeof id === "number" ? id : typeof id === "string" && /^-?\d+$/.test(id) ? Number(id) : NaN;
  if (typeof id === "string" && Number.isFinite(n)) {
    if (DECODED.size >= 4096) DECODED.clear();
    DECODED.set(id, n);
  }
  if (!Number.isFinite(n)) throw new Error(`cannot read a turn id from ${JSON.stringify(id)}: declare codec.ids with a decode()`);
  return n;
}

const ID_FIELDS = new Set(["turnId", "call"]);

/** The codec with its defaults filled in: what the network layer calls. */
export class Codec {
  readonly ids: IdCodec;

  constructor(private readonly c: AppCodec = {}) {
    this.ids = idCodec(c.ids);
  }

  /** Rename fields and spell ids of one flat record. */
  private shape(record: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const fields = this.c.fields ?? {};
    for (const k of Object.keys(record)) {
      const v = record[k];
      out[fields[k] ?? k] = ID_FIELDS.has(k) && typeof v === "number" ? this.ids.encode(v) : v;
    }
    return out;
  }

  /** The tool batch field names declared (see `AppCodec.toolBatch`). */
  get toolBatch(): ToolBatchFields | undefined {
    return this.c.toolBatch;
  }

  /** The socket frame (a string) for one event. */
  frame(event: AppEvent, ctx: RunContext): string {
    const shaped = this.shape(event as unknown as Record<string, unknown>);
    const typeField = this.c.fields?.type ?? "type";
    shaped[typeField] = this.c.eventNames?.[event.type] ?? event.type;
    const frame = this.c.event !== undefined ? this.c.event(shaped, ctx) : shaped;
    return typeof frame === "string" ? frame : JSON.stringify(frame);
  }

  /** The history GET's body. Tool rows get their call's number (a result answers the call before it). */
  history(response: AppFetchResponse, ctx: RunContext): unknown {
    const calls = new Map<number, number>();
    const chunks = response.chunks.map((chunk) => {
      const c: CodecChunk = { ...chunk };
      if (chunk.role === "tool-call") calls.set(chunk.turnId, (calls.get(chunk.turnId) ?? 0) + 1);
      if (chunk.role === "tool-call" || chunk.role === "tool-result") c.call = calls.get(chunk.turnId) ?? 0;
      return this.c.chunk !== undefined ? this.c.chunk(c, this.ids, ctx) : this.shape(c as unknown as Record<string, unknown>);
    });
    const writtenTurns = response.writtenTurns.map((t) => this.ids.encode(t));
    const body = { requestId: response.requestId, snapshotSeq: response.snapshotSeq, chunks, writtenTurns };
    return this.c.history !== undefined ? this.c.history(body, ctx) : body;
  }

  postRequest(body: unknown, ctx: RunContext): PostRequest {
    if (this.c.postRequest !== undefined) return this.c.postRequest(body, ctx);
    const b = (body ?? {}) as Record<string, unknown>;
    const id = b.id ?? b.messageId ?? b.clientMessageId ?? b.clientId;
    const text = b.text ?? b.content ?? b.message;
    if (typeof text !== "string") {
      throw new Error(`cannot read the message text from the POST body ${JSON.stringify(body)}: declare codec.postRequest`);
    }
    return { id: id === undefined || id === null ? undefined : String(id), text };
  }

  postResponse(response: PostResponse, messageId: string, ctx: RunContext): unknown {
    if (this.c.postResponse !== undefined) return this.c.postResponse(response, messageId, this.ids, ctx);
    return response.outcome === "started"
      ? this.shape({ messageId, status: "started", turnId: response.turn_id })
      : this.shape({ messageId, status: "queued" });
  }
}
