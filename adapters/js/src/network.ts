// The store's own network calls, routed to the harness: the global `fetch` is replaced by
// one that routes each request (fetch.ts) and `WebSocket` by a class whose server is the
// harness (socket.ts), so a store that calls the global `fetch` for its REST routes and
// talks to the backend through its own socket client runs unmodified.
//
// - A route (`"GET /api/tabs/:tab/chunks": "fetch"`, `"POST /api/chat": "post"`) answers
//   from the harness: a history GET emits a `fetch` effect and is answered by the matching
//   `fetch-response`; a POST emits a `post` effect and is answered by its `post-response`.
//   The bodies are written and read by the app's codec (codec.ts).
// - A WebSocket to the declared socket URL is the backend's event stream: each harness
//   event reaches the app's own socket client as one frame.
// - A request no route handles, or a socket to another URL, fails the run with a message
//   naming it (the request is answered with a network error, so nothing hangs).
// - `XMLHttpRequest` (Node has none) is given, built on the routed `fetch` (xhr.ts).
//
// Loaded only when the mapping declares a network.

import type { AppEvent, AppFetchResponse, RunContext } from "./app.js";
import { Codec, type AppCodec } from "./codec.js";
import { routedFetch } from "./fetch.js";
import { routedWebSocket, type ServerEnd } from "./socket.js";
import type { PostResponse } from "./wire.js";
import { xmlHttpRequestOver } from "./xhr.js";

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
  postWithoutId(text: string): Promise<{ response: PostResponse; storeId: string }>;
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

interface CompiledRoute {
  method: string;
  segments: string[];
  route: Route;
  name: string;
}

function compileRoutes(routes: Record<string, Route>): CompiledRoute[] {
  return Object.keys(routes).map((name) => {
    const m = /^\s*([A-Za-z]+)\s+(\S+)\s*$/.exec(name);
    if (m === null) throw new Error(`network.routes: ${JSON.stringify(name)} is not "METHOD /path" (for example "GET /api/chunks")`);
    const path = m[2]!.split("?")[0]!;
    return { method: m[1]!.toUpperCase(), segments: path.split("/").filter((s) => s !== ""), route: routes[name]!, name };
  });
}

function match(route: CompiledRoute, method: string, parts: readonly string[]): Record<string, string> | null {
  if (route.method !== method) return null;
  if (parts.length !== route.segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const want = route.segments[i]!;
    if (want.startsWith(":")) params[want.slice(1)] = decodeURIComponent(parts[i]!);
    else if (want !== parts[i]) return null;
  }
  return params;
}

/** One per process: the routed fetch and WebSocket are installed once, and route to whatever run is current. */
export class Network {
  readonly codec: Codec;
  private readonly origin: URL;
  private readonly routes: CompiledRoute[];
  private readonly sockets: URL[];

  constructor(
    options: NetworkOptions,
    private readonly run: () => NetworkRun | null,
  ) {
    this.codec = new Codec(options.codec);
    this.origin = new URL(options.origin ?? "http://localhost");
    this.routes = compileRoutes(options.routes ?? {});
    const sockets = options.socket === undefined ? [] : Array.isArray(options.socket) ? options.socket : [options.socket];
    this.sockets = sockets.map((s) => socketUrl(s, this.origin));
  }

  get hasSocket(): boolean {
    return this.sockets.length > 0;
  }

  /**
   * Replace `fetch` by the routed one (fetch.ts) and `WebSocket` by the routed one
   * (socket.ts; Node 20 has none), and give the store an `XMLHttpRequest` on the routed
   * `fetch` (Node has none).
   */
  async install(): Promise<void> {
    const g = globalThis as Record<string, unknown>;
    Object.defineProperty(g, "WebSocket", {
      value: routedWebSocket(this.origin, (end) => this.connection(end)),
      configurable: true,
      writable: true,
    });
    // Relative URLs (browser code fetches them) resolve against the declared origin.
    g.fetch = routedFetch(this.origin, (method, url, body) => this.request(method, url, body));
    // Node has no XMLHttpRequest: one on the routed fetch, for stores that use it.
    if (g.XMLHttpRequest === undefined) {
      const routed = () => g.fetch as (input: string, init: RequestInit) => Promise<Response>;
      Object.defineProperty(g, "XMLHttpRequest", { value: xmlHttpRequestOver(routed), configurable: true, writable: true });
    }
  }

