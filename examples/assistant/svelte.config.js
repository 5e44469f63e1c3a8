// SvelteKit configuration. `$lib` is src/lib (the default); reconcile-sim-adapter reads
// kit.files.lib and kit.alias from here, as SvelteKit does.
/** @type {import('@sveltejs/kit').Config} */
const config = {
  kit: {},
};

export default config;
