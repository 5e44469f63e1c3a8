// Loads a mapping file (and through it the user's `.svelte.ts` store) into plain Node with
// no bundler set up by the user:
//
// - `.svelte.ts`/`.svelte.js` modules: TypeScript stripped by esbuild, then Svelte's
//   `compileModule(…, { generate: "client" })`: the browser runtime, where `$state` and
//   `$derived` are reactive (Node would otherwise resolve Svelte's server runtime);
//   `.svelte` components with `compile(…, { generate: "client" })`.
// - Everything is bundled once with the `browser` condition (so `svelte`, `esm-env`, …
//   resolve to their browser builds); Node built-ins stay external.
// - `$lib` (and every `kit.alias`) comes from the project's `svelte.config.js`
//   (default `src/lib`); `tsconfig.json` `paths` are honoured by esbuild itself;
//   `$app/environment` is a shim (`browser` true, `dev` false).
// - The bundle is cached under `node_modules/.cache/reconcile-sim-adapter/` and reused
//   while no input file changed (size and mtime of every file that went into it), so
//   every adapter process after the first starts without loading esbuild or the compiler;
//   V8's code cache for the bundle is kept next to it, and its source map (`<key>.cjs.map`,
//   chained through TypeScript stripping and Svelte's compiler back to the files as
//   written), read only when the harness asks for coverage (coverage.ts).
//
// The bundle is CommonJS, evaluated with `vm.Script`: compiled once per process, it can be
// evaluated again for a fresh copy of every user module (`freshModule`).

import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import vm from "node:vm";
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

interface Manifest {
  key: string;
  inputs: [string, number, number][];
}

const PKG_VERSION = readOwnVersion();

function readOwnVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version?: string };
    return pkg.version ?? "0";
  } catch {
    return "0";
  }
}

/** The nearest directory at or above `from` holding a package.json (else `from`). */
export function findRoot(from: string): string {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, "package.json"))) return dir;
    const up = dirname(dir);
    if (up === dir) return resolve(from);
    dir = up;
  }
}

function paths(options: LoadOptions) {
  const map = resolve(options.map);
  const store = options.store === undefined ? undefined : resolve(options.store);
  const root = resolve(options.root ?? findRoot(dirname(map)));
  const cacheDir = resolve(options.cacheDir ?? join(root, "node_modules", ".cache", "reconcile-sim-adapter"));
  // `sm`: bundles cached before source maps were written beside them are built again.
  const key = hash53(JSON.stringify({ v: PKG_VERSION, sm: 1, node: process.versions.modules, map, store: store ?? null, root }));
  return { map, store, root, cacheDir, key, file: join(cacheDir, `${key}.cjs`), manifest: join(cacheDir, `${key}.json`) };
}

/** cyrb53: a 53-bit string hash, as 14 hex digits (a cache file name; node:crypto is not loaded at start-up). */
function hash53(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, "0");
}

function stat(path: string): [number, number] | null {
  const s = statSync(path, { throwIfNoEntry: false });
  return s === undefined ? null : [s.size, s.mtimeMs];
}

/**
 * What the cache checks for an input file: the file itself, or for a file inside an
 * installed package the package's package.json (npm rewrites it on every install), so a
 * start-up stats a few files, not the whole Svelte runtime.
 */
function watched(path: string): string {
  const m = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(path);
  return m === null ? path : join(m[1]!, "package.json");
}

/** The cached bundle, if every file that went into it is unchanged. */
function fromCache(p: ReturnType<typeof paths>): string | null {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(p.manifest, "utf8")) as Manifest;
  } catch {
    return null;
  }
  if (manifest.key !== p.key) return null;
  for (const [path, size, mtime] of manifest.inputs) {
    const s = stat(path);
    if (s === null ? size !== -1 : s[0] !== size || s[1] !== mtime) return null;
  }
  try {
    return readFileSync(p.file, "utf8");
  } catch {
    return null;
  }
}

