// The transport: JSON lines on stdin/stdout (docs/protocol.md). stdout carries the
// protocol only: console.* and process.stdout.write go to stderr.
//
// stdin is read synchronously (no event-loop hop per message, as in the reference adapter);
// an answer that needs the store's promises to settle is awaited before the next line is
// read. Lines that arrived together are answered in one write.
import { readSync, writeSync } from "node:fs";
/**
 * Send everything a store (or a library) prints to stderr, so stdout stays the protocol
 * channel: `process.stdout` is `process.stderr` from here on, and the global console
 * (which binds its streams on first use) with it. The protocol writes to fd 1 directly.
 */
export function redirectConsole() {
    Object.defineProperty(process, "stdout", { get: () => process.stderr, configurable: true, enumerable: true });
}
function sleepMs(ms) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
function writeAll(text) {
    // The common case: one blocking write of the whole string.
    let written = 0;
    try {
        written = writeSync(1, text);
    }
    catch (e) {
        if (e.code !== "EAGAIN")
            throw e;
    }
    const data = Buffer.from(text, "utf8");
    if (written === data.length)
        return;
    // A non-blocking or interrupted pipe: write the rest.
    let off = written;
    while (off < data.length) {
        try {
            off += writeSync(1, data, off, data.length - off);
        }
        catch (e) {
            if (e.code !== "EAGAIN")
                throw e;
            sleepMs(1);
        }
    }
}
const isPromise = (x) => x instanceof Promise;
/** Answer every request line on stdin until it closes. */
export async function serveStdio(respond) {
    const buf = Buffer.allocUnsafe(1 << 16);
    // Bytes after the last newline read so far (a line cut by the read; never split text).
    let rest = null;
    for (;;) {
        let n;
        try {
            n = readSync(0, buf, 0, buf.length, null);
        }
        catch (e) {
            const code = e.code;
            if (code === "EAGAIN") {
                sleepMs(1);
                continue;
            }
            if (code === "EOF")
                return;
            throw e;
        }
        if (n === 0)
            return; // the harness closed stdin: it is done with us
        // Decode whole lines only: a newline byte never occurs inside a multi-byte character.
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
            if (line.trim() === "")
                continue;
            let msg;
            try {
                msg = JSON.parse(line);
            }
            catch (e) {
                out += JSON.stringify({ type: "error", message: `request is not JSON: ${e.message}`, id: null }) + "\n";
                continue;
            }
            const a = respond(msg);
            const answer = isPromise(a) ? await a : a;
            out += JSON.stringify(answer) + "\n";
        }
        if (out !== "")
            writeAll(out);
    }
}
