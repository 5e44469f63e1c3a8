// From what a real store renders (messages, some with parts) to the protocol's render rows.
//
// A real `groupRowsToMessages(chunks)` merges durable chunk rows into messages with parts
// (an assistant message holding text, tool-call and tool-result parts), and the store
// shows `groupRowsToMessages(chunks) ++ live`. Which message is sealed is only implicit:
// by default a message is sealed when it has parts and every part carries the `seq` of the
// chunk row it came from, and live otherwise. Each sealed part becomes one sealed row; a
// live message becomes one live row (one per part if it has parts).
//
// Real shapes: a tool batch part (`{type: "tool_batch", calls: [{input, output}, …]}`,
// field names declared by `toolBatch`) is a call and a result each (two rows); a sealed
// part without a `seq` of its own takes the seq of the chunk row it shows (`seqOf`, which
// `Harness.flatten` fills from the chunk rows the store was given), also when its message
// carries one `seq` for all its rows; a part that cannot be placed is an error naming it.
const isRole = (r) => r === "user" || r === "assistant" || r === "tool-call" || r === "tool-result";
function partRole(part, messageRole, messageId) {
    const role = part.role;
    if (role !== undefined && isRole(role))
        return role;
    const kind = part.kind ?? part.type;
    if (kind === "tool-call" || kind === "tool-result")
        return kind;
    if (kind !== undefined && isRole(kind))
        return kind;
    if (isRole(messageRole))
        return messageRole;
    throw new Error(`cannot tell the role of a part (${JSON.stringify(part)}) of message ${JSON.stringify(messageId)}`);
}
const textOf = (x) => {
    const text = x.text;
    return text !== undefined ? text : (x.content ?? "");
};
const asText = (v) => (typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v));
const DEFAULT_INPUT = ["input", "args", "text"];
const DEFAULT_OUTPUT = ["output", "result"];
/** The first of `fields` that `call` has (not undefined or null). */
function field(call, fields) {
    const c = call;
    if (typeof fields === "string")
        return c[fields];
    for (const f of fields) {
        const v = c[f];
        if (v !== undefined && v !== null)
            return v;
    }
    return undefined;
}
/** The default `expand`: a tool batch's calls as tool-call and tool-result parts (field names from `fields`). */
export function expandToolBatch(part, fields = {}) {
    const calls = fields.calls === undefined ? part.calls : part[fields.calls];
    if (!Array.isArray(calls))
        return [part];
    const input = fields.input ?? DEFAULT_INPUT;
    const output = fields.output ?? DEFAULT_OUTPUT;
    const out = [];
    for (const c of calls) {
        const turnId = part.turnId;
        out.push({ kind: "tool-call", text: asText(field(c, input)), turnId });
        const result = field(c, output);
        if (result !== undefined && result !== null)
            out.push({ kind: "tool-result", text: asText(result), turnId });
    }
    return out;
}
/**
 * The default expansion of a message's parts: `parts` itself when none is a tool batch (no
 * copy: a render reads every message's parts on every answer), else a copy with each
 * batch's calls and results in its place.
 */
function expandBatches(parts, fields, callsField) {
    const n = parts.length;
    for (let i = 0; i < n; i++) {
        if (Array.isArray(parts[i][callsField])) {
            const out = [];
            for (let j = 0; j < n; j++) {
                const p = parts[j];
                if (j < i || !Array.isArray(p[callsField]))
                    out.push(p);
                else
                    for (const q of expandToolBatch(p, fields))
                        out.push(q);
            }
            return out;
        }
    }
    return parts;
}
/** Turn ids spelled as strings, read once each (every render reads every row's). */
const DECODED = new Map();
const DECODED_MAX = 4096;
function turnNumber(id, decode) {
    if (id === undefined || id === null)
        return undefined;
    if (typeof id === "number")
        return id;
    if (decode !== undefined)
        return decode(id);
    if (typeof id === "string") {
        const known = DECODED.get(id);
        if (known !== undefined)
            return known;
        if (/^-?\d+$/.test(id)) {
            if (DECODED.size >= DECODED_MAX)
                DECODED.clear();
            DECODED.set(id, Number(id));
            return Number(id);
        }
    }
    throw new Error(`cannot read the turn id ${JSON.stringify(id)}: pass decodeTurnId (or declare network.codec.ids)`);
}
function allSeqs(parts) {
    if (parts === undefined || parts.length === 0)
        return false;
    for (let i = 0; i < parts.length; i++)
        if (typeof parts[i].seq !== "number")
            return false;
    return true;
}
/**
 * `groupRowsToMessages(chunks) ++ live`, as protocol render rows. Each field of a message
 * is read once (live messages are usually `$state` proxies, where every read costs).
 */
