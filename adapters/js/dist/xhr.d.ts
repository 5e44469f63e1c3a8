type Fetch = (input: string, init: RequestInit) => Promise<Response>;
/** An `XMLHttpRequest` class whose requests go through `fetch()` (read at each send). */
export declare function xmlHttpRequestOver(fetch: () => Fetch): unknown;
export {};
