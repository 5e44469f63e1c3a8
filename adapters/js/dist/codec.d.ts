import type { AppChunk, AppEvent, AppFetchResponse, RunContext } from "./app.js";
import type { ToolBatchFields } from "./render.js";
import type { PostResponse } from "./wire.js";
/** How the app spells turn ids (and tool-call ids): numbers, strings, or a pair of functions. */
export type IdSpelling = "number" | "string" | {
    encode(n: number): string | number;
    decode(id: unknown): number;
};
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
    unchunk?(row: unknown): {
        seq: number;
        turnId: unknown;
        role: AppChunk["role"];
        text: string;
        messageIds?: unknown[];
    };
    /** The body answering the history GET (default `{ chunks, snapshotSeq, writtenTurns }`). */
    history?(response: {
        requestId: number;
        snapshotSeq: number;
        chunks: unknown[];
        writtenTurns: unknown[];
    }, ctx: RunContext): unknown;
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
export declare function idCodec(spelling: IdSpelling | undefined): IdCodec;
/** The codec with its defaults filled in: what the network layer calls. */
export declare class Codec {
    private readonly c;
    readonly ids: IdCodec;
    constructor(c?: AppCodec);
    /** Rename fields and spell ids of one flat record. */
    private shape;
    /** The tool batch field names declared (see `AppCodec.toolBatch`). */
    get toolBatch(): ToolBatchFields | undefined;
    /** The socket frame (a string) for one event. */
    frame(event: AppEvent, ctx: RunContext): string;
    /** The history GET's body. Tool rows get their call's number (a result answers the call before it). */
    history(response: AppFetchResponse, ctx: RunContext): unknown;
    postRequest(body: unknown, ctx: RunContext): PostRequest;
    postResponse(response: PostResponse, messageId: string, ctx: RunContext): unknown;
}