export function flattenMessages(messages, options = {}) {
    const rows = [];
    const { isSealed, parts: partsOf, turnId: turnIdOf, id: idOf, toolBatch, expand } = options;
    const callsField = toolBatch?.calls ?? "calls";
    /** The seqs of the sealed rows placed so far: a chunk row is shown once. */
    const taken = new Set();
    for (const m of messages) {
        const own = partsOf !== undefined ? partsOf(m) : m.parts;
        const parts = own === undefined ? undefined : expand !== undefined ? own.flatMap((p) => expand(p)) : expandBatches(own, toolBatch, callsField);
        const t = turnIdOf !== undefined ? turnIdOf(m) : m.turnId;
        const turnId = turnNumber(t, options.decodeTurnId);
        const seq = isSealed === undefined ? m.seq : undefined;
        const role = m.role;
        if (isSealed !== undefined ? isSealed(m) : typeof seq === "number" || allSeqs(parts)) {
            const sealedParts = parts !== undefined && parts.length > 0 ? parts : [m];
            const several = sealedParts.length > 1;
            for (const p of sealedParts) {
                const row = sealedRow(m, p, turnId, several, taken, options);
                taken.add(row.seq);
                rows.push(row);
            }
            continue;
        }
        const id = idOf !== undefined ? idOf(m) : m.id;
        if (typeof id !== "string")
            throw new Error(`a live message has no string id: ${JSON.stringify(m)}`);
        if (parts !== undefined && parts.length > 0) {
            parts.forEach((p, i) => {
                const pt = p.turnId === undefined ? turnId : turnNumber(p.turnId, options.decodeTurnId);
                rows.push(liveRow(i === 0 ? id : `${id}#${i}`, partRole(p, role, id), pt, textOf(p)));
            });
        }
        else {
            if (!isRole(role))
                throw new Error(`live message ${JSON.stringify(id)} has no valid role: ${JSON.stringify(role)}`);
            rows.push(liveRow(id, role, turnId, textOf(m)));
        }
    }
    return rows;
}
/**
 * One sealed part as a row: its own seq, else the chunk row it shows (`seqOf`), else the
 * message's. A message's one `seq` is the seq of one of its rows only: when it holds
 * several (`several`), each part's seq comes from its own chunk row, and without `seqOf`
 * to find it that is an error, never one seq shown for several rows.
 */
function sealedRow(m, p, turnId, several, taken, options) {
    const pt = p.turnId === undefined || p.turnId === null ? turnId : turnNumber(p.turnId, options.decodeTurnId);
    const role = partRole(p, m.role, m.id);
    const text = textOf(p);
    if (typeof pt !== "number")
        throw new Error(`a sealed part of message ${JSON.stringify(m.id)} has no numeric turn id: ${JSON.stringify(p)}`);
    // A message of one row: its seq is that row's. Of several: each part finds its own row.
    let seq = p.seq;
    if (typeof seq !== "number" && !several)
        seq = m.seq;
    if (typeof seq !== "number" && options.seqOf !== undefined)
        seq = options.seqOf(pt, role, text, taken);
    if (typeof seq !== "number") {
        const why = options.seqOf !== undefined
            ? "matches no chunk row the store was given (turn, role and text)"
            : several && typeof m.seq === "number"
                ? `has no seq of its own, and its message's seq (${m.seq}) stands for one of its rows only (use harness.flatten, which finds each part's row)`
                : "has no seq";
        throw new Error(`cannot place a sealed part of message ${JSON.stringify(m.id)}: turn ${pt} ${role} ${JSON.stringify(text)} ${why}`);
    }
    return { from: "sealed", seq, role, turn_id: pt, text };
}
function liveRow(id, role, turnId, text) {
    return turnId === undefined || turnId === null
        ? { from: "live", id, role, text }
        : { from: "live", id, role, turn_id: turnId, text };
}
/** Sealed rows straight from chunk rows in app shape (`{seq, turnId, role, text}`). */
export function sealedRows(chunks) {
    const rows = [];
    for (const c of chunks) {
        if (!isRole(c.role))
            throw new Error(`chunk seq ${c.seq} has role ${JSON.stringify(c.role)}`);
        rows.push({ from: "sealed", seq: c.seq, role: c.role, turn_id: c.turnId, text: c.text });
    }
    return rows;
}
/** Checks one render before it goes on the wire; returns a message naming the first bad row, or undefined. */
export function renderProblem(rows) {
    if (!Array.isArray(rows))
        return `render() must return an array of rows, got ${typeof rows}`;
    for (let i = 0; i < rows.length; i++) {
        const r = rows[i];
        const bad = (why) => `render row ${i} ${why}: ${JSON.stringify(r)}`;
        if (r === null || typeof r !== "object")
            return bad("is not an object");
        if (!isRole(r.role))
            return bad("has no valid role");
        if (typeof r.text !== "string")
            return bad("has no string text");
        if (r.from === "sealed") {
            if (typeof r.seq !== "number")
                return bad("is sealed but has no numeric seq");
            if (typeof r.turn_id !== "number")
                return bad("is sealed but has no numeric turn_id");
        }
        else if (r.from === "live") {
            if (typeof r.id !== "string")
                return bad("is live but has no string id");
            if (r.turn_id !== undefined && typeof r.turn_id !== "number")
                return bad("has a turn_id that is not a number");
        }
        else {
            return bad('has no from ("sealed" or "live")');
        }
    }
    return undefined;
}
