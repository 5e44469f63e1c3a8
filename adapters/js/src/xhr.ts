// `XMLHttpRequest` for stores that still use it: Node has none, so the harness gives it one
// built on the global `fetch`, which the network's interceptor routes (network.ts). A
// request through it is answered exactly as the same `fetch` would be: a route's answer, or
// a network error (`onerror`, status 0) for a request no route handles, which also fails
// the run with a message naming it. Asynchronous requests only: a synchronous one would
// have to block the thread the harness answers on.

type Listener = (this: unknown, event: Event) => void;
type Fetch = (input: string, init: RequestInit) => Promise<Response>;

const STATES = { UNSENT: 0, OPENED: 1, HEADERS_RECEIVED: 2, LOADING: 3, DONE: 4 } as const;

/** An `XMLHttpRequest` class whose requests go through `fetch()` (read at each send). */
export function xmlHttpRequestOver(fetch: () => Fetch): unknown {
  return class XMLHttpRequest extends EventTarget {
    static readonly UNSENT = 0;
    static readonly OPENED = 1;
    static readonly HEADERS_RECEIVED = 2;
    static readonly LOADING = 3;
    static readonly DONE = 4;
    readonly UNSENT = 0;
    readonly OPENED = 1;
    readonly HEADERS_RECEIVED = 2;
    readonly LOADING = 3;
    readonly DONE = 4;

    readyState: number = STATES.UNSENT;
    status = 0;
    statusText = "";
    responseType: "" | "text" | "json" = "";
    responseText = "";
    response: unknown = "";
    responseURL = "";
    timeout = 0;
    withCredentials = false;
    onreadystatechange: Listener | null = null;
    onload: Listener | null = null;
    onerror: Listener | null = null;
    onloadend: Listener | null = null;
    onabort: Listener | null = null;
    private method = "GET";
    private url = "";
    private headers: Record<string, string> = {};
    private answer: Response | null = null;
    private aborted = false;

    open(method: string, url: string | URL, async = true): void {
      if (async === false) {
        throw new Error("reconcile-sim: a synchronous XMLHttpRequest cannot be answered (the harness answers on this thread); make it asynchronous");
      }
      this.method = method.toUpperCase();
      this.url = String(url);
      this.headers = {};
      this.aborted = false;
      this.change(STATES.OPENED);
    }

    setRequestHeader(name: string, value: string): void {
      this.headers[name] = value;
    }

    send(body?: string | null): void {
      if (this.readyState !== STATES.OPENED) throw new Error("reconcile-sim: XMLHttpRequest.send() before open()");
      const init: RequestInit = { method: this.method, headers: this.headers };
      if (body !== undefined && body !== null && this.method !== "GET" && this.method !== "HEAD") init.body = body;
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
          this.response = this.responseType === "json" ? (text === "" ? null : JSON.parse(text)) : text;
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
        },
      );
    }

    abort(): void {
      this.aborted = true;
      this.readyState = STATES.UNSENT;
      this.fire("abort");
    }

    getResponseHeader(name: string): string | null {
      return this.answer?.headers.get(name) ?? null;
    }

    getAllResponseHeaders(): string {
      if (this.answer === null) return "";
      let all = "";
      this.answer.headers.forEach((value, name) => (all += `${name}: ${value}\r\n`));
      return all;
    }

    private change(state: number): void {
      this.readyState = state;
      this.fire("readystatechange");
    }

    private fire(type: string): void {
      const event = new Event(type);
      const handler = (this as unknown as Record<string, Listener | null>)[`on${type}`];
      if (typeof handler === "function") handler.call(this, event);
      this.dispatchEvent(event);
    }
  };
}