  /** One request of the store: the answer's JSON text, or a rejection (a TypeError, as a network error is). */
  private async request(method: string, url: URL, text: string): Promise<string> {
    const run = this.run();
    if (run === null || !run.current(`a ${method} request`)) {
      throw new TypeError("reconcile-sim: request from a store of an earlier run");
    }
    const parts = url.pathname.split("/").filter((s) => s !== "");
    let route: CompiledRoute | undefined;
    let params: Record<string, string> | null = null;
    for (const r of this.routes) {
      params = match(r, method, parts);
      if (params !== null) {
        route = r;
        break;
      }
    }
    if (route === undefined || params === null) {
      const routes = this.routes.map((r) => r.name).join(", ") || "none declared";
      run.fail(new Error(`the store requested ${method} ${url.href}, which no route handles (routes: ${routes})`));
      throw new TypeError(`reconcile-sim: no route for ${method} ${url.pathname}`);
    }
    try {
      const body = text === "" ? undefined : JSON.parse(text);
      run.noteParams(params);
      const answer = await this.answer(run, route, { method, url, params, body, context: run.context });
      return JSON.stringify(answer) ?? "";
    } catch (e) {
      run.fail(new Error(`route ${route.name} (${method} ${url.href}): ${(e as Error)?.message ?? String(e)}`));
      throw new TypeError(`reconcile-sim: route ${route.name} failed`);
    }
  }

  private async answer(run: NetworkRun, route: CompiledRoute, request: RouteRequest): Promise<unknown> {
    if (route.route === "fetch") return this.codec.history(await run.fetch(), run.context);
    if (route.route === "post") {
      const { id, text } = this.codec.postRequest(request.body, run.context);
      if (id === undefined) {
        const { response, storeId } = await run.postWithoutId(text);
        return this.codec.postResponse(response, storeId, run.context);
      }
      return this.codec.postResponse(await run.post(id, text), id, run.context);
    }
    return route.route(request);
  }

  /** A connection the store opens: the run's if it is to the declared socket (true), else refused. */
  private connection(client: SocketClient): boolean {
    const run = this.run();
    if (run === null || !run.current("a WebSocket connection")) return false;
    if (!this.sockets.some((s) => sameSocket(s, client.url))) {
      const declared = this.sockets.map((s) => s.href).join(", ") || "none declared";
      run.fail(new Error(`the store opened a WebSocket to ${client.url.href}, which is not the declared socket (network.socket: ${declared})`));
      return false;
    }
    run.sockets.add(client);
    run.socketUrl = client.url;
    client.addEventListener("close", () => run.sockets.delete(client));
    return true;
  }

  /** One harness event to every open socket of the run, as the app's frame. */
  deliver(run: NetworkRun, event: AppEvent): void {
    if (run.sockets.size === 0) {
      run.fail(new Error(`the backend sent ${event.type} but the store has no open WebSocket to ${this.sockets.map((s) => s.href).join(" or ")}`));
      return;
    }
    const frame = this.codec.frame(event, run.context);
    for (const client of run.sockets) client.send(frame);
  }
}

function socketUrl(s: string, origin: URL): URL {
  const url = new URL(s, origin);
  if (url.protocol === "http:") url.protocol = "ws:";
  if (url.protocol === "https:") url.protocol = "wss:";
  return url;
}

/** Same socket: scheme, host and path (the query string, often a token or a tab id, is not compared). */
function sameSocket(declared: URL, actual: URL): boolean {
  return declared.protocol === actual.protocol && declared.host === actual.host && declared.pathname === actual.pathname;
}
