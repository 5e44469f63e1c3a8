#!/usr/bin/env node
const __importMetaUrl = require("node:url").pathToFileURL(__filename).href;
"use strict";
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __esm = (fn, res, err) => function __init() {
  if (err) throw err[0];
  try {
    return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
  } catch (e) {
    throw err = [e], e;
  }
};
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

// src/codec.ts
function idCodec(spelling) {
  if (spelling === void 0 || spelling === "number") return { encode: (n) => n, decode: (id) => decodeNumber(id) };
  if (spelling === "string") return { encode: (n) => String(n), decode: (id) => decodeNumber(id) };
  return spelling;
}
function decodeNumber(id) {
  if (typeof id === "string") {
    const known = DECODED2.get(id);
    if (known !== void 0) return known;
  }
  const n = typeof id === "number" ? id : typeof id === "string" && /^-?\d+$/.test(id) ? Number(id) : NaN;
  if (typeof id === "string" && Number.isFinite(n)) {
    if (DECODED2.size >= 4096) DECODED2.clear();
    DECODED2.set(id, n);
  }
  if (!Number.isFinite(n)) throw new Error(`cannot read a turn id from ${JSON.stringify(id)}: declare codec.ids with a decode()`);
  return n;
}
var DECODED2, ID_FIELDS, Codec;
var init_codec = __esm({
  "src/codec.ts"() {
    "use strict";
    DECODED2 = /* @__PURE__ */ new Map();
    ID_FIELDS = /* @__PURE__ */ new Set(["turnId", "call"]);
    Codec = class {
      constructor(c = {}) {
        this.c = c;
        this.ids = idCodec(c.ids);
      }
      c;
      ids;
      /** Rename fields and spell ids of one flat record. */
      shape(record2) {
        const out = {};
        const fields = this.c.fields ?? {};
        for (const k of Object.keys(record2)) {
          const v = record2[k];
          out[fields[k] ?? k] = ID_FIELDS.has(k) && typeof v === "number" ? this.ids.encode(v) : v;
        }
        return out;
      }
      /** The tool batch field names declared (see `AppCodec.toolBatch`). */
      get toolBatch() {
        return this.c.toolBatch;
      }
      /** The socket frame (a string) for one event. */
      frame(event, ctx) {
        const shaped = this.shape(event);
        const typeField = this.c.fields?.type ?? "type";
        shaped[typeField] = this.c.eventNames?.[event.type] ?? event.type;
        const frame = this.c.event !== void 0 ? this.c.event(shaped, ctx) : shaped;
        return typeof frame === "string" ? frame : JSON.stringify(frame);
      }
      /** The history GET's body. Tool rows get their call's number (a result answers the call before it). */
      history(response, ctx) {
        const calls = /* @__PURE__ */ new Map();
        const chunks = response.chunks.map((chunk) => {
          const c = { ...chunk };
          if (chunk.role === "tool-call") calls.set(chunk.turnId, (calls.get(chunk.turnId) ?? 0) + 1);
          if (chunk.role === "tool-call" || chunk.role === "tool-result") c.call = calls.get(chunk.turnId) ?? 0;
          return this.c.chunk !== void 0 ? this.c.chunk(c, this.ids, ctx) : this.shape(c);
        });
        const writtenTurns = response.writtenTurns.map((t) => this.ids.encode(t));
        const body = { requestId: response.requestId, snapshotSeq: response.snapshotSeq, chunks, writtenTurns };
        return this.c.history !== void 0 ? this.c.history(body, ctx) : body;
      }
      postRequest(body, ctx) {
        if (this.c.postRequest !== void 0) return this.c.postRequest(body, ctx);
        const b = body ?? {};
        const id = b.id ?? b.messageId ?? b.clientMessageId ?? b.clientId;
        const text = b.text ?? b.content ?? b.message;
        if (typeof text !== "string") {
          throw new Error(`cannot read the message text from the POST body ${JSON.stringify(body)}: declare codec.postRequest`);
        }
        return { id: id === void 0 || id === null ? void 0 : String(id), text };
      }
      postResponse(response, messageId, ctx) {
        if (this.c.postResponse !== void 0) return this.c.postResponse(response, messageId, this.ids, ctx);
        return response.outcome === "started" ? this.shape({ messageId, status: "started", turnId: response.turn_id }) : this.shape({ messageId, status: "queued" });
      }
    };
  }
});

