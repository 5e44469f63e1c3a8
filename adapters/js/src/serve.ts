// The transport: JSON lines on stdin/stdout (docs/protocol.md). stdout carries the
// protocol only: console.* and process.stdout.write go to stderr.
//
// stdin is read synchronously (no event-loop hop per message, as in the reference adapter);
// an answer that needs the store's promises to settle is awaited before the next line is
// read. Lines that arrived together are answered in one write.

import { readSync, writeSync } from "node:fs";
import type { Answer } from "./wire.js";

/**
 * Send everything a store (or a library) prints to stderr, so stdout stays the protocol
 * channel: `process.stdout` is `process.stderr` from here on, and the global console
 * (which binds its streams on first use) with it. The protocol writes to fd 1 directly.
 */
export function redirectConsole(): void {
  Object.defineProperty(process, "stdout", { get: () => process.stderr, configurable: true, enumerable: true });
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function writeAll(text: string): void {
  const data = Buffer.from(text, "utf8");
  let off = 0;
  while (off < data.length) {
    try {
      off += writeSync(1, data, off, data.length - off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EAGAIN") throw e;
      sleepMs(1);
    }
  }
}

const isPromise = (x: unknown): x is Promise<Answer> => x instanceof Promise;

/** Answer every request line on stdin until it closes. */
export async function serveStdio(respond: (msg: unknown) => Answer | Promise<Answer>): Promise<void> {
  const decoder = new TextDecoder("utf-8");
  const buf = Buffer.allocUnsafe(1 << 16);
  let pending = "";
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") {
        sleepMs(1);
        continue;
      }
      if (code === "EOF") return;
      throw e;
    }
    if (n === 0) return; // the harness closed stdin: it is done with us
    pending += decoder.decode(buf.subarray(0, n), { stream: true });
    let out = "";
    let start = 0;
    let nl: number;
    while ((nl = pending.indexOf("\n", start)) !== -1) {
      const line = pending.slice(start, nl);
      start = nl + 1;
      if (line.trim() === "") continue;
      let answer: Answer;
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch (e) {
        out += JSON.stringify({ type: "error", message: `request is not JSON: ${(e as Error).message}`, id: null }) + "\n";
        continue;
      }
      const a = respond(msg);
      answer = isPromise(a) ? await a : a;
      out += JSON.stringify(answer) + "\n";
    }
    pending = pending.slice(start);
    if (out !== "") writeAll(out);
  }
}
