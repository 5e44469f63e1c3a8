import type { Answer } from "./wire.js";
/**
 * Send everything a store (or a library) prints to stderr, so stdout stays the protocol
 * channel: `process.stdout` is `process.stderr` from here on, and the global console
 * (which binds its streams on first use) with it. The protocol writes to fd 1 directly.
 */
export declare function redirectConsole(): void;
/** Answer every request line on stdin until it closes. */
export declare function serveStdio(respond: (msg: unknown) => Answer | Promise<Answer>): Promise<void>;
