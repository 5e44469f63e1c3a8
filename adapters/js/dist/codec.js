// The app's wire format, declared once: how the harness's events, chunk rows, fetch and
// POST answers look on the app's own socket and REST routes. Every part is optional; the
// defaults are the usual camelCase shapes (`AppEvent`, `AppChunk`, `{messageId, status}`).
//
// The codec turns harness values (already in app shape: camelCase, message ids as the
// store's own strings) into what the app's code reads off the network, and reads back the
// little the harness needs from what the app sends (a POST's message id and text).
export function idCodec(spelling) {
    if (spelling === undefined || spelling === "number")
        return { encode: (n) => n, decode: (id) => decodeNumber(id) };
    if (spelling === "string")
        return { encode: (n) => String(n), decode: (id) => decodeNumber(id) };
    return spelling;
}
/** Turn ids spelled as strings, read once each (a render reads every row's on every answer). */
const DECODED = new Map();
function decodeNumber(id) {
    if (typeof id === "string") {
        const known = DECODED.get(id);
        if (known !== undefined)
            return known;
    }
    const n = typeof id === "number" ? id : typeof id === "string" && /^-?\d+$/.test(id) ? Number(id) : NaN;
    if (typeof id === "string" && Number.isFinite(n)) {
        if (DECODED.size >= 4096)
            DECODED.clear();
        DECODED.set(id, n);
    }
    if (!Number.isFinite(n))
        throw new Error(`cannot read a turn id from ${JSON.stringify(id)}: declare codec.ids with a decode()`);
    return n;
}
const ID_FIELDS = new Set(["turnId", "call"]);
/** The codec with its defaults filled in: what the network layer calls. */
export class Codec {
    c;
    ids;
    constructor(c = {}) {
        this.c = c;
        this.ids = idCodec(c.ids);
    }
    /** Rename fields and spell ids of one flat record. */
    shape(record) {
        const out = {};
        const fields = this.c.fields ?? {};
        for (const k of Object.keys(record)) {
            const v = record[k];
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
        const frame = this.c.event !== undefined ? this.c.event(shaped, ctx) : shaped;
        return typeof frame === "string" ? frame : JSON.stringify(frame);
    }
    /** The history GET's body. Tool rows get their call's number (a result answers the call before it). */
    history(response, ctx) {
        const calls = new Map();
        const chunks = response.chunks.map((chunk) => {
            const c = { ...chunk };
            if (chunk.role === "tool-call")
                calls.set(chunk.turnId, (calls.get(chunk.turnId) ?? 0) + 1);
            if (chunk.role === "tool-call" || chunk.role === "tool-result")
                c.call = calls.get(chunk.turnId) ?? 0;
            return this.c.chunk !== undefined ? this.c.chunk(c, this.ids, ctx) : this.shape(c);
        });
        const writtenTurns = response.writtenTurns.map((t) => this.ids.encode(t));
        const body = { requestId: response.requestId, snapshotSeq: response.snapshotSeq, chunks, writtenTurns };
        return this.c.history !== undefined ? this.c.history(body, ctx) : body;
    }
    postRequest(body, ctx) {
        if (this.c.postRequest !== undefined)
            return this.c.postRequest(body, ctx);
        const b = (body ?? {});
        const id = b.id ?? b.messageId ?? b.clientMessageId ?? b.clientId;
        const text = b.text ?? b.content ?? b.message;
        if (typeof text !== "string") {
            throw new Error(`cannot read the message text from the POST body ${JSON.stringify(body)}: declare codec.postRequest`);
        }
        return { id: id === undefined || id === null ? undefined : String(id), text };
    }
    postResponse(response, messageId, ctx) {
        if (this.c.postResponse !== undefined)
            return this.c.postResponse(response, messageId, this.ids, ctx);
        return response.outcome === "started"
            ? this.shape({ messageId, status: "started", turnId: response.turn_id })
            : this.shape({ messageId, status: "queued" });
    }
}
