// reconcile-sim-adapter: drive a real (Svelte 5 / TypeScript) reconcile store from
// reconcile-sim over the exec protocol (docs/protocol.md in the reconcile-sim repository).
//
// A mapping file default-exports `defineAdapter((harness) => hooks)`; the CLI
// (`reconcile-sim-adapter adapter.ts`) compiles it with the store and serves it. `serve()`
// does the same for a mapping already loaded by other means (vite-node, tsx, plain JS).
import { AdapterRuntime } from "./runtime.js";
import { redirectConsole, serveStdio } from "./serve.js";
export { defineAdapter } from "./app.js";
export { expandToolBatch, flattenMessages, sealedRows } from "./render.js";
export { normaliseWorld } from "./contract.js";
export { canonicalJson } from "./digest.js";
export { AdapterRuntime } from "./runtime.js";
export { PROTOCOL } from "./wire.js";
/**
 * Serve the protocol on stdin/stdout with this mapping until stdin closes, then exit.
 * Call it before anything else prints: console output is sent to stderr from here on.
 * (The CLI installs the deterministic globals before the store's modules load; here they
 * are installed when `serve` is called, after your imports ran.)
 */
export async function serve(factory, options = {}) {
    redirectConsole();
    const runtime = new AdapterRuntime({
        name: options.name ?? factory.options?.name ?? "js",
        load: () => (harness) => factory(harness, options.store),
        args: options.args ?? [],
        translateIds: options.translateIds ?? factory.options?.translateIds ?? true,
        deltaPrefix: options.deltaPrefix ?? process.env.RECONCILE_SIM_ADAPTER_DELTA_PREFIX ?? "",
    });
    runtime.install();
    await runtime.configure(factory.options ?? {});
    await serveStdio((msg) => runtime.respond(msg));
    process.exit(0);
}
