// What a mapping file sees: the harness as an API to inject into the store, and the
// hooks it implements. Values here are in the app's shape (camelCase fields, the store's
// own message ids), converted from the wire by the runtime.
import { normaliseWorld } from "./contract.js";
/**
 * Types the mapping and attaches its options:
 * `export default defineAdapter((harness) => ({ … }), { name: "svelte:tabs" })`.
 * With `--store`, type the module: `defineAdapter<typeof import("./src/lib/stores/tabs.svelte")>((h, tabs) => …)`.
 */
export function defineAdapter(factory, options) {
    normaliseWorld(options?.world); // a malformed contract fails where it is written
    const adapter = (harness, store) => factory(harness, store);
    if (options !== undefined)
        adapter.options = options;
    return adapter;
}
