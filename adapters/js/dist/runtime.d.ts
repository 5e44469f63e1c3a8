import type { AdapterOptions, AppEvent, AppFetchResponse, ClockOptions, Harness, IdBridge, Mapping, RunContext } from "./app.js";
import { DeterministicWorld } from "./determinism.js";
import type { Network, NetworkRun } from "./network.js";
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
    /** The store's network, routed to the harness (see `AdapterRuntime.configure`). */
    network?: Network | null;
    /** The virtual clock (see `ClockOptions`). */
    clock?: ClockOptions;
    /** The backend's contract as `--world` values (see `AdapterOptions.world`), sent in the `hello` answer. */
    world?: string[];
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
declare class Run implements NetworkRun {
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
    /** POSTs that carried no id, oldest first: the backend mints their ids. */
    postsWithoutId: Pending<{
        response: PostResponse;
        storeId: string;
    }>[];
    /** The open connections of the store's own WebSocket (with `network.socket`). */
    readonly sockets: Set<import("./socket.js").ServerEnd>;
    /**
     * Every chunk row handed to the store, by text (then turn and role), ascending seq: for
     * `Harness.flatten`, which looks up each sealed part it renders on every answer (by
     * text first: no key string is built per lookup).
     */
    private seqs;
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
    /** The route params the store's requests carried this run (`RunContext.params`). */
    private readonly params;
    /** The run's context, handed to the codec's hooks and to the mapping (`harness.context`). */
    readonly context: RunContext;
    constructor(runtime: AdapterRuntime, args: readonly string[]);
    /** The latest connection to the declared socket (`RunContext.socket`). */
    socketUrl: URL | undefined;
    /** A routed request's `:name` segments, for `RunContext.params`. */
    noteParams(params: Record<string, string>): void;
    current(what: string): boolean;
    post(storeId: string, text: string): Promise<PostResponse>;
    /** A POST without an id (`--world server_ids=true`): the `post` effect carries none, and the response the id the backend minted. */
    postWithoutId(text: string): Promise<{
        response: PostResponse;
        storeId: string;
    }>;
    /** The pending user-send a POST of `text` answers: the oldest with that text, else the oldest. */
    private takeSend;
    fail(error: Error): void;
    /**
     * A minted id's response: resolve the oldest id-less POST with the id, spelled as every
     * event and chunk row before and after this response spells it (`m902`, what
     * `ids.toStore` gives a message this store never named): a store must be able to match
     * the `message-queued` it got before its POST was answered with the `message-consumed`
     * it gets after.
     */
    resolveWithoutId(serverId: number, response: PostResponse): boolean;
    fetch(): Promise<AppFetchResponse>;
    /** Keep a hook's result: a rejected promise is a crash of the store. */
    call(result: unknown): void;
    appEvent(e: WireEvent, deltaPrefix: string): AppEvent;
    /** An event kind this version does not know: camelCase its fields, bridge message ids. */
    private otherEvent;
    appFetch(r: WireFetchResponse): AppFetchResponse;
    /**
     * The options of `Harness.flatten`: seqs recovered from the chunk rows handed out (a part
     * of one turn, role and text gets the oldest such row not yet placed in this render),
     * turn ids read with the codec's spelling, tool batches with its field names.
     */
    private flattenOptions;
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
    get network(): Network | null;
    /**
     * Take a mapping's options (`defineAdapter(factory, options)`), after its module was
     * evaluated and before the first store is made: the name, the virtual clock, and the
     * network (whose fetch and WebSocket are installed now).
     */
    configure(options: AdapterOptions, name?: string): Promise<void>;
    /** The clock's choice as the `hello` answer states it. */
    private clockSetting;
    /** Install the deterministic globals and the error hooks. Call before loading the user's modules. */
    install(): void;
    /** Make this the runtime (and its world) that the process-wide hooks and globals reach. */
    activate(): void;
    /**
     * No runtime answers now: the real globals are put back and errors are no store's, until
     * a runtime answers again. For a host that runs other code in the same process between
     * commands (a test runner, with the engine inside Node).
     */
    static leave(): void;
    private recordError;
    /**
     * Forget the store made ahead at `hello` (see `prepared`): the next `reset` tears it down
     * and makes a fresh one. Coverage (coverage.ts) asks for this, so that a run's
     * coverage, started before its `reset`, sees its store being made.
     */
    unprepare(): void;
    /**
     * Load the mapping's factory again now (a fresh evaluation of the bundle), for the
     * stores of the next `reset`s: after coverage recompiled it (coverage.ts), so that they
     * run code V8 counts per block.
     */
    reload(): void;
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
    /**
     * End the current run, as a page going away ends a tab: its mapping's `teardown()`
     * (clearing a store kept in a module singleton, unsubscribing from a shared client),
     * then the server closes each of the run's socket connections (1001, going away), so a
     * socket client kept in a module singleton sees its connection close and the next
     * store's `connect()` opens a new one in the new run. What that causes runs to the end
     * while the run is still current. Returns why `teardown()` failed, if it did: the next
     * store cannot be trusted to start fresh, so the reset is answered with that error.
     */
    private teardown;
    private input;
    private beginInput;
    private route;
    /**
     * Let everything the request caused run: microtasks, then each fake timer that is due
     * (with `timers: "all"`, each pending one), in due order.
     */
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
