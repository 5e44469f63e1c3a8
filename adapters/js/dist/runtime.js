// The adapter side of the exec protocol for an asynchronous store: one fresh store per
// `reset` (made by the mapping), inputs routed to the mapping's hooks, the store's API
// calls turned into effects and their promises resolved by the matching responses, every
// pending microtask and fake timer run before an answer is read.
import { DeterministicWorld, EPOCH, MAX_TIMER_RUNS, realSetImmediate, replaceGlobals, restoreGlobals } from "./determinism.js";
import { normaliseWorld } from "./contract.js";
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson, sha256 } from "./digest.js";
import { flattenMessages, renderProblem } from "./render.js";
import { PROTOCOL } from "./wire.js";
const BOOT = "boot";
const isThenable = (x) => x !== null && (typeof x === "object" || typeof x === "function") && typeof x.then === "function";
/**
 * Resolves once every queued microtask, and every microtask those queue, has run. A
 * macrotask, not a process.nextTick from a microtask (which would also wait for the
 * microtask queue to empty, for ~4 us less CPU per input): Node reports a rejection the
 * store left unhandled only when it gets back to an empty tick queue, and such a rejection
 * must crash the input that caused it.
 */
const drain = () => new Promise((resolve) => realSetImmediate(resolve));
/** Everything one run (the requests since a reset) owns. Dropped whole on the next reset. */
class Run {
    runtime;
    mapping = null;
    /** The effects of the request being answered. */
    effects = [];
    errors = [];
    /** `user-send`s the store has not POSTed yet, oldest first. */
    pendingSends = [];
    posts = new Map();
    /** POSTs that carried no id, oldest first: the backend mints their ids. */
    postsWithoutId = [];
    /** The open connections of the store's own WebSocket (with `network.socket`). */
    sockets = new Set();
    /**
     * Every chunk row handed to the store, by text (then turn and role), ascending seq: for
     * `Harness.flatten`, which looks up each sealed part it renders on every answer (by
     * text first: no key string is built per lookup).
     */
    seqs = new Map();
    fetches = new Map();
    nextRequest = 1;
    byHarness = new Map();
    byStore = new Map();
    translated = new Map();
    /** The inputs since the reset, for the origins of pending promises (made canonical JSON only for a digest). */
    history = [];
    /** Where promises and timers created now come from (see `AdapterRuntime.digest`). */
    origin = BOOT;
    ids;
    harness;
    /** The route params the store's requests carried this run (`RunContext.params`). */
    params = {};
    /** The run's context, handed to the codec's hooks and to the mapping (`harness.context`). */
    context;
    constructor(runtime, args) {
        this.runtime = runtime;
        this.ids = {
            toStore: (n) => this.byHarness.get(n) ?? `m${n}`,
            toHarness: (s) => this.byStore.get(s),
        };
        const run = this;
        this.context = {
            ids: this.ids,
            params: this.params,
            get socket() {
                return run.socketUrl;
            },
            values: {},
        };
        this.harness = {
            post: (storeId, text) => this.post(storeId, text),
            fetch: () => this.fetch(),
            ids: this.ids,
            args,
            context: this.context,
            flatten: (messages, options) => flattenMessages(messages, this.flattenOptions(options)),
        };
    }
    /** The latest connection to the declared socket (`RunContext.socket`). */
    socketUrl = undefined;
    /** A routed request's `:name` segments, for `RunContext.params`. */
    noteParams(params) {
        Object.assign(this.params, params);
    }
    current(what) {
        if (this.runtime.run === this)
            return true;
        process.stderr.write(`reconcile-sim-adapter: ignored ${what} from a store of an earlier run\n`);
        return false;
    }
    post(storeId, text) {
        if (!this.current("a POST"))
            return new Promise(() => { });
        if (typeof storeId !== "string" && typeof storeId !== "number") {
            this.errors.push(new Error(`post(storeId, text): storeId must be a string, got ${JSON.stringify(storeId)}`));
            return new Promise(() => { });
        }
        const key = String(storeId);
        const send = this.takeSend(text);
        if (send === undefined) {
            this.errors.push(new Error(`the store POSTed ${JSON.stringify(text)} (its id ${key}) but no user-send is waiting for a POST`));
            return new Promise(() => { });
        }
        this.byHarness.set(send.messageId, key);
        this.byStore.set(key, send.messageId);
        this.translated.clear();
        this.effects.push({ effect: "post", message_id: send.messageId, text: String(text) });
        return new Promise((resolve) => this.posts.set(send.messageId, { resolve, origin: this.origin }));
    }
    /** A POST without an id (`--world server_ids=true`): the `post` effect carries none, and the response the id the backend minted. */
    postWithoutId(text) {
        if (!this.current("a POST"))
            return new Promise(() => { });
        const send = this.takeSend(String(text));
        if (send === undefined) {
            this.fail(new Error(`the store POSTed ${JSON.stringify(text)} (without an id) but no user-send is waiting for a POST`));
            return new Promise(() => { });
        }
        this.effects.push({ effect: "post", text: String(text) });
        return new Promise((resolve) => this.postsWithoutId.push({ resolve, origin: this.origin }));
    }
    /** The pending user-send a POST of `text` answers: the oldest with that text, else the oldest. */
    takeSend(text) {
        let i = this.pendingSends.findIndex((s) => s.text === text);
        if (i < 0)
            i = 0;
        return this.pendingSends.splice(i, 1)[0];
    }
    fail(error) {
        this.errors.push(error);
    }
    /**
     * A minted id's response: resolve the oldest id-less POST with the id, spelled as every
     * event and chunk row before and after this response spells it (`m902`, what
     * `ids.toStore` gives a message this store never named): a store must be able to match
     * the `message-queued` it got before its POST was answered with the `message-consumed`
     * it gets after.
     */
    resolveWithoutId(serverId, response) {
        const pending = this.postsWithoutId.shift();
        if (pending === undefined)
            return false;
        const storeId = this.ids.toStore(serverId);
        this.byHarness.set(serverId, storeId);
        this.byStore.set(storeId, serverId);
        this.translated.clear();
        pending.resolve({ response, storeId });
        return true;
    }
    fetch() {
        if (!this.current("a fetch"))
            return new Promise(() => { });
        const requestId = this.nextRequest++;
        this.effects.push({ effect: "fetch", request_id: requestId });
        return new Promise((resolve) => this.fetches.set(requestId, { resolve, origin: this.origin }));
    }
    /** Keep a hook's result: a rejected promise is a crash of the store. */
    call(result) {
        if (isThenable(result))
            result.then(undefined, (e) => this.errors.push(e));
    }
    appEvent(e, deltaPrefix) {
        switch (e.type) {
            case "turn-start":
            case "turn-sealed":
                return { type: e.type, turnId: e.turn_id };
            case "text-delta": {
                const text = deltaPrefix === "" ? e.text : deltaPrefix + e.text;
                return e.turn_id === undefined ? { type: e.type, text } : { type: e.type, turnId: e.turn_id, text };
            }
            case "tool-call":
            case "tool-result":
                return { type: e.type, turnId: e.turn_id, call: e.call, text: e.text };
            case "message-queued": {
                const queued = { type: e.type, messageId: this.ids.toStore(e.message_id) };
                return e.text === undefined ? queued : { ...queued, text: e.text };
            }
            case "message-consumed": {
                const consumed = { type: e.type, messageIds: e.message_ids.map((n) => this.ids.toStore(n)) };
                return e.reason === undefined ? consumed : { ...consumed, reason: e.reason };
            }
            case "status":
                return { type: e.type, status: e.status };
            default:
                return this.otherEvent(e);
        }
    }
    /** An event kind this version does not know: camelCase its fields, bridge message ids. */
    otherEvent(e) {
        const other = e;
        const out = {};
        for (const k of Object.keys(other)) {
            const v = other[k];
            if (k === "message_id")
                out.messageId = this.ids.toStore(v);
            else if (k === "message_ids")
                out.messageIds = v.map((n) => this.ids.toStore(n));
            else
                out[camel(k)] = v;
        }
        return out;
    }
    appFetch(r) {
        for (const c of r.chunks) {
            const rows = this.seqs.get(c.text);
            const row = { turn: c.turn_id, role: c.role, seq: c.seq };
            if (rows === undefined)
                this.seqs.set(c.text, [row]);
            else if (!rows.some((x) => x.seq === c.seq)) {
                rows.push(row);
                rows.sort((a, b) => a.seq - b.seq);
            }
        }
        return {
            requestId: r.request_id,
            snapshotSeq: r.snapshot_seq,
            chunks: r.chunks.map((c) => {
                const chunk = { seq: c.seq, turnId: c.turn_id, role: c.role, text: c.text };
                if (c.message_ids !== undefined)
                    chunk.messageIds = c.message_ids.map((n) => this.ids.toStore(n));
                return chunk;
            }),
            writtenTurns: r.written_turns ?? [],
        };
    }
    /**
     * The options of `Harness.flatten`: seqs recovered from the chunk rows handed out (a part
     * of one turn, role and text gets the oldest such row not yet placed in this render),
     * turn ids read with the codec's spelling, tool batches with its field names.
     */
    flattenOptions(options) {
        const codec = this.runtime.network?.codec;
        const decode = codec?.ids.decode;
        const toolBatch = codec?.toolBatch;
        return {
            // The oldest row of that turn, role and text this render has not placed yet (a store
            // showing one row twice shows the last twice: its own duplicate, not ours).
            seqOf: (turnId, role, text, taken) => {
                const rows = this.seqs.get(text);
                if (rows === undefined)
                    return undefined;
                let last;
                for (const row of rows) {
                    if (row.turn !== turnId || row.role !== role)
                        continue;
                    if (!taken.has(row.seq))
                        return row.seq;
                    last = row.seq;
                }
                return last;
            },
            ...(decode === undefined ? {} : { decodeTurnId: decode }),
            ...(toolBatch === undefined ? {} : { toolBatch }),
            ...options,
        };
    }
    /** Live row ids holding a store message id (whole, or as a suffix: `queued-<id>`) get the harness's `m<n>`. */
    translate(rows) {
        if (this.byStore.size === 0)
            return rows;
        let out = rows;
        for (let i = 0; i < rows.length; i++) {
            const row = rows[i];
            if (row.from !== "live")
                continue;
            let id = this.translated.get(row.id);
            if (id === undefined) {
                id = row.id;
                const n = this.byStore.get(id);
                if (n !== undefined) {
                    id = `m${n}`;
                }
                else {
                    for (const [storeId, m] of this.byStore) {
                        if (storeId !== "" && id.endsWith(storeId)) {
                            id = id.slice(0, id.length - storeId.length) + `m${m}`;
                            break;
                        }
                    }
                }
                this.translated.set(row.id, id);
            }
            if (id !== row.id) {
                if (out === rows)
                    out = rows.slice();
                out[i] = { ...row, id };
            }
        }
        return out;
    }
}
const camelCache = new Map();
function camel(k) {
    let c = camelCache.get(k);
    if (c === undefined) {
        c = k.replace(/_([a-z0-9])/g, (_, ch) => ch.toUpperCase());
        camelCache.set(k, c);
    }
    return c;
}
function describe(e) {
    if (e instanceof Error)
        return e.stack ?? `${e.name}: ${e.message}`;
    try {
        return typeof e === "string" ? e : JSON.stringify(e);
    }
    catch {
        return String(e);
    }
}
/**
 * The runtime answering now. An adapter process has one; in process (the engine inside
 * Node) there is one per adapter, and each makes itself active before it answers, so the
 * process-wide hooks (errors, the routed fetch and WebSocket) and the deterministic globals
 * reach the store whose code is running.
 */
