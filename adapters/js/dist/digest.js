// State digests: a canonical JSON text of a value (object keys sorted, Maps and Sets as
// sorted entry lists, `undefined` fields dropped like JSON does) and its SHA-256.
import { createRequire } from "node:module";
// node:crypto is loaded on the first digest, not at start-up.
let crypto = null;
export function canonicalJson(value) {
    const out = [];
    write(value, out, new Set());
    return out.join("");
}
function write(v, out, seen) {
    if (v === null || v === undefined) {
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
    if (seen.has(o))
        throw new Error("snapshot() returned a cyclic value");
    seen.add(o);
    if (Array.isArray(o)) {
        out.push("[");
        o.forEach((x, i) => {
            if (i > 0)
                out.push(",");
            write(x, out, seen);
        });
        out.push("]");
    }
    else if (o instanceof Map) {
        writeSorted([...o.entries()].map(([k, x]) => [JSON.stringify(canonicalJson(k)), x]), out, seen, "M");
    }
    else if (o instanceof Set) {
        const items = [...o].map((x) => canonicalJson(x)).sort();
        out.push(`{"S":[${items.join(",")}]}`);
    }
    else if (o instanceof Date) {
        out.push(JSON.stringify(o.toISOString()));
    }
    else {
        const toJSON = o.toJSON;
        if (typeof toJSON === "function") {
            seen.delete(o);
            write(toJSON.call(o), out, seen);
            return;
        }
        const entries = [];
        for (const k of Object.keys(o)) {
            const x = o[k];
            if (x !== undefined && typeof x !== "function")
                entries.push([JSON.stringify(k), x]);
        }
        writeSorted(entries, out, seen, "");
    }
    seen.delete(o);
}
function writeSorted(entries, out, seen, tag) {
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    out.push(tag === "" ? "{" : `{"${tag}":{`);
    entries.forEach(([k, x], i) => {
        if (i > 0)
            out.push(",");
        out.push(k, ":");
        write(x, out, seen);
    });
    out.push(tag === "" ? "}" : "}}");
}
export function sha256(text) {
    crypto ??= createRequire(import.meta.url)("node:crypto");
    return crypto.createHash("sha256").update(text).digest("hex");
}
