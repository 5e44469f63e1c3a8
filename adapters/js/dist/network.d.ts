import type { AppEvent, AppFetchResponse, RunContext } from "./app.js";
import { Codec, type AppCodec } from "./codec.js";
import { type ServerEnd } from "./socket.js";
import type { PostResponse } from "./wire.js";
/** A route's answer: from the harness (`"fetch"`, `"post"`) or a function of the request (its result is the JSON body). */
export type Route = "fetch" | "post" | ((request: RouteRequest) => unknown);
export interface RouteRequest {
    method: string;
    url: URL;
    /** The `:name` segments of the route's path. */
    params: Record<string, string>;
    /** The body parsed as JSON (undefined when there is none). */
    body: unknown;
    /** The run's context (the ids the store minted, the route params its requests carried). */
    context: RunContext;
}
export interface NetworkOptions {
    /** The page's origin: relative URLs (`fetch("/api/…")`) resolve against it (default `http://localhost`). */
    origin?: string;
    /** `"METHOD /path/:param"` → how the harness answers it. The query string is not matched. */
    routes?: Record<string, Route>;
    /** The backend's event socket: a URL, or a path on the origin (`/ws`); several allowed. Default: none. */
    socket?: string | string[];
    /** The app's wire format (defaults: the camelCase shapes of `AppEvent`, `AppChunk`). */
    codec?: AppCodec;
}
/** What the network needs from the current run (implemented by the runtime's `Run`). */
export interface NetworkRun {
    /** Is this still the current run (a store of an earlier run may still call)? */
    current(what: string): boolean;
    fetch(): Promise<AppFetchResponse>;
    post(storeId: string, text: string): Promise<PostResponse>;
    /** A POST that carries no id: the backend mints one, returned with the response. */
    postWithoutId(text: string): Promise<{
        response: PostResponse;
        storeId: string;
    }>;
    /** A problem of the adapter's set-up or of the store's use of the network: ends the input with an error. */
    fail(error: Error): void;
    readonly sockets: Set<SocketClient>;
    /** The run's context, for the codec's hooks. */
    readonly context: RunContext;
    /** Record a routed request's `:name` segments (`RunContext.params`). */
    noteParams(params: Record<string, string>): void;
    /** The latest connection to the declared socket (`RunContext.socket`). */
    socketUrl: URL | undefined;
}
/** The server end of one WebSocket connection of the store (socket.ts). */
export type SocketClient = ServerEnd;
/** One per process: the routed fetch and WebSocket are installed once, and route to whatever run is current. */
export declare class Network {
    private readonly run;
    readonly codec: Codec;
    private readonly origin;
    private readonly routes;
    private readonly sockets;
    constructor(options: NetworkOptions, run: () => NetworkRun | null);
    get hasSocket(): boolean;
    /**
     * Replace `fetch` by the routed one (fetch.ts) and `WebSocket` by the routed one
     * (socket.ts; Node 20 has none), and give the store an `XMLHttpRequest` on the routed
     * `fetch` (Node has none).
     */
    install(): Promise<void>;
    /** One request of the store: the answer's JSON text, or a rejection (a TypeError, as a network error is). */
    private request;
    private answer;
    /** A connection the store opens: the run's if it is to the declared socket (true), else refused. */
    private connection;
    /** One harness event to every open socket of the run, as the app's frame. */
    deliver(run: NetworkRun, event: AppEvent): void;
}
