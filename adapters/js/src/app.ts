// What a mapping file sees: the harness as an API to inject into the store, and the
// hooks it implements. Values here are in the app's shape (camelCase fields, the store's
// own message ids), converted from the wire by the runtime.

import { normaliseWorld, type WorldDeclaration } from "./contract.js";
import type { NetworkOptions } from "./network.js";
import type { FlattenOptions, MessageLike } from "./render.js";
import type { AgentStatus, ConsumeReason, Input, PostResponse, RenderRow, Role, WireEvent } from "./wire.js";

/** A WebSocket event in the usual app shape: camelCase, message ids as the store's own ids. */
export type AppEvent =
  | { type: "turn-start"; turnId: number }
  | { type: "text-delta"; turnId?: number; text: string }
  | { type: "tool-call"; turnId: number; call: number; text: string }
  | { type: "tool-result"; turnId: number; call: number; text: string }
  | { type: "message-queued"; messageId: string; text?: string }
  | { type: "message-consumed"; messageIds: string[]; reason?: ConsumeReason }
  | { type: "status"; status: AgentStatus }
  | { type: "turn-sealed"; turnId: number };

/** A chunk row in the app's shape. `messageIds` are the store's own ids (see {@link IdBridge}). */
export interface AppChunk {
  seq: number;
  turnId: number;
  role: Role;
  text: string;
  messageIds?: string[];
}

/** A fetch response in the app's shape. */
export interface AppFetchResponse {
  requestId: number;
  snapshotSeq: number;
  chunks: AppChunk[];
  writtenTurns: number[];
}

/**
 * The store mints its own message ids (`crypto.randomUUID()`); the harness names messages
 * by number. The bridge learns the pair when the store POSTs a message the harness's
 * `user-send` asked for ({@link Harness.post}).
 */
export interface IdBridge {
  /** The store's id for harness message `n`; `m<n>` for a message this store never posted (another tab's). */
  toStore(messageId: number): string;
  /** The harness message number of a store id, if the store posted it. */
  toHarness(storeId: string): number | undefined;
}

/**
 * What this run has learned of the values the store made up itself, for codec hooks and
 * routes (they receive it as their last argument) and the mapping (`harness.context`):
 * one object per run, so no mapping needs a module variable to carry them.
 */
export interface RunContext {
  /** The message id bridge: the store's own ids (minted by the store, or by the backend for an id-less POST) and the harness's. */
  readonly ids: IdBridge;
  /**
   * Every `:name` segment of a route the store requested this run, the latest value of
   * each (`params.tab` after `GET /api/tabs/:tab/rows`): e.g. the tab id the store minted
   * at boot and put in its URLs.
   */
  readonly params: Readonly<Record<string, string>>;
  /** The URL of the store's latest connection to the declared socket (its query often names the tab), if any. */
  readonly socket: URL | undefined;
  /**
   * Anything the mapping puts here (`harness.context.values.tabId = store.tabId`), for the
   * codec's hooks. Empty at each reset. Not part of the `state` digest (`params` and
   * `socket` are): keep here only what the store's `snapshot()` already determines.
   */
  readonly values: Record<string, unknown>;
}

/** The harness, seen from the store: inject these into the store's API object. */
export interface Harness {
  /**
   * The store POSTs one of its messages. Emits a `post` effect for the pending `user-send`
   * this message answers (same text, else the oldest), binds `storeId` to that harness
   * message id, and returns a promise resolved by the matching `post-response`.
   */
  post(storeId: string, text: string): Promise<PostResponse>;
  /** The store fetches the chunk history: emits a `fetch` effect; resolved by the matching `fetch-response`. */
  fetch(): Promise<AppFetchResponse>;
  /** The message id bridge. */
  readonly ids: IdBridge;
  /** Arguments after `--` on the adapter's command line. */
  readonly args: readonly string[];
  /** This run's context: what the codec's hooks receive as their last argument. */
  readonly context: RunContext;
  /**
   * {@link flattenMessages} for this run: a sealed part without a `seq` of its own gets the
   * seq of the chunk row the store was given with the same turn, role and text (a part that
   * matches none is an adapter error naming it), and turn ids are read with the codec's
   * spelling (`network.codec.ids`).
   */
  flatten<M extends MessageLike>(messages: Iterable<M>, options?: FlattenOptions<M>): RenderRow[];
}

