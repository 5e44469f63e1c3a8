/** How the network routes one request: the answer's JSON text (status 200), or a rejection. */
export type RouteRequestFn = (method: string, url: URL, body: string) => Promise<string>;
/**
 * A 200 JSON answer as a real `Response` whose body is the answer's text, read without a
 * stream unless the store asks for `body`.
 */
declare const ResponseBase: new (body: null, init: ResponseInit) => object;
export declare class RoutedResponse extends ResponseBase {
    #private;
    constructor(text: string, url: string);
    get url(): string;
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
export {};
