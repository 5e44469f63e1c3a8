// A deterministic world for the store: an adapter must be a deterministic function of the
// requests since its last `reset` (docs/protocol.md), so everything a browser store may
// read from the outside world is replaced by something derived from the run alone.
//
// - `crypto.randomUUID()`: 00000000-0000-4000-8000-000000000001, …002, … (counter per reset)
// - `Math.random()`, `crypto.getRandomValues()`: a seeded generator, reseeded on reset
// - `Date`, `Date.now()`, `performance.now()`: a virtual clock, reset to 2024-01-01T00:00Z
// - `queueMicrotask`: the same microtask queue, without Node's per-callback AsyncResource
// - `setTimeout`/`setInterval`/`requestAnimationFrame` (and their clear*): fake timers on
//   that clock. They never fire by themselves: before it answers an input, the runtime runs
//   the timers that are due, in due order (the clock moves only by the mapping's declared
//   step per input; with `clock.timers: "all"`, every pending timer, the clock advancing to
//   each one's due time).
//
// The adapter itself keeps the real functions (captured before installing).
/** The clock's value after every reset: 2024-01-01T00:00:00Z. */
export const EPOCH = 1704067200000;
const SEED = 0x9e3779b9;
/** Timer callbacks one settle may run before it gives up (an interval never stops). */
export const MAX_TIMER_RUNS = 10000;
import { createRequire, syncBuiltinESMExports } from "node:module";
export const realSetImmediate = globalThis.setImmediate;
const RealDate = Date;
/**
 * The world the installed globals read: the one whose adapter is answering now. An
 * adapter process has one; in process (the engine inside Node) there is one per adapter,
 * and each adapter's runtime makes its own active before it answers (`activate`).
 */
let active = null;
/** The globals are replaced once per process (realm), whichever world made them. */
let installed = false;
/** Every global replaced by `install`, so a host can put the real ones back between answers. */
const swaps = [];
/** Whether the fakes are in place now. */
let faked = false;
/** Replace `target[key]` by `value` (kept in `swaps`, to be put back by `restoreGlobals`). */
function swap(target, key, value) {
    const real = Object.getOwnPropertyDescriptor(target, key);
    const fake = { value, writable: true, configurable: true, enumerable: real?.enumerable ?? false };
    swaps.push({ target, key, fake, real });
    Object.defineProperty(target, key, fake);
}
/**
 * Put the real globals back (timers, Date, Math.random, …), for a host that runs other
 * code between the store's answers in the same process (a test runner, with the engine
 * inside Node): its own timers must fire and its clock must move. `replaceGlobals` puts
 * the store's back before the next answer. An adapter process never needs it.
 */