/** Write atomically (other adapter processes may be reading or writing the same file). */
function writeAtomic(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

/** The bundle for these options: from the cache, or built (and cached). */
export async function bundle(options: LoadOptions): Promise<Bundle> {
  const started = performance.now();
  const p = paths(options);
  if (!options.noCache) {
    const code = fromCache(p);
    if (code !== null) return { file: p.file, code, cached: true, ms: performance.now() - started, inputs: -1 };
  }
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  mkdirSync(p.cacheDir, { recursive: true });
  // The harness starts several adapter processes at once: one builds, the others wait for it.
  const lock = `${p.file}.lock`;
  const locked = await acquire(lock, () => (options.noCache ? null : fromCache(p)));
  if (typeof locked === "string") return { file: p.file, code: locked, cached: true, ms: performance.now() - started, inputs: -1 };
  try {
    const { code, inputs, map } = await build(p, log);
    writeAtomic(`${p.file}.map`, map);
    writeAtomic(p.file, code);
    const watch = [...new Set(inputs.map(watched))].sort();
    const manifest: Manifest = { key: p.key, inputs: watch.map((f) => [f, ...(stat(f) ?? [-1, -1])] as [string, number, number]) };
    writeAtomic(p.manifest, JSON.stringify(manifest));
    return { file: p.file, code, cached: false, ms: performance.now() - started, inputs: inputs.length };
  } finally {
    if (locked) rmSync(lock, { force: true });
  }
}

const LOCK_STALE_MS = 60_000;

/**
 * Take the build lock (true), or wait while another process holds it and return what
 * `ready()` then finds (the bundle it built); false when we build without the lock (it
 * went stale, or waiting took too long).
 */
async function acquire(lock: string, ready: () => string | null): Promise<boolean | string> {
  const waitUntil = Date.now() + LOCK_STALE_MS;
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: "wx" });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") return false;
    }
    const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    if (age > LOCK_STALE_MS) {
      rmSync(lock, { force: true });
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
    const code = ready();
    if (code !== null) return code;
    if (Date.now() > waitUntil) return false;
  }
}

const TS_STRIP = {
  compilerOptions: {
    // Svelte turns `x = $state(…)` class fields into accessors: keep them as fields.
    useDefineForClassFields: true,
    // Imports used only as types are dropped, whatever the project's tsconfig says.
    verbatimModuleSyntax: false,
    preserveValueImports: false,
    importsNotUsedAsValues: "remove",
  },
} as const;

interface SvelteCompiler {
  VERSION: string;
  compileModule(source: string, options: Record<string, unknown>): { js: { code: string; map: { toString(): string } }; warnings: { message: string; filename?: string }[] };
  compile(source: string, options: Record<string, unknown>): { js: { code: string; map: { toString(): string } }; warnings: { message: string; filename?: string }[] };
}

/** Where `specifier` resolves for the project (else for this package). */
function resolveFrom(root: string, specifier: string): string {
  for (const req of [createRequire(join(root, "package.json")), createRequire(import.meta.url)]) {
    try {
      return req.resolve(specifier);
    } catch {
      // next
    }
  }
  throw new Error(`cannot find ${specifier}: install it in ${root} (npm install --save-dev ${specifier.split("/")[0]})`);
}

/** Import a module by path; `probe` is an export it must have (a CommonJS module imported from ESM may have its exports on `default` only). */
async function importPath(path: string, probe: string): Promise<unknown> {
  const mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  return typeof mod[probe] === "function" ? mod : mod.default;
}

/** `$lib` and `kit.alias` from svelte.config.js (defaults when there is none). */
/**
 * `$lib` and `kit.alias` from svelte.config.js. Each entry is [alias, target, fallback]:
 * with no svelte.config.js, `$lib` is whatever tsconfig.json `paths` say (esbuild resolves
 * those) and `src/lib` only when they say nothing.
 */
async function kitAliases(root: string, log: (l: string) => void): Promise<{ aliases: [string, string, boolean][]; config: string | null }> {
  let lib = "src/lib";
  const aliases: [string, string, boolean][] = [];
  let config: string | null = null;
  for (const name of ["svelte.config.js", "svelte.config.mjs"]) {
    const path = join(root, name);
    if (!existsSync(path)) continue;
    config = path;
    try {
      const mod = (await import(pathToFileURL(path).href)) as { default?: { kit?: { files?: { lib?: string }; alias?: Record<string, string> } } };
      const kit = mod.default?.kit;
      if (kit?.files?.lib !== undefined) lib = kit.files.lib;
      for (const [k, v] of Object.entries(kit?.alias ?? {})) aliases.push([k, resolve(root, v), false]);
    } catch (e) {
      log(`reconcile-sim-adapter: could not load ${name} (${(e as Error).message.split("\n")[0]}); using $lib = src/lib`);
    }
    break;
  }
  aliases.push(["$lib", resolve(root, lib), config === null]);
  return { aliases, config };
}

