import { type RenderRow, type Role } from "./wire.js";
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
/** The default `expand`: a tool batch's calls as tool-call and tool-result parts (field names from `fields`). */
export declare function expandToolBatch(part: PartLike, fields?: ToolBatchFields): readonly PartLike[];
/**
 * `groupRowsToMessages(chunks) ++ live`, as protocol render rows. Each field of a message
 * is read once (live messages are usually `$state` proxies, where every read costs).
 */
export declare function flattenMessages<M extends MessageLike>(messages: Iterable<M>, options?: FlattenOptions<M>): RenderRow[];
/** Sealed rows straight from chunk rows in app shape (`{seq, turnId, role, text}`). */
export declare function sealedRows(chunks: Iterable<{
    seq: number;
    turnId: number;
    role: string;
    text: string;
}>): RenderRow[];
/** Checks one render before it goes on the wire; returns a message naming the first bad row, or undefined. */
export declare function renderProblem(rows: unknown): string | undefined;