let activeRuntime = null;
/** The error hooks are installed once per process. */
let hooked = false;
/** The network is intercepted once per process, for whichever runtime is active. */
let sharedNetwork = null;
/** The recorder over the network (RECONCILE_SIM_RECORD=1), where its logs go, and the run it records. */
let recording = null;
/**
 * The current run's log, to `DIR/PID-N.json` (N counts this process's runs), rewritten
 * after every answer (the harness may kill an adapter at any time, so there is no "at the
 * end"), atomically: written beside it, then renamed over it.
 */
function written(answer) {
    writeRecording();
    return answer;
}
function writeRecording() {
    if (recording === null || recording.dir === null)
        return;
    const file = join(recording.dir, `${process.pid}-${recording.run}.json`);
    writeFileSync(`${file}.tmp`, recording.recorder.dump());
    renameSync(`${file}.tmp`, file);
}
export class AdapterRuntime {
    world = new DeterministicWorld();
    run = null;
    greeted = false;
    factory = null;
    /** Set by the first `state` request: from then on origins are state digests, not histories. */
    trackOrigins = false;
    /** The digest answered last, while nothing has happened since. */
    lastDigest = null;
    deltaPrefix;
    /** Errors raised outside any request (reported with the next answer). */
    strayErrors = [];
    /**
     * The first run, made when `hello` is answered (to learn which extensions the mapping
     * speaks), with its `reset` answer: the first `reset` hands it out instead of making
     * another store. Nothing runs between the two (the clock is fake, every microtask ran),
     * so the answer is the one that `reset` would give.
     */
    prepared = null;
    options;
    constructor(options) {
        this.options = { ...options };
        this.deltaPrefix = options.deltaPrefix ?? "";
        this.world.origin = () => (this.run === null ? BOOT : this.run.origin);
    }
    get network() {
        return this.options.network ?? null;
    }
    /**
     * Take a mapping's options (`defineAdapter(factory, options)`), after its module was
     * evaluated and before the first store is made: the name, the virtual clock, and the
     * network (whose fetch and WebSocket are installed now).
     */
    async configure(options, name) {
        if (name !== undefined)
            this.options.name = name;
        if (options.translateIds === false)
            this.options.translateIds = false;
        if (options.clock !== undefined)
            this.options.clock = checkClock(options.clock);
        if (options.world !== undefined)
            this.options.world = normaliseWorld(options.world);
        if (options.network !== undefined && this.options.network == null) {
            if (sharedNetwork === null) {
                const { Network } = await import("./network.js");
                const network = new Network(options.network, () => activeRuntime?.run ?? null);
                await network.install();
                // RECONCILE_SIM_RECORD=1: the recorder over the harness's network, as an app would
                // run it (docs/record.md measures its cost with it). The runtime stands for the
                // app's UI: it reports each user-send and scroll, and starts a new log with each
                // run; RECONCILE_SIM_RECORD_DIR=DIR writes each run's log (`DIR/PID-N.json`).
                if (process.env.RECONCILE_SIM_RECORD === "1") {
                    const { record } = await import("./record.js");
                    recording = {
                        recorder: record(options.network, { name: options.name ?? this.options.name, private: process.env.RECONCILE_SIM_RECORD_PRIVATE !== "0" }),
                        dir: process.env.RECONCILE_SIM_RECORD_DIR || null,
                        run: 0,
                    };
                }
                sharedNetwork = network;
            }
            this.options.network = sharedNetwork;
        }
    }
    /** The clock's choice as the `hello` answer states it. */
    clockSetting() {
        const clock = this.options.clock ?? {};
        if (clock.timers === "all")
            return "every pending timer runs after each input";
        return `timers run when due; the clock moves ${clock.stepMs ?? 0} ms per input`;
    }
    /** Install the deterministic globals and the error hooks. Call before loading the user's modules. */
    install() {
        activeRuntime = this;
        this.world.install();
        if (hooked)
            return;
        hooked = true;
        process.on("unhandledRejection", (reason) => activeRuntime?.recordError(reason));
        process.on("uncaughtException", (error) => activeRuntime?.recordError(error));
    }
    /** Make this the runtime (and its world) that the process-wide hooks and globals reach. */
    activate() {
        activeRuntime = this;
        this.world.activate();
        replaceGlobals();
    }
    /**
     * No runtime answers now: the real globals are put back and errors are no store's, until
     * a runtime answers again. For a host that runs other code in the same process between
     * commands (a test runner, with the engine inside Node).
     */
    static leave() {
        activeRuntime = null;
        restoreGlobals();
    }
    recordError(e) {
        if (this.run !== null)
            this.run.errors.push(e);
        else
            this.strayErrors.push(e);
    }
    /**
     * Forget the store made ahead at `hello` (see `prepared`): the next `reset` tears it down
     * and makes a fresh one. Coverage (coverage.ts) asks for this, so that a run's
     * coverage, started before its `reset`, sees its store being made.
     */
    unprepare() {
        if (this.prepared === null)
            return;
        this.run = this.prepared.run;
        this.prepared = null;
    }
    /**
     * Load the mapping's factory again now (a fresh evaluation of the bundle), for the
     * stores of the next `reset`s: after coverage recompiled it (coverage.ts), so that they
     * run code V8 counts per block.
     */
    reload() {
        if (activeRuntime !== this)
            this.activate();
        this.factory = this.options.load();
    }
    /** The answer to one parsed request line. */
    respond(msg) {
        if (activeRuntime !== this)
            this.activate();
        if (msg === null || typeof msg !== "object") {
            return { type: "error", message: `request is not a JSON object: ${JSON.stringify(msg)}`, id: null };
        }
        const m = msg;
        const id = typeof m.id === "number" ? m.id : null;
        const fail = (message) => ({ type: "error", message, id });
        if (m.type === "hello") {
            if (m.protocol !== PROTOCOL)
                return fail(`unsupported protocol ${JSON.stringify(m.protocol)}; this adapter speaks ${PROTOCOL}`);
            this.greeted = true;
            return this.hello(id);
        }
        if (!this.greeted)
            return fail(`expected hello first, got ${JSON.stringify(m.type)}`);
        switch (m.type) {
            case "reset":
                return recording?.dir ? this.reset(id).then(written) : this.reset(id);
            case "input":
                if (this.run === null || this.run.mapping === null)
                    return fail("input before reset");
                if (m.input === null || typeof m.input !== "object")
                    return fail("input without an input object");
                return recording?.dir ? this.input(this.run, m.input, id).then(written) : this.input(this.run, m.input, id);
            case "state":
                return this.state(id);
            default:
                return fail(`unknown request type ${JSON.stringify(m.type)}`);
        }
    }
    /**
     * The handshake. The extensions (docs/protocol.md, "Extensions") are announced for what
     * the mapping does, which only a store shows: so the first run's store is made now (see
     * `prepared`). `boot`: its `reset` answer carries effects (a `boot()` hook, or a factory
     * that fetches at once), which a harness routes only when announced. `state`: it has
     * `snapshot()`. A mapping that fails to make a store announces nothing; the first `reset`
     * reports why.
     */
    async hello(id) {
        this.prepared = null;
        const answer = await this.reset(null);
        const run = this.run;
        this.run = null;
        this.prepared = { run, answer };
        const features = [];
        if (answer.type === "reset" && (run.mapping?.boot !== undefined || (answer.effects?.length ?? 0) > 0))
            features.push("boot");
        if (answer.type === "reset" && run.mapping?.snapshot !== undefined)
            features.push("state");
        const clock = this.clockSetting();
        const world = this.options.world ?? [];
        return {
            type: "hello",
            protocol: PROTOCOL,
            name: this.options.name,
            ...(features.length > 0 ? { features } : {}),
            clock,
            ...(world.length > 0 ? { world } : {}),
            id,
        };
    }
    async reset(id) {
        const prepared = this.prepared;
        this.prepared = null;
        if (prepared !== null && this.strayErrors.length === 0) {
            this.run = prepared.run;
            return { ...prepared.answer, id };
        }
        const ended = await this.teardown();
        if (ended !== null)
            return { type: "error", message: ended, id };
        this.lastDigest = null;
        this.world.reset();
        if (recording !== null) {
            recording.recorder.clear();
            recording.run++;
        }
        const run = new Run(this, this.options.args ?? []);
        this.run = run;
        run.errors.push(...this.strayErrors.splice(0));
        try {
            if (this.factory === null || this.options.freshModule)
                this.factory = this.options.load();
            const made = this.factory(run.harness);
            run.mapping = isThenable(made) ? await made : made;
            checkMapping(run.mapping, this.network?.hasSocket ?? false);
            const booted = run.mapping.boot !== undefined;
            if (booted)
                run.call(run.mapping.boot());
            await this.settle(run);
            if (run.errors.length > 0)
                return this.crash(run, id);
            // Effects the new store asked for (a boot fetch, from boot() or the factory itself) ride
            // on the reset answer with the render (the protocol's reset extension); else the plain answer.
            if (!booted && run.effects.length === 0)
                return { type: "reset", id };
            return { type: "reset", effects: run.effects, render: this.render(run), id };
        }
        catch (e) {
            run.mapping = null;
            return { type: "error", message: describe(e), id };
        }
    }
    /**
     * End the current run, as a page going away ends a tab: its mapping's `teardown()`
     * (clearing a store kept in a module singleton, unsubscribing from a shared client),
     * then the server closes each of the run's socket connections (1001, going away), so a
     * socket client kept in a module singleton sees its connection close and the next
     * store's `connect()` opens a new one in the new run. What that causes runs to the end
     * while the run is still current. Returns why `teardown()` failed, if it did: the next
     * store cannot be trusted to start fresh, so the reset is answered with that error.
     */
    async teardown() {
        const run = this.run;
        this.run = null;
        if (run === null || run.mapping === null || (run.mapping.teardown === undefined && run.sockets.size === 0))
            return null;
        this.run = run;
        run.effects = [];
        try {
            if (run.mapping.teardown !== undefined)
                run.call(run.mapping.teardown());
            await this.settle(run);
            for (const client of [...run.sockets])
                client.close(1001, "reconcile-sim: the run ended");
            await this.settle(run);
        }
        catch (e) {
            run.errors.push(e);
        }
        this.run = null;
        if (run.errors.length === 0)
            return null;
        return `the previous run's teardown() failed, so this store may not start fresh:\n${run.errors.map(describe).join("\n--- and then:\n")}`;
    }
    async input(run, input, id) {
        run.effects = [];
        try {
            this.beginInput(run, input);
            this.route(run, run.mapping, input);
            await this.settle(run);
            if (run.errors.length > 0)
                return this.crash(run, id);
            return { type: "output", effects: run.effects, render: this.render(run), id };
        }
        catch (e) {
            return { type: "error", message: describe(e), id };
        }
    }
    beginInput(run, input) {
        run.history.push(input);
        const clock = this.options.clock;
        if (clock?.timers !== "all" && clock?.stepMs)
            this.world.now += clock.stepMs;
        if (this.trackOrigins) {
            const before = this.lastDigest ?? this.digest(run);
            run.origin = `d:${sha256(`${before}\n${canonicalJson(input)}`)}`;
        }
        else {
            run.origin = `h:${run.history.length}`;
        }
        this.lastDigest = null;
    }
    route(run, mapping, input) {
        switch (input.input) {
            case "user-send":
                recording?.recorder.send(input.text);
                run.pendingSends.push({ messageId: input.message_id, text: input.text });
                run.call(mapping.send(input.text, input.message_id));
                return;
            case "scroll":
                recording?.recorder.scroll(input.at_bottom);
                run.call(mapping.scroll(input.at_bottom));
                return;
            case "event": {
                const event = run.appEvent(input.event, this.deltaPrefix);
                if (mapping.event !== undefined)
                    run.call(mapping.event(event, input.event));
                else
                    this.network.deliver(run, event);
                return;
            }
            case "post-response": {
                // This package always POSTs with the harness's id, so a response without one is not ours.
                const id = input.message_id;
                const pending = id === undefined ? undefined : run.posts.get(id);
                if (id !== undefined && pending !== undefined) {
                    run.posts.delete(id);
                    pending.resolve(input.response);
                }
                else if (id === undefined && input.server_id !== undefined && run.resolveWithoutId(input.server_id, input.response)) {
                    // an id-less POST's answer: the backend minted the id
                }
                else if (mapping.input !== undefined) {
                    run.call(mapping.input(input));
                }
                return;
            }
            case "fetch-response": {
                const pending = run.fetches.get(input.request_id);
                if (pending !== undefined) {
                    run.fetches.delete(input.request_id);
                    pending.resolve(run.appFetch(input));
                }
                else if (mapping.input !== undefined) {
                    run.call(mapping.input(input)); // not ours: the store never asked for it
                }
                return;
            }
            default:
                if (mapping.input !== undefined)
                    run.call(mapping.input(input));
                else
                    throw new Error(`unknown input ${JSON.stringify(input.input)}`);
        }
    }
    /**
     * Let everything the request caused run: microtasks, then each fake timer that is due
     * (with `timers: "all"`, each pending one), in due order.
     */
    async settle(run) {
        const flush = run.mapping?.flush;
        const all = this.options.clock?.timers === "all";
        for (let timers = 0;; timers++) {
            await drain(); // every queued microtask (and promise chain) runs before it
            if (flush !== undefined) {
                flush.call(run.mapping);
                await drain();
            }
            if (all ? this.world.pendingTimers === 0 : !this.world.hasDueTimer())
                return;
            if (timers >= MAX_TIMER_RUNS) {
                throw new Error(`timers kept firing: ${MAX_TIMER_RUNS} timer callbacks in one input (an interval that never stops?)`);
            }
            try {
                this.world.runNextTimer();
            }
            catch (e) {
                run.errors.push(e);
            }
        }
    }
    render(run) {
        const rows = run.mapping.render();
        const problem = renderProblem(rows);
        if (problem !== undefined)
            throw new Error(problem);
        return this.options.translateIds === false ? rows : run.translate(rows);
    }
    crash(run, id) {
        const message = run.errors.map(describe).join("\n--- and then:\n");
        run.errors = [];
        return { type: "error", message, id };
    }
    state(id) {
        const run = this.run;
        if (run === null || run.mapping === null)
            return { type: "error", message: "state before reset", id };
        if (run.mapping.snapshot === undefined) {
            return { type: "error", message: "state digests are not supported: the mapping has no snapshot()", id };
        }
        try {
            this.trackOrigins = true;
            const digest = this.lastDigest ?? this.digest(run);
            this.lastDigest = digest;
            return { type: "state", digest, id };
        }
        catch (e) {
            return { type: "error", message: describe(e), id };
        }
    }
    /**
     * The digest of everything that decides the run's future: the store's snapshot, and the
     * adapter's own state. A pending promise (or timer) resumes code whose local variables the
     * snapshot cannot see, so each carries its origin: the digest of the state before the
     * input that created it plus that input (or, before the harness first asked for a digest,
     * the whole input history up to it). Equal digests therefore mean equal futures.
     */
    digest(run) {
        const origin = (o) => o.startsWith("h:") ? sha256(run.history.slice(0, Number(o.slice(2))).map(canonicalJson).join("\n")) : o;
        const w = this.world;
        const adapter = {
            sends: run.pendingSends.map((s) => [s.messageId, s.text]),
            ids: [...run.byHarness].sort((a, b) => a[0] - b[0]),
            posts: [...run.posts].sort((a, b) => a[0] - b[0]).map(([n, p]) => [n, origin(p.origin)]),
            fetches: [...run.fetches].sort((a, b) => a[0] - b[0]).map(([n, p]) => [n, origin(p.origin)]),
            nextRequest: run.nextRequest,
            // What the codec's hooks read of the run (RunContext): the params and socket seen so far.
            params: Object.entries(run.context.params).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
            socket: run.socketUrl?.href ?? null,
            uuids: w.uuids,
            rng: w.rng,
            clock: w.now - EPOCH,
            timers: w.timerState().map((t) => {
                const [due, interval, o] = t;
                return [due, interval, origin(o)];
            }),
        };
        return sha256(canonicalJson({ store: run.mapping.snapshot(), adapter }));
    }
}
function checkMapping(m, socket) {
    if (m === null || typeof m !== "object")
        throw new Error("the mapping's factory must return an object of hooks");
    for (const hook of ["send", "scroll", "render"]) {
        if (typeof m[hook] !== "function")
            throw new Error(`the mapping has no ${hook}() hook`);
    }
    if (typeof m.event !== "function" && !socket) {
        throw new Error("the mapping has no event() hook (and declares no network.socket to send events to)");
    }
}
function checkClock(clock) {
    const step = clock.stepMs ?? 0;
    if (typeof step !== "number" || !Number.isFinite(step) || step < 0) {
        throw new Error(`clock.stepMs must be a number of milliseconds >= 0, got ${JSON.stringify(clock.stepMs)}`);
    }
    if (clock.timers !== undefined && clock.timers !== "due" && clock.timers !== "all") {
        throw new Error(`clock.timers must be "due" or "all", got ${JSON.stringify(clock.timers)}`);
    }
    return clock;
}