/** A source map as JSON (what esbuild and Svelte's compiler give, and what chains them). */
interface RawMap {
  version: number;
  sources: string[];
  mappings: string;
  [k: string]: unknown;
}

/** `code` with `map` inline, so esbuild chains the bundle's map through it. */
function withInlineMap(code: string, map: RawMap): string {
  return `${code}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString("base64")}\n`;
}

async function build(p: ReturnType<typeof paths>, log: (l: string) => void): Promise<{ code: string; inputs: string[]; map: string }> {
  const esbuild = (await importPath(resolveFrom(p.root, "esbuild"), "build")) as typeof import("esbuild");
  // One Svelte for the compiler and the runtime it targets: the project's (else ours).
  let svelteDir: string | null = null;
  const findSvelte = (): string => (svelteDir ??= dirname(resolveFrom(p.root, "svelte/package.json")));
  let compiler: SvelteCompiler | null = null;
  const svelte = async (): Promise<SvelteCompiler> => {
    compiler ??= (await importPath(createRequire(join(findSvelte(), "package.json")).resolve("svelte/compiler"), "compileModule")) as SvelteCompiler;
    return compiler;
  };
  const { aliases, config } = await kitAliases(p.root, log);
  const extra = new Set<string>();
  if (config !== null) extra.add(config);

  const warn = (w: { message: string; filename?: string }) => log(`svelte: ${w.filename ?? ""}: ${w.message}`);
  const stubs = await declaredModules(p.map, esbuild);
  const overrides = overridePlugin(p.map, stubs);
  const plugin: import("esbuild").Plugin = {
    name: "reconcile-sim-svelte",
    setup(b) {
      b.onResolve({ filter: /^\$app\/environment$/ }, () => ({ path: "$app/environment", namespace: "reconcile-sim-shim" }));
      b.onLoad({ filter: /.*/, namespace: "reconcile-sim-shim" }, () => ({
        contents: "export const browser = true; export const dev = false; export const building = false; export const version = 'reconcile-sim';",
        loader: "js",
      }));
      b.onResolve({ filter: /^svelte(\/.*)?$/ }, async (args) => {
        if ((args.pluginData as { svelte?: boolean } | undefined)?.svelte) return undefined;
        const result = await b.resolve(args.path, { kind: args.kind, resolveDir: findSvelte(), pluginData: { svelte: true } });
        return result.errors.length > 0 ? { errors: result.errors } : result;
      });
      for (const [alias, target, fallback] of aliases) {
        const escaped = alias.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        b.onResolve({ filter: new RegExp(`^${escaped}(/.*)?$`) }, async (args) => {
          if ((args.pluginData as { alias?: boolean } | undefined)?.alias) return undefined;
          if (fallback) {
            // tsconfig.json paths first (esbuild's own resolution), src/lib only if they fail.
            const own = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { alias: true } });
            if (own.errors.length === 0) return own;
          }
          const rest = args.path.slice(alias.length);
          const result = await b.resolve(target + rest, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer });
          return result.errors.length > 0 ? { errors: result.errors } : result;
        });
      }
      b.onLoad({ filter: /\.svelte\.(m?ts|m?js)$/ }, async (args) => {
        let source = readFileSync(args.path, "utf8");
        let stripped: RawMap | null = null;
        if (/\.m?ts$/.test(args.path)) {
          const t = await esbuild.transform(source, { loader: "ts", sourcefile: args.path, target: "esnext", tsconfigRaw: TS_STRIP, sourcemap: "external" });
          source = t.code;
          stripped = JSON.parse(t.map) as RawMap;
        }
        const out = (await svelte()).compileModule(source, { filename: args.path, generate: "client", dev: false });
        out.warnings.forEach(warn);
        // Svelte's map points into the stripped code; chained through esbuild's, into the file as written.
        const compiled = JSON.parse(out.js.map.toString()) as RawMap;
        compiled.sources = [args.path];
        const map = stripped === null ? compiled : await chain(compiled, { ...stripped, sources: [args.path] });
        return { contents: withInlineMap(out.js.code, map), loader: "js", resolveDir: dirname(args.path) };
      });
      b.onLoad({ filter: /\.svelte$/ }, async (args) => {
        const out = (await svelte()).compile(readFileSync(args.path, "utf8"), {
          filename: args.path,
          generate: "client",
          dev: false,
          css: "injected",
        });
        out.warnings.forEach(warn);
        const map = JSON.parse(out.js.map.toString()) as RawMap;
        map.sources = [args.path];
        return { contents: withInlineMap(out.js.code, map), loader: "js", resolveDir: dirname(args.path) };
      });
    },
  };
  /** `outer` (of code made from `inner`'s output) chained through `inner`: one map to the original. */
  const chain = async (outer: RawMap, inner: RawMap): Promise<RawMap> => {
    const remapping = (await importPath(createRequire(join(findSvelte(), "package.json")).resolve("@jridgewell/remapping"), "default")) as unknown;
    const fn = (typeof remapping === "function" ? remapping : (remapping as { default: unknown }).default) as (maps: RawMap[], loader: () => null) => { toString(): string };
    return JSON.parse(fn([outer, inner], () => null).toString()) as RawMap;
  };

  const q = JSON.stringify;
  const entry = [
    `import * as map from ${q(p.map)};`,
    p.store === undefined ? "const store = undefined;" : `import * as store from ${q(p.store)};`,
    "export const factory = map.default;",
    "export { store };",
  ].join("\n");
  const result = await esbuild.build({
    stdin: { contents: entry, resolveDir: p.root, sourcefile: "reconcile-sim-entry.js", loader: "js" },
    absWorkingDir: p.root,
    bundle: true,
    write: false,
    // Beside the bundle, never referenced from it: read only for coverage.
    outfile: p.file,
    sourcemap: "external",
    sourcesContent: false,
    format: "cjs",
    platform: "neutral",
    target: "node18",
    mainFields: ["browser", "module", "main"],
    conditions: ["browser", "production"],
    resolveExtensions: [".ts", ".mts", ".js", ".mjs", ".svelte.ts", ".svelte.js", ".json"],
    external: [...builtinModules, "node:*"],
    define: {
      "process.env.NODE_ENV": '"production"',
      "import.meta.env": q({ MODE: "production", DEV: false, PROD: true, SSR: false, BASE_URL: "/" }),
    },
    metafile: true,
    logLevel: "silent",
    legalComments: "none",
    charset: "utf8",
    plugins: [overrides, plugin],
  });
  for (const w of result.warnings) {
    if (w.text.includes('"import.meta" is not available')) continue;
    log(`esbuild: ${w.location ? `${w.location.file}:${w.location.line}: ` : ""}${w.text}`);
  }
  await esbuild.stop?.();
  const code = result.outputFiles.find((f) => !f.path.endsWith(".map"))!.text;
  const rawMap = JSON.parse(result.outputFiles.find((f) => f.path.endsWith(".map"))!.text) as RawMap;
  // Which sources are the app's own (what coverage reports): not installed packages, not the
  // mapping file and its stubs (the harness's glue), not the shims; paths relative to the root.
  const mapDir = dirname(p.file);
  const stubFiles = new Set(Object.values(stubs).flatMap((v) => (typeof v === "string" ? [resolve(dirname(p.map), v)] : [])));
  const own: number[] = [];
  rawMap.sources = rawMap.sources.map((s, i) => {
    const abs = s.includes(":") && !isAbsolute(s) ? s : resolve(mapDir, s);
    const rel = isAbsolute(abs) ? relative(p.root, abs) : abs;
    const mine = isAbsolute(abs) && !rel.startsWith("..") && !/(^|[\\/])node_modules[\\/]/.test(rel) && abs !== p.map && !stubFiles.has(abs) && !rel.includes("reconcile-sim-entry");
    if (mine) own.push(i);
    return rel.split("\\").join("/");
  });
  rawMap.x_reconcile_sim = { root: p.root, own };
  const inputs = new Set<string>(extra);
  for (const input of Object.keys(result.metafile.inputs)) {
    const path = input.replace(/^[a-z-]+:/, "");
    if (input.startsWith("reconcile-sim-shim:") || path === "reconcile-sim-entry.js" || path === "<stdin>") continue;
    inputs.add(isAbsolute(path) ? path : resolve(p.root, path));
  }
  for (const tsconfig of ["tsconfig.json", "jsconfig.json", join(".svelte-kit", "tsconfig.json")]) inputs.add(join(p.root, tsconfig));
  return { code, inputs: [...inputs].sort(), map: JSON.stringify(rawMap) };
}

