/** The clock's value after every reset: 2024-01-01T00:00:00Z. */
export declare const EPOCH = 1704067200000;
/** Timer callbacks one settle may run before it gives up (an interval never stops). */
export declare const MAX_TIMER_RUNS = 10000;
export declare const realSetImmediate: typeof setImmediate;
/**
 * Put the real globals back (timers, Date, Math.random, …), for a host that runs other
 * code between the store's answers in the same process (a test runner, with the engine
 * inside Node): its own timers must fire and its clock must move. `replaceGlobals` puts
 * the store's back before the next answer. An adapter process never needs it.
 */
export declare function restoreGlobals(): void;
/** Put the store's deterministic globals back in place (after `restoreGlobals`). */
export declare function replaceGlobals(): void;
export declare class DeterministicWorld {
    now: number;
    uuids: number;
    rng: number;
    private timers;
    private nextTimer;
    private order;
    /** What the runtime says is creating timers now (kept with each timer for state digests). */
    origin: () => string;
    reset(): void;
    nextUuid(): string;
    /** mulberry32 */
    random(): number;
    get pendingTimers(): number;
    /** The pending timers as data, for state digests: [due - now, interval, origin] in run order. */
    timerState(): unknown[];
    addTimer(fn: unknown, delay: unknown, args: unknown[], repeat: boolean): number;
    clearTimer(id: unknown): void;
    /** Is a pending timer due now (its time reached by the clock)? */
    hasDueTimer(): boolean;
    /** Run the earliest pending timer (advancing the clock to it); false when none is pending. */
    runNextTimer(): boolean;
    /** Make this the world the globals read (until another world is made active). */
    activate(): void;
    /** Replace the globals a browser store may read (once per process), and make this world active. */
    install(): void;
}