/** What a mapping returns for one fresh store (one per `reset`). Hooks may return promises. */
export interface Mapping {
  /** Called once after the store is made; its effects and render go in the `reset` answer (e.g. `openTab`'s history fetch). */
  boot?(): unknown;
  /** `user-send`: the user typed and sent `text` (`messageId` is the harness's number, for logging). */
  send(text: string, messageId: number): unknown;
  /** `scroll`: `false` = the user scrolled up, `true` = back at the bottom. */
  scroll(atBottom: boolean): unknown;
  /**
   * `event`: a WebSocket event, in app shape (`raw` is the wire object). Optional with
   * `network.socket`: the event then reaches the store's own socket as a frame.
   */
  event?(event: AppEvent, raw: WireEvent): unknown;
  /** The whole render, top to bottom, as protocol rows ({@link flattenMessages} builds them from messages with parts). */
  render(): RenderRow[];
  /**
   * Optional: the store's complete state as plain JSON-able data. Enables `state` requests
   * (the digest also covers the adapter's own state and what each pending promise will resume).
   */
  snapshot?(): unknown;
  /** Optional: run after every settle round (e.g. Svelte's `flushSync` when the store uses `$effect`). */
  flush?(): void;
  /** Optional: called for inputs not routed above (`post-response`/`fetch-response` are routed to the promises first). */
  input?(input: Input): unknown;
  /**
   * Optional: called when the run ends (before the next `reset` makes a new store, and when
   * the adapter exits), e.g. to close a socket client or clear a store kept in a module
   * singleton when modules are shared between runs (`modules: "shared"`).
   */
  teardown?(): unknown;
}

/**
 * A mapping file's default export: makes a fresh store for each run and says how to drive
 * it. `store` is the namespace of the module given with `--store` (undefined without it).
 */
export type AdapterFactory<S = unknown> = (harness: Harness, store: S) => Mapping | Promise<Mapping>;

/**
 * The virtual clock. Each input first moves the clock by `stepMs`; then the timers due by
 * then run (and the microtasks they queue), in due order. A timer set for later waits for
 * its time: a 10-second window does not pass after every step. `timers: "all"` runs every
 * pending timer after each input instead, advancing the clock to each (this package's
 * behaviour before 0.2).
 */
export interface ClockOptions {
  /** Milliseconds the clock moves at each input (default 0). */
  stepMs?: number;
  /** `"due"` (default) or `"all"`. */
  timers?: "due" | "all";
}

/** Options a mapping file may export as `options`. */
export interface AdapterOptions {
  /** The store's name in the `hello` answer. */
  name?: string;
  /** Translate live row ids holding a store message id to `m<n>` (default true). */
  translateIds?: boolean;
  /** Route the store's own `fetch` and `WebSocket` to the harness (see network.ts). */
  network?: NetworkOptions;
  /** The virtual clock (the choice is stated in the `hello` answer's `clock`). */
  clock?: ClockOptions;
  /**
   * The backend's contract: what the app's transport and backend always or never do, in
   * `--world` syntax (`["ordered-socket", "consume_reasons=true"]`) or as an object
   * (`{ profile: "ordered-socket", consume_reasons: true }`). Sent in the `hello` answer
   * (`world`); the harness pins it on every command, and `--world` overrides it.
   */
  world?: WorldDeclaration;
}

/** A factory with its options attached, as {@link defineAdapter} returns it. */
export type Adapter<S = unknown> = AdapterFactory<S> & { options?: AdapterOptions };

/**
 * Types the mapping and attaches its options:
 * `export default defineAdapter((harness) => ({ … }), { name: "svelte:tabs" })`.
 * With `--store`, type the module: `defineAdapter<typeof import("./src/lib/stores/tabs.svelte")>((h, tabs) => …)`.
 */
export function defineAdapter<S = unknown>(factory: AdapterFactory<S>, options?: AdapterOptions): Adapter<S> {
  normaliseWorld(options?.world); // a malformed contract fails where it is written
  const adapter: Adapter<S> = (harness, store) => factory(harness, store);
  if (options !== undefined) adapter.options = options;
  return adapter;
}
