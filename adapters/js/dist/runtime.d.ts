import type { AppEvent, AppFetchResponse, Harness, IdBridge, Mapping } from "./app.js";
import { DeterministicWorld } from "./determinism.js";
import type { Answer, Effect, Input, PostResponse, RenderRow, WireEvent, WireFetchResponse } from "./wire.js";
export interface RuntimeOptions {
    /** The name in the `hello` answer. */
    name: string;
    /** Returns the mapping's factory (store module bound); called once, or once per reset with `freshModule`. */
    load: () => (harness: Harness) => Mapping | Promise<Mapping>;
    /** Re-evaluate the user's modules on every reset (for stores that are module-level singletons). */
    freshModule?: boolean;
    /** Arguments for the mapping (`Harness.args`). */
    args?: readonly string[];
    /** Translate live row ids holding a store message id to `m<n>` (default true). */
    translateIds?: boolean;
    /**
     * Prepended to every `text-delta` text before the store sees it. A compatibility switch
     * for harness builds whose oracle finds content only between whitespace (set " "); the
     * environment variable RECONCILE_SIM_ADAPTER_DELTA_PREFIX sets it from the CLI.
     */
    deltaPrefix?: string;
}
type Pending<T> = {
    resolve: (value: T) => void;
    origin: string;
};
/** Everything one run (the requests since a reset) owns. Dropped whole on the next reset. */
declare class Run {
    private readonly runtime;
    mapping: Mapping | null;
    /** The effects of the request being answered. */
    effects: Effect[];
    errors: unknown[];
    /** `user-send`s the store has not POSTed yet, oldest first. */
    pendingSends: {
        messageId: number;
        text: string;
    }[];
    posts: Map<number, Pending<PostResponse>>;
    fetches: Map<number, Pending<AppFetchResponse>>;
    nextRequest: number;
    byHarness: Map<number, string>;
    byStore: Map<string, number>;
    private translated;
    /** The inputs since the reset, for the origins of pending promises (made canonical JSON only for a digest). */
    history: Input[];
    /** Where promises and timers created now come from (see `AdapterRuntime.digest`). */
    origin: string;
    readonly ids: IdBridge;
    readonly harness: Harness;
    constructor(runtime: AdapterRuntime, args: readonly string[]);
    private current;
    post(storeId: string, text: string): Promise<PostResponse>;
    fetch(): Promise<AppFetchResponse>;
    /** Keep a hook's result: a rejected promise is a crash of the store. */
    call(result: unknown): void;
    appEvent(e: WireEvent, deltaPrefix: string): AppEvent;
    /** An event kind this version does not know: camelCase its fields, bridge message ids. */
    private otherEvent;
    appFetch(r: WireFetchResponse): AppFetchResponse;
    /** Live row ids holding a store message id (whole, or as a suffix: `queued-<id>`) get the harness's `m<n>`. */
    translate(rows: RenderRow[]): RenderRow[];
}
export declare class AdapterRuntime {
    readonly world: DeterministicWorld;
    run: Run | null;
    private greeted;
    private factory;
    /** Set by the first `state` request: from then on origins are state digests, not histories. */
    private trackOrigins;
    /** The digest answered last, while nothing has happened since. */
    private lastDigest;
    private readonly deltaPrefix;
    /** Errors raised outside any request (reported with the next answer). */
    private strayErrors;
    /**
     * The first run, made when `hello` is answered (to learn which extensions the mapping
     * speaks), with its `reset` answer: the first `reset` hands it out instead of making
     * another store. Nothing runs between the two (the clock is fake, every microtask ran),
     * so the answer is the one that `reset` would give.
     */
    private prepared;
    private readonly options;
    constructor(options: RuntimeOptions);
    setName(name: string): void;
    setTranslateIds(on: boolean): void;
    /** Install the deterministic globals and the error hooks. Call before loading the user's modules. */
    install(): void;
    private recordError;
    /** The answer to one parsed request line. */
    respond(msg: unknown): Answer | Promise<Answer>;
    /**
     * The handshake. The extensions (docs/protocol.md, "Extensions") are announced for what
     * the mapping does, which only a store shows: so the first run's store is made now (see
     * `prepared`). `boot`: its `reset` answer carries effects (a `boot()` hook, or a factory
     * that fetches at once), which a harness routes only when announced. `state`: it has
     * `snapshot()`. A mapping that fails to make a store announces nothing; the first `reset`
     * reports why.
     */
    private hello;
    private reset;
    private input;
    private beginInput;
    private route;
    /** Let everything the request caused run: microtasks, then each pending fake timer in due order. */
    private settle;
    private render;
    private crash;
    private state;
    /**
     * The digest of everything that decides the run's future: the store's snapshot, and the
     * adapter's own state. A pending promise (or timer) resumes code whose local variables the
     * snapshot cannot see, so each carries its origin: the digest of the state before the
     * input that created it plus that input (or, before the harness first asked for a digest,
     * the whole input history up to it). Equal digests therefore mean equal futures.
     */
    private digest;
}
export {};
