/** The server's end of one connection: what the network and the runtime hold. */
export interface ServerEnd {
    readonly url: URL;
    /** A text frame to the store (dropped unless the connection is open). */
    send(data: string): void;
    /** Close from the server's side (what the store sees as its socket closing). */
    close(code?: number, reason?: string): void;
    /** Called once the connection is closed, from either side. */
    addEventListener(type: "close", listener: () => void): void;
}
/**
 * A `WebSocket` class whose connections `accept` takes (true) or refuses (false); relative
 * URLs resolve against `origin`.
 */
export declare function routedWebSocket(origin: URL, accept: (end: ServerEnd) => boolean): unknown;
