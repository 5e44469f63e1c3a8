// The store's `fetch`, answered by the harness without the WHATWG stream machinery.
//
// Routed through @mswjs/interceptors, each request cost an undici `Request` (its body
// extracted into a ReadableStream, an AbortSignal, transferable wrappers), a `Response`
// with another stream, and the interceptor's own request/response copies: about a third
// of an adapter process's time on a production-shaped store (docs/benchmarks.md, "The
// interception path"). Here a request whose URL is a string or `URL` and whose body is a
// string (or absent), which is what stores send, is read straight from its arguments; any
// other (a `Request` object, a Blob or FormData body) is read through a real `Request`,
// as before. The answer is a `Response` (`instanceof Response`, `ok`, `status`, real
// `Headers` when read) whose body methods read the answer's text: `json()` and `text()`
// cost a `JSON.parse`, and `body` (a real stream) is made only if read.
//
// What the store sees is what `fetch` gives: a promise settled after the request is
// routed; a TypeError for a request that cannot be made (GET with a body, a bad URL); the
// abort reason when its `signal` aborts first; a body read once (`bodyUsed`, then a
// TypeError), `clone()` to read it twice.
/** The methods fetch normalises to upper case (the Fetch standard; others, PATCH among them, keep their case). */
const NORMALISED = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);
function normaliseMethod(method) {
    const upper = String(method).toUpperCase();
    return NORMALISED.has(upper) ? upper : String(method);
}
const JSON_HEADERS = { status: 200, headers: { "content-type": "application/json" } };
/**
 * A 200 JSON answer: a `Response` (its prototype chain is `Response.prototype`'s, so
 * `instanceof Response` holds) whose every member is its own, so no undici object is made
 * unless the store asks for one: `headers` (a real `Headers`) and `body` (a real stream)
 * are made when first read; `json()` and `text()` read the answer's text.
 */
export class RoutedResponse {
    #text;
    #url;
    #used = false;
    #headers = null;
    /** A real Response with the text as its body, made once the store asks for `body` (a stream): from then on it answers. */
    #real = null;
    constructor(text, url) {
        this.#text = text;
        this.#url = url;
    }
    get url() {
        return this.#url;
    }
    get status() {
        return 200;
    }
    get ok() {
        return true;
    }
    get statusText() {
        return "";
    }
    get type() {
        return "default";
    }
    get redirected() {
        return false;
    }
    get headers() {
        this.#headers ??= new Response(null, JSON_HEADERS).headers; // as a constructed Response's (the guard included)
        return this.#headers;
    }
    get body() {
        if (this.#real === null) {
            this.#real = new Response(this.#text, JSON_HEADERS);
            if (this.#used)
                void this.#real.text(); // read already: the stream is disturbed, as a read body's is
        }
        return this.#real.body;
    }
    get bodyUsed() {
        return this.#used || (this.#real?.bodyUsed ?? false);
    }
    /** The text, once: a second read is the TypeError `fetch`'s bodies give. */
    #take() {
        if (this.#used)
            throw new TypeError("Body is unusable: Body has already been read");
        this.#used = true;
        return this.#text;
    }
    text() {
        if (this.#real !== null)
            return this.#real.text();
        try {
            return Promise.resolve(this.#take());
        }
        catch (e) {
            return Promise.reject(e);
        }
    }
    json() {
        if (this.#real !== null)
            return this.#real.json();
        try {
            return Promise.resolve(JSON.parse(this.#take()));
        }
        catch (e) {
            return Promise.reject(e);
        }
    }
    arrayBuffer() {
        return this.#read((r) => r.arrayBuffer());
    }
    blob() {
        return this.#read((r) => r.blob());
    }
    formData() {
        return this.#read((r) => r.formData());
    }
    /** A read the fast path does not serve: through a real Response with the text as its body. */
    #read(f) {
        if (this.#real === null) {
            if (this.#used)
                return Promise.reject(new TypeError("Body is unusable: Body has already been read"));
            this.#real = new Response(this.#text, JSON_HEADERS);
        }
        return f(this.#real);
    }
    clone() {
        if (this.#real !== null)
            return this.#real.clone();
        if (this.#used)
            throw new TypeError("Response.clone: Body has already been consumed.");
        return new RoutedResponse(this.#text, this.#url);
    }
}
Object.setPrototypeOf(RoutedResponse.prototype, Response.prototype);
Object.defineProperty(RoutedResponse.prototype, Symbol.toStringTag, { value: "Response", configurable: true });
/** What fetch rejects with when `signal` aborted: its reason (an AbortError DOMException by default). */
function abortReason(signal) {
    return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}
/**
 * A `fetch` whose every request goes to `route` (relative URLs resolved against `origin`).
 * A request that cannot be made rejects as `fetch` does, before anything is routed.
 */
export function routedFetch(origin, route) {
    return (input, init) => {
        let method;
        let url;
        let body;
        let signal;
        try {
            const plain = typeof input === "string" || input instanceof URL;
            const b = init?.body;
            method = normaliseMethod(init?.method ?? "GET");
            if (plain && (b === undefined || b === null || typeof b === "string") && !((method === "GET" || method === "HEAD") && b != null)) {
                url = new URL(String(input), origin);
                body = b ?? "";
                signal = init?.signal;
            }
            else {
                // Anything else is read as fetch reads it: through a Request (which validates it).
                const request = new Request(plain ? new URL(String(input), origin) : input, init);
                method = request.method;
                url = new URL(request.url);
                body = request.text();
                signal = request.signal;
            }
        }
        catch (e) {
            return Promise.reject(e instanceof TypeError ? e : new TypeError(String(e?.message ?? e)));
        }
        if (signal?.aborted)
            return Promise.reject(abortReason(signal));
        const answered = typeof body === "string" ? route(method, url, body) : body.then((text) => route(method, url, text));
        const response = answered.then((text) => new RoutedResponse(text, url.href));
        if (signal === undefined || signal === null)
            return response;
        return new Promise((resolve, reject) => {
            const onAbort = () => reject(abortReason(signal));
            signal.addEventListener("abort", onAbort, { once: true });
            response.then((r) => {
                signal.removeEventListener("abort", onAbort);
                resolve(r);
            }, (e) => {
                signal.removeEventListener("abort", onAbort);
                reject(e);
            });
        });
    };
}
