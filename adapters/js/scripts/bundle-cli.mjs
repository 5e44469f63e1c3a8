// The CLI as one CommonJS file (dist/cli.cjs): an adapter process starts faster loading
// one CommonJS module than the ESM graph tsc emits (Node 20: ~20-30 ms less per process,
// and the harness starts one process per tab). tsc still emits every module, and its
// types, for the library (`import … from "reconcile-sim-adapter"`).
import { build } from "esbuild";
import { chmodSync, rmSync } from "node:fs";

await build({
  entryPoints: ["src/cli.ts"],
  outfile: "dist/cli.cjs",
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node18",
  // The interception library goes in (loaded only by mappings that declare a network,
  // from this one file it costs a few ms instead of ~70 ms of module loading); esbuild and
  // Svelte are loaded from the project by path, never through an import here.
  external: ["esbuild", "svelte", "svelte/*"],
  legalComments: "none",
  logLevel: "warning",
  define: { "import.meta.url": "__importMetaUrl" },
  banner: { js: 'const __importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
});
chmodSync("dist/cli.cjs", 0o755);
// tsc type-checks src/cli.ts and emits it too; the bundle replaces that copy.
rmSync("dist/cli.js", { force: true });
rmSync("dist/cli.d.ts", { force: true });
