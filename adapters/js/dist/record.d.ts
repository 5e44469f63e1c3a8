import type { NetworkOptions } from "./network.js";
export interface RecorderOptions {
    /** Entries kept (oldest dropped first; the dump says how many). Default 5000. */
    limit?: number;
    /** Keep texts as they are (default: replaced by placeholders). */
    private?: boolean;
    /** The mapping's name, written into the log. */
    name?: string;
}
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
export declare function record(network: NetworkOptions, options?: RecorderOptions): Recorder;