export function restoreGlobals() {
    if (!faked)
        return;
    faked = false;
    for (let i = swaps.length - 1; i >= 0; i--) {
        const { target, key, real } = swaps[i];
        if (real === undefined)
            delete target[key];
        else
            Object.defineProperty(target, key, real);
    }
}
/** Put the store's deterministic globals back in place (after `restoreGlobals`). */
export function replaceGlobals() {
    if (faked || !installed)
        return;
    faked = true;
    for (const { target, key, fake } of swaps)
        Object.defineProperty(target, key, fake);
}
export class DeterministicWorld {
    now = EPOCH;
    uuids = 0;
    rng = SEED;
    timers = new Map();
    nextTimer = 1;
    order = 0;
    /** What the runtime says is creating timers now (kept with each timer for state digests). */
    origin = () => "";
    reset() {
        this.now = EPOCH;
        this.uuids = 0;
        this.rng = SEED;
        this.timers.clear();
        this.nextTimer = 1;
        this.order = 0;
    }
    nextUuid() {
        this.uuids += 1;
        return `00000000-0000-4000-8000-${this.uuids.toString(16).padStart(12, "0")}`;
    }
    /** mulberry32 */
    random() {
        this.rng = (this.rng + 0x6d2b79f5) | 0;
        let t = this.rng;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    }
    get pendingTimers() {
        return this.timers.size;
    }
    /** The pending timers as data, for state digests: [due - now, interval, origin] in run order. */
    timerState() {
        return [...this.timers.values()]
            .sort((a, b) => a.due - b.due || a.order - b.order)
            .map((t) => [t.due - this.now, t.interval, t.origin]);
    }
    addTimer(fn, delay, args, repeat) {
        if (typeof fn !== "function")
            throw new TypeError("timer callback is not a function");
        const ms = Math.max(0, Number(delay) || 0);
        const id = this.nextTimer++;
        this.timers.set(id, {
            due: this.now + ms,
            order: this.order++,
            fn: fn,
            args,
            interval: repeat ? Math.max(1, ms) : null,
            origin: this.origin(),
        });
        return id;
    }
    clearTimer(id) {
        if (typeof id === "number")
            this.timers.delete(id);
    }
    /** Is a pending timer due now (its time reached by the clock)? */
    hasDueTimer() {
        for (const t of this.timers.values())
            if (t.due <= this.now)
                return true;
        return false;
    }
    /** Run the earliest pending timer (advancing the clock to it); false when none is pending. */
    runNextTimer() {
        let nextId = -1;
        let next;
        for (const [id, t] of this.timers) {
            if (next === undefined || t.due < next.due || (t.due === next.due && t.order < next.order)) {
                next = t;
                nextId = id;
            }
        }
        if (next === undefined)
            return false;
        if (next.due > this.now)
            this.now = next.due;
        if (next.interval === null) {
            this.timers.delete(nextId);
        }
        else {
            next.due = this.now + next.interval;
            next.order = this.order++;
        }
        next.fn(...next.args);
        return true;
    }
    /** Make this the world the globals read (until another world is made active). */
    activate() {
        active = this;
    }
    /** Replace the globals a browser store may read (once per process), and make this world active. */
    install() {
        this.activate();
        if (installed) {
            replaceGlobals();
            return;
        }
        installed = true;
        faked = true;
        const g = globalThis;
        const cryptoObj = globalThis.crypto;
        if (cryptoObj !== undefined) {
            swap(cryptoObj, "randomUUID", () => active.nextUuid());
            swap(cryptoObj, "getRandomValues", (array) => {
                if (array !== null) {
                    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
                    for (let i = 0; i < bytes.length; i++)
                        bytes[i] = Math.floor(active.random() * 256);
                }
                return array;
            });
        }
        // The same for code that imports Node's module (`import { randomUUID } from "node:crypto"`).
        const nodeCrypto = createRequire(import.meta.url)("node:crypto");
        nodeCrypto.randomUUID = () => active.nextUuid();
        syncBuiltinESMExports(); // and for ESM named imports of it
        swap(Math, "random", () => active.random());
        const VirtualDate = new Proxy(RealDate, {
            construct(target, args, newTarget) {
                return Reflect.construct(target, args.length === 0 ? [active.now] : args, newTarget);
            },
            apply() {
                return new RealDate(active.now).toString();
            },
            get(target, prop, receiver) {
                if (prop === "now")
                    return () => active.now;
                return Reflect.get(target, prop, receiver);
            },
        });
        swap(g, "Date", VirtualDate);
        if (typeof globalThis.performance === "object" && globalThis.performance !== null) {
            swap(globalThis.performance, "now", () => active.now - EPOCH);
        }
        // Node's queueMicrotask wraps every callback in an AsyncResource (Svelte queues one per
        // batch of state changes); a resolved promise's then() is the same queue without that cost.
        // A callback that throws becomes an unhandled rejection instead of an uncaught exception:
        // the runtime reports both as a crash of the store.
        const resolved = Promise.resolve();
        swap(g, "queueMicrotask", (fn) => {
            if (typeof fn !== "function")
                throw new TypeError("queueMicrotask: callback is not a function");
            void resolved.then(fn);
        });
        swap(g, "setTimeout", (fn, delay, ...args) => active.addTimer(fn, delay, args, false));
        swap(g, "setInterval", (fn, delay, ...args) => active.addTimer(fn, delay, args, true));
        swap(g, "clearTimeout", (id) => active.clearTimer(id));
        swap(g, "clearInterval", (id) => active.clearTimer(id));
        swap(g, "requestAnimationFrame", (fn) => active.addTimer(() => fn(active.now - EPOCH), 16, [], false));
        swap(g, "cancelAnimationFrame", (id) => active.clearTimer(id));
        swap(g, "requestIdleCallback", (fn) => active.addTimer(() => fn({ didTimeout: false, timeRemaining: () => 0 }), 1, [], false));
        swap(g, "cancelIdleCallback", (id) => active.clearTimer(id));
    }
}
