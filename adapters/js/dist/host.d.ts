import { CompiledBundle, type Bundle, type LoadOptions } from "./loader.js";
import { AdapterRuntime } from "./runtime.js";
export interface HostOptions {
    /** How the mapping is found and bundled. */
    load: LoadOptions;
    /** The name in the hello answer (default: the mapping's, else `js:<file>`). */
    name?: string;
    /** Re-evaluate every user module on each reset (module-level singletons). */
    freshModule?: boolean;
    /** `Harness.args`. */
    args?: readonly string[];
    /** See `RuntimeOptions.deltaPrefix`. */
    deltaPrefix?: string;
}
export declare class Host {
    readonly bundle: Bundle;
    readonly compiled: CompiledBundle;
    private readonly options;
    private constructor();
    /** Bundle the mapping (or take it from the cache). */
    static load(options: HostOptions): Promise<Host>;
    /**
     * A new adapter: its runtime, its deterministic globals installed (and made active)
     * before its copy of the app's modules is evaluated, and the mapping's options taken.
     */
    open(): Promise<AdapterRuntime>;
    /**
     * The adapters are done for now: the process's real globals (timers, clock, random)
     * are back, and errors belong to no store. Any adapter's next answer puts its world back.
     */
    leave(): void;
}
