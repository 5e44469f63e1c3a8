// The store's `WebSocket`, connected to the harness: the class a store's `new WebSocket(url)`
// makes while a mapping declares a network. The harness is the server: each event reaches
// every open connection of the run as one text frame; what the store sends is dropped (the
// backend here answers through events, not through the socket); a run ending closes its
// connections from the server's side (1001).
//
// Written for this package instead of @mswjs/interceptors' WebSocket class, whose
// per-connection objects (transport, client and server connections, abort controllers,
// decorated events) cost more than the rest of a store's reset did (docs/benchmarks.md,
// "The interception path"). The behaviour is the browser's where a store can see it:
// `readyState` CONNECTING until a microtask opens it ("open"), frames as `MessageEvent`s,
// `close()` validated as the standard says (a code of 1000 or 3000-4999, a reason of at
// most 123 bytes) and answered with a clean `CloseEvent` (code 1000 when none was given,
// as the interceptor did), `send()` while CONNECTING an InvalidStateError, a URL that is
// not ws(s) (after http(s) → ws(s)) a SyntaxError, `on*` handler attributes and
// `addEventListener` alike. A connection the harness refuses (not the declared socket)
// fails as a refused one does: "error", then a `CloseEvent` 1006, not clean.

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

/** Node 20 has no global `CloseEvent`: the standard's shape. */
class CloseEventShim extends Event {
  readonly code: number;
  readonly reason: string;
  readonly wasClean: boolean;
  constructor(type: string, init: { code?: number; reason?: string; wasClean?: boolean } = {}) {
    super(type);
    this.code = init.code ?? 0;
    this.reason = init.reason ?? "";
    this.wasClean = init.wasClean ?? false;
  }
}

const CloseEventClass: typeof CloseEventShim =
  (globalThis as unknown as { CloseEvent?: typeof CloseEventShim }).CloseEvent ?? CloseEventShim;

/** The server's end of one connection: what the network and the runtime hold. */
export interface ServerEnd {
  readonly url: URL;
  /** A text frame to the store (dropped unless the connection is open). */
  send(data: string): void;
  /** Close from the server's side (what the store sees as its socket closing). */
  close(code?: number, reason?: string): void;
  /** Called once the connection is closed, from either side. */
  addEventListener(type: "close", listener: () => void): void;
}

/**
 * A `WebSocket` class whose connections `accept` takes (true) or refuses (false); relative
 * URLs resolve against `origin`.
 */
export function routedWebSocket(origin: URL, accept: (end: ServerEnd) => boolean): unknown {
  type Handler = ((this: unknown, event: Event) => unknown) | null;
  const EVENTS = ["open", "message", "error", "close"] as const;

  class WebSocket extends EventTarget {
    static readonly CONNECTING = CONNECTING;
    static readonly OPEN = OPEN;
    static readonly CLOSING = CLOSING;
    static readonly CLOSED = CLOSED;

    #url: URL;
    #readyState = CONNECTING;
    #handlers: Record<string, Handler> = {};
    #closedListeners: (() => void)[] = [];
    binaryType: "blob" | "arraybuffer" = "blob";

    constructor(url: string | URL, protocols?: string | string[]) {
      super();
      let u: URL;
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
      const end: ServerEnd = {
        url: u,
        send: (data) => {
          queueMicrotask(() => {
            if (ws.#readyState === OPEN) ws.dispatchEvent(new MessageEvent("message", { data, origin: u.origin }));
          });
        },
        close: (code = 1000, reason = "") => ws.#close(code, reason, true),
        addEventListener: (_type, listener) => {
          ws.#closedListeners.push(listener);
        },
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

    get url(): string {
      return this.#url.href;
    }
    get readyState(): number {
      return this.#readyState;
    }
    get protocol(): string {
      return "";
    }
    get extensions(): string {
      return "";
    }
    get bufferedAmount(): number {
      return 0;
    }

    send(data: unknown): void {
      if (this.#readyState === CONNECTING) {
        throw new DOMException("Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.", "InvalidStateError");
      }
      void data; // the harness takes nothing from the socket: its backend answers with events
    }

    close(code?: number, reason?: string): void {
      if (code !== undefined && code !== 1000 && (code < 3000 || code > 4999)) {
        throw new DOMException(`Failed to execute 'close' on 'WebSocket': The close code must be either 1000, or between 3000 and 4999. ${code} is neither.`, "InvalidAccessError");
      }
      if (reason !== undefined && new TextEncoder().encode(reason).length > 123) {
        throw new DOMException("Failed to execute 'close' on 'WebSocket': The close reason must not be greater than 123 UTF-8 bytes.", "SyntaxError");
      }
      this.#close(code ?? 1000, reason ?? "", true);
    }

    /** CLOSING now, CLOSED (and the close event) in a microtask, as a closing handshake ends. */
    #close(code: number, reason: string, wasClean: boolean): void {
      if (this.#readyState === CLOSING || this.#readyState === CLOSED) return;
      this.#readyState = CLOSING;
      queueMicrotask(() => {
        this.#readyState = CLOSED;
        for (const listener of this.#closedListeners.splice(0)) listener();
        this.dispatchEvent(new CloseEventClass("close", { code, reason, wasClean }));
      });
    }

    /** The `on<event>` attribute's listener, added at the first assignment (its place among listeners, as in a browser). */
    static {
      for (const type of EVENTS) {
        Object.defineProperty(WebSocket.prototype, `on${type}`, {
          configurable: true,
          enumerable: true,
          get(this: WebSocket) {
            return this.#handlers[type] ?? null;
          },
          set(this: WebSocket, handler: Handler) {
            const first = !(type in this.#handlers);
            this.#handlers[type] = typeof handler === "function" ? handler : null;
            if (first) {
              this.addEventListener(type, (event) => {
                const h = this.#handlers[type];
                if (typeof h === "function") h.call(this, event);
              });
            }
          },
        });
      }
      for (const [name, value] of Object.entries({ CONNECTING, OPEN, CLOSING, CLOSED })) {
        Object.defineProperty(WebSocket.prototype, name, { value, enumerable: true });
      }
    }
  }
  return WebSocket;
}
