/**
 * The world options reconcile-sim knows today (`reconcile-sim run --help`,
 * `sim/src/model/pins.rs`), typed for completion; any other name is passed on for the
 * harness to judge. A value is a boolean, a whole number, `"tokens"`/`"colliding"`, or a
 * range string (`"1..=2"`, `"1..3"`).
 */
export interface WorldObject {
    /** A named profile: `"ordered-socket"` (one ordered WebSocket per tab) or `"note"` (nothing pinned). */
    profile?: string;
    clients?: number | string;
    passive_observer?: boolean;
    sends_per_client?: number | string;
    scrolls_per_client?: number | string;
    deltas_per_segment_max?: number | string;
    tool_calls_per_turn_max?: number | string;
    turn_failures?: boolean;
    ws_reorder_window?: number | string;
    status_on_connect?: boolean;
    message_texts?: "tokens" | "colliding";
    continuation_drains?: boolean;
    consume_reasons?: boolean;
    queued_texts?: boolean;
    server_ids?: boolean;
    deltas_without_turn_ids?: boolean;
    [option: string]: boolean | number | string | undefined;
}
/** `["ordered-socket", "consume_reasons=true"]` (`--world` syntax, one value a string) or a {@link WorldObject}. */
export type WorldDeclaration = readonly string[] | WorldObject;
/**
 * The declaration as the list of `--world` values the `hello` answer carries, in the
 * order given (the object form: the profile first, then each option in key order as
 * written). Throws a message naming the bad entry.
 */
export declare function normaliseWorld(world: WorldDeclaration | undefined): string[];
