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
const EVENT_TYPES = ["turn-start", "text-delta", "tool-call", "tool-result", "message-queued", "message-consumed", "status", "turn-sealed"];
export function record(network, options = {}) {
    const limit = Math.max(1, options.limit ?? 5000);
    const isPrivate = options.private ?? true;
    const origin = new URL(network.origin ?? globalThis.location?.href ?? "http://localhost");
    const codec = network.codec ?? {};
    const fields = codec.fields ?? {};
    const field = (name) => fields[name] ?? name;
    const eventNames = new Map();
    for (const t of EVENT_TYPES)
        eventNames.set(codec.eventNames?.[t] ?? t, t);
    const routes = Object.entries(network.routes ?? {}).flatMap(([key, route]) => {
        const m = /^\s*([A-Za-z]+)\s+(\S+)\s*$/.exec(key);
        return m === null || typeof route !== "string" ? [] : [{ method: m[1].toUpperCase(), segments: m[2].split("?")[0].split("/").filter((s) => s !== ""), route }];
    });
    const sockets = (network.socket === undefined ? [] : Array.isArray(network.socket) ? network.socket : [network.socket]).map((s) => new URL(s, origin));
    let t0 = Date.now();
    const entries = [];
    let dropped = 0;
    let nextRequest = 1;
    const placeholders = new Map();
    const text = (t) => {
        if (typeof t !== "string")
            return undefined;
        if (!isPrivate)
            return t;
        let p = placeholders.get(t);
        if (p === undefined) {
            p = `<text#${placeholders.size + 1}>`;
            placeholders.set(t, p);
        }
        return p;
    };
    const id = (v) => (typeof v === "string" || typeof v === "number" ? v : undefined);
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
        const type = eventNames.get(String(frame[field("type")]));
        if (type === undefined)
            return undefined;
        const turn = id(frame[field("turnId")]);
        const e = { type };
        if (type === "status")
            e.status = frame[field("status")];
        else if (type === "message-queued") {
            e.message = id(frame[field("messageId")]);
            if (frame[field("text")] !== undefined)
                e.text = text(frame[field("text")]);
        }
        else if (type === "message-consumed") {
            e.messages = (frame[field("messageIds")] ?? []).map(id);
            if (frame[field("reason")] !== undefined)
                e.reason = frame[field("reason")];
        }
        else {
            if (turn !== undefined)
                e.turn = turn;
            if (type === "tool-call" || type === "tool-result")
                e.call = Number(frame[field("call")] ?? 0);
            if (type !== "turn-start" && type !== "turn-sealed")
                e.text = text(frame[field("text")]);
        }
        return e;
    };
    const decodeRows = (body) => {
        const rows = Array.isArray(body) ? body : Object.values((body ?? {})).find(Array.isArray) ?? [];
        return rows.map((r) => {
            if (codec.unchunk !== undefined) {
                const c = codec.unchunk(r);
                return { seq: c.seq, turn: id(c.turnId), role: c.role, messages: (c.messageIds ?? []).map(id), text: text(c.text) };
            }
            const row = r;
            const messages = (row[field("messageIds")] ?? row.clientMessageIds ?? []);
            return { seq: Number(row[field("seq")] ?? 0), turn: id(row[field("turnId")]), role: row[field("role")], messages: messages.map(id), text: text(row[field("text")]) };
        });
    };
    const g = globalThis;
    const pageFetch = g.fetch;
    const PageWebSocket = g.WebSocket;
    g.fetch = async (input, init) => {
        const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url, origin);
        const method = (init?.method ?? (typeof input === "object" && "method" in input ? input.method : "GET")).toUpperCase();
        const route = routeOf(method, url);
        if (route === undefined)
            return pageFetch(input, init);
        const request = nextRequest++;
        const entry = { kind: "request", id: request, route, method, path: url.pathname };
        if (route === "post" && typeof init?.body === "string") {
            const body = JSON.parse(init.body);
            const message = id(body.id ?? body.messageId ?? body.clientMessageId ?? body.clientId);
            if (message !== undefined)
                entry.message = message;
            entry.text = text(body.text ?? body.content);
        }
        push(entry);
        const response = await pageFetch(input, init);
        const body = (await response.clone().json().catch(() => undefined));
        if (route === "fetch")
            push({ kind: "response", request, fetch: { rows: decodeRows(body) } });
        else {
            const status = String(body?.status ?? body?.outcome ?? "");
            push({ kind: "response", request, post: { outcome: status === "queued" ? "queued" : "started", ...(id(body?.turnId) === undefined ? {} : { turn: id(body?.turnId) }) } });
        }
        return response;
    };
    class RecordedWebSocket extends PageWebSocket {
        constructor(url, protocols) {
            super(url, protocols);
            const u = new URL(String(url), origin);
            if (!sockets.some((s) => s.host === u.host && s.pathname === u.pathname))
                return;
            this.addEventListener("message", (m) => {
                let frame;
                try {
                    frame = JSON.parse(String(m.data));
                }
                catch {
                    return;
                }
                const event = decodeEvent(frame);
                if (event !== undefined)
                    push({ kind: "frame", event });
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
