import type { AdapterOptions, Harness, Mapping } from "./app.js";
export interface LoadOptions {
    /** The mapping file (`adapter.ts`): its default export is the factory. */
    map: string;
    /** Optional store module, handed to the factory as its second argument (its namespace). */
    store?: string;
    /** The project root (default: the nearest directory above the mapping with a package.json). */
    root?: string;
    /** Where bundles are cached (default `<root>/node_modules/.cache/reconcile-sim-adapter`). */
    cacheDir?: string;
    /** Always rebuild (the result is still written to the cache). */
    noCache?: boolean;
    /** Progress and warnings (default: stderr). */
    log?: (line: string) => void;
}
export interface Bundle {
    file: string;
    code: string;
    /** True when the cached bundle was reused. */
    cached: boolean;
    /** Milliseconds spent checking the cache or building. */
    ms: number;
    /** How many files went into it. */
    inputs: number;
}
/** The nearest directory at or above `from` holding a package.json (else `from`). */
export declare function findRoot(from: string): string;
/** The bundle for these options: from the cache, or built (and cached). */
export declare function bundle(options: LoadOptions): Promise<Bundle>;
/**
 * A stub for one of the app's modules: a file (path relative to the mapping file), or the
 * module's named exports as JSON-able data.
 */
export type ModuleStub = string | Record<string, unknown>;
/** What the bundle is wrapped in before it is compiled (coverage offsets count it). */
export declare const WRAPPER = "(function (exports, require, module, __filename, __dirname) {";
/** Compiled once; each `evaluate()` returns a fresh copy of every module in the bundle. */
export declare class CompiledBundle {
    readonly b: Bundle;
    private script;
    private readonly require;
    readonly codeCacheRejected: boolean;
    /** Compiled again for block coverage (`recompileForCoverage`): no code cache is written. */
    private recompiled;
    constructor(b: Bundle);
    /** Keep V8's code cache (with what has been compiled so far) next to the bundle. */
    saveCodeCache(force?: boolean): void;
    /**
     * Compile the bundle again, after block coverage has started (coverage.ts): V8 gives a
     * function block counters only when it compiles it while block coverage is on, and a
     * function compiled before (by earlier runs in this process, or from the code cache)
     * is reported only as a whole, every line of it run whenever it was called. The source
     * ends with a comment so V8's in-process compilation cache does not hand back the old
     * script; the offsets of the bundle's code are unchanged. Only later `evaluate()`s use it.
     */
    recompileForCoverage(): void;
    evaluate(): {
        factory: AdapterFactoryWithStore;
        store: unknown;
    };
}
/** A mapping's default export may take the `--store` module as a second argument. */
export type AdapterFactoryWithStore = ((harness: Harness, store?: unknown) => Mapping | Promise<Mapping>) & {
    options?: AdapterOptions;
};
/** The factory of an evaluated bundle, with the store module bound. */
export declare function boundFactory(evaluated: {
    factory: AdapterFactoryWithStore;
    store: unknown;
}): (harness: Harness) => Mapping | Promise<Mapping>;
export declare const relativeTo: (root: string, path: string) => string;