/**
 * A stub for one of the app's modules: a file (path relative to the mapping file), or the
 * module's named exports as JSON-able data.
 */
export type ModuleStub = string | Record<string, unknown>;

/**
 * The mapping file's `export const modules = { "$lib/config": "./stubs/config.ts", … }`,
 * read before bundling (the bundle depends on it): the mapping alone is evaluated with
 * every import it makes replaced by an inert stand-in, so `modules` must be a literal.
 */
async function declaredModules(map: string, esbuild: typeof import("esbuild")): Promise<Record<string, ModuleStub>> {
  const source = readFileSync(map, "utf8");
  if (!/\bexport\s+(const|let|var)\s+modules\b/.test(source)) return {};
  const js = (await esbuild.transform(source, { loader: map.endsWith(".js") || map.endsWith(".mjs") ? "js" : "ts", format: "cjs", sourcefile: map, tsconfigRaw: TS_STRIP })).code;
  const inert: unknown = new Proxy(function () {}, { get: (_t, k) => (k === Symbol.toPrimitive ? () => "" : inert), apply: () => inert, construct: () => inert as object });
  const module = { exports: {} as Record<string, unknown> };
  try {
    new vm.Script(`(function (exports, require, module) {${js}\n})`, { filename: map }).runInThisContext()(module.exports, () => inert, module);
  } catch (e) {
    throw new Error(`${map}: could not read \`export const modules\` (it must be a literal; evaluated with the imports stubbed): ${(e as Error).message}`);
  }
  const modules = module.exports.modules;
  if (modules === null || typeof modules !== "object") throw new Error(`${map}: \`modules\` must be an object of specifier → stub`);
  for (const [k, v] of Object.entries(modules)) {
    if (typeof v !== "string" && (v === null || typeof v !== "object")) {
      throw new Error(`${map}: modules[${JSON.stringify(k)}] must be a stub file's path or an object of named exports`);
    }
  }
  return modules as Record<string, ModuleStub>;
}

