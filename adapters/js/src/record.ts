// The recorder (`reconcile-sim-adapter/record`): what one tab of the real app went
// through, kept in a bounded ring buffer and dumped as a reconcile-sim log
// (docs/record.md, docs/log.schema.json) that `reconcile-sim import` turns into a scenario.
//
// Installed over the page's own `fetch` and `WebSocket` (the same layer the harness
// routes), with the mapping's network options: requests on the declared routes, frames on
// the declared socket, decoded with the codec's names and fields (the inverse of what the
// harness encodes), and the user actions the app reports (`send`, `scroll`). Private by
// default: every text (message texts, deltas, row texts) becomes a stable placeholder
// (`<text#3>`: the same text the same placeholder within one log), and fields the codec
// does not read are left out; `{ private: false }` keeps the texts.

import type { NetworkOptions } from "./network.js";

export interface RecorderOptions {
  /** Entries kept (oldest dropped first; the dump says how many). Default 5000. */
  limit?: number;
  /** Keep texts as they are (default: replaced by placeholders). */
  private?: boolean;
  /** The mapping's name, written into the log. */
  name?: string;
}

type Entry = Record<string, unknown>;

const EVENT_TYPES = ["turn-start", "text-delta", "tool-call", "tool-result", "message-queued", "message-consumed", "status", "turn-sealed"] as const;

export interface Recorder {
  /** The user sent a message (call it where the app's send is). */
  send(text: string): void;
  /** The user scrolled (`atBottom: false`: up). */
  scroll(atBottom: boolean): void;
  /** The log so far, as JSON text (`reconcile-sim import LOG.json`). */
  dump(): string;
  /** Forget every entry kept (a new page: the adapter calls it when a run starts). */
  clear(): void;
  /** Put the page's `fetch` and `WebSocket` back. */
  uninstall(): void;
}

