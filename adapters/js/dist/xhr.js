// `XMLHttpRequest` for stores that still use it: Node has none, so the harness gives it one
// built on the global `fetch`, which the network's interceptor routes (network.ts). A
// request through it is answered exactly as the same `fetch` would be: a route's answer, or
// a network error (`onerror`, status 0) for a request no route handles, which also fails
// the run with a message naming it. Asynchronous requests only: a synchronous one would
// have to block the thread the harness answers on.
const STATES = { UNSENT: 0, OPENED: 1, HEADERS_RECEIVED: 2, LOADING: 3, DONE: 4 };
/** An `XMLHttpRequest` class whose requests go through `fetch()` (read at each send). */
export function xmlHttpRequestOver(fetch) {
    return class XMLHttpRequest extends EventTarget {
        static UNSENT = 0;
        static OPENED = 1;
        static HEADERS_RECEIVED = 2;
        static LOADING = 3;
        static DONE = 4;
        UNSENT = 0;
        OPENED = 1;
        HEADERS_RECEIVED = 2;
        LOADING = 3;
        DONE = 4;
        readyState = STATES.UNSENT;
        status = 0;
        statusText = "";
        responseType = "";
        responseText = "";
        response = "";
        responseURL = "";
        timeout = 0;
        withCredentials = false;
        onreadystatechange = null;
        onload = null;
        onerror = null;
        onloadend = null;
        onabort = null;
        method = "GET";
        url = "";
        headers = {};
        answer = null;
        aborted = false;
        open(method, url, async = true) {
            if (async === false) {
                throw new Error("reconcile-sim: a synchronous XMLHttpRequest cannot be answered (the harness answers on this thread); make it asynchronous");
            }
            this.method = method.toUpperCase();
            this.url = String(url);
            this.headers = {};
            this.aborted = false;
            this.change(STATES.OPENED);
        }
        setRequestHeader(name, value) {
            this.headers[name] = value;
        }
        send(body) {
            if (this.readyState !== STATES.OPENED)
                throw new Error("reconcile-sim: XMLHttpRequest.send() before open()");
            const init = { method: this.method, headers: this.headers };
            if (body !== undefined && body !== null && this.method !== "GET" && this.method !== "HEAD")
                init.body = body;
            fetch()(this.url, init).then(async (res) => {
                const text = await res.text();
                if (this.aborted)
                    return;
                this.answer = res;
                this.status = res.status;
                this.statusText = res.statusText;
                this.responseURL = res.url;
                this.change(STATES.HEADERS_RECEIVED);
                this.responseText = text;
                this.response = this.responseType === "json" ? (text === "" ? null : JSON.parse(text)) : text;
                this.change(STATES.DONE);
                this.fire("load");
                this.fire("loadend");
            }, () => {
                if (this.aborted)
                    return;
                this.status = 0;
                this.change(STATES.DONE);
                this.fire("error");
                this.fire("loadend");
            });
        }
        abort() {
            this.aborted = true;
            this.readyState = STATES.UNSENT;
            this.fire("abort");
        }
        getResponseHeader(name) {
            return this.answer?.headers.get(name) ?? null;
        }
        getAllResponseHeaders() {
            if (this.answer === null)
                return "";
            let all = "";
            this.answer.headers.forEach((value, name) => (all += `${name}: ${value}\r\n`));
            return all;
        }
        change(state) {
            this.readyState = state;
            this.fire("readystatechange");
        }
        fire(type) {
            const event = new Event(type);
            const handler = this[`on${type}`];
            if (typeof handler === "function")
                handler.call(this, event);
            this.dispatchEvent(event);
        }
    };
}