/**
 * Replaces modules of the app with stubs. A key is resolved as the mapping file would
 * import it; every import that resolves to the same file (`./config.js`, `../config`,
 * `$lib/config`) gets the stub. A key that resolves to nothing (a virtual module such as
 * `$env/static/public`) replaces the imports spelled exactly so.
 */
function overridePlugin(map: string, modules: Record<string, ModuleStub>): import("esbuild").Plugin {
  const keys = Object.keys(modules);
  return {
    name: "reconcile-sim-modules",
    setup(b) {
      if (keys.length === 0) return;
      const skip = { override: true }; // our own resolutions: not overridden again
      // resolved path → key. Resolved before the build starts (esbuild waits for onStart):
      // a key's resolution may pass through this plugin again, which then stays out of it.
      let targets: Map<string, string> | null = null;
      b.onStart(async () => {
        const out = new Map<string, string>();
        for (const key of keys) {
          const r = await b.resolve(key, { kind: "import-statement", resolveDir: dirname(map), pluginData: skip });
          if (r.errors.length === 0 && r.path !== "") out.set(r.path, key);
        }
        targets = out;
      });
      const stubs = new Set(keys.flatMap((k) => (typeof modules[k] === "string" ? [resolve(dirname(map), modules[k] as string)] : [])));
      b.onResolve({ filter: /.*/ }, async (args) => {
        // Only the imports as written: another plugin's own resolutions carry its pluginData.
        if (args.pluginData !== undefined || args.kind === "entry-point") return undefined;
        if (stubs.has(args.importer) || targets === null) return undefined; // a stub may import what it replaces
        let key: string | undefined = Object.hasOwn(modules, args.path) ? args.path : undefined;
        if (key === undefined) {
          const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: skip });
          if (r.errors.length > 0) return undefined;
          key = targets.get(r.path);
          if (key === undefined) return { ...r, pluginData: undefined };
        }
        const stub = modules[key]!;
        if (typeof stub === "string") return { path: resolve(dirname(map), stub) };
        return { path: key, namespace: "reconcile-sim-module" };
      });
      b.onLoad({ filter: /.*/, namespace: "reconcile-sim-module" }, (args) => ({ contents: JSON.stringify(modules[args.path]), loader: "json" }));
    },
  };
}

