/** How the network routes one request: the answer's JSON text (status 200), or a rejection. */
export type RouteRequestFn = (method: string, url: URL, body: string) => Promise<string>;
/**
 * A 200 JSON answer: a `Response` (its prototype chain is `Response.prototype`'s, so
 * `instanceof Response` holds) whose every member is its own, so no undici object is made
 * unless the store asks for one: `headers` (a real `Headers`) and `body` (a real stream)
 * are made when first read; `json()` and `text()` read the answer's text.
 */
export declare class RoutedResponse {
    #private;
    constructor(text: string, url: string);
    get url(): string;
    get status(): number;
    get ok(): boolean;
    get statusText(): string;
    get type(): "default";
    get redirected(): boolean;
    get headers(): Headers;
    get body(): ReadableStream<Uint8Array> | null;
    get bodyUsed(): boolean;
    text(): Promise<string>;
    json(): Promise<unknown>;
    arrayBuffer(): Promise<ArrayBuffer>;
    blob(): Promise<Blob>;
    formData(): Promise<FormData>;
    clone(): Response;
}
/**
 * A `fetch` whose every request goes to `route` (relative URLs resolved against `origin`).
 * A request that cannot be made rejects as `fetch` does, before anything is routed.
 */
export declare function routedFetch(origin: URL, route: RouteRequestFn): (input: unknown, init?: RequestInit) => Promise<Response>;
