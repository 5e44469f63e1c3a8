export declare const PROTOCOL = 1;
export type Role = "user" | "assistant" | "tool-call" | "tool-result";
export declare const ROLES: readonly Role[];
export type AgentStatus = "idle" | "running" | "error";
/** A durable chunk row as the harness sends it. */
export interface WireChunk {
    seq: number;
    turn_id: number;
    role: Role;
    text: string;
    /** The client message ids the row holds (absent means none). */
    message_ids?: number[];
}
export type WireEvent = {
    type: "turn-start";
    turn_id: number;
}
/** `turn_id` is absent in worlds with `deltas_without_turn_ids`: the turn of the last `turn-start`. */
 | {
    type: "text-delta";
    turn_id?: number;
    text: string;
} | {
    type: "tool-call";
    turn_id: number;
    call: number;
    text: string;
} | {
    type: "tool-result";
    turn_id: number;
    call: number;
    text: string;
}
/** `text` is present in worlds with `queued_texts`. */
 | {
    type: "message-queued";
    message_id: number;
    text?: string;
}
/** `reason` is present in worlds with `consume_reasons`. */
 | {
    type: "message-consumed";
    message_ids: number[];
    reason?: ConsumeReason;
} | {
    type: "status";
    status: AgentStatus;
} | {
    type: "turn-sealed";
    turn_id: number;
};
/** Why a queue was drained: a tool-result boundary, trailing history, or a new turn between turns. */
export type ConsumeReason = "interrupt" | "trailing" | "continuation";
export type PostResponse = {
    outcome: "started";
    turn_id: number;
} | {
    outcome: "queued";
};
export interface WireFetchResponse {
    input: "fetch-response";
    request_id: number;
    snapshot_seq: number;
    chunks: WireChunk[];
    written_turns?: number[];
}
export type Input = {
    input: "user-send";
    message_id: number;
    text: string;
} | {
    input: "scroll";
    at_bottom: boolean;
} | {
    input: "event";
    event: WireEvent;
}
/** `message_id` is absent when the POST carried none; `server_id` is the id the backend minted then. */
 | {
    input: "post-response";
    message_id?: number;
    response: PostResponse;
    server_id?: number;
} | WireFetchResponse;
export type Effect = 
/** `message_id` absent: an id-less POST, valid in worlds with `server_ids` (the backend mints the id). */
{
    effect: "post";
    message_id?: number;
    text: string;
} | {
    effect: "fetch";
    request_id: number;
};
export type SealedRow = {
    from: "sealed";
    seq: number;
    role: Role;
    turn_id: number;
    text: string;
};
export type LiveRow = {
    from: "live";
    id: string;
    role: Role;
    turn_id?: number;
    text: string;
};
export type RenderRow = SealedRow | LiveRow;
export type Request = {
    type: "hello";
    protocol: number;
    id: number;
} | {
    type: "reset";
    id: number;
} | {
    type: "input";
    input: Input;
    id: number;
} | {
    type: "state";
    id: number;
} | {
    type: "coverage";
    id: number;
};
export type Answer = 
/**
 * `clock`: the adapter's virtual-clock setting, in words (results state it). `world`: the
 * backend's contract, as `--world` values the harness pins (absent when none is declared).
 */
{
    type: "hello";
    protocol: number;
    name?: string;
    features?: string[];
    clock?: string;
    world?: string[];
    id: number | null;
} | {
    type: "reset";
    effects?: Effect[];
    render?: RenderRow[];
    id: number | null;
} | {
    type: "output";
    effects: Effect[];
    render: RenderRow[];
    id: number | null;
} | {
    type: "state";
    digest: string;
    id: number | null;
}
/** The app's own lines run since the previous `coverage` request (file → lines, ascending). */
 | {
    type: "coverage";
    root: string;
    files: Record<string, number[]>;
    id: number | null;
} | {
    type: "error";
    message: string;
    id: number | null;
};