// src/fetch.ts
function normaliseMethod(method) {
  const upper = String(method).toUpperCase();
  return NORMALISED.has(upper) ? upper : String(method);
}
function abortReason(signal) {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}
function routedFetch(origin, route) {
  return (input, init) => {
    let method;
    let url;
    let body;
    let signal;
    try {
      const plain = typeof input === "string" || input instanceof URL;
      const b = init?.body;
      method = normaliseMethod(init?.method ?? "GET");
      if (plain && (b === void 0 || b === null || typeof b === "string") && !((method === "GET" || method === "HEAD") && b != null)) {
        url = new URL(String(input), origin);
        body = b ?? "";
        signal = init?.signal;
      } else {
        const request = new Request(plain ? new URL(String(input), origin) : input, init);
        method = request.method;
        url = new URL(request.url);
        body = request.text();
        signal = request.signal;
      }
    } catch (e) {
      return Promise.reject(e instanceof TypeError ? e : new TypeError(String(e?.message ?? e)));
    }
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const answered = typeof body === "string" ? route(method, url, body) : body.then((text) => route(method, url, text));
    const response = answered.then((text) => new RoutedResponse(text, url.href));
    if (signal === void 0 || signal === null) return response;
    return new Promise((resolve2, reject) => {
      const onAbort = () => reject(abortReason(signal));
      signal.addEventListener("abort", onAbort, { once: true });
      response.then(
        (r) => {
          signal.removeEventListener("abort", onAbort);
          resolve2(r);
        },
        (e) => {
          signal.removeEventListener("abort", onAbort);
          reject(e);
        }
      );
    });
  };
}
var NORMALISED, JSON_HEADERS, RoutedResponse;
var init_fetch = __esm({
  "src/fetch.ts"() {
    "use strict";
    NORMALISED = /* @__PURE__ */ new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);
    JSON_HEADERS = { status: 200, headers: { "content-type": "application/json" } };
    RoutedResponse = class _RoutedResponse {
      #text;
      #url;
      #used = false;
      #headers = null;
      /** A real Response with the text as its body, made once the store asks for `body` (a stream): from then on it answers. */
      #real = null;
      constructor(text, url) {
        this.#text = text;
        this.#url = url;
      }
      get url() {
        return this.#url;
      }
      get status() {
        return 200;
      }
      get ok() {
        return true;
      }
      get statusText() {
        return "";
      }
      get type() {
        return "default";
      }
      get redirected() {
        return false;
      }
      get headers() {
        this.#headers ??= new Response(null, JSON_HEADERS).headers;
        return this.#headers;
      }
      get body() {
        if (this.#real === null) {
          this.#real = new Response(this.#text, JSON_HEADERS);
          if (this.#used) void this.#real.text();
        }
        return this.#real.body;
      }
      get bodyUsed() {
        return this.#used || (this.#real?.bodyUsed ?? false);
      }
      /** The text, once: a second read is the TypeError `fetch`'s bodies give. */
      #take() {
        if (this.#used) throw new TypeError("Body is unusable: Body has already been read");
        this.#used = true;
        return this.#text;
      }
      text() {
        if (this.#real !== null) return this.#real.text();
        try {
          return Promise.resolve(this.#take());
        } catch (e) {
          return Promise.reject(e);
        }
      }
      json() {
        if (this.#real !== null) return this.#real.json();
        try {
          return Promise.resolve(JSON.parse(this.#take()));
        } catch (e) {
          return Promise.reject(e);
        }
      }
      arrayBuffer() {
        return this.#read((r) => r.arrayBuffer());
      }
      blob() {
        return this.#read((r) => r.blob());
      }
      formData() {
        return this.#read((r) => r.formData());
      }
      /** A read the fast path does not serve: through a real Response with the text as its body. */
      #read(f) {
        if (this.#real === null) {
          if (this.#used) return Promise.reject(new TypeError("Body is unusable: Body has already been read"));
          this.#real = new Response(this.#text, JSON_HEADERS);
        }
        return f(this.#real);
      }
      clone() {
        if (this.#real !== null) return this.#real.clone();
        if (this.#used) throw new TypeError("Response.clone: Body has already been consumed.");
        return new _RoutedResponse(this.#text, this.#url);
      }
    };
    Object.setPrototypeOf(RoutedResponse.prototype, Response.prototype);
    Object.defineProperty(RoutedResponse.prototype, Symbol.toStringTag, { value: "Response", configurable: true });
  }
});

// src/socket.ts
function routedWebSocket(origin, accept) {
  const EVENTS = ["open", "message", "error", "close"];
  class WebSocket extends EventTarget {
    static CONNECTING = CONNECTING;
    static OPEN = OPEN;
    static CLOSING = CLOSING;
    static CLOSED = CLOSED;
    #url;
    #readyState = CONNECTING;
    #handlers = {};
    #closedListeners = [];
    binaryType = "blob";
    constructor(url, protocols) {
      super();
      let u;
      try {
        u = new URL(String(url), origin);
      } catch {
        throw new DOMException(`Failed to construct 'WebSocket': The URL '${String(url)}' is invalid.`, "SyntaxError");
      }
      if (u.protocol === "http:") u.protocol = "ws:";
      else if (u.protocol === "https:") u.protocol = "wss:";
      if (u.protocol !== "ws:" && u.protocol !== "wss:") {
        throw new DOMException(`Failed to construct 'WebSocket': The URL's scheme must be either 'http', 'https', 'ws', or 'wss'. '${u.protocol}' is not allowed.`, "SyntaxError");
      }
      if (u.hash !== "") {
        throw new DOMException(`Failed to construct 'WebSocket': The URL contains a fragment identifier ('${u.hash}').`, "SyntaxError");
      }
      void protocols;
      this.#url = u;
      const ws = this;
      const end = {
        url: u,
        send: (data) => {
          queueMicrotask(() => {
            if (ws.#readyState === OPEN) ws.dispatchEvent(new MessageEvent("message", { data, origin: u.origin }));
          });
        },
        close: (code = 1e3, reason = "") => ws.#close(code, reason, true),
        addEventListener: (_type, listener) => {
          ws.#closedListeners.push(listener);
        }
      };
      const accepted = accept(end);
      queueMicrotask(() => {
        if (this.#readyState !== CONNECTING) return;
        if (accepted) {
          this.#readyState = OPEN;
          this.dispatchEvent(new Event("open"));
        } else {
          this.dispatchEvent(new Event("error"));
          this.#close(1006, "", false);
        }
      });
    }
    get url() {
      return this.#url.href;
    }
    get readyState() {
      return this.#readyState;
    }
    get protocol() {
      return "";
    }
    get extensions() {
      return "";
    }
    get bufferedAmount() {
      return 0;
    }
    send(data) {
      if (this.#readyState === CONNECTING) {
        throw new DOMException("Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.", "InvalidStateError");
      }
      void data;
    }
    close(code, reason) {
      if (code !== void 0 && code !== 1e3 && (code < 3e3 || code > 4999)) {
        throw new DOMException(`Failed to execute 'close' on 'WebSocket': The close code must be either 1000, or between 3000 and 4999. ${code} is neither.`, "InvalidAccessError");
      }
      if (reason !== void 0 && new TextEncoder().encode(reason).length > 123) {
        throw new DOMException("Failed to execute 'close' on 'WebSocket': The close reason must not be greater than 123 UTF-8 bytes.", "SyntaxError");
      }
      this.#close(code ?? 1e3, reason ?? "", true);
    }
    /** CLOSING now, CLOSED (and the close event) in a microtask, as a closing handshake ends. */
    #close(code, reason, wasClean) {
      if (this.#readyState === CLOSING || this.#readyState === CLOSED) return;
      this.#readyState = CLOSING;
      queueMicrotask(() => {
        this.#readyState = CLOSED;
        for (const listener of this.#closedListeners.splice(0)) listener();
        this.dispatchEvent(new CloseEventClass("close", { code, reason, wasClean }));
      });
    }
    static {
      for (const type of EVENTS) {
        Object.defineProperty(WebSocket.prototype, `on${type}`, {
          configurable: true,
          enumerable: true,
          get() {
            return this.#handlers[type] ?? null;
          },
          set(handler) {
            const first = !(type in this.#handlers);
            this.#handlers[type] = typeof handler === "function" ? handler : null;
            if (first) {
              this.addEventListener(type, (event) => {
                const h = this.#handlers[type];
                if (typeof h === "function") h.call(this, event);
              });
            }
          }
        });
      }
      for (const [name, value] of Object.entries({ CONNECTING, OPEN, CLOSING, CLOSED })) {
        Object.defineProperty(WebSocket.prototype, name, { value, enumerable: true });
      }
    }
  }
  return WebSocket;
}
var CONNECTING, OPEN, CLOSING, CLOSED, CloseEventShim, CloseEventClass;
var init_socket = __esm({
  "src/socket.ts"() {
    "use strict";
    CONNECTING = 0;
    OPEN = 1;
    CLOSING = 2;
    CLOSED = 3;
    CloseEventShim = class extends Event {
      code;
      reason;
      wasClean;
      constructor(type, init = {}) {
        super(type);
        this.code = init.code ?? 0;
        this.reason = init.reason ?? "";
        this.wasClean = init.wasClean ?? false;
      }
    };
    CloseEventClass = globalThis.CloseEvent ?? CloseEventShim;
  }
});

// src/xhr.ts
function xmlHttpRequestOver(fetch) {
  return class XMLHttpRequest extends EventTarget {
    static UNSENT = 0;
    static OPENED = 1;
    static HEADERS_RECEIVED = 2;
    static LOADING = 3;
    static DONE = 4;
    UNSENT = 0;
    OPENED = 1;
    HEADERS_RECEIVED = 2;
    LOADING = 3;
    DONE = 4;
    readyState = STATES.UNSENT;
    status = 0;
    statusText = "";
    responseType = "";
    responseText = "";
    response = "";
    responseURL = "";
    timeout = 0;
    withCredentials = false;
    onreadystatechange = null;
    onload = null;
    onerror = null;
    onloadend = null;
    onabort = null;
    method = "GET";
    url = "";
    headers = {};
    answer = null;
    aborted = false;
    open(method, url, async = true) {
      if (async === false) {
        throw new Error("reconcile-sim: a synchronous XMLHttpRequest cannot be answered (the harness answers on this thread); make it asynchronous");
      }
      this.method = method.toUpperCase();
      this.url = String(url);
      this.headers = {};
      this.aborted = false;
      this.change(STATES.OPENED);
    }
    setRequestHeader(name, value) {
      this.headers[name] = value;
    }
    send(body) {
      if (this.readyState !== STATES.OPENED) throw new Error("reconcile-sim: XMLHttpRequest.send() before open()");
      const init = { method: this.method, headers: this.headers };
      if (body !== void 0 && body !== null && this.method !== "GET" && this.method !== "HEAD") init.body = body;
      fetch()(this.url, init).then(
        async (res) => {
          const text = await res.text();
          if (this.aborted) return;
          this.answer = res;
          this.status = res.status;
          this.statusText = res.statusText;
          this.responseURL = res.url;
          this.change(STATES.HEADERS_RECEIVED);
          this.responseText = text;
          this.response = this.responseType === "json" ? text === "" ? null : JSON.parse(text) : text;
          this.change(STATES.DONE);
          this.fire("load");
          this.fire("loadend");
        },
        () => {
          if (this.aborted) return;
          this.status = 0;
          this.change(STATES.DONE);
          this.fire("error");
          this.fire("loadend");
        }
      );
    }
    abort() {
      this.aborted = true;
      this.readyState = STATES.UNSENT;
      this.fire("abort");
    }
    getResponseHeader(name) {
      return this.answer?.headers.get(name) ?? null;
    }
    getAllResponseHeaders() {
      if (this.answer === null) return "";
      let all = "";
      this.answer.headers.forEach((value, name) => all += `${name}: ${value}\r
`);
      return all;
    }
    change(state) {
      this.readyState = state;
      this.fire("readystatechange");
    }
    fire(type) {
      const event = new Event(type);
      const handler = this[`on${type}`];
      if (typeof handler === "function") handler.call(this, event);
      this.dispatchEvent(event);
    }
  };
}
var STATES;
var init_xhr = __esm({
  "src/xhr.ts"() {
    "use strict";
    STATES = { UNSENT: 0, OPENED: 1, HEADERS_RECEIVED: 2, LOADING: 3, DONE: 4 };
  }
});

// src/network.ts
var network_exports = {};
__export(network_exports, {
  Network: () => Network
});
function compileRoutes(routes) {
  return Object.keys(routes).map((name) => {
    const m = /^\s*([A-Za-z]+)\s+(\S+)\s*$/.exec(name);
    if (m === null) throw new Error(`network.routes: ${JSON.stringify(name)} is not "METHOD /path" (for example "GET /api/chunks")`);
    const path = m[2].split("?")[0];
    return { method: m[1].toUpperCase(), segments: path.split("/").filter((s) => s !== ""), route: routes[name], name };
  });
}
function match(route, method, parts) {
  if (route.method !== method) return null;
  if (parts.length !== route.segments.length) return null;
  const params = {};
  for (let i = 0; i < parts.length; i++) {
    const want = route.segments[i];
    if (want.startsWith(":")) params[want.slice(1)] = decodeURIComponent(parts[i]);
    else if (want !== parts[i]) return null;
  }
  return params;
}
function socketUrl(s, origin) {
  const url = new URL(s, origin);
  if (url.protocol === "http:") url.protocol = "ws:";
  if (url.protocol === "https:") url.protocol = "wss:";
  return url;
}
function sameSocket(declared, actual) {
  return declared.protocol === actual.protocol && declared.host === actual.host && declared.pathname === actual.pathname;
}
var Network;
var init_network = __esm({
  "src/network.ts"() {
    "use strict";
    init_codec();
    init_fetch();
    init_socket();
    init_xhr();
    Network = class {
      constructor(options, run) {
        this.run = run;
        this.codec = new Codec(options.codec);
        this.origin = new URL(options.origin ?? "http://localhost");
        this.routes = compileRoutes(options.routes ?? {});
        const sockets = options.socket === void 0 ? [] : Array.isArray(options.socket) ? options.socket : [options.socket];
        this.sockets = sockets.map((s) => socketUrl(s, this.origin));
      }
      run;
      codec;
      origin;
      routes;
      sockets;
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
          writable: true
        });
        g.fetch = routedFetch(this.origin, (method, url, body) => this.request(method, url, body));
        if (g.XMLHttpRequest === void 0) {
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
        if (route === void 0 || params === null) {
          const routes = this.routes.map((r) => r.name).join(", ") || "none declared";
          run.fail(new Error(`the store requested ${method} ${url.href}, which no route handles (routes: ${routes})`));
          throw new TypeError(`reconcile-sim: no route for ${method} ${url.pathname}`);
        }
        try {
          const body = text === "" ? void 0 : JSON.parse(text);
          run.noteParams(params);
          const answer = await this.answer(run, route, { method, url, params, body, context: run.context });
          return JSON.stringify(answer) ?? "";
        } catch (e) {
          run.fail(new Error(`route ${route.name} (${method} ${url.href}): ${e?.message ?? String(e)}`));
          throw new TypeError(`reconcile-sim: route ${route.name} failed`);
        }
      }
      async answer(run, route, request) {
        if (route.route === "fetch") return this.codec.history(await run.fetch(), run.context);
        if (route.route === "post") {
          const { id, text } = this.codec.postRequest(request.body, run.context);
          if (id === void 0) {
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
      deliver(run, event) {
        if (run.sockets.size === 0) {
          run.fail(new Error(`the backend sent ${event.type} but the store has no open WebSocket to ${this.sockets.map((s) => s.href).join(" or ")}`));
          return;
        }
        const frame = this.codec.frame(event, run.context);
        for (const client of run.sockets) client.send(frame);
      }
    };
  }
});

// src/record.ts
var record_exports = {};
__export(record_exports, {
  record: () => record
});
function record(network, options = {}) {
  const limit = Math.max(1, options.limit ?? 5e3);
  const isPrivate = options.private ?? true;
  const origin = new URL(network.origin ?? globalThis.location?.href ?? "http://localhost");
  const codec = network.codec ?? {};
  const fields = codec.fields ?? {};
  const field2 = (name) => fields[name] ?? name;
  const eventNames = /* @__PURE__ */ new Map();
  for (const t of EVENT_TYPES) eventNames.set(codec.eventNames?.[t] ?? t, t);
  const routes = Object.entries(network.routes ?? {}).flatMap(([key, route]) => {
    const m = /^\s*([A-Za-z]+)\s+(\S+)\s*$/.exec(key);
    return m === null || typeof route !== "string" ? [] : [{ method: m[1].toUpperCase(), segments: m[2].split("?")[0].split("/").filter((s) => s !== ""), route }];
  });
  const sockets = (network.socket === void 0 ? [] : Array.isArray(network.socket) ? network.socket : [network.socket]).map((s) => new URL(s, origin));
  let t0 = Date.now();
  const entries = [];
  let dropped = 0;
  let nextRequest = 1;
  const placeholders = /* @__PURE__ */ new Map();
  const text = (t) => {
    if (typeof t !== "string") return void 0;
    if (!isPrivate) return t;
    let p = placeholders.get(t);
    if (p === void 0) {
      p = `<text#${placeholders.size + 1}>`;
      placeholders.set(t, p);
    }
    return p;
  };
  const id = (v) => typeof v === "string" || typeof v === "number" ? v : void 0;
  const push = (e) => {
    entries.push({ at_ms: Date.now() - t0, ...e });
    if (entries.length > limit) {
      entries.shift();
      dropped++;
    }
  };
  const routeOf = (method, url) => {
    const parts = url.pathname.split("/").filter((s) => s !== "");
    return routes.find((r) => r.method === method && r.segments.length === parts.length && r.segments.every((s, i) => s.startsWith(":") || s === parts[i]))?.route;
  };
  const decodeEvent = (frame) => {
    const type = eventNames.get(String(frame[field2("type")]));
    if (type === void 0) return void 0;
    const turn = id(frame[field2("turnId")]);
    const e = { type };
    if (type === "status") e.status = frame[field2("status")];
    else if (type === "message-queued") {
      e.message = id(frame[field2("messageId")]);
      if (frame[field2("text")] !== void 0) e.text = text(frame[field2("text")]);
    } else if (type === "message-consumed") {
      e.messages = (frame[field2("messageIds")] ?? []).map(id);
      if (frame[field2("reason")] !== void 0) e.reason = frame[field2("reason")];
    } else {
      if (turn !== void 0) e.turn = turn;
      if (type === "tool-call" || type === "tool-result") e.call = Number(frame[field2("call")] ?? 0);
      if (type !== "turn-start" && type !== "turn-sealed") e.text = text(frame[field2("text")]);
    }
    return e;
  };
  const decodeRows = (body) => {
    const rows = Array.isArray(body) ? body : Object.values(body ?? {}).find(Array.isArray) ?? [];
    return rows.map((r) => {
      if (codec.unchunk !== void 0) {
        const c = codec.unchunk(r);
        return { seq: c.seq, turn: id(c.turnId), role: c.role, messages: (c.messageIds ?? []).map(id), text: text(c.text) };
      }
      const row = r;
      const messages = row[field2("messageIds")] ?? row.clientMessageIds ?? [];
      return { seq: Number(row[field2("seq")] ?? 0), turn: id(row[field2("turnId")]), role: row[field2("role")], messages: messages.map(id), text: text(row[field2("text")]) };
    });
  };
  const g = globalThis;
  const pageFetch = g.fetch;
  const PageWebSocket = g.WebSocket;
  g.fetch = async (input, init) => {
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url, origin);
    const method = (init?.method ?? (typeof input === "object" && "method" in input ? input.method : "GET")).toUpperCase();
    const route = routeOf(method, url);
    if (route === void 0) return pageFetch(input, init);
    const request = nextRequest++;
    const entry = { kind: "request", id: request, route, method, path: url.pathname };
    if (route === "post" && typeof init?.body === "string") {
      const body2 = JSON.parse(init.body);
      const message = id(body2.id ?? body2.messageId ?? body2.clientMessageId ?? body2.clientId);
      if (message !== void 0) entry.message = message;
      entry.text = text(body2.text ?? body2.content);
    }
    push(entry);
    const response = await pageFetch(input, init);
    const body = await response.clone().json().catch(() => void 0);
    if (route === "fetch") push({ kind: "response", request, fetch: { rows: decodeRows(body) } });
    else {
      const status = String(body?.status ?? body?.outcome ?? "");
      push({ kind: "response", request, post: { outcome: status === "queued" ? "queued" : "started", ...id(body?.turnId) === void 0 ? {} : { turn: id(body?.turnId) } } });
    }
    return response;
  };
  class RecordedWebSocket extends PageWebSocket {
    constructor(url, protocols) {
      super(url, protocols);
      const u = new URL(String(url), origin);
      if (!sockets.some((s) => s.host === u.host && s.pathname === u.pathname)) return;
      this.addEventListener("message", (m) => {
        let frame;
        try {
          frame = JSON.parse(String(m.data));
        } catch {
          return;
        }
        const event = decodeEvent(frame);
        if (event !== void 0) push({ kind: "frame", event });
      });
    }
  }
  Object.defineProperty(g, "WebSocket", { value: RecordedWebSocket, configurable: true, writable: true });
  return {
    send: (t) => push({ kind: "send", text: text(t) }),
    scroll: (atBottom) => push({ kind: "scroll", at_bottom: atBottom }),
    dump: () => JSON.stringify({
      format: "reconcile-sim-log",
      version: 1,
      recorder: "reconcile-sim-adapter/record",
      ...options.name === void 0 ? {} : { store_name: options.name },
      private: isPrivate,
      limit,
      dropped,
      entries
    }),
    clear: () => {
      entries.length = 0;
      dropped = 0;
      t0 = Date.now();
      nextRequest = 1;
      placeholders.clear();
    },
    uninstall: () => {
      g.fetch = pageFetch;
      Object.defineProperty(g, "WebSocket", { value: PageWebSocket, configurable: true, writable: true });
    }
  };
}
var EVENT_TYPES;
var init_record = __esm({
  "src/record.ts"() {
    "use strict";
    EVENT_TYPES = ["turn-start", "text-delta", "tool-call", "tool-result", "message-queued", "message-consumed", "status", "turn-sealed"];
  }
});

// src/cli.ts
var import_node_fs5 = require("node:fs");

// src/coverage.ts
var import_node_fs = require("node:fs");
var import_node_inspector = require("node:inspector");
var B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
function decode(mappings) {
  const out = [];
  let line = 0;
  let source = 0;
  let origLine = 0;
  let origCol = 0;
  let i = 0;
  let seg = "";
  const vlq = () => {
    let result = 0;
    let shift = 0;
    for (; ; ) {
      const d = B64.indexOf(seg[i++]);
      result += (d & 31) << shift;
      shift += 5;
      if ((d & 32) === 0) break;
    }
    return result & 1 ? -(result >>> 1) : result >>> 1;
  };
  for (const group of mappings.split(";")) {
    let col = 0;
    if (group !== "") {
      for (seg of group.split(",")) {
        i = 0;
        const fields = [];
        while (i < seg.length) fields.push(vlq());
        col += fields[0];
        if (fields.length >= 4) {
          source += fields[1];
          origLine += fields[2];
          origCol += fields[3];
          out.push([line, col, source, origLine]);
        }
      }
    }
    line++;
  }
  return out;
}
var Coverage = class _Coverage {
  constructor(script, points, sources, root, started) {
    this.script = script;
    this.points = points;
    this.sources = sources;
    this.root = root;
    this.started = started;
  }
  script;
  points;
  sources;
  root;
  started;
  session = null;
  /** Coverage of `file` (the bundle, evaluated after `prefix`), if its source map is there. */
  static load(file, code, prefix, started) {
    let map;
    try {
      map = JSON.parse((0, import_node_fs.readFileSync)(`${file}.map`, "utf8"));
    } catch {
      return null;
    }
    const meta = map.x_reconcile_sim;
    if (meta === void 0) return null;
    const own = new Set(meta.own);
    const lineStarts = [0];
    for (let i = 0; i < code.length; i++) if (code.charCodeAt(i) === 10) lineStarts.push(i + 1);
    const points = [];
    for (const [gl, gc, src, ol] of decode(map.mappings)) {
      if (!own.has(src) || gl >= lineStarts.length) continue;
      points.push({ offset: prefix + lineStarts[gl] + gc, source: src, line: ol + 1 });
    }
    points.sort((a, b) => a.offset - b.offset);
    return new _Coverage(file, points, map.sources, meta.root, started);
  }
  post(method, params) {
    return new Promise((resolve2, reject) => {
      this.session.post(method, params ?? {}, (err, result) => err ? reject(err) : resolve2(result));
    });
  }
  /**
   * The app's lines run since the previous call, by file (relative to the project root),
   * each file's lines ascending. The first call starts coverage and reports nothing.
   */
  async take() {
    if (this.session === null) {
      this.session = new import_node_inspector.Session();
      this.session.connect();
      await this.post("Profiler.enable");
      await this.post("Profiler.startPreciseCoverage", { callCount: true, detailed: true });
      this.started();
      await this.post("Profiler.takePreciseCoverage");
      return { root: this.root, files: {} };
    }
    const { result } = await this.post("Profiler.takePreciseCoverage");
    const mine = result.filter((s) => s.url === this.script || s.url === `file://${this.script}`);
    const newest = mine.reduce((a, s) => a === null || Number(s.scriptId) > Number(a.scriptId) ? s : a, null);
    const ranges = [];
    for (const f of newest?.functions ?? []) ranges.push(...f.ranges);
    ranges.sort((a, b) => a.startOffset - b.startOffset || b.endOffset - a.endOffset);
    const run = /* @__PURE__ */ new Map();
    const stack = [];
    let next = 0;
    for (const p of this.points) {
      while (next < ranges.length && ranges[next].startOffset <= p.offset) {
        const r = ranges[next++];
        while (stack.length > 0 && stack[stack.length - 1].endOffset <= r.startOffset) stack.pop();
        stack.push(r);
      }
      while (stack.length > 0 && stack[stack.length - 1].endOffset <= p.offset) stack.pop();
      const top = stack[stack.length - 1];
      if (top === void 0 || top.count === 0) continue;
      let lines = run.get(p.source);
      if (lines === void 0) run.set(p.source, lines = /* @__PURE__ */ new Set());
      lines.add(p.line);
    }
    const files = {};
    for (const [source, lines] of [...run].sort((a, b) => this.sources[a[0]] < this.sources[b[0]] ? -1 : 1)) {
      files[this.sources[source]] = [...lines].sort((a, b) => a - b);
    }
    return { root: this.root, files };
  }
};

// src/host.ts
var import_node_path3 = require("node:path");

// src/loader.ts
var import_node_fs2 = require("node:fs");
var import_node_module = require("node:module");
var import_node_path = require("node:path");
var import_node_url = require("node:url");
var import_node_vm = __toESM(require("node:vm"), 1);
var PKG_VERSION = readOwnVersion();
function readOwnVersion() {
  try {
    const pkg = JSON.parse((0, import_node_fs2.readFileSync)(new URL("../package.json", __importMetaUrl), "utf8"));
    return pkg.version ?? "0";
  } catch {
    return "0";
  }
}
function findRoot(from) {
  let dir = (0, import_node_path.resolve)(from);
  for (; ; ) {
    if ((0, import_node_fs2.existsSync)((0, import_node_path.join)(dir, "package.json"))) return dir;
    const up = (0, import_node_path.dirname)(dir);
    if (up === dir) return (0, import_node_path.resolve)(from);
    dir = up;
  }
}
function paths(options) {
  const map = (0, import_node_path.resolve)(options.map);
  const store = options.store === void 0 ? void 0 : (0, import_node_path.resolve)(options.store);
  const root = (0, import_node_path.resolve)(options.root ?? findRoot((0, import_node_path.dirname)(map)));
  const cacheDir = (0, import_node_path.resolve)(options.cacheDir ?? (0, import_node_path.join)(root, "node_modules", ".cache", "reconcile-sim-adapter"));
  const key = hash53(JSON.stringify({ v: PKG_VERSION, sm: 1, node: process.versions.modules, map, store: store ?? null, root }));
  return { map, store, root, cacheDir, key, file: (0, import_node_path.join)(cacheDir, `${key}.cjs`), manifest: (0, import_node_path.join)(cacheDir, `${key}.json`) };
}
function hash53(text) {
  let h1 = 3735928559;
  let h2 = 1103547991;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ h1 >>> 16, 2246822507) ^ Math.imul(h2 ^ h2 >>> 13, 3266489909);
  h2 = Math.imul(h2 ^ h2 >>> 16, 2246822507) ^ Math.imul(h1 ^ h1 >>> 13, 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, "0");
}
function stat(path) {
  const s = (0, import_node_fs2.statSync)(path, { throwIfNoEntry: false });
  return s === void 0 ? null : [s.size, s.mtimeMs];
}
function watched(path) {
  const m = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(path);
  return m === null ? path : (0, import_node_path.join)(m[1], "package.json");
}
function fromCache(p) {
  let manifest;
  try {
    manifest = JSON.parse((0, import_node_fs2.readFileSync)(p.manifest, "utf8"));
  } catch {
    return null;
  }
  if (manifest.key !== p.key) return null;
  for (const [path, size, mtime] of manifest.inputs) {
    const s = stat(path);
    if (s === null ? size !== -1 : s[0] !== size || s[1] !== mtime) return null;
  }
  try {
    return (0, import_node_fs2.readFileSync)(p.file, "utf8");
  } catch {
    return null;
  }
}
function writeAtomic(path, data) {
  const tmp = `${path}.${process.pid}.tmp`;
  (0, import_node_fs2.writeFileSync)(tmp, data);
  (0, import_node_fs2.renameSync)(tmp, path);
}
async function bundle(options) {
  const started = performance.now();
  const p = paths(options);
  if (!options.noCache) {
    const code = fromCache(p);
    if (code !== null) return { file: p.file, code, cached: true, ms: performance.now() - started, inputs: -1 };
  }
  const log = options.log ?? ((line) => process.stderr.write(`${line}
`));
  (0, import_node_fs2.mkdirSync)(p.cacheDir, { recursive: true });
  const lock = `${p.file}.lock`;
  const locked = await acquire(lock, () => options.noCache ? null : fromCache(p));
  if (typeof locked === "string") return { file: p.file, code: locked, cached: true, ms: performance.now() - started, inputs: -1 };
  try {
    const { code, inputs, map } = await build(p, log);
    writeAtomic(`${p.file}.map`, map);
    writeAtomic(p.file, code);
    const watch = [...new Set(inputs.map(watched))].sort();
    const manifest = { key: p.key, inputs: watch.map((f) => [f, ...stat(f) ?? [-1, -1]]) };
    writeAtomic(p.manifest, JSON.stringify(manifest));
    return { file: p.file, code, cached: false, ms: performance.now() - started, inputs: inputs.length };
  } finally {
    if (locked) (0, import_node_fs2.rmSync)(lock, { force: true });
  }
}
var LOCK_STALE_MS = 6e4;
async function acquire(lock, ready) {
  const waitUntil = Date.now() + LOCK_STALE_MS;
  for (; ; ) {
    try {
      (0, import_node_fs2.writeFileSync)(lock, String(process.pid), { flag: "wx" });
      return true;
    } catch (e) {
      if (e.code !== "EEXIST") return false;
    }
    const age = Date.now() - ((0, import_node_fs2.statSync)(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    if (age > LOCK_STALE_MS) {
      (0, import_node_fs2.rmSync)(lock, { force: true });
      continue;
    }
    await new Promise((resolve2) => setTimeout(resolve2, 25));
    const code = ready();
    if (code !== null) return code;
    if (Date.now() > waitUntil) return false;
  }
}
var TS_STRIP = {
  compilerOptions: {
    // Svelte turns `x = $state(…)` class fields into accessors: keep them as fields.
    useDefineForClassFields: true,
    // Imports used only as types are dropped, whatever the project's tsconfig says.
    verbatimModuleSyntax: false,
    preserveValueImports: false,
    importsNotUsedAsValues: "remove"
  }
};
function resolveFrom(root, specifier) {
  for (const req of [(0, import_node_module.createRequire)((0, import_node_path.join)(root, "package.json")), (0, import_node_module.createRequire)(__importMetaUrl)]) {
    try {
      return req.resolve(specifier);
    } catch {
    }
  }
  throw new Error(`cannot find ${specifier}: install it in ${root} (npm install --save-dev ${specifier.split("/")[0]})`);
}
async function importPath(path, probe) {
  const mod = await import((0, import_node_url.pathToFileURL)(path).href);
  return typeof mod[probe] === "function" ? mod : mod.default;
}
async function kitAliases(root, log) {
  let lib = "src/lib";
  const aliases = [];
  let config = null;
  for (const name of ["svelte.config.js", "svelte.config.mjs"]) {
    const path = (0, import_node_path.join)(root, name);
    if (!(0, import_node_fs2.existsSync)(path)) continue;
    config = path;
    try {
      const mod = await import((0, import_node_url.pathToFileURL)(path).href);
      const kit = mod.default?.kit;
      if (kit?.files?.lib !== void 0) lib = kit.files.lib;
      for (const [k, v] of Object.entries(kit?.alias ?? {})) aliases.push([k, (0, import_node_path.resolve)(root, v), false]);
    } catch (e) {
      log(`reconcile-sim-adapter: could not load ${name} (${e.message.split("\n")[0]}); using $lib = src/lib`);
    }
    break;
  }
  aliases.push(["$lib", (0, import_node_path.resolve)(root, lib), config === null]);
  return { aliases, config };
}
function withInlineMap(code, map) {
  return `${code}
//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString("base64")}
`;
}
async function build(p, log) {
  const esbuild = await importPath(resolveFrom(p.root, "esbuild"), "build");
  let svelteDir = null;
  const findSvelte = () => svelteDir ??= (0, import_node_path.dirname)(resolveFrom(p.root, "svelte/package.json"));
  let compiler = null;
  const svelte = async () => {
    compiler ??= await importPath((0, import_node_module.createRequire)((0, import_node_path.join)(findSvelte(), "package.json")).resolve("svelte/compiler"), "compileModule");
    return compiler;
  };
  const { aliases, config } = await kitAliases(p.root, log);
  const extra = /* @__PURE__ */ new Set();
  if (config !== null) extra.add(config);
  const warn = (w) => log(`svelte: ${w.filename ?? ""}: ${w.message}`);
  const stubs = await declaredModules(p.map, esbuild);
  const overrides = overridePlugin(p.map, stubs);
  const plugin = {
    name: "reconcile-sim-svelte",
    setup(b) {
      b.onResolve({ filter: /^\$app\/environment$/ }, () => ({ path: "$app/environment", namespace: "reconcile-sim-shim" }));
      b.onLoad({ filter: /.*/, namespace: "reconcile-sim-shim" }, () => ({
        contents: "export const browser = true; export const dev = false; export const building = false; export const version = 'reconcile-sim';",
        loader: "js"
      }));
      b.onResolve({ filter: /^svelte(\/.*)?$/ }, async (args) => {
        if (args.pluginData?.svelte) return void 0;
        const result2 = await b.resolve(args.path, { kind: args.kind, resolveDir: findSvelte(), pluginData: { svelte: true } });
        return result2.errors.length > 0 ? { errors: result2.errors } : result2;
      });
      for (const [alias, target, fallback] of aliases) {
        const escaped = alias.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        b.onResolve({ filter: new RegExp(`^${escaped}(/.*)?$`) }, async (args) => {
          if (args.pluginData?.alias) return void 0;
          if (fallback) {
            const own2 = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { alias: true } });
            if (own2.errors.length === 0) return own2;
          }
          const rest = args.path.slice(alias.length);
          const result2 = await b.resolve(target + rest, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer });
          return result2.errors.length > 0 ? { errors: result2.errors } : result2;
        });
      }
      b.onLoad({ filter: /\.svelte\.(m?ts|m?js)$/ }, async (args) => {
        let source = (0, import_node_fs2.readFileSync)(args.path, "utf8");
        let stripped = null;
        if (/\.m?ts$/.test(args.path)) {
          const t = await esbuild.transform(source, { loader: "ts", sourcefile: args.path, target: "esnext", tsconfigRaw: TS_STRIP, sourcemap: "external" });
          source = t.code;
          stripped = JSON.parse(t.map);
        }
        const out = (await svelte()).compileModule(source, { filename: args.path, generate: "client", dev: false });
        out.warnings.forEach(warn);
        const compiled = JSON.parse(out.js.map.toString());
        compiled.sources = [args.path];
        const map = stripped === null ? compiled : await chain(compiled, { ...stripped, sources: [args.path] });
        return { contents: withInlineMap(out.js.code, map), loader: "js", resolveDir: (0, import_node_path.dirname)(args.path) };
      });
      b.onLoad({ filter: /\.svelte$/ }, async (args) => {
        const out = (await svelte()).compile((0, import_node_fs2.readFileSync)(args.path, "utf8"), {
          filename: args.path,
          generate: "client",
          dev: false,
          css: "injected"
        });
        out.warnings.forEach(warn);
        const map = JSON.parse(out.js.map.toString());
        map.sources = [args.path];
        return { contents: withInlineMap(out.js.code, map), loader: "js", resolveDir: (0, import_node_path.dirname)(args.path) };
      });
    }
  };
  const chain = async (outer, inner) => {
    const remapping = await importPath((0, import_node_module.createRequire)((0, import_node_path.join)(findSvelte(), "package.json")).resolve("@jridgewell/remapping"), "default");
    const fn = typeof remapping === "function" ? remapping : remapping.default;
    return JSON.parse(fn([outer, inner], () => null).toString());
  };
  const q = JSON.stringify;
  const entry = [
    `import * as map from ${q(p.map)};`,
    p.store === void 0 ? "const store = undefined;" : `import * as store from ${q(p.store)};`,
    "export const factory = map.default;",
    "export { store };"
  ].join("\n");
  const result = await esbuild.build({
    stdin: { contents: entry, resolveDir: p.root, sourcefile: "reconcile-sim-entry.js", loader: "js" },
    absWorkingDir: p.root,
    bundle: true,
    write: false,
    // Beside the bundle, never referenced from it: read only for coverage.
    outfile: p.file,
    sourcemap: "external",
    sourcesContent: false,
    format: "cjs",
    platform: "neutral",
    target: "node18",
    mainFields: ["browser", "module", "main"],
    conditions: ["browser", "production"],
    resolveExtensions: [".ts", ".mts", ".js", ".mjs", ".svelte.ts", ".svelte.js", ".json"],
    external: [...import_node_module.builtinModules, "node:*"],
    define: {
      "process.env.NODE_ENV": '"production"',
      "import.meta.env": q({ MODE: "production", DEV: false, PROD: true, SSR: false, BASE_URL: "/" })
    },
    metafile: true,
    logLevel: "silent",
    legalComments: "none",
    charset: "utf8",
    plugins: [overrides, plugin]
  });
  for (const w of result.warnings) {
    if (w.text.includes('"import.meta" is not available')) continue;
    log(`esbuild: ${w.location ? `${w.location.file}:${w.location.line}: ` : ""}${w.text}`);
  }
  await esbuild.stop?.();
  const code = result.outputFiles.find((f) => !f.path.endsWith(".map")).text;
  const rawMap = JSON.parse(result.outputFiles.find((f) => f.path.endsWith(".map")).text);
  const mapDir = (0, import_node_path.dirname)(p.file);
  const stubFiles = new Set(Object.values(stubs).flatMap((v) => typeof v === "string" ? [(0, import_node_path.resolve)((0, import_node_path.dirname)(p.map), v)] : []));
  const own = [];
  rawMap.sources = rawMap.sources.map((s, i) => {
    const abs = s.includes(":") && !(0, import_node_path.isAbsolute)(s) ? s : (0, import_node_path.resolve)(mapDir, s);
    const rel = (0, import_node_path.isAbsolute)(abs) ? (0, import_node_path.relative)(p.root, abs) : abs;
    const mine = (0, import_node_path.isAbsolute)(abs) && !rel.startsWith("..") && !/(^|[\\/])node_modules[\\/]/.test(rel) && abs !== p.map && !stubFiles.has(abs) && !rel.includes("reconcile-sim-entry");
    if (mine) own.push(i);
    return rel.split("\\").join("/");
  });
  rawMap.x_reconcile_sim = { root: p.root, own };
  const inputs = new Set(extra);
  for (const input of Object.keys(result.metafile.inputs)) {
    const path = input.replace(/^[a-z-]+:/, "");
    if (input.startsWith("reconcile-sim-shim:") || path === "reconcile-sim-entry.js" || path === "<stdin>") continue;
    inputs.add((0, import_node_path.isAbsolute)(path) ? path : (0, import_node_path.resolve)(p.root, path));
  }
  for (const tsconfig of ["tsconfig.json", "jsconfig.json", (0, import_node_path.join)(".svelte-kit", "tsconfig.json")]) inputs.add((0, import_node_path.join)(p.root, tsconfig));
  return { code, inputs: [...inputs].sort(), map: JSON.stringify(rawMap) };
}
async function declaredModules(map, esbuild) {
  const source = (0, import_node_fs2.readFileSync)(map, "utf8");
  if (!/\bexport\s+(const|let|var)\s+modules\b/.test(source)) return {};
  const js = (await esbuild.transform(source, { loader: map.endsWith(".js") || map.endsWith(".mjs") ? "js" : "ts", format: "cjs", sourcefile: map, tsconfigRaw: TS_STRIP })).code;
  const inert = new Proxy(function() {
  }, { get: (_t, k) => k === Symbol.toPrimitive ? () => "" : inert, apply: () => inert, construct: () => inert });
  const module2 = { exports: {} };
  try {
    new import_node_vm.default.Script(`(function (exports, require, module) {${js}
})`, { filename: map }).runInThisContext()(module2.exports, () => inert, module2);
  } catch (e) {
    throw new Error(`${map}: could not read \`export const modules\` (it must be a literal; evaluated with the imports stubbed): ${e.message}`);
  }
  const modules = module2.exports.modules;
  if (modules === null || typeof modules !== "object") throw new Error(`${map}: \`modules\` must be an object of specifier \u2192 stub`);
  for (const [k, v] of Object.entries(modules)) {
    if (typeof v !== "string" && (v === null || typeof v !== "object")) {
      throw new Error(`${map}: modules[${JSON.stringify(k)}] must be a stub file's path or an object of named exports`);
    }
  }
  return modules;
}
function overridePlugin(map, modules) {
  const keys = Object.keys(modules);
  return {
    name: "reconcile-sim-modules",
    setup(b) {
      if (keys.length === 0) return;
      const skip = { override: true };
      let targets = null;
      b.onStart(async () => {
        const out = /* @__PURE__ */ new Map();
        for (const key of keys) {
          const r = await b.resolve(key, { kind: "import-statement", resolveDir: (0, import_node_path.dirname)(map), pluginData: skip });
          if (r.errors.length === 0 && r.path !== "") out.set(r.path, key);
        }
        targets = out;
      });
      const stubs = new Set(keys.flatMap((k) => typeof modules[k] === "string" ? [(0, import_node_path.resolve)((0, import_node_path.dirname)(map), modules[k])] : []));
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData !== void 0 || args.kind === "entry-point") return void 0;
        if (stubs.has(args.importer) || targets === null) return void 0;
        let key = Object.hasOwn(modules, args.path) ? args.path : void 0;
        if (key === void 0) {
          const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: skip });
          if (r.errors.length > 0) return void 0;
          key = targets.get(r.path);
          if (key === void 0) return { ...r, pluginData: void 0 };
        }
        const stub = modules[key];
        if (typeof stub === "string") return { path: (0, import_node_path.resolve)((0, import_node_path.dirname)(map), stub) };
        return { path: key, namespace: "reconcile-sim-module" };
      });
      b.onLoad({ filter: /.*/, namespace: "reconcile-sim-module" }, (args) => ({ contents: JSON.stringify(modules[args.path]), loader: "json" }));
    }
  };
}
var WRAPPER = "(function (exports, require, module, __filename, __dirname) {";
var CompiledBundle = class {
  constructor(b) {
    this.b = b;
    const cacheFile = b.file.replace(/\.cjs$/, ".v8");
    let cachedData;
    if (b.cached) {
      try {
        cachedData = (0, import_node_fs2.readFileSync)(cacheFile);
      } catch {
        cachedData = void 0;
      }
    }
    this.script = new import_node_vm.default.Script(`${WRAPPER}${b.code}
})`, {
      filename: b.file,
      ...cachedData === void 0 ? {} : { cachedData }
    });
    this.codeCacheRejected = cachedData === void 0 || this.script.cachedDataRejected === true;
    this.require = (0, import_node_module.createRequire)(b.file);
  }
  b;
  script;
  require;
  codeCacheRejected;
  /** Compiled again for block coverage (`recompileForCoverage`): no code cache is written. */
  recompiled = false;
  /** Keep V8's code cache (with what has been compiled so far) next to the bundle. */
  saveCodeCache(force = false) {
    if (this.recompiled || !force && !this.codeCacheRejected) return;
    try {
      writeAtomic(this.b.file.replace(/\.cjs$/, ".v8"), this.script.createCachedData());
    } catch {
    }
  }
  /**
   * Compile the bundle again, after block coverage has started (coverage.ts): V8 gives a
   * function block counters only when it compiles it while block coverage is on, and a
   * function compiled before (by earlier runs in this process, or from the code cache)
   * is reported only as a whole, every line of it run whenever it was called. The source
   * ends with a comment so V8's in-process compilation cache does not hand back the old
   * script; the offsets of the bundle's code are unchanged. Only later `evaluate()`s use it.
   */
  recompileForCoverage() {
    this.script = new import_node_vm.default.Script(`${WRAPPER}${this.b.code}
})
// recompiled for block coverage`, { filename: this.b.file });
    this.recompiled = true;
  }
  evaluate() {
    const wrapper = this.script.runInThisContext();
    const module2 = { exports: {} };
    wrapper(module2.exports, this.require, module2, this.b.file, (0, import_node_path.dirname)(this.b.file));
    const factory = module2.exports.factory;
    if (typeof factory !== "function") {
      throw new Error("the mapping file must `export default` a factory: export default defineAdapter((harness) => ({ \u2026 }))");
    }
    return { factory, store: module2.exports.store };
  }
};
function boundFactory(evaluated) {
  return (harness) => evaluated.factory(harness, evaluated.store);
}

// src/determinism.ts
var import_node_module2 = require("node:module");
var EPOCH = 17040672e5;
var SEED = 2654435769;
var MAX_TIMER_RUNS = 1e4;
var realSetImmediate = globalThis.setImmediate;
var RealDate = Date;
var active = null;
var installed = false;
var swaps = [];
var faked = false;
function swap(target, key, value) {
  const real = Object.getOwnPropertyDescriptor(target, key);
  const fake = { value, writable: true, configurable: true, enumerable: real?.enumerable ?? false };
  swaps.push({ target, key, fake, real });
  Object.defineProperty(target, key, fake);
}
function restoreGlobals() {
  if (!faked) return;
  faked = false;
  for (let i = swaps.length - 1; i >= 0; i--) {
    const { target, key, real } = swaps[i];
    if (real === void 0) delete target[key];
    else Object.defineProperty(target, key, real);
  }
}
function replaceGlobals() {
  if (faked || !installed) return;
  faked = true;
  for (const { target, key, fake } of swaps) Object.defineProperty(target, key, fake);
}
var DeterministicWorld = class {
  now = EPOCH;
  uuids = 0;
  rng = SEED;
  timers = /* @__PURE__ */ new Map();
  nextTimer = 1;
  order = 0;
  /** What the runtime says is creating timers now (kept with each timer for state digests). */
  origin = () => "";
  reset() {
    this.now = EPOCH;
    this.uuids = 0;
    this.rng = SEED;
    this.timers.clear();
    this.nextTimer = 1;
    this.order = 0;
  }
  nextUuid() {
    this.uuids += 1;
    return `00000000-0000-4000-8000-${this.uuids.toString(16).padStart(12, "0")}`;
  }
  /** mulberry32 */
  random() {
    this.rng = this.rng + 1831565813 | 0;
    let t = this.rng;
    t = Math.imul(t ^ t >>> 15, t | 1);
    t ^= t + Math.imul(t ^ t >>> 7, t | 61);
    return ((t ^ t >>> 14) >>> 0) / 4294967296;
  }
  get pendingTimers() {
    return this.timers.size;
  }
  /** The pending timers as data, for state digests: [due - now, interval, origin] in run order. */
  timerState() {
    return [...this.timers.values()].sort((a, b) => a.due - b.due || a.order - b.order).map((t) => [t.due - this.now, t.interval, t.origin]);
  }
  addTimer(fn, delay, args, repeat) {
    if (typeof fn !== "function") throw new TypeError("timer callback is not a function");
    const ms = Math.max(0, Number(delay) || 0);
    const id = this.nextTimer++;
    this.timers.set(id, {
      due: this.now + ms,
      order: this.order++,
      fn,
      args,
      interval: repeat ? Math.max(1, ms) : null,
      origin: this.origin()
    });
    return id;
  }
  clearTimer(id) {
    if (typeof id === "number") this.timers.delete(id);
  }
  /** Is a pending timer due now (its time reached by the clock)? */
  hasDueTimer() {
    for (const t of this.timers.values()) if (t.due <= this.now) return true;
    return false;
  }
  /** Run the earliest pending timer (advancing the clock to it); false when none is pending. */
  runNextTimer() {
    let nextId = -1;
    let next;
    for (const [id, t] of this.timers) {
      if (next === void 0 || t.due < next.due || t.due === next.due && t.order < next.order) {
        next = t;
        nextId = id;
      }
    }
    if (next === void 0) return false;
    if (next.due > this.now) this.now = next.due;
    if (next.interval === null) {
      this.timers.delete(nextId);
    } else {
      next.due = this.now + next.interval;
      next.order = this.order++;
    }
    next.fn(...next.args);
    return true;
  }
  /** Make this the world the globals read (until another world is made active). */
  activate() {
    active = this;
  }
  /** Replace the globals a browser store may read (once per process), and make this world active. */
  install() {
    this.activate();
    if (installed) {
      replaceGlobals();
      return;
    }
    installed = true;
    faked = true;
    const g = globalThis;
    const cryptoObj = globalThis.crypto;
    if (cryptoObj !== void 0) {
      swap(cryptoObj, "randomUUID", () => active.nextUuid());
      swap(cryptoObj, "getRandomValues", (array) => {
        if (array !== null) {
          const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
          for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(active.random() * 256);
        }
        return array;
      });
    }
    const nodeCrypto = (0, import_node_module2.createRequire)(__importMetaUrl)("node:crypto");
    nodeCrypto.randomUUID = () => active.nextUuid();
    (0, import_node_module2.syncBuiltinESMExports)();
    swap(Math, "random", () => active.random());
    const VirtualDate = new Proxy(RealDate, {
      construct(target, args, newTarget) {
        return Reflect.construct(target, args.length === 0 ? [active.now] : args, newTarget);
      },
      apply() {
        return new RealDate(active.now).toString();
      },
      get(target, prop, receiver) {
        if (prop === "now") return () => active.now;
        return Reflect.get(target, prop, receiver);
      }
    });
    swap(g, "Date", VirtualDate);
    if (typeof globalThis.performance === "object" && globalThis.performance !== null) {
      swap(globalThis.performance, "now", () => active.now - EPOCH);
    }
    const resolved = Promise.resolve();
    swap(g, "queueMicrotask", (fn) => {
      if (typeof fn !== "function") throw new TypeError("queueMicrotask: callback is not a function");
      void resolved.then(fn);
    });
    swap(g, "setTimeout", (fn, delay, ...args) => active.addTimer(fn, delay, args, false));
    swap(g, "setInterval", (fn, delay, ...args) => active.addTimer(fn, delay, args, true));
    swap(g, "clearTimeout", (id) => active.clearTimer(id));
    swap(g, "clearInterval", (id) => active.clearTimer(id));
    swap(g, "requestAnimationFrame", (fn) => active.addTimer(() => fn(active.now - EPOCH), 16, [], false));
    swap(g, "cancelAnimationFrame", (id) => active.clearTimer(id));
    swap(
      g,
      "requestIdleCallback",
      (fn) => active.addTimer(() => fn({ didTimeout: false, timeRemaining: () => 0 }), 1, [], false)
    );
    swap(g, "cancelIdleCallback", (id) => active.clearTimer(id));
  }
};

// src/contract.ts
var WORLD_VALUE = /^[^\s=]+(=\S+)?$/;
var OPTION_NAME = /^[a-z][a-z0-9_]*$/;
function normaliseWorld(world) {
  if (world === void 0) return [];
  const fail = (why) => {
    throw new Error(`world: ${why} (each entry is a --world value: "ordered-socket", "consume_reasons=true", "sends_per_client=1..=2"; or an object { profile?, <option>: value })`);
  };
  if (Array.isArray(world)) {
    return world.map((v, i) => {
      if (typeof v !== "string") return fail(`entry ${i} is ${JSON.stringify(v)}, not a string`);
      const s = v.trim();
      if (!WORLD_VALUE.test(s)) return fail(`entry ${i} ${JSON.stringify(v)} is not one --world value`);
      return s;
    });
  }
  if (world === null || typeof world !== "object") return fail(`expected an array of strings or an object, got ${JSON.stringify(world)}`);
  const out = [];
  const object = world;
  if (object.profile !== void 0) {
    if (typeof object.profile !== "string" || !WORLD_VALUE.test(object.profile) || object.profile.includes("=")) {
      return fail(`profile must be a profile's name, got ${JSON.stringify(object.profile)}`);
    }
    out.push(object.profile);
  }
  for (const name of Object.keys(object)) {
    if (name === "profile") continue;
    const value = object[name];
    if (value === void 0) continue;
    if (!OPTION_NAME.test(name)) return fail(`${JSON.stringify(name)} is not an option name`);
    let text;
    if (typeof value === "boolean") text = String(value);
    else if (typeof value === "number") {
      if (!Number.isInteger(value) || value < 0) return fail(`${name} must be a whole number >= 0, got ${value}`);
      text = String(value);
    } else if (typeof value === "string" && /^\S+$/.test(value)) text = value;
    else return fail(`${name} has the value ${JSON.stringify(value)}: expected true/false, a whole number, or a string such as "1..=2"`);
    out.push(`${name}=${text}`);
  }
  return out;
}

// src/runtime.ts
var import_node_fs3 = require("node:fs");
var import_node_path2 = require("node:path");

// src/digest.ts
var import_node_module3 = require("node:module");
var crypto = null;
function canonicalJson(value) {
  const out = [];
  write(value, out, /* @__PURE__ */ new Set());
  return out.join("");
}
function write(v, out, seen) {
  if (v === null || v === void 0) {
    out.push("null");
    return;
  }
  switch (typeof v) {
    case "string":
      out.push(JSON.stringify(v));
      return;
    case "number":
      out.push(Number.isFinite(v) ? String(v) : JSON.stringify(String(v)));
      return;
    case "boolean":
      out.push(v ? "true" : "false");
      return;
    case "bigint":
      out.push(JSON.stringify(`${v}n`));
      return;
    case "function":
    case "symbol":
      throw new Error(`snapshot() returned a ${typeof v}: it must be plain data`);
  }
  const o = v;
  if (seen.has(o)) throw new Error("snapshot() returned a cyclic value");
  seen.add(o);
  if (Array.isArray(o)) {
    out.push("[");
    o.forEach((x, i) => {
      if (i > 0) out.push(",");
      write(x, out, seen);
    });
    out.push("]");
  } else if (o instanceof Map) {
    writeSorted([...o.entries()].map(([k, x]) => [JSON.stringify(canonicalJson(k)), x]), out, seen, "M");
  } else if (o instanceof Set) {
    const items = [...o].map((x) => canonicalJson(x)).sort();
    out.push(`{"S":[${items.join(",")}]}`);
  } else if (o instanceof Date) {
    out.push(JSON.stringify(o.toISOString()));
  } else {
    const toJSON = o.toJSON;
    if (typeof toJSON === "function") {
      seen.delete(o);
      write(toJSON.call(o), out, seen);
      return;
    }
    const entries = [];
    for (const k of Object.keys(o)) {
      const x = o[k];
      if (x !== void 0 && typeof x !== "function") entries.push([JSON.stringify(k), x]);
    }
    writeSorted(entries, out, seen, "");
  }
  seen.delete(o);
}
function writeSorted(entries, out, seen, tag) {
  entries.sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  out.push(tag === "" ? "{" : `{"${tag}":{`);
  entries.forEach(([k, x], i) => {
    if (i > 0) out.push(",");
    out.push(k, ":");
    write(x, out, seen);
  });
  out.push(tag === "" ? "}" : "}}");
}
function sha256(text) {
  crypto ??= (0, import_node_module3.createRequire)(__importMetaUrl)("node:crypto");
  return crypto.createHash("sha256").update(text).digest("hex");
}

// src/render.ts
var isRole = (r) => r === "user" || r === "assistant" || r === "tool-call" || r === "tool-result";
function partRole(part, messageRole, messageId) {
  const role = part.role;
  if (role !== void 0 && isRole(role)) return role;
  const kind = part.kind ?? part.type;
  if (kind === "tool-call" || kind === "tool-result") return kind;
  if (kind !== void 0 && isRole(kind)) return kind;
  if (isRole(messageRole)) return messageRole;
  throw new Error(`cannot tell the role of a part (${JSON.stringify(part)}) of message ${JSON.stringify(messageId)}`);
}
var textOf = (x) => {
  const text = x.text;
  return text !== void 0 ? text : x.content ?? "";
};
var asText = (v) => typeof v === "string" ? v : v === void 0 || v === null ? "" : JSON.stringify(v);
var DEFAULT_INPUT = ["input", "args", "text"];
var DEFAULT_OUTPUT = ["output", "result"];
function field(call, fields) {
  const c = call;
  if (typeof fields === "string") return c[fields];
  for (const f of fields) {
    const v = c[f];
    if (v !== void 0 && v !== null) return v;
  }
  return void 0;
}
function expandToolBatch(part, fields = {}) {
  const calls = fields.calls === void 0 ? part.calls : part[fields.calls];
  if (!Array.isArray(calls)) return [part];
  const input = fields.input ?? DEFAULT_INPUT;
  const output = fields.output ?? DEFAULT_OUTPUT;
  const out = [];
  for (const c of calls) {
    const turnId = part.turnId;
    out.push({ kind: "tool-call", text: asText(field(c, input)), turnId });
    const result = field(c, output);
    if (result !== void 0 && result !== null) out.push({ kind: "tool-result", text: asText(result), turnId });
  }
  return out;
}
function expandBatches(parts, fields, callsField) {
  const n = parts.length;
  for (let i = 0; i < n; i++) {
    if (Array.isArray(parts[i][callsField])) {
      const out = [];
      for (let j = 0; j < n; j++) {
        const p = parts[j];
        if (j < i || !Array.isArray(p[callsField])) out.push(p);
        else for (const q of expandToolBatch(p, fields)) out.push(q);
      }
      return out;
    }
  }
  return parts;
}
var DECODED = /* @__PURE__ */ new Map();
var DECODED_MAX = 4096;
function turnNumber(id, decode2) {
  if (id === void 0 || id === null) return void 0;
  if (typeof id === "number") return id;
  if (decode2 !== void 0) return decode2(id);
  if (typeof id === "string") {
    const known = DECODED.get(id);
    if (known !== void 0) return known;
    if (/^-?\d+$/.test(id)) {
      if (DECODED.size >= DECODED_MAX) DECODED.clear();
      DECODED.set(id, Number(id));
      return Number(id);
    }
  }
  throw new Error(`cannot read the turn id ${JSON.stringify(id)}: pass decodeTurnId (or declare network.codec.ids)`);
}
function allSeqs(parts) {
  if (parts === void 0 || parts.length === 0) return false;
  for (let i = 0; i < parts.length; i++) if (typeof parts[i].seq !== "number") return false;
  return true;
}
function flattenMessages(messages, options = {}) {
  const rows = [];
  const { isSealed, parts: partsOf, turnId: turnIdOf, id: idOf, toolBatch, expand } = options;
  const callsField = toolBatch?.calls ?? "calls";
  const taken = /* @__PURE__ */ new Set();
  for (const m of messages) {
    const own = partsOf !== void 0 ? partsOf(m) : m.parts;
    const parts = own === void 0 ? void 0 : expand !== void 0 ? own.flatMap((p) => expand(p)) : expandBatches(own, toolBatch, callsField);
    const t = turnIdOf !== void 0 ? turnIdOf(m) : m.turnId;
    const turnId = turnNumber(t, options.decodeTurnId);
    const seq = isSealed === void 0 ? m.seq : void 0;
    const role = m.role;
    if (isSealed !== void 0 ? isSealed(m) : typeof seq === "number" || allSeqs(parts)) {
      const sealedParts = parts !== void 0 && parts.length > 0 ? parts : [m];
      const several = sealedParts.length > 1;
      for (const p of sealedParts) {
        const row = sealedRow(m, p, turnId, several, taken, options);
        taken.add(row.seq);
        rows.push(row);
      }
      continue;
    }
    const id = idOf !== void 0 ? idOf(m) : m.id;
    if (typeof id !== "string") throw new Error(`a live message has no string id: ${JSON.stringify(m)}`);
    if (parts !== void 0 && parts.length > 0) {
      parts.forEach((p, i) => {
        const pt = p.turnId === void 0 ? turnId : turnNumber(p.turnId, options.decodeTurnId);
        rows.push(liveRow(i === 0 ? id : `${id}#${i}`, partRole(p, role, id), pt, textOf(p)));
      });
    } else {
      if (!isRole(role)) throw new Error(`live message ${JSON.stringify(id)} has no valid role: ${JSON.stringify(role)}`);
      rows.push(liveRow(id, role, turnId, textOf(m)));
    }
  }
  return rows;
}
function sealedRow(m, p, turnId, several, taken, options) {
  const pt = p.turnId === void 0 || p.turnId === null ? turnId : turnNumber(p.turnId, options.decodeTurnId);
  const role = partRole(p, m.role, m.id);
  const text = textOf(p);
  if (typeof pt !== "number") throw new Error(`a sealed part of message ${JSON.stringify(m.id)} has no numeric turn id: ${JSON.stringify(p)}`);
  let seq = p.seq;
  if (typeof seq !== "number" && !several) seq = m.seq;
  if (typeof seq !== "number" && options.seqOf !== void 0) seq = options.seqOf(pt, role, text, taken);
  if (typeof seq !== "number") {
    const why = options.seqOf !== void 0 ? "matches no chunk row the store was given (turn, role and text)" : several && typeof m.seq === "number" ? `has no seq of its own, and its message's seq (${m.seq}) stands for one of its rows only (use harness.flatten, which finds each part's row)` : "has no seq";
    throw new Error(`cannot place a sealed part of message ${JSON.stringify(m.id)}: turn ${pt} ${role} ${JSON.stringify(text)} ${why}`);
  }
  return { from: "sealed", seq, role, turn_id: pt, text };
}
function liveRow(id, role, turnId, text) {
  return turnId === void 0 || turnId === null ? { from: "live", id, role, text } : { from: "live", id, role, turn_id: turnId, text };
}
function renderProblem(rows) {
  if (!Array.isArray(rows)) return `render() must return an array of rows, got ${typeof rows}`;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    const bad = (why) => `render row ${i} ${why}: ${JSON.stringify(r)}`;
    if (r === null || typeof r !== "object") return bad("is not an object");
    if (!isRole(r.role)) return bad("has no valid role");
    if (typeof r.text !== "string") return bad("has no string text");
    if (r.from === "sealed") {
      if (typeof r.seq !== "number") return bad("is sealed but has no numeric seq");
      if (typeof r.turn_id !== "number") return bad("is sealed but has no numeric turn_id");
    } else if (r.from === "live") {
      if (typeof r.id !== "string") return bad("is live but has no string id");
      if (r.turn_id !== void 0 && typeof r.turn_id !== "number") return bad("has a turn_id that is not a number");
    } else {
      return bad('has no from ("sealed" or "live")');
    }
  }
  return void 0;
}

// src/wire.ts
var PROTOCOL = 1;

// src/runtime.ts
var BOOT = "boot";
var isThenable = (x) => x !== null && (typeof x === "object" || typeof x === "function") && typeof x.then === "function";
var drain = () => new Promise((resolve2) => realSetImmediate(resolve2));
var Run = class {
  constructor(runtime, args) {
    this.runtime = runtime;
    this.ids = {
      toStore: (n) => this.byHarness.get(n) ?? `m${n}`,
      toHarness: (s) => this.byStore.get(s)
    };
    const run = this;
    this.context = {
      ids: this.ids,
      params: this.params,
      get socket() {
        return run.socketUrl;
      },
      values: {}
    };
    this.harness = {
      post: (storeId, text) => this.post(storeId, text),
      fetch: () => this.fetch(),
      ids: this.ids,
      args,
      context: this.context,
      flatten: (messages, options) => flattenMessages(messages, this.flattenOptions(options))
    };
  }
  runtime;
  mapping = null;
  /** The effects of the request being answered. */
  effects = [];
  errors = [];
  /** `user-send`s the store has not POSTed yet, oldest first. */
  pendingSends = [];
  posts = /* @__PURE__ */ new Map();
  /** POSTs that carried no id, oldest first: the backend mints their ids. */
  postsWithoutId = [];
  /** The open connections of the store's own WebSocket (with `network.socket`). */
  sockets = /* @__PURE__ */ new Set();
  /**
   * Every chunk row handed to the store, by text (then turn and role), ascending seq: for
   * `Harness.flatten`, which looks up each sealed part it renders on every answer (by
   * text first: no key string is built per lookup).
   */
  seqs = /* @__PURE__ */ new Map();
  fetches = /* @__PURE__ */ new Map();
  nextRequest = 1;
  byHarness = /* @__PURE__ */ new Map();
  byStore = /* @__PURE__ */ new Map();
  translated = /* @__PURE__ */ new Map();
  /** The inputs since the reset, for the origins of pending promises (made canonical JSON only for a digest). */
  history = [];
  /** Where promises and timers created now come from (see `AdapterRuntime.digest`). */
  origin = BOOT;
  ids;
  harness;
  /** The route params the store's requests carried this run (`RunContext.params`). */
  params = {};
  /** The run's context, handed to the codec's hooks and to the mapping (`harness.context`). */
  context;
  /** The latest connection to the declared socket (`RunContext.socket`). */
  socketUrl = void 0;
  /** A routed request's `:name` segments, for `RunContext.params`. */
  noteParams(params) {
    Object.assign(this.params, params);
  }
  current(what) {
    if (this.runtime.run === this) return true;
    process.stderr.write(`reconcile-sim-adapter: ignored ${what} from a store of an earlier run
`);
    return false;
  }
  post(storeId, text) {
    if (!this.current("a POST")) return new Promise(() => {
    });
    if (typeof storeId !== "string" && typeof storeId !== "number") {
      this.errors.push(new Error(`post(storeId, text): storeId must be a string, got ${JSON.stringify(storeId)}`));
      return new Promise(() => {
      });
    }
    const key = String(storeId);
    const send = this.takeSend(text);
    if (send === void 0) {
      this.errors.push(new Error(`the store POSTed ${JSON.stringify(text)} (its id ${key}) but no user-send is waiting for a POST`));
      return new Promise(() => {
      });
    }
    this.byHarness.set(send.messageId, key);
    this.byStore.set(key, send.messageId);
    this.translated.clear();
    this.effects.push({ effect: "post", message_id: send.messageId, text: String(text) });
    return new Promise((resolve2) => this.posts.set(send.messageId, { resolve: resolve2, origin: this.origin }));
  }
  /** A POST without an id (`--world server_ids=true`): the `post` effect carries none, and the response the id the backend minted. */
  postWithoutId(text) {
    if (!this.current("a POST")) return new Promise(() => {
    });
    const send = this.takeSend(String(text));
    if (send === void 0) {
      this.fail(new Error(`the store POSTed ${JSON.stringify(text)} (without an id) but no user-send is waiting for a POST`));
      return new Promise(() => {
      });
    }
    this.effects.push({ effect: "post", text: String(text) });
    return new Promise((resolve2) => this.postsWithoutId.push({ resolve: resolve2, origin: this.origin }));
  }
  /** The pending user-send a POST of `text` answers: the oldest with that text, else the oldest. */
  takeSend(text) {
    let i = this.pendingSends.findIndex((s) => s.text === text);
    if (i < 0) i = 0;
    return this.pendingSends.splice(i, 1)[0];
  }
  fail(error) {
    this.errors.push(error);
  }
  /**
   * A minted id's response: resolve the oldest id-less POST with the id, spelled as every
   * event and chunk row before and after this response spells it (`m902`, what
   * `ids.toStore` gives a message this store never named): a store must be able to match
   * the `message-queued` it got before its POST was answered with the `message-consumed`
   * it gets after.
   */
  resolveWithoutId(serverId, response) {
    const pending = this.postsWithoutId.shift();
    if (pending === void 0) return false;
    const storeId = this.ids.toStore(serverId);
    this.byHarness.set(serverId, storeId);
    this.byStore.set(storeId, serverId);
    this.translated.clear();
    pending.resolve({ response, storeId });
    return true;
  }
  fetch() {
    if (!this.current("a fetch")) return new Promise(() => {
    });
    const requestId = this.nextRequest++;
    this.effects.push({ effect: "fetch", request_id: requestId });
    return new Promise((resolve2) => this.fetches.set(requestId, { resolve: resolve2, origin: this.origin }));
  }
  /** Keep a hook's result: a rejected promise is a crash of the store. */
  call(result) {
    if (isThenable(result)) result.then(void 0, (e) => this.errors.push(e));
  }
  appEvent(e, deltaPrefix) {
    switch (e.type) {
      case "turn-start":
      case "turn-sealed":
        return { type: e.type, turnId: e.turn_id };
      case "text-delta": {
        const text = deltaPrefix === "" ? e.text : deltaPrefix + e.text;
        return e.turn_id === void 0 ? { type: e.type, text } : { type: e.type, turnId: e.turn_id, text };
      }
      case "tool-call":
      case "tool-result":
        return { type: e.type, turnId: e.turn_id, call: e.call, text: e.text };
      case "message-queued": {
        const queued = { type: e.type, messageId: this.ids.toStore(e.message_id) };
        return e.text === void 0 ? queued : { ...queued, text: e.text };
      }
      case "message-consumed": {
        const consumed = { type: e.type, messageIds: e.message_ids.map((n) => this.ids.toStore(n)) };
        return e.reason === void 0 ? consumed : { ...consumed, reason: e.reason };
      }
      case "status":
        return { type: e.type, status: e.status };
      default:
        return this.otherEvent(e);
    }
  }
  /** An event kind this version does not know: camelCase its fields, bridge message ids. */
  otherEvent(e) {
    const other = e;
    const out = {};
    for (const k of Object.keys(other)) {
      const v = other[k];
      if (k === "message_id") out.messageId = this.ids.toStore(v);
      else if (k === "message_ids") out.messageIds = v.map((n) => this.ids.toStore(n));
      else out[camel(k)] = v;
    }
    return out;
  }
  appFetch(r) {
    for (const c of r.chunks) {
      const rows = this.seqs.get(c.text);
      const row = { turn: c.turn_id, role: c.role, seq: c.seq };
      if (rows === void 0) this.seqs.set(c.text, [row]);
      else if (!rows.some((x) => x.seq === c.seq)) {
        rows.push(row);
        rows.sort((a, b) => a.seq - b.seq);
      }
    }
    return {
      requestId: r.request_id,
      snapshotSeq: r.snapshot_seq,
      chunks: r.chunks.map((c) => {
        const chunk = { seq: c.seq, turnId: c.turn_id, role: c.role, text: c.text };
        if (c.message_ids !== void 0) chunk.messageIds = c.message_ids.map((n) => this.ids.toStore(n));
        return chunk;
      }),
      writtenTurns: r.written_turns ?? []
    };
  }
  /**
   * The options of `Harness.flatten`: seqs recovered from the chunk rows handed out (a part
   * of one turn, role and text gets the oldest such row not yet placed in this render),
   * turn ids read with the codec's spelling, tool batches with its field names.
   */
  flattenOptions(options) {
    const codec = this.runtime.network?.codec;
    const decode2 = codec?.ids.decode;
    const toolBatch = codec?.toolBatch;
    return {
      // The oldest row of that turn, role and text this render has not placed yet (a store
      // showing one row twice shows the last twice: its own duplicate, not ours).
      seqOf: (turnId, role, text, taken) => {
        const rows = this.seqs.get(text);
        if (rows === void 0) return void 0;
        let last;
        for (const row of rows) {
          if (row.turn !== turnId || row.role !== role) continue;
          if (!taken.has(row.seq)) return row.seq;
          last = row.seq;
        }
        return last;
      },
      ...decode2 === void 0 ? {} : { decodeTurnId: decode2 },
      ...toolBatch === void 0 ? {} : { toolBatch },
      ...options
    };
  }
  /** Live row ids holding a store message id (whole, or as a suffix: `queued-<id>`) get the harness's `m<n>`. */
  translate(rows) {
    if (this.byStore.size === 0) return rows;
    let out = rows;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (row.from !== "live") continue;
      let id = this.translated.get(row.id);
      if (id === void 0) {
        id = row.id;
        const n = this.byStore.get(id);
        if (n !== void 0) {
          id = `m${n}`;
        } else {
          for (const [storeId, m] of this.byStore) {
            if (storeId !== "" && id.endsWith(storeId)) {
              id = id.slice(0, id.length - storeId.length) + `m${m}`;
              break;
            }
          }
        }
        this.translated.set(row.id, id);
      }
      if (id !== row.id) {
        if (out === rows) out = rows.slice();
        out[i] = { ...row, id };
      }
    }
    return out;
  }
};
var camelCache = /* @__PURE__ */ new Map();
function camel(k) {
  let c = camelCache.get(k);
  if (c === void 0) {
    c = k.replace(/_([a-z0-9])/g, (_, ch) => ch.toUpperCase());
    camelCache.set(k, c);
  }
  return c;
}
function describe(e) {
  if (e instanceof Error) return e.stack ?? `${e.name}: ${e.message}`;
  try {
    return typeof e === "string" ? e : JSON.stringify(e);
  } catch {
    return String(e);
  }
}
var activeRuntime = null;
var hooked = false;
var sharedNetwork = null;
var recording = null;
function written(answer) {
  writeRecording();
  return answer;
}
function writeRecording() {
  if (recording === null || recording.dir === null) return;
  const file = (0, import_node_path2.join)(recording.dir, `${process.pid}-${recording.run}.json`);
  (0, import_node_fs3.writeFileSync)(`${file}.tmp`, recording.recorder.dump());
  (0, import_node_fs3.renameSync)(`${file}.tmp`, file);
}
var AdapterRuntime = class {
  world = new DeterministicWorld();
  run = null;
  greeted = false;
  factory = null;
  /** Set by the first `state` request: from then on origins are state digests, not histories. */
  trackOrigins = false;
  /** The digest answered last, while nothing has happened since. */
  lastDigest = null;
  deltaPrefix;
  /** Errors raised outside any request (reported with the next answer). */
  strayErrors = [];
  /**
   * The first run, made when `hello` is answered (to learn which extensions the mapping
   * speaks), with its `reset` answer: the first `reset` hands it out instead of making
   * another store. Nothing runs between the two (the clock is fake, every microtask ran),
   * so the answer is the one that `reset` would give.
   */
  prepared = null;
  options;
  constructor(options) {
    this.options = { ...options };
    this.deltaPrefix = options.deltaPrefix ?? "";
    this.world.origin = () => this.run === null ? BOOT : this.run.origin;
  }
  get network() {
    return this.options.network ?? null;
  }
  /**
   * Take a mapping's options (`defineAdapter(factory, options)`), after its module was
   * evaluated and before the first store is made: the name, the virtual clock, and the
   * network (whose fetch and WebSocket are installed now).
   */
  async configure(options, name) {
    if (name !== void 0) this.options.name = name;
    if (options.translateIds === false) this.options.translateIds = false;
    if (options.clock !== void 0) this.options.clock = checkClock(options.clock);
    if (options.world !== void 0) this.options.world = normaliseWorld(options.world);
    if (options.network !== void 0 && this.options.network == null) {
      if (sharedNetwork === null) {
        const { Network: Network2 } = await Promise.resolve().then(() => (init_network(), network_exports));
        const network = new Network2(options.network, () => activeRuntime?.run ?? null);
        await network.install();
        if (process.env.RECONCILE_SIM_RECORD === "1") {
          const { record: record2 } = await Promise.resolve().then(() => (init_record(), record_exports));
          recording = {
            recorder: record2(options.network, { name: options.name ?? this.options.name, private: process.env.RECONCILE_SIM_RECORD_PRIVATE !== "0" }),
            dir: process.env.RECONCILE_SIM_RECORD_DIR || null,
            run: 0
          };
        }
        sharedNetwork = network;
      }
      this.options.network = sharedNetwork;
    }
  }
  /** The clock's choice as the `hello` answer states it. */
  clockSetting() {
    const clock = this.options.clock ?? {};
    if (clock.timers === "all") return "every pending timer runs after each input";
    return `timers run when due; the clock moves ${clock.stepMs ?? 0} ms per input`;
  }
  /** Install the deterministic globals and the error hooks. Call before loading the user's modules. */
  install() {
    activeRuntime = this;
    this.world.install();
    if (hooked) return;
    hooked = true;
    process.on("unhandledRejection", (reason) => activeRuntime?.recordError(reason));
    process.on("uncaughtException", (error) => activeRuntime?.recordError(error));
  }
  /** Make this the runtime (and its world) that the process-wide hooks and globals reach. */
  activate() {
    activeRuntime = this;
    this.world.activate();
    replaceGlobals();
  }
  /**
   * No runtime answers now: the real globals are put back and errors are no store's, until
   * a runtime answers again. For a host that runs other code in the same process between
   * commands (a test runner, with the engine inside Node).
   */
  static leave() {
    activeRuntime = null;
    restoreGlobals();
  }
  recordError(e) {
    if (this.run !== null) this.run.errors.push(e);
    else this.strayErrors.push(e);
  }
  /**
   * Forget the store made ahead at `hello` (see `prepared`): the next `reset` tears it down
   * and makes a fresh one. Coverage (coverage.ts) asks for this, so that a run's
   * coverage, started before its `reset`, sees its store being made.
   */
  unprepare() {
    if (this.prepared === null) return;
    this.run = this.prepared.run;
    this.prepared = null;
  }
  /**
   * Load the mapping's factory again now (a fresh evaluation of the bundle), for the
   * stores of the next `reset`s: after coverage recompiled it (coverage.ts), so that they
   * run code V8 counts per block.
   */
  reload() {
    if (activeRuntime !== this) this.activate();
    this.factory = this.options.load();
  }
  /** The answer to one parsed request line. */
  respond(msg) {
    if (activeRuntime !== this) this.activate();
    if (msg === null || typeof msg !== "object") {
      return { type: "error", message: `request is not a JSON object: ${JSON.stringify(msg)}`, id: null };
    }
    const m = msg;
    const id = typeof m.id === "number" ? m.id : null;
    const fail = (message) => ({ type: "error", message, id });
    if (m.type === "hello") {
      if (m.protocol !== PROTOCOL) return fail(`unsupported protocol ${JSON.stringify(m.protocol)}; this adapter speaks ${PROTOCOL}`);
      this.greeted = true;
      return this.hello(id);
    }
    if (!this.greeted) return fail(`expected hello first, got ${JSON.stringify(m.type)}`);
    switch (m.type) {
      case "reset":
        return recording?.dir ? this.reset(id).then(written) : this.reset(id);
      case "input":
        if (this.run === null || this.run.mapping === null) return fail("input before reset");
        if (m.input === null || typeof m.input !== "object") return fail("input without an input object");
        return recording?.dir ? this.input(this.run, m.input, id).then(written) : this.input(this.run, m.input, id);
      case "state":
        return this.state(id);
      default:
        return fail(`unknown request type ${JSON.stringify(m.type)}`);
    }
  }
  /**
   * The handshake. The extensions (docs/protocol.md, "Extensions") are announced for what
   * the mapping does, which only a store shows: so the first run's store is made now (see
   * `prepared`). `boot`: its `reset` answer carries effects (a `boot()` hook, or a factory
   * that fetches at once), which a harness routes only when announced. `state`: it has
   * `snapshot()`. A mapping that fails to make a store announces nothing; the first `reset`
   * reports why.
   */
  async hello(id) {
    this.prepared = null;
    const answer = await this.reset(null);
    const run = this.run;
    this.run = null;
    this.prepared = { run, answer };
    const features = [];
    if (answer.type === "reset" && (run.mapping?.boot !== void 0 || (answer.effects?.length ?? 0) > 0)) features.push("boot");
    if (answer.type === "reset" && run.mapping?.snapshot !== void 0) features.push("state");
    const clock = this.clockSetting();
    const world = this.options.world ?? [];
    return {
      type: "hello",
      protocol: PROTOCOL,
      name: this.options.name,
      ...features.length > 0 ? { features } : {},
      clock,
      ...world.length > 0 ? { world } : {},
      id
    };
  }
  async reset(id) {
    const prepared = this.prepared;
    this.prepared = null;
    if (prepared !== null && this.strayErrors.length === 0) {
      this.run = prepared.run;
      return { ...prepared.answer, id };
    }
    const ended = await this.teardown();
    if (ended !== null) return { type: "error", message: ended, id };
    this.lastDigest = null;
    this.world.reset();
    if (recording !== null) {
      recording.recorder.clear();
      recording.run++;
    }
    const run = new Run(this, this.options.args ?? []);
    this.run = run;
    run.errors.push(...this.strayErrors.splice(0));
    try {
      if (this.factory === null || this.options.freshModule) this.factory = this.options.load();
      const made = this.factory(run.harness);
      run.mapping = isThenable(made) ? await made : made;
      checkMapping(run.mapping, this.network?.hasSocket ?? false);
      const booted = run.mapping.boot !== void 0;
      if (booted) run.call(run.mapping.boot());
      await this.settle(run);
      if (run.errors.length > 0) return this.crash(run, id);
      if (!booted && run.effects.length === 0) return { type: "reset", id };
      return { type: "reset", effects: run.effects, render: this.render(run), id };
    } catch (e) {
      run.mapping = null;
      return { type: "error", message: describe(e), id };
    }
  }
  /**
   * End the current run, as a page going away ends a tab: its mapping's `teardown()`
   * (clearing a store kept in a module singleton, unsubscribing from a shared client),
   * then the server closes each of the run's socket connections (1001, going away), so a
   * socket client kept in a module singleton sees its connection close and the next
   * store's `connect()` opens a new one in the new run. What that causes runs to the end
   * while the run is still current. Returns why `teardown()` failed, if it did: the next
   * store cannot be trusted to start fresh, so the reset is answered with that error.
   */
  async teardown() {
    const run = this.run;
    this.run = null;
    if (run === null || run.mapping === null || run.mapping.teardown === void 0 && run.sockets.size === 0) return null;
    this.run = run;
    run.effects = [];
    try {
      if (run.mapping.teardown !== void 0) run.call(run.mapping.teardown());
      await this.settle(run);
      for (const client of [...run.sockets]) client.close(1001, "reconcile-sim: the run ended");
      await this.settle(run);
    } catch (e) {
      run.errors.push(e);
    }
    this.run = null;
    if (run.errors.length === 0) return null;
    return `the previous run's teardown() failed, so this store may not start fresh:
${run.errors.map(describe).join("\n--- and then:\n")}`;
  }
  async input(run, input, id) {
    run.effects = [];
    try {
      this.beginInput(run, input);
      this.route(run, run.mapping, input);
      await this.settle(run);
      if (run.errors.length > 0) return this.crash(run, id);
      return { type: "output", effects: run.effects, render: this.render(run), id };
    } catch (e) {
      return { type: "error", message: describe(e), id };
    }
  }
  beginInput(run, input) {
    run.history.push(input);
    const clock = this.options.clock;
    if (clock?.timers !== "all" && clock?.stepMs) this.world.now += clock.stepMs;
    if (this.trackOrigins) {
      const before = this.lastDigest ?? this.digest(run);
      run.origin = `d:${sha256(`${before}
${canonicalJson(input)}`)}`;
    } else {
      run.origin = `h:${run.history.length}`;
    }
    this.lastDigest = null;
  }
  route(run, mapping, input) {
    switch (input.input) {
      case "user-send":
        recording?.recorder.send(input.text);
        run.pendingSends.push({ messageId: input.message_id, text: input.text });
        run.call(mapping.send(input.text, input.message_id));
        return;
      case "scroll":
        recording?.recorder.scroll(input.at_bottom);
        run.call(mapping.scroll(input.at_bottom));
        return;
      case "event": {
        const event = run.appEvent(input.event, this.deltaPrefix);
        if (mapping.event !== void 0) run.call(mapping.event(event, input.event));
        else this.network.deliver(run, event);
        return;
      }
      case "post-response": {
        const id = input.message_id;
        const pending = id === void 0 ? void 0 : run.posts.get(id);
        if (id !== void 0 && pending !== void 0) {
          run.posts.delete(id);
          pending.resolve(input.response);
        } else if (id === void 0 && input.server_id !== void 0 && run.resolveWithoutId(input.server_id, input.response)) {
        } else if (mapping.input !== void 0) {
          run.call(mapping.input(input));
        }
        return;
      }
      case "fetch-response": {
        const pending = run.fetches.get(input.request_id);
        if (pending !== void 0) {
          run.fetches.delete(input.request_id);
          pending.resolve(run.appFetch(input));
        } else if (mapping.input !== void 0) {
          run.call(mapping.input(input));
        }
        return;
      }
      default:
        if (mapping.input !== void 0) run.call(mapping.input(input));
        else throw new Error(`unknown input ${JSON.stringify(input.input)}`);
    }
  }
  /**
   * Let everything the request caused run: microtasks, then each fake timer that is due
   * (with `timers: "all"`, each pending one), in due order.
   */
  async settle(run) {
    const flush = run.mapping?.flush;
    const all = this.options.clock?.timers === "all";
    for (let timers = 0; ; timers++) {
      await drain();
      if (flush !== void 0) {
        flush.call(run.mapping);
        await drain();
      }
      if (all ? this.world.pendingTimers === 0 : !this.world.hasDueTimer()) return;
      if (timers >= MAX_TIMER_RUNS) {
        throw new Error(`timers kept firing: ${MAX_TIMER_RUNS} timer callbacks in one input (an interval that never stops?)`);
      }
      try {
        this.world.runNextTimer();
      } catch (e) {
        run.errors.push(e);
      }
    }
  }
  render(run) {
    const rows = run.mapping.render();
    const problem = renderProblem(rows);
    if (problem !== void 0) throw new Error(problem);
    return this.options.translateIds === false ? rows : run.translate(rows);
  }
  crash(run, id) {
    const message = run.errors.map(describe).join("\n--- and then:\n");
    run.errors = [];
    return { type: "error", message, id };
  }
  state(id) {
    const run = this.run;
    if (run === null || run.mapping === null) return { type: "error", message: "state before reset", id };
    if (run.mapping.snapshot === void 0) {
      return { type: "error", message: "state digests are not supported: the mapping has no snapshot()", id };
    }
    try {
      this.trackOrigins = true;
      const digest = this.lastDigest ?? this.digest(run);
      this.lastDigest = digest;
      return { type: "state", digest, id };
    } catch (e) {
      return { type: "error", message: describe(e), id };
    }
  }
  /**
   * The digest of everything that decides the run's future: the store's snapshot, and the
   * adapter's own state. A pending promise (or timer) resumes code whose local variables the
   * snapshot cannot see, so each carries its origin: the digest of the state before the
   * input that created it plus that input (or, before the harness first asked for a digest,
   * the whole input history up to it). Equal digests therefore mean equal futures.
   */
  digest(run) {
    const origin = (o) => o.startsWith("h:") ? sha256(run.history.slice(0, Number(o.slice(2))).map(canonicalJson).join("\n")) : o;
    const w = this.world;
    const adapter = {
      sends: run.pendingSends.map((s) => [s.messageId, s.text]),
      ids: [...run.byHarness].sort((a, b) => a[0] - b[0]),
      posts: [...run.posts].sort((a, b) => a[0] - b[0]).map(([n, p]) => [n, origin(p.origin)]),
      fetches: [...run.fetches].sort((a, b) => a[0] - b[0]).map(([n, p]) => [n, origin(p.origin)]),
      nextRequest: run.nextRequest,
      // What the codec's hooks read of the run (RunContext): the params and socket seen so far.
      params: Object.entries(run.context.params).sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0),
      socket: run.socketUrl?.href ?? null,
      uuids: w.uuids,
      rng: w.rng,
      clock: w.now - EPOCH,
      timers: w.timerState().map((t) => {
        const [due, interval, o] = t;
        return [due, interval, origin(o)];
      })
    };
    return sha256(canonicalJson({ store: run.mapping.snapshot(), adapter }));
  }
};
function checkMapping(m, socket) {
  if (m === null || typeof m !== "object") throw new Error("the mapping's factory must return an object of hooks");
  for (const hook of ["send", "scroll", "render"]) {
    if (typeof m[hook] !== "function") throw new Error(`the mapping has no ${hook}() hook`);
  }
  if (typeof m.event !== "function" && !socket) {
    throw new Error("the mapping has no event() hook (and declares no network.socket to send events to)");
  }
}
function checkClock(clock) {
  const step = clock.stepMs ?? 0;
  if (typeof step !== "number" || !Number.isFinite(step) || step < 0) {
    throw new Error(`clock.stepMs must be a number of milliseconds >= 0, got ${JSON.stringify(clock.stepMs)}`);
  }
  if (clock.timers !== void 0 && clock.timers !== "due" && clock.timers !== "all") {
    throw new Error(`clock.timers must be "due" or "all", got ${JSON.stringify(clock.timers)}`);
  }
  return clock;
}

// src/host.ts
var Host = class _Host {
  constructor(bundle2, compiled, options) {
    this.bundle = bundle2;
    this.compiled = compiled;
    this.options = options;
  }
  bundle;
  compiled;
  options;
  /** Bundle the mapping (or take it from the cache). */
  static async load(options) {
    const b = await bundle(options.load);
    return new _Host(b, new CompiledBundle(b), options);
  }
  /**
   * A new adapter: its runtime, its deterministic globals installed (and made active)
   * before its copy of the app's modules is evaluated, and the mapping's options taken.
   */
  async open() {
    let first = null;
    const runtime = new AdapterRuntime({
      name: this.options.name ?? "",
      load: () => {
        const evaluated = first ?? this.compiled.evaluate();
        first = null;
        return boundFactory(evaluated);
      },
      freshModule: this.options.freshModule ?? false,
      args: this.options.args ?? [],
      deltaPrefix: this.options.deltaPrefix ?? ""
    });
    runtime.install();
    first = this.compiled.evaluate();
    const options = first.factory.options ?? {};
    await runtime.configure(options, this.options.name ?? options.name ?? `js:${(0, import_node_path3.basename)(this.options.load.map)}`);
    return runtime;
  }
  /**
   * The adapters are done for now: the process's real globals (timers, clock, random)
   * are back, and errors belong to no store. Any adapter's next answer puts its world back.
   */
  leave() {
    AdapterRuntime.leave();
  }
};

// src/serve.ts
var import_node_fs4 = require("node:fs");
function redirectConsole() {
  Object.defineProperty(process, "stdout", { get: () => process.stderr, configurable: true, enumerable: true });
}
function sleepMs(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
function writeAll(text) {
  let written2 = 0;
  try {
    written2 = (0, import_node_fs4.writeSync)(1, text);
  } catch (e) {
    if (e.code !== "EAGAIN") throw e;
  }
  const data = Buffer.from(text, "utf8");
  if (written2 === data.length) return;
  let off = written2;
  while (off < data.length) {
    try {
      off += (0, import_node_fs4.writeSync)(1, data, off, data.length - off);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
      sleepMs(1);
    }
  }
}
var isPromise = (x) => x instanceof Promise;
async function serveStdio(respond) {
  const buf = Buffer.allocUnsafe(1 << 16);
  let rest = null;
  for (; ; ) {
    let n;
    try {
      n = (0, import_node_fs4.readSync)(0, buf, 0, buf.length, null);
    } catch (e) {
      const code = e.code;
      if (code === "EAGAIN") {
        sleepMs(1);
        continue;
      }
      if (code === "EOF") return;
      throw e;
    }
    if (n === 0) return;
    const last = buf.lastIndexOf(10, n - 1);
    if (last === -1) {
      rest = rest === null ? Buffer.from(buf.subarray(0, n)) : Buffer.concat([rest, buf.subarray(0, n)]);
      continue;
    }
    const text = rest === null ? buf.toString("utf8", 0, last + 1) : Buffer.concat([rest, buf.subarray(0, last + 1)]).toString("utf8");
    rest = last + 1 < n ? Buffer.from(buf.subarray(last + 1, n)) : null;
    let out = "";
    let start = 0;
    let nl;
    while ((nl = text.indexOf("\n", start)) !== -1) {
      const line = text.slice(start, nl);
      start = nl + 1;
      if (line.trim() === "") continue;
      let msg;
      try {
        msg = JSON.parse(line);
      } catch (e) {
        out += JSON.stringify({ type: "error", message: `request is not JSON: ${e.message}`, id: null }) + "\n";
        continue;
      }
      const a = respond(msg);
      const answer = isPromise(a) ? await a : a;
      out += JSON.stringify(answer) + "\n";
    }
    if (out !== "") writeAll(out);
  }
}

// src/cli.ts
var realNow = performance.now.bind(performance);
function withFeature(answer, feature) {
  const add = (a) => {
    if (a.type !== "hello") return a;
    return { ...a, features: [...a.features ?? [], feature] };
  };
  return answer instanceof Promise ? answer.then(add) : add(answer);
}
var USAGE = `usage:
  reconcile-sim-adapter [serve] [--map] MAPPING.ts [options] [-- ARGS\u2026]
  reconcile-sim-adapter build   [--map] MAPPING.ts [options]

Serves the exec protocol on stdin/stdout with the store the mapping file makes. The
mapping and everything it imports are bundled once (TypeScript stripped, .svelte.ts
modules compiled with Svelte's client runtime, $lib from svelte.config.js) and cached
under node_modules/.cache/reconcile-sim-adapter/; \`build\` fills that cache and exits.

  reconcile-sim fuzz --store exec:'reconcile-sim-adapter adapter.ts' --seeds 1000

options:
  --map FILE        the mapping file (or the first positional argument)
  --store FILE      a store module handed to the mapping's factory as its second argument
  --root DIR        the project root (default: nearest package.json above the mapping)
  --name NAME       the name in the hello answer (default: the mapping's, else js:<file>)
  --fresh-module    re-evaluate every user module on each reset (module-level singletons)
  --no-cache        rebuild the bundle even if the cached one is current
  --delta-prefix S  prepend S to every text-delta (compat for whitespace-splitting oracles;
                    also $RECONCILE_SIM_ADAPTER_DELTA_PREFIX)
  --timing          print the start-up time to stderr (also $RECONCILE_SIM_ADAPTER_TIMING=1)
  (env) RECONCILE_SIM_ADAPTER_STATS=PREFIX  write "requests cpu-ms wall-ms" to PREFIX.<pid> (every 500 requests)
  -- ARGS\u2026          passed to the mapping as harness.args
`;
function parse(argv) {
  const cli = {
    command: "serve",
    load: { map: "" },
    fresh: false,
    deltaPrefix: process.env.RECONCILE_SIM_ADAPTER_DELTA_PREFIX ?? "",
    timing: process.env.RECONCILE_SIM_ADAPTER_TIMING === "1",
    args: []
  };
  const rest = [...argv];
  if (rest[0] === "serve" || rest[0] === "build") cli.command = rest.shift();
  const value = (flag) => {
    const v = rest.shift();
    if (v === void 0) usage(`${flag} needs a value`);
    return v;
  };
  while (rest.length > 0) {
    const a = rest.shift();
    if (a === "--") {
      cli.args = rest.splice(0);
    } else if (a === "--map") cli.load.map = value(a);
    else if (a === "--store") cli.load.store = value(a);
    else if (a === "--root") cli.load.root = value(a);
    else if (a === "--name") cli.name = value(a);
    else if (a === "--fresh-module") cli.fresh = true;
    else if (a === "--no-cache") cli.load.noCache = true;
    else if (a === "--delta-prefix") cli.deltaPrefix = value(a);
    else if (a === "--timing") cli.timing = true;
    else if (a === "-h" || a === "--help") {
      process.stderr.write(USAGE);
      process.exit(0);
    } else if (a === "--version") {
      const pkg = JSON.parse((0, import_node_fs5.readFileSync)(new URL("../package.json", __importMetaUrl), "utf8"));
      process.stderr.write(`${pkg.version}
`);
      process.exit(0);
    } else if (!a.startsWith("-") && cli.load.map === "") cli.load.map = a;
    else usage(`unknown argument ${JSON.stringify(a)}`);
  }
  if (cli.load.map === "") usage("no mapping file");
  return cli;
}
function usage(problem) {
  process.stderr.write(`reconcile-sim-adapter: ${problem}

${USAGE}`);
  process.exit(2);
}
async function main() {
  const cli = parse(process.argv.slice(2));
  redirectConsole();
  const host = await Host.load({ load: cli.load, name: cli.name, freshModule: cli.fresh, args: cli.args, deltaPrefix: cli.deltaPrefix });
  const b = host.bundle;
  const compiled = host.compiled;
  const runtime = await host.open();
  if (cli.command === "build") {
    await runtime.respond({ type: "hello", protocol: 1, id: 1 });
    const answer = await runtime.respond({ type: "reset", id: 2 });
    if (answer.type === "error") throw new Error(`the mapping failed to make a store:
${answer.message}`);
    compiled.saveCodeCache(true);
    process.stderr.write(`${b.cached ? "cached" : "built"} ${b.file} (${b.code.length} bytes${b.inputs >= 0 ? `, ${b.inputs} inputs` : ""}) in ${b.ms.toFixed(0)} ms
`);
    process.exit(0);
  }
  if (cli.timing) {
    process.stderr.write(`reconcile-sim-adapter: ready in ${realNow().toFixed(1)} ms since process start (bundle ${b.cached ? "cached" : "built"}, ${b.ms.toFixed(1)} ms)
`);
  }
  let answered = 0;
  const stats = process.env.RECONCILE_SIM_ADAPTER_STATS ? `${process.env.RECONCILE_SIM_ADAPTER_STATS}.${process.pid}` : null;
  const writeStats = () => {
    const cpu = process.cpuUsage();
    (0, import_node_fs5.writeFileSync)(stats, `${answered} ${((cpu.user + cpu.system) / 1e3).toFixed(0)} ${realNow().toFixed(0)}
`);
  };
  if (stats !== null) process.on("exit", writeStats);
  const coverage = Coverage.load(b.file, b.code, WRAPPER.length, () => {
    compiled.recompileForCoverage();
    runtime.reload();
  });
  await serveStdio((msg) => {
    if (stats !== null && answered % 500 === 0) writeStats();
    const m = msg;
    if (coverage !== null && m !== null && typeof m === "object" && m.type === "coverage") {
      answered++;
      const id = typeof m.id === "number" ? m.id : null;
      runtime.unprepare();
      return coverage.take().then(
        (c) => ({ type: "coverage", root: c.root, files: c.files, id }),
        (e) => ({ type: "error", message: `coverage: ${e.message}`, id })
      );
    }
    let answer = runtime.respond(msg);
    if (coverage !== null && m !== null && typeof m === "object" && m.type === "hello") answer = withFeature(answer, "coverage");
    if (++answered === 3 && compiled.codeCacheRejected) compiled.saveCodeCache();
    return answer;
  });
  process.exit(0);
}
main().catch((e) => {
  process.stderr.write(`reconcile-sim-adapter: ${e?.stack ?? String(e)}
`);
  process.exit(1);
});
