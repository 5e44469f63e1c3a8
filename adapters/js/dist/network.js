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
import { Codec } from "./codec.js";
import { routedFetch } from "./fetch.js";
import { routedWebSocket } from "./socket.js";
import { xmlHttpRequestOver } from "./xhr.js";
function compileRoutes(routes) {
    return Object.keys(routes).map((name) => {
        const m = /^\s*([A-Za-z]+)\s+(\S+)\s*$/.exec(name);
        if (m === null)
            throw new Error(`network.routes: ${JSON.stringify(name)} is not "METHOD /path" (for example "GET /api/chunks")`);
        const path = m[2].split("?")[0];
        return { method: m[1].toUpperCase(), segments: path.split("/").filter((s) => s !== ""), route: routes[name], name };
    });
}
function match(route, method, parts) {
    if (route.method !== method)
        return null;
    if (parts.length !== route.segments.length)
        return null;
    const params = {};
    for (let i = 0; i < parts.length; i++) {
        const want = route.segments[i];
        if (want.startsWith(":"))
            params[want.slice(1)] = decodeURIComponent(parts[i]);
        else if (want !== parts[i])
            return null;
    }
    return params;
}
/** One per process: the routed fetch and WebSocket are installed once, and route to whatever run is current. */
export class Network {
    run;
    codec;
    origin;
    routes;
    sockets;
    constructor(options, run) {
        this.run = run;
        this.codec = new Codec(options.codec);
        this.origin = new URL(options.origin ?? "http://localhost");
        this.routes = compileRoutes(options.routes ?? {});
        const sockets = options.socket === undefined ? [] : Array.isArray(options.socket) ? options.socket : [options.socket];
        this.sockets = sockets.map((s) => socketUrl(s, this.origin));
    }
    get hasSocket() {
        return this.sockets.length > 0;
    }
    /**
     * Replace `fetch` by the routed one (fetch.ts) and `WebSocket` by the routed one
     * (socket.ts; Node 20 has none), and give the store an `XMLHttpRequest` on the routed
     * `fetch` (Node has none).
     */
    async install() {
        const g = globalThis;
        Object.defineProperty(g, "WebSocket", {
            value: routedWebSocket(this.origin, (end) => this.connection(end)),
            configurable: true,
            writable: true,
        });
        // Relative URLs (browser code fetches them) resolve against the declared origin.
        g.fetch = routedFetch(this.origin, (method, url, body) => this.request(method, url, body));
        // Node has no XMLHttpRequest: one on the routed fetch, for stores that use it.
        if (g.XMLHttpRequest === undefined) {
            const routed = () => g.fetch;
            Object.defineProperty(g, "XMLHttpRequest", { value: xmlHttpRequestOver(routed), configurable: true, writable: true });
        }
    }
    /** One request of the store: the answer's JSON text, or a rejection (a TypeError, as a network error is). */
    async request(method, url, text) {
        const run = this.run();
        if (run === null || !run.current(`a ${method} request`)) {
            throw new TypeError("reconcile-sim: request from a store of an earlier run");
        }
        const parts = url.pathname.split("/").filter((s) => s !== "");
        let route;
        let params = null;
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
        }
        catch (e) {
            run.fail(new Error(`route ${route.name} (${method} ${url.href}): ${e?.message ?? String(e)}`));
            throw new TypeError(`reconcile-sim: route ${route.name} failed`);
        }
    }
    async answer(run, route, request) {
        if (route.route === "fetch")
            return this.codec.history(await run.fetch(), run.context);
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
    connection(client) {
        const run = this.run();
        if (run === null || !run.current("a WebSocket connection"))
            return false;
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
    deliver(run, event) {
        if (run.sockets.size === 0) {
            run.fail(new Error(`the backend sent ${event.type} but the store has no open WebSocket to ${this.sockets.map((s) => s.href).join(" or ")}`));
            return;
        }
        const frame = this.codec.frame(event, run.context);
        for (const client of run.sockets)
            client.send(frame);
    }
}
function socketUrl(s, origin) {
    const url = new URL(s, origin);
    if (url.protocol === "http:")
        url.protocol = "ws:";
    if (url.protocol === "https:")
        url.protocol = "wss:";
    return url;
}
/** Same socket: scheme, host and path (the query string, often a token or a tab id, is not compared). */
function sameSocket(declared, actual) {
    return declared.protocol === actual.protocol && declared.host === actual.host && declared.pathname === actual.pathname;
}
