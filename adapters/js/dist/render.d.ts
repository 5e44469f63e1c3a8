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
/** The default `expand`: a tool batch's calls as tool-call and tool-result parts. */
export declare function expandToolBatch(part: PartLike): readonly PartLike[];
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
