// One mapping file, bundled once, and the adapters that serve it: what an adapter process
// does for `exec:` (`reconcile-sim-adapter adapter.ts`), and what the engine inside Node
// does for each of its adapters, many in one process.
//
// Each adapter (`open()`) gets its own evaluation of the bundle (so module-level state of
// the app, a socket client or a store singleton, belongs to one adapter, as it belongs to
// one process with `exec:`), its own runtime and deterministic world.

import { basename } from "node:path";
import { bundle, boundFactory, CompiledBundle, type Bundle, type LoadOptions } from "./loader.js";
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

export class Host {
  private constructor(
    readonly bundle: Bundle,
    readonly compiled: CompiledBundle,
    private readonly options: HostOptions,
  ) {}

  /** Bundle the mapping (or take it from the cache). */
  static async load(options: HostOptions): Promise<Host> {
    const b = await bundle(options.load);
    return new Host(b, new CompiledBundle(b), options);
  }

  /**
   * A new adapter: its runtime, its deterministic globals installed (and made active)
   * before its copy of the app's modules is evaluated, and the mapping's options taken.
   */
  async open(): Promise<AdapterRuntime> {
    let first: ReturnType<CompiledBundle["evaluate"]> | null = null;
    const runtime = new AdapterRuntime({
      name: this.options.name ?? "",
      load: () => {
        const evaluated = first ?? this.compiled.evaluate();
        first = null;
        return boundFactory(evaluated);
      },
      freshModule: this.options.freshModule ?? false,
      args: this.options.args ?? [],
      deltaPrefix: this.options.deltaPrefix ?? "",
    });
    runtime.install();
    first = this.compiled.evaluate();
    const options = first.factory.options ?? {};
    await runtime.configure(options, this.options.name ?? options.name ?? `js:${basename(this.options.load.map)}`);
    return runtime;
  }

  /**
   * The adapters are done for now: the process's real globals (timers, clock, random)
   * are back, and errors belong to no store. Any adapter's next answer puts its world back.
   */
  leave(): void {
    AdapterRuntime.leave();
  }
}