export function record(network: NetworkOptions, options: RecorderOptions = {}): Recorder {
  const limit = Math.max(1, options.limit ?? 5000);
  const isPrivate = options.private ?? true;
  const origin = new URL(network.origin ?? (globalThis as { location?: { href: string } }).location?.href ?? "http://localhost");
  const codec = network.codec ?? {};
  const fields = codec.fields ?? {};
  const field = (name: string) => fields[name] ?? name;
  const eventNames = new Map<string, string>();
  for (const t of EVENT_TYPES) eventNames.set((codec.eventNames as Record<string, string> | undefined)?.[t] ?? t, t);
  const routes = Object.entries(network.routes ?? {}).flatMap(([key, route]) => {
    const m = /^\s*([A-Za-z]+)\s+(\S+)\s*$/.exec(key);
    return m === null || typeof route !== "string" ? [] : [{ method: m[1]!.toUpperCase(), segments: m[2]!.split("?")[0]!.split("/").filter((s) => s !== ""), route }];
  });
  const sockets = (network.socket === undefined ? [] : Array.isArray(network.socket) ? network.socket : [network.socket]).map((s) => new URL(s, origin));
  let t0 = Date.now();
  const entries: Entry[] = [];
  let dropped = 0;
  let nextRequest = 1;
  const placeholders = new Map<string, string>();
  const text = (t: unknown): string | undefined => {
    if (typeof t !== "string") return undefined;
    if (!isPrivate) return t;
    let p = placeholders.get(t);
    if (p === undefined) {
      p = `<text#${placeholders.size + 1}>`;
      placeholders.set(t, p);
    }
    return p;
  };
  const id = (v: unknown): string | number | undefined => (typeof v === "string" || typeof v === "number" ? v : undefined);
  const push = (e: Entry) => {
    entries.push({ at_ms: Date.now() - t0, ...e });
    if (entries.length > limit) {
      entries.shift();
      dropped++;
    }
  };
  const routeOf = (method: string, url: URL) => {
    const parts = url.pathname.split("/").filter((s) => s !== "");
    return routes.find((r) => r.method === method && r.segments.length === parts.length && r.segments.every((s, i) => s.startsWith(":") || s === parts[i]))?.route;
  };
  const decodeEvent = (frame: Record<string, unknown>): Entry | undefined => {
    const type = eventNames.get(String(frame[field("type")]));
    if (type === undefined) return undefined;
    const turn = id(frame[field("turnId")]);
    const e: Entry = { type };
    if (type === "status") e.status = frame[field("status")];
    else if (type === "message-queued") {
      e.message = id(frame[field("messageId")]);
      if (frame[field("text")] !== undefined) e.text = text(frame[field("text")]);
    } else if (type === "message-consumed") {
      e.messages = ((frame[field("messageIds")] as unknown[]) ?? []).map(id);
      if (frame[field("reason")] !== undefined) e.reason = frame[field("reason")];
    } else {
      if (turn !== undefined) e.turn = turn;
      if (type === "tool-call" || type === "tool-result") e.call = Number(frame[field("call")] ?? 0);
      if (type !== "turn-start" && type !== "turn-sealed") e.text = text(frame[field("text")]);
    }
    return e;
  };
  const decodeRows = (body: unknown): Entry[] => {
    const rows = Array.isArray(body) ? body : (Object.values((body ?? {}) as object).find(Array.isArray) as unknown[] | undefined) ?? [];
    return rows.map((r) => {
      if (codec.unchunk !== undefined) {
        const c = codec.unchunk(r);
        return { seq: c.seq, turn: id(c.turnId), role: c.role, messages: (c.messageIds ?? []).map(id), text: text(c.text) };
      }
      const row = r as Record<string, unknown>;
      const messages = (row[field("messageIds")] ?? row.clientMessageIds ?? []) as unknown[];
      return { seq: Number(row[field("seq")] ?? 0), turn: id(row[field("turnId")]), role: row[field("role")], messages: messages.map(id), text: text(row[field("text")]) };
    });
  };

  const g = globalThis as Record<string, unknown>;
  const pageFetch = g.fetch as typeof fetch;
  const PageWebSocket = g.WebSocket as typeof WebSocket;
  g.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url, origin);
    const method = (init?.method ?? (typeof input === "object" && "method" in input ? input.method : "GET")).toUpperCase();
    const route = routeOf(method, url);
    if (route === undefined) return pageFetch(input, init);
    const request = nextRequest++;
    const entry: Entry = { kind: "request", id: request, route, method, path: url.pathname };
    if (route === "post" && typeof init?.body === "string") {
      const body = JSON.parse(init.body) as Record<string, unknown>;
      const message = id(body.id ?? body.messageId ?? body.clientMessageId ?? body.clientId);
      if (message !== undefined) entry.message = message;
      entry.text = text(body.text ?? body.content);
    }
    push(entry);
    const response = await pageFetch(input, init);
    const body = (await response.clone().json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (route === "fetch") push({ kind: "response", request, fetch: { rows: decodeRows(body) } });
    else {
      const status = String(body?.status ?? body?.outcome ?? "");
      push({ kind: "response", request, post: { outcome: status === "queued" ? "queued" : "started", ...(id(body?.turnId) === undefined ? {} : { turn: id(body?.turnId) }) } });
    }
    return response;
  };
  class RecordedWebSocket extends (PageWebSocket as unknown as { new (url: string | URL, protocols?: string | string[]): WebSocket }) {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      const u = new URL(String(url), origin);
      if (!sockets.some((s) => s.host === u.host && s.pathname === u.pathname)) return;
      this.addEventListener("message", (m: MessageEvent) => {
        let frame: Record<string, unknown>;
        try {
          frame = JSON.parse(String(m.data)) as Record<string, unknown>;
        } catch {
          return;
        }
        const event = decodeEvent(frame);
        if (event !== undefined) push({ kind: "frame", event });
      });
    }
  }
  Object.defineProperty(g, "WebSocket", { value: RecordedWebSocket, configurable: true, writable: true });

  return {
    send: (t) => push({ kind: "send", text: text(t) }),
    scroll: (atBottom) => push({ kind: "scroll", at_bottom: atBottom }),
    dump: () =>
      JSON.stringify({
        format: "reconcile-sim-log",
        version: 1,
        recorder: "reconcile-sim-adapter/record",
        ...(options.name === undefined ? {} : { store_name: options.name }),
        private: isPrivate,
        limit,
        dropped,
        entries,
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
    },
  };
}