/** What the bundle is wrapped in before it is compiled (coverage offsets count it). */
export const WRAPPER = "(function (exports, require, module, __filename, __dirname) {";

/** Compiled once; each `evaluate()` returns a fresh copy of every module in the bundle. */
export class CompiledBundle {
  private script: vm.Script;
  private readonly require: NodeJS.Require;
  readonly codeCacheRejected: boolean;
  /** Compiled again for block coverage (`recompileForCoverage`): no code cache is written. */
  private recompiled = false;

  constructor(readonly b: Bundle) {
    const cacheFile = b.file.replace(/\.cjs$/, ".v8");
    let cachedData: Buffer | undefined;
    if (b.cached) {
      try {
        cachedData = readFileSync(cacheFile);
      } catch {
        cachedData = undefined;
      }
    }
    this.script = new vm.Script(`${WRAPPER}${b.code}\n})`, {
      filename: b.file,
      ...(cachedData === undefined ? {} : { cachedData }),
    });
    this.codeCacheRejected = cachedData === undefined || this.script.cachedDataRejected === true;
    this.require = createRequire(b.file);
  }

  /** Keep V8's code cache (with what has been compiled so far) next to the bundle. */
  saveCodeCache(force = false): void {
    if (this.recompiled || (!force && !this.codeCacheRejected)) return;
    try {
      writeAtomic(this.b.file.replace(/\.cjs$/, ".v8"), this.script.createCachedData());
    } catch {
      // a cache, nothing more
    }
  }

  /**
   * Compile the bundle again, after block coverage has started (coverage.ts): V8 gives a
   * function block counters only when it compiles it while block coverage is on, and a
   * function compiled before (by earlier runs in this process, or from the code cache)
   * is reported only as a whole, every line of it run whenever it was called. The source
   * ends with a comment so V8's in-process compilation cache does not hand back the old
   * script; the offsets of the bundle's code are unchanged. Only later `evaluate()`s use it.
   */
  recompileForCoverage(): void {
    this.script = new vm.Script(`${WRAPPER}${this.b.code}\n})\n// recompiled for block coverage`, { filename: this.b.file });
    this.recompiled = true;
  }

  evaluate(): { factory: AdapterFactoryWithStore; store: unknown } {
    const wrapper = this.script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: { exports: unknown }, f: string, d: string) => void;
    const module = { exports: {} as Record<string, unknown> };
    wrapper(module.exports, this.require, module, this.b.file, dirname(this.b.file));
    const factory = module.exports.factory;
    if (typeof factory !== "function") {
      throw new Error("the mapping file must `export default` a factory: export default defineAdapter((harness) => ({ … }))");
    }
    return { factory: factory as AdapterFactoryWithStore, store: module.exports.store };
  }
}

/** A mapping's default export may take the `--store` module as a second argument. */
export type AdapterFactoryWithStore = ((harness: Harness, store?: unknown) => Mapping | Promise<Mapping>) & {
  options?: AdapterOptions;
};

/** The factory of an evaluated bundle, with the store module bound. */
export function boundFactory(evaluated: { factory: AdapterFactoryWithStore; store: unknown }): (harness: Harness) => Mapping | Promise<Mapping> {
  return (harness) => evaluated.factory(harness, evaluated.store);
}

export const relativeTo = (root: string, path: string) => relative(root, path) || ".";
