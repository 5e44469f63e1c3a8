#!/usr/bin/env node
const __importMetaUrl = require("node:url").pathToFileURL(__filename).href;
"use strict";
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

// src/cli.ts
var import_node_fs3 = require("node:fs");
var import_node_path2 = require("node:path");

// src/loader.ts
var import_node_fs = require("node:fs");
var import_node_module = require("node:module");
var import_node_path = require("node:path");
var import_node_url = require("node:url");
var import_node_vm = __toESM(require("node:vm"), 1);
var PKG_VERSION = readOwnVersion();
function readOwnVersion() {
  try {
    const pkg = JSON.parse((0, import_node_fs.readFileSync)(new URL("../package.json", __importMetaUrl), "utf8"));
    return pkg.version ?? "0";
  } catch {
    return "0";
  }
}
function findRoot(from) {
  let dir = (0, import_node_path.resolve)(from);
  for (; ; ) {
    if ((0, import_node_fs.existsSync)((0, import_node_path.join)(dir, "package.json"))) return dir;
    const up = (0, import_node_path.dirname)(dir);
    if (up === dir) return (0, import_node_path.resolve)(from);
    dir = up;
  }
}
function paths(options) {
  const map = (0, import_node_path.resolve)(options.map);
  const store = options.store === void 0 ? void 0 : (0, import_node_path.resolve)(options.store);
  const root = (0, import_node_path.resolve)(options.root ?? findRoot((0, import_node_path.dirname)(map)));
  const cacheDir = (0, import_node_path.resolve)(options.cacheDir ?? (0, import_node_path.join)(root, "node_modules", ".cache", "reconcile-sim-adapter"));
  const key = hash53(JSON.stringify({ v: PKG_VERSION, node: process.versions.modules, map, store: store ?? null, root }));
  return { map, store, root, cacheDir, key, file: (0, import_node_path.join)(cacheDir, `${key}.cjs`), manifest: (0, import_node_path.join)(cacheDir, `${key}.json`) };
}
function hash53(text) {
  let h1 = 3735928559;
  let h2 = 1103547991;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ h1 >>> 16, 2246822507) ^ Math.imul(h2 ^ h2 >>> 13, 3266489909);
  h2 = Math.imul(h2 ^ h2 >>> 16, 2246822507) ^ Math.imul(h1 ^ h1 >>> 13, 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, "0");
}
function stat(path) {
  const s = (0, import_node_fs.statSync)(path, { throwIfNoEntry: false });
  return s === void 0 ? null : [s.size, s.mtimeMs];
}
function watched(path) {
  const m = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(path);
  return m === null ? path : (0, import_node_path.join)(m[1], "package.json");
}
function fromCache(p) {
  let manifest;
  try {
    manifest = JSON.parse((0, import_node_fs.readFileSync)(p.manifest, "utf8"));
  } catch {
    return null;
  }
  if (manifest.key !== p.key) return null;
  for (const [path, size, mtime] of manifest.inputs) {
    const s = stat(path);
    if (s === null ? size !== -1 : s[0] !== size || s[1] !== mtime) return null;
  }
  try {
    return (0, import_node_fs.readFileSync)(p.file, "utf8");
  } catch {
    return null;
  }
}
function writeAtomic(path, data) {
  const tmp = `${path}.${process.pid}.tmp`;
  (0, import_node_fs.writeFileSync)(tmp, data);
  (0, import_node_fs.renameSync)(tmp, path);
}
async function bundle(options) {
  const started = performance.now();
  const p = paths(options);
  if (!options.noCache) {
    const code = fromCache(p);
    if (code !== null) return { file: p.file, code, cached: true, ms: performance.now() - started, inputs: -1 };
  }
  const log = options.log ?? ((line) => process.stderr.write(`${line}
`));
  (0, import_node_fs.mkdirSync)(p.cacheDir, { recursive: true });
  const lock = `${p.file}.lock`;
  const locked = await acquire(lock, () => options.noCache ? null : fromCache(p));
  if (typeof locked === "string") return { file: p.file, code: locked, cached: true, ms: performance.now() - started, inputs: -1 };
  try {
    const { code, inputs } = await build(p, log);
    writeAtomic(p.file, code);
    const watch = [...new Set(inputs.map(watched))].sort();
    const manifest = { key: p.key, inputs: watch.map((f) => [f, ...stat(f) ?? [-1, -1]]) };
    writeAtomic(p.manifest, JSON.stringify(manifest));
    return { file: p.file, code, cached: false, ms: performance.now() - started, inputs: inputs.length };
  } finally {
    if (locked) (0, import_node_fs.rmSync)(lock, { force: true });
  }
}
var LOCK_STALE_MS = 6e4;
async function acquire(lock, ready) {
  const waitUntil = Date.now() + LOCK_STALE_MS;
  for (; ; ) {
    try {
      (0, import_node_fs.writeFileSync)(lock, String(process.pid), { flag: "wx" });
      return true;
    } catch (e) {
      if (e.code !== "EEXIST") return false;
    }
    const age = Date.now() - ((0, import_node_fs.statSync)(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    if (age > LOCK_STALE_MS) {
      (0, import_node_fs.rmSync)(lock, { force: true });
      continue;
    }
    await new Promise((resolve2) => setTimeout(resolve2, 25));
    const code = ready();
    if (code !== null) return code;
    if (Date.now() > waitUntil) return false;
  }
}
var TS_STRIP = {
  compilerOptions: {
    // Svelte turns `x = $state(…)` class fields into accessors: keep them as fields.
    useDefineForClassFields: true,
    // Imports used only as types are dropped, whatever the project's tsconfig says.
    verbatimModuleSyntax: false,
    preserveValueImports: false,
    importsNotUsedAsValues: "remove"
  }
};
function resolveFrom(root, specifier) {
  for (const req of [(0, import_node_module.createRequire)((0, import_node_path.join)(root, "package.json")), (0, import_node_module.createRequire)(__importMetaUrl)]) {
    try {
      return req.resolve(specifier);
    } catch {
    }
  }
  throw new Error(`cannot find ${specifier}: install it in ${root} (npm install --save-dev ${specifier.split("/")[0]})`);
}
async function importPath(path, probe) {
  const mod = await import((0, import_node_url.pathToFileURL)(path).href);
  return typeof mod[probe] === "function" ? mod : mod.default;
}
async function kitAliases(root, log) {
  let lib = "src/lib";
  const aliases = [];
  let config = null;
  for (const name of ["svelte.config.js", "svelte.config.mjs"]) {
    const path = (0, import_node_path.join)(root, name);
    if (!(0, import_node_fs.existsSync)(path)) continue;
    config = path;
    try {
      const mod = await import((0, import_node_url.pathToFileURL)(path).href);
      const kit = mod.default?.kit;
      if (kit?.files?.lib !== void 0) lib = kit.files.lib;
      for (const [k, v] of Object.entries(kit?.alias ?? {})) aliases.push([k, (0, import_node_path.resolve)(root, v), false]);
    } catch (e) {
      log(`reconcile-sim-adapter: could not load ${name} (${e.message.split("\n")[0]}); using $lib = src/lib`);
    }
    break;
  }
  aliases.push(["$lib", (0, import_node_path.resolve)(root, lib), config === null]);
  return { aliases, config };
}
async function build(p, log) {
  const esbuild = await importPath(resolveFrom(p.root, "esbuild"), "build");
  let svelteDir = null;
  const findSvelte = () => svelteDir ??= (0, import_node_path.dirname)(resolveFrom(p.root, "svelte/package.json"));
  let compiler = null;
  const svelte = async () => {
    compiler ??= await importPath((0, import_node_module.createRequire)((0, import_node_path.join)(findSvelte(), "package.json")).resolve("svelte/compiler"), "compileModule");
    return compiler;
  };
  const { aliases, config } = await kitAliases(p.root, log);
  const extra = /* @__PURE__ */ new Set();
  if (config !== null) extra.add(config);
  const warn = (w) => log(`svelte: ${w.filename ?? ""}: ${w.message}`);
  const plugin = {
    name: "reconcile-sim-svelte",
    setup(b) {
      b.onResolve({ filter: /^\$app\/environment$/ }, () => ({ path: "$app/environment", namespace: "reconcile-sim-shim" }));
      b.onLoad({ filter: /.*/, namespace: "reconcile-sim-shim" }, () => ({
        contents: "export const browser = true; export const dev = false; export const building = false; export const version = 'reconcile-sim';",
        loader: "js"
      }));
      b.onResolve({ filter: /^svelte(\/.*)?$/ }, async (args) => {
        if (args.pluginData?.svelte) return void 0;
        const result2 = await b.resolve(args.path, { kind: args.kind, resolveDir: findSvelte(), pluginData: { svelte: true } });
        return result2.errors.length > 0 ? { errors: result2.errors } : result2;
      });
      for (const [alias, target, fallback] of aliases) {
        const escaped = alias.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        b.onResolve({ filter: new RegExp(`^${escaped}(/.*)?$`) }, async (args) => {
          if (args.pluginData?.alias) return void 0;
          if (fallback) {
            const own = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { alias: true } });
            if (own.errors.length === 0) return own;
          }
          const rest = args.path.slice(alias.length);
          const result2 = await b.resolve(target + rest, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer });
          return result2.errors.length > 0 ? { errors: result2.errors } : result2;
        });
      }
      b.onLoad({ filter: /\.svelte\.(m?ts|m?js)$/ }, async (args) => {
        let source = (0, import_node_fs.readFileSync)(args.path, "utf8");
        if (/\.m?ts$/.test(args.path)) {
          source = (await esbuild.transform(source, { loader: "ts", sourcefile: args.path, target: "esnext", tsconfigRaw: TS_STRIP })).code;
        }
        const out = (await svelte()).compileModule(source, { filename: args.path, generate: "client", dev: false });
        out.warnings.forEach(warn);
        return { contents: out.js.code, loader: "js", resolveDir: (0, import_node_path.dirname)(args.path) };
      });
      b.onLoad({ filter: /\.svelte$/ }, async (args) => {
        const out = (await svelte()).compile((0, import_node_fs.readFileSync)(args.path, "utf8"), {
          filename: args.path,
          generate: "client",
          dev: false,
          css: "injected"
        });
        out.warnings.forEach(warn);
        return { contents: out.js.code, loader: "js", resolveDir: (0, import_node_path.dirname)(args.path) };
      });
    }
  };
  const q = JSON.stringify;
  const entry = [
    `import * as map from ${q(p.map)};`,
    p.store === void 0 ? "const store = undefined;" : `import * as store from ${q(p.store)};`,
    "export const factory = map.default;",
    "export { store };"
  ].join("\n");
  const result = await esbuild.build({
    stdin: { contents: entry, resolveDir: p.root, sourcefile: "reconcile-sim-entry.js", loader: "js" },
    absWorkingDir: p.root,
    bundle: true,
    write: false,
    format: "cjs",
    platform: "neutral",
    target: "node18",
    mainFields: ["browser", "module", "main"],
    conditions: ["browser", "production"],
    resolveExtensions: [".ts", ".mts", ".js", ".mjs", ".svelte.ts", ".svelte.js", ".json"],
    external: [...import_node_module.builtinModules, "node:*"],
    define: {
      "process.env.NODE_ENV": '"production"',
      "import.meta.env": q({ MODE: "production", DEV: false, PROD: true, SSR: false, BASE_URL: "/" })
    },
    metafile: true,
    logLevel: "silent",
    legalComments: "none",
    charset: "utf8",
    plugins: [plugin]
  });
  for (const w of result.warnings) {
    if (w.text.includes('"import.meta" is not available')) continue;
    log(`esbuild: ${w.location ? `${w.location.file}:${w.location.line}: ` : ""}${w.text}`);
  }
  await esbuild.stop?.();
  const code = result.outputFiles[0].text;
  const inputs = new Set(extra);
  for (const input of Object.keys(result.metafile.inputs)) {
    const path = input.replace(/^[a-z-]+:/, "");
    if (input.startsWith("reconcile-sim-shim:") || path === "reconcile-sim-entry.js" || path === "<stdin>") continue;
    inputs.add((0, import_node_path.isAbsolute)(path) ? path : (0, import_node_path.resolve)(p.root, path));
  }
  for (const tsconfig of ["tsconfig.json", "jsconfig.json", (0, import_node_path.join)(".svelte-kit", "tsconfig.json")]) inputs.add((0, import_node_path.join)(p.root, tsconfig));
  return { code, inputs: [...inputs].sort() };
}
var CompiledBundle = class {
  constructor(b) {
    this.b = b;
    const cacheFile = b.file.replace(/\.cjs$/, ".v8");
    let cachedData;
    if (b.cached) {
      try {
        cachedData = (0, import_node_fs.readFileSync)(cacheFile);
      } catch {
        cachedData = void 0;
      }
    }
    this.script = new import_node_vm.default.Script(`(function (exports, require, module, __filename, __dirname) {${b.code}
})`, {
      filename: b.file,
      ...cachedData === void 0 ? {} : { cachedData }
    });
    this.codeCacheRejected = cachedData === void 0 || this.script.cachedDataRejected === true;
    this.require = (0, import_node_module.createRequire)(b.file);
  }
  b;
  script;
  require;
  codeCacheRejected;
  /** Keep V8's code cache (with what has been compiled so far) next to the bundle. */
  saveCodeCache(force = false) {
    if (!force && !this.codeCacheRejected) return;
    try {
      writeAtomic(this.b.file.replace(/\.cjs$/, ".v8"), this.script.createCachedData());
    } catch {
    }
  }
  evaluate() {
    const wrapper = this.script.runInThisContext();
    const module2 = { exports: {} };
    wrapper(module2.exports, this.require, module2, this.b.file, (0, import_node_path.dirname)(this.b.file));
    const factory = module2.exports.factory;
    if (typeof factory !== "function") {
      throw new Error("the mapping file must `export default` a factory: export default defineAdapter((harness) => ({ \u2026 }))");
    }
    return { factory, store: module2.exports.store };
  }
};
function boundFactory(evaluated) {
  return (harness) => evaluated.factory(harness, evaluated.store);
}

// src/determinism.ts
var import_node_module2 = require("node:module");
var EPOCH = 17040672e5;
var SEED = 2654435769;
var MAX_TIMER_RUNS = 1e4;
var realSetImmediate = globalThis.setImmediate;
var RealDate = Date;
var DeterministicWorld = class {
  now = EPOCH;
  uuids = 0;
  rng = SEED;
  timers = /* @__PURE__ */ new Map();
  nextTimer = 1;
  order = 0;
  /** What the runtime says is creating timers now (kept with each timer for state digests). */
  origin = () => "";
  installed = false;
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
    this.rng = this.rng + 1831565813 | 0;
    let t = this.rng;
    t = Math.imul(t ^ t >>> 15, t | 1);
    t ^= t + Math.imul(t ^ t >>> 7, t | 61);
    return ((t ^ t >>> 14) >>> 0) / 4294967296;
  }
  get pendingTimers() {
    return this.timers.size;
  }
  /** The pending timers as data, for state digests: [due - now, interval, origin] in run order. */
  timerState() {
    return [...this.timers.values()].sort((a, b) => a.due - b.due || a.order - b.order).map((t) => [t.due - this.now, t.interval, t.origin]);
  }
  addTimer(fn, delay, args, repeat) {
    if (typeof fn !== "function") throw new TypeError("timer callback is not a function");
    const ms = Math.max(0, Number(delay) || 0);
    const id = this.nextTimer++;
    this.timers.set(id, {
      due: this.now + ms,
      order: this.order++,
      fn,
      args,
      interval: repeat ? Math.max(1, ms) : null,
      origin: this.origin()
    });
    return id;
  }
  clearTimer(id) {
    if (typeof id === "number") this.timers.delete(id);
  }
  /** Run the earliest pending timer (advancing the clock to it); false when none is pending. */
  runNextTimer() {
    let nextId = -1;
    let next;
    for (const [id, t] of this.timers) {
      if (next === void 0 || t.due < next.due || t.due === next.due && t.order < next.order) {
        next = t;
        nextId = id;
      }
    }
    if (next === void 0) return false;
    if (next.due > this.now) this.now = next.due;
    if (next.interval === null) {
      this.timers.delete(nextId);
    } else {
      next.due = this.now + next.interval;
      next.order = this.order++;
    }
    next.fn(...next.args);
    return true;
  }
  /** Replace the globals a browser store may read (once per process). */
  install() {
    if (this.installed) return;
    this.installed = true;
    const world = this;
    const g = globalThis;
    const cryptoObj = globalThis.crypto;
    if (cryptoObj !== void 0) {
      define(cryptoObj, "randomUUID", () => world.nextUuid());
      define(cryptoObj, "getRandomValues", (array) => {
        if (array !== null) {
          const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
          for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(world.random() * 256);
        }
        return array;
      });
    }
    const nodeCrypto = (0, import_node_module2.createRequire)(__importMetaUrl)("node:crypto");
    nodeCrypto.randomUUID = () => world.nextUuid();
    (0, import_node_module2.syncBuiltinESMExports)();
    define(Math, "random", () => world.random());
    const VirtualDate = new Proxy(RealDate, {
      construct(target, args, newTarget) {
        return Reflect.construct(target, args.length === 0 ? [world.now] : args, newTarget);
      },
      apply() {
        return new RealDate(world.now).toString();
      },
      get(target, prop, receiver) {
        if (prop === "now") return () => world.now;
        return Reflect.get(target, prop, receiver);
      }
    });
    g.Date = VirtualDate;
    if (typeof globalThis.performance === "object" && globalThis.performance !== null) {
      define(globalThis.performance, "now", () => world.now - EPOCH);
    }
    const resolved = Promise.resolve();
    g.queueMicrotask = (fn) => {
      if (typeof fn !== "function") throw new TypeError("queueMicrotask: callback is not a function");
      void resolved.then(fn);
    };
    g.setTimeout = (fn, delay, ...args) => world.addTimer(fn, delay, args, false);
    g.setInterval = (fn, delay, ...args) => world.addTimer(fn, delay, args, true);
    g.clearTimeout = (id) => world.clearTimer(id);
    g.clearInterval = (id) => world.clearTimer(id);
    g.requestAnimationFrame = (fn) => world.addTimer(() => fn(world.now - EPOCH), 16, [], false);
    g.cancelAnimationFrame = (id) => world.clearTimer(id);
    g.requestIdleCallback = (fn) => world.addTimer(() => fn({ didTimeout: false, timeRemaining: () => 0 }), 1, [], false);
    g.cancelIdleCallback = (id) => world.clearTimer(id);
  }
};
function define(target, key, value) {
  Object.defineProperty(target, key, { value, writable: true, configurable: true, enumerable: false });
}

// src/digest.ts
var import_node_module3 = require("node:module");
var crypto = null;
function canonicalJson(value) {
  const out = [];
  write(value, out, /* @__PURE__ */ new Set());
  return out.join("");
}
function write(v, out, seen) {
  if (v === null || v === void 0) {
    out.push("null");
    return;
  }
  switch (typeof v) {
    case "string":
      out.push(JSON.stringify(v));
      return;
    case "number":
      out.push(Number.isFinite(v) ? String(v) : JSON.stringify(String(v)));
      return;
    case "boolean":
      out.push(v ? "true" : "false");
      return;
    case "bigint":
      out.push(JSON.stringify(`${v}n`));
      return;
    case "function":
    case "symbol":
      throw new Error(`snapshot() returned a ${typeof v}: it must be plain data`);
  }
  const o = v;
  if (seen.has(o)) throw new Error("snapshot() returned a cyclic value");
  seen.add(o);
  if (Array.isArray(o)) {
    out.push("[");
    o.forEach((x, i) => {
      if (i > 0) out.push(",");
      write(x, out, seen);
    });
    out.push("]");
  } else if (o instanceof Map) {
    writeSorted([...o.entries()].map(([k, x]) => [JSON.stringify(canonicalJson(k)), x]), out, seen, "M");
  } else if (o instanceof Set) {
    const items = [...o].map((x) => canonicalJson(x)).sort();
    out.push(`{"S":[${items.join(",")}]}`);
  } else if (o instanceof Date) {
    out.push(JSON.stringify(o.toISOString()));
  } else {
    const toJSON = o.toJSON;
    if (typeof toJSON === "function") {
      seen.delete(o);
      write(toJSON.call(o), out, seen);
      return;
    }
    const entries = [];
    for (const k of Object.keys(o)) {
      const x = o[k];
      if (x !== void 0 && typeof x !== "function") entries.push([JSON.stringify(k), x]);
    }
    writeSorted(entries, out, seen, "");
  }
  seen.delete(o);
}
function writeSorted(entries, out, seen, tag) {
  entries.sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  out.push(tag === "" ? "{" : `{"${tag}":{`);
  entries.forEach(([k, x], i) => {
    if (i > 0) out.push(",");
    out.push(k, ":");
    write(x, out, seen);
  });
  out.push(tag === "" ? "}" : "}}");
}
function sha256(text) {
  crypto ??= (0, import_node_module3.createRequire)(__importMetaUrl)("node:crypto");
  return crypto.createHash("sha256").update(text).digest("hex");
}

// src/render.ts
var isRole = (r) => r === "user" || r === "assistant" || r === "tool-call" || r === "tool-result";
function renderProblem(rows) {
  if (!Array.isArray(rows)) return `render() must return an array of rows, got ${typeof rows}`;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    const bad = (why) => `render row ${i} ${why}: ${JSON.stringify(r)}`;
    if (r === null || typeof r !== "object") return bad("is not an object");
    if (!isRole(r.role)) return bad("has no valid role");
    if (typeof r.text !== "string") return bad("has no string text");
    if (r.from === "sealed") {
      if (typeof r.seq !== "number") return bad("is sealed but has no numeric seq");
      if (typeof r.turn_id !== "number") return bad("is sealed but has no numeric turn_id");
    } else if (r.from === "live") {
      if (typeof r.id !== "string") return bad("is live but has no string id");
      if (r.turn_id !== void 0 && typeof r.turn_id !== "number") return bad("has a turn_id that is not a number");
    } else {
      return bad('has no from ("sealed" or "live")');
    }
  }
  return void 0;
}

// src/wire.ts
var PROTOCOL = 1;

// src/runtime.ts
var BOOT = "boot";
var isThenable = (x) => x !== null && (typeof x === "object" || typeof x === "function") && typeof x.then === "function";
var drain = () => new Promise((resolve2) => realSetImmediate(resolve2));
var Run = class {
  constructor(runtime, args) {
    this.runtime = runtime;
    this.ids = {
      toStore: (n) => this.byHarness.get(n) ?? `m${n}`,
      toHarness: (s) => this.byStore.get(s)
    };
    this.harness = {
      post: (storeId, text) => this.post(storeId, text),
      fetch: () => this.fetch(),
      ids: this.ids,
      args
    };
  }
  runtime;
  mapping = null;
  /** The effects of the request being answered. */
  effects = [];
  errors = [];
  /** `user-send`s the store has not POSTed yet, oldest first. */
  pendingSends = [];
  posts = /* @__PURE__ */ new Map();
  fetches = /* @__PURE__ */ new Map();
  nextRequest = 1;
  byHarness = /* @__PURE__ */ new Map();
  byStore = /* @__PURE__ */ new Map();
  translated = /* @__PURE__ */ new Map();
  /** The inputs since the reset, for the origins of pending promises (made canonical JSON only for a digest). */
  history = [];
  /** Where promises and timers created now come from (see `AdapterRuntime.digest`). */
  origin = BOOT;
  ids;
  harness;
  current(what) {
    if (this.runtime.run === this) return true;
    process.stderr.write(`reconcile-sim-adapter: ignored ${what} from a store of an earlier run
`);
    return false;
  }
  post(storeId, text) {
    if (!this.current("a POST")) return new Promise(() => {
    });
    if (typeof storeId !== "string" && typeof storeId !== "number") {
      this.errors.push(new Error(`post(storeId, text): storeId must be a string, got ${JSON.stringify(storeId)}`));
      return new Promise(() => {
      });
    }
    const key = String(storeId);
    let i = this.pendingSends.findIndex((s) => s.text === text);
    if (i < 0) i = 0;
    const send = this.pendingSends[i];
    if (send === void 0) {
      this.errors.push(new Error(`the store POSTed ${JSON.stringify(text)} (its id ${key}) but no user-send is waiting for a POST`));
      return new Promise(() => {
      });
    }
    this.pendingSends.splice(i, 1);
    this.byHarness.set(send.messageId, key);
    this.byStore.set(key, send.messageId);
    this.translated.clear();
    this.effects.push({ effect: "post", message_id: send.messageId, text: String(text) });
    return new Promise((resolve2) => this.posts.set(send.messageId, { resolve: resolve2, origin: this.origin }));
  }
  fetch() {
    if (!this.current("a fetch")) return new Promise(() => {
    });
    const requestId = this.nextRequest++;
    this.effects.push({ effect: "fetch", request_id: requestId });
    return new Promise((resolve2) => this.fetches.set(requestId, { resolve: resolve2, origin: this.origin }));
  }
  /** Keep a hook's result: a rejected promise is a crash of the store. */
  call(result) {
    if (isThenable(result)) result.then(void 0, (e) => this.errors.push(e));
  }
  appEvent(e, deltaPrefix) {
    switch (e.type) {
      case "turn-start":
      case "turn-sealed":
        return { type: e.type, turnId: e.turn_id };
      case "text-delta": {
        const text = deltaPrefix === "" ? e.text : deltaPrefix + e.text;
        return e.turn_id === void 0 ? { type: e.type, text } : { type: e.type, turnId: e.turn_id, text };
      }
      case "tool-call":
      case "tool-result":
        return { type: e.type, turnId: e.turn_id, call: e.call, text: e.text };
      case "message-queued": {
        const queued = { type: e.type, messageId: this.ids.toStore(e.message_id) };
        return e.text === void 0 ? queued : { ...queued, text: e.text };
      }
      case "message-consumed": {
        const consumed = { type: e.type, messageIds: e.message_ids.map((n) => this.ids.toStore(n)) };
        return e.reason === void 0 ? consumed : { ...consumed, reason: e.reason };
      }
      case "status":
        return { type: e.type, status: e.status };
      default:
        return this.otherEvent(e);
    }
  }
  /** An event kind this version does not know: camelCase its fields, bridge message ids. */
  otherEvent(e) {
    const other = e;
    const out = {};
    for (const k of Object.keys(other)) {
      const v = other[k];
      if (k === "message_id") out.messageId = this.ids.toStore(v);
      else if (k === "message_ids") out.messageIds = v.map((n) => this.ids.toStore(n));
      else out[camel(k)] = v;
    }
    return out;
  }
  appFetch(r) {
    return {
      requestId: r.request_id,
      snapshotSeq: r.snapshot_seq,
      chunks: r.chunks.map((c) => {
        const chunk = { seq: c.seq, turnId: c.turn_id, role: c.role, text: c.text };
        if (c.message_ids !== void 0) chunk.messageIds = c.message_ids.map((n) => this.ids.toStore(n));
        return chunk;
      }),
      writtenTurns: r.written_turns ?? []
    };
  }
  /** Live row ids holding a store message id (whole, or as a suffix: `queued-<id>`) get the harness's `m<n>`. */
  translate(rows) {
    if (this.byStore.size === 0) return rows;
    let out = rows;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (row.from !== "live") continue;
      let id = this.translated.get(row.id);
      if (id === void 0) {
        id = row.id;
        const n = this.byStore.get(id);
        if (n !== void 0) {
          id = `m${n}`;
        } else {
          for (const [storeId, m] of this.byStore) {
            if (storeId !== "" && id.endsWith(storeId)) {
              id = id.slice(0, id.length - storeId.length) + `m${m}`;
              break;
            }
          }
        }
        this.translated.set(row.id, id);
      }
      if (id !== row.id) {
        if (out === rows) out = rows.slice();
        out[i] = { ...row, id };
      }
    }
    return out;
  }
};
var camelCache = /* @__PURE__ */ new Map();
function camel(k) {
  let c = camelCache.get(k);
  if (c === void 0) {
    c = k.replace(/_([a-z0-9])/g, (_, ch) => ch.toUpperCase());
    camelCache.set(k, c);
  }
  return c;
}
function describe(e) {
  if (e instanceof Error) return e.stack ?? `${e.name}: ${e.message}`;
  try {
    return typeof e === "string" ? e : JSON.stringify(e);
  } catch {
    return String(e);
  }
}
var AdapterRuntime = class {
  world = new DeterministicWorld();
  run = null;
  greeted = false;
  factory = null;
  /** Set by the first `state` request: from then on origins are state digests, not histories. */
  trackOrigins = false;
  /** The digest answered last, while nothing has happened since. */
  lastDigest = null;
  deltaPrefix;
  /** Errors raised outside any request (reported with the next answer). */
  strayErrors = [];
  /**
   * The first run, made when `hello` is answered (to learn which extensions the mapping
   * speaks), with its `reset` answer: the first `reset` hands it out instead of making
   * another store. Nothing runs between the two (the clock is fake, every microtask ran),
   * so the answer is the one that `reset` would give.
   */
  prepared = null;
  options;
  constructor(options) {
    this.options = { ...options };
    this.deltaPrefix = options.deltaPrefix ?? "";
    this.world.origin = () => this.run === null ? BOOT : this.run.origin;
  }
  setName(name) {
    this.options.name = name;
  }
  setTranslateIds(on) {
    this.options.translateIds = on;
  }
  /** Install the deterministic globals and the error hooks. Call before loading the user's modules. */
  install() {
    this.world.install();
    process.on("unhandledRejection", (reason) => this.recordError(reason));
    process.on("uncaughtException", (error) => this.recordError(error));
  }
  recordError(e) {
    if (this.run !== null) this.run.errors.push(e);
    else this.strayErrors.push(e);
  }
  /** The answer to one parsed request line. */
  respond(msg) {
    if (msg === null || typeof msg !== "object") {
      return { type: "error", message: `request is not a JSON object: ${JSON.stringify(msg)}`, id: null };
    }
    const m = msg;
    const id = typeof m.id === "number" ? m.id : null;
    const fail = (message) => ({ type: "error", message, id });
    if (m.type === "hello") {
      if (m.protocol !== PROTOCOL) return fail(`unsupported protocol ${JSON.stringify(m.protocol)}; this adapter speaks ${PROTOCOL}`);
      this.greeted = true;
      return this.hello(id);
    }
    if (!this.greeted) return fail(`expected hello first, got ${JSON.stringify(m.type)}`);
    switch (m.type) {
      case "reset":
        return this.reset(id);
      case "input":
        if (this.run === null || this.run.mapping === null) return fail("input before reset");
        if (m.input === null || typeof m.input !== "object") return fail("input without an input object");
        return this.input(this.run, m.input, id);
      case "state":
        return this.state(id);
      default:
        return fail(`unknown request type ${JSON.stringify(m.type)}`);
    }
  }
  /**
   * The handshake. The extensions (docs/protocol.md, "Extensions") are announced for what
   * the mapping does, which only a store shows: so the first run's store is made now (see
   * `prepared`). `boot`: its `reset` answer carries effects (a `boot()` hook, or a factory
   * that fetches at once), which a harness routes only when announced. `state`: it has
   * `snapshot()`. A mapping that fails to make a store announces nothing; the first `reset`
   * reports why.
   */
  async hello(id) {
    this.prepared = null;
    const answer = await this.reset(null);
    const run = this.run;
    this.run = null;
    this.prepared = { run, answer };
    const features = [];
    if (answer.type === "reset" && (run.mapping?.boot !== void 0 || (answer.effects?.length ?? 0) > 0)) features.push("boot");
    if (answer.type === "reset" && run.mapping?.snapshot !== void 0) features.push("state");
    return { type: "hello", protocol: PROTOCOL, name: this.options.name, ...features.length > 0 ? { features } : {}, id };
  }
  async reset(id) {
    const prepared = this.prepared;
    this.prepared = null;
    if (prepared !== null && this.strayErrors.length === 0) {
      this.run = prepared.run;
      return { ...prepared.answer, id };
    }
    this.lastDigest = null;
    this.world.reset();
    const run = new Run(this, this.options.args ?? []);
    this.run = run;
    run.errors.push(...this.strayErrors.splice(0));
    try {
      if (this.factory === null || this.options.freshModule) this.factory = this.options.load();
      const made = this.factory(run.harness);
      run.mapping = isThenable(made) ? await made : made;
      checkMapping(run.mapping);
      const booted = run.mapping.boot !== void 0;
      if (booted) run.call(run.mapping.boot());
      await this.settle(run);
      if (run.errors.length > 0) return this.crash(run, id);
      if (!booted && run.effects.length === 0) return { type: "reset", id };
      return { type: "reset", effects: run.effects, render: this.render(run), id };
    } catch (e) {
      run.mapping = null;
      return { type: "error", message: describe(e), id };
    }
  }
  async input(run, input, id) {
    run.effects = [];
    try {
      this.beginInput(run, input);
      this.route(run, run.mapping, input);
      await this.settle(run);
      if (run.errors.length > 0) return this.crash(run, id);
      return { type: "output", effects: run.effects, render: this.render(run), id };
    } catch (e) {
      return { type: "error", message: describe(e), id };
    }
  }
  beginInput(run, input) {
    run.history.push(input);
    if (this.trackOrigins) {
      const before = this.lastDigest ?? this.digest(run);
      run.origin = `d:${sha256(`${before}
${canonicalJson(input)}`)}`;
    } else {
      run.origin = `h:${run.history.length}`;
    }
    this.lastDigest = null;
  }
  route(run, mapping, input) {
    switch (input.input) {
      case "user-send":
        run.pendingSends.push({ messageId: input.message_id, text: input.text });
        run.call(mapping.send(input.text, input.message_id));
        return;
      case "scroll":
        run.call(mapping.scroll(input.at_bottom));
        return;
      case "event":
        run.call(mapping.event(run.appEvent(input.event, this.deltaPrefix), input.event));
        return;
      case "post-response": {
        const id = input.message_id;
        const pending = id === void 0 ? void 0 : run.posts.get(id);
        if (id !== void 0 && pending !== void 0) {
          run.posts.delete(id);
          pending.resolve(input.response);
        } else if (mapping.input !== void 0) {
          run.call(mapping.input(input));
        }
        return;
      }
      case "fetch-response": {
        const pending = run.fetches.get(input.request_id);
        if (pending !== void 0) {
          run.fetches.delete(input.request_id);
          pending.resolve(run.appFetch(input));
        } else if (mapping.input !== void 0) {
          run.call(mapping.input(input));
        }
        return;
      }
      default:
        if (mapping.input !== void 0) run.call(mapping.input(input));
        else throw new Error(`unknown input ${JSON.stringify(input.input)}`);
    }
  }
  /** Let everything the request caused run: microtasks, then each pending fake timer in due order. */
  async settle(run) {
    const flush = run.mapping?.flush;
    for (let timers = 0; ; timers++) {
      await drain();
      if (flush !== void 0) {
        flush.call(run.mapping);
        await drain();
      }
      if (this.world.pendingTimers === 0) return;
      if (timers >= MAX_TIMER_RUNS) {
        throw new Error(`timers kept firing: ${MAX_TIMER_RUNS} timer callbacks in one input (an interval that never stops?)`);
      }
      try {
        this.world.runNextTimer();
      } catch (e) {
        run.errors.push(e);
      }
    }
  }
  render(run) {
    const rows = run.mapping.render();
    const problem = renderProblem(rows);
    if (problem !== void 0) throw new Error(problem);
    return this.options.translateIds === false ? rows : run.translate(rows);
  }
  crash(run, id) {
    const message = run.errors.map(describe).join("\n--- and then:\n");
    run.errors = [];
    return { type: "error", message, id };
  }
  state(id) {
    const run = this.run;
    if (run === null || run.mapping === null) return { type: "error", message: "state before reset", id };
    if (run.mapping.snapshot === void 0) {
      return { type: "error", message: "state digests are not supported: the mapping has no snapshot()", id };
    }
    try {
      this.trackOrigins = true;
      const digest = this.lastDigest ?? this.digest(run);
      this.lastDigest = digest;
      return { type: "state", digest, id };
    } catch (e) {
      return { type: "error", message: describe(e), id };
    }
  }
  /**
   * The digest of everything that decides the run's future: the store's snapshot, and the
   * adapter's own state. A pending promise (or timer) resumes code whose local variables the
   * snapshot cannot see, so each carries its origin: the digest of the state before the
   * input that created it plus that input (or, before the harness first asked for a digest,
   * the whole input history up to it). Equal digests therefore mean equal futures.
   */
  digest(run) {
    const origin = (o) => o.startsWith("h:") ? sha256(run.history.slice(0, Number(o.slice(2))).map(canonicalJson).join("\n")) : o;
    const w = this.world;
    const adapter = {
      sends: run.pendingSends.map((s) => [s.messageId, s.text]),
      ids: [...run.byHarness].sort((a, b) => a[0] - b[0]),
      posts: [...run.posts].sort((a, b) => a[0] - b[0]).map(([n, p]) => [n, origin(p.origin)]),
      fetches: [...run.fetches].sort((a, b) => a[0] - b[0]).map(([n, p]) => [n, origin(p.origin)]),
      nextRequest: run.nextRequest,
      uuids: w.uuids,
      rng: w.rng,
      clock: w.now - EPOCH,
      timers: w.timerState().map((t) => {
        const [due, interval, o] = t;
        return [due, interval, origin(o)];
      })
    };
    return sha256(canonicalJson({ store: run.mapping.snapshot(), adapter }));
  }
};
function checkMapping(m) {
  if (m === null || typeof m !== "object") throw new Error("the mapping's factory must return an object of hooks");
  for (const hook of ["send", "scroll", "event", "render"]) {
    if (typeof m[hook] !== "function") throw new Error(`the mapping has no ${hook}() hook`);
  }
}

// src/serve.ts
var import_node_fs2 = require("node:fs");
function redirectConsole() {
  Object.defineProperty(process, "stdout", { get: () => process.stderr, configurable: true, enumerable: true });
}
function sleepMs(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
function writeAll(text) {
  let written = 0;
  try {
    written = (0, import_node_fs2.writeSync)(1, text);
  } catch (e) {
    if (e.code !== "EAGAIN") throw e;
  }
  const data = Buffer.from(text, "utf8");
  if (written === data.length) return;
  let off = written;
  while (off < data.length) {
    try {
      off += (0, import_node_fs2.writeSync)(1, data, off, data.length - off);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
      sleepMs(1);
    }
  }
}
var isPromise = (x) => x instanceof Promise;
async function serveStdio(respond) {
  const buf = Buffer.allocUnsafe(1 << 16);
  let rest = null;
  for (; ; ) {
    let n;
    try {
      n = (0, import_node_fs2.readSync)(0, buf, 0, buf.length, null);
    } catch (e) {
      const code = e.code;
      if (code === "EAGAIN") {
        sleepMs(1);
        continue;
      }
      if (code === "EOF") return;
      throw e;
    }
    if (n === 0) return;
    const last = buf.lastIndexOf(10, n - 1);
    if (last === -1) {
      rest = rest === null ? Buffer.from(buf.subarray(0, n)) : Buffer.concat([rest, buf.subarray(0, n)]);
      continue;
    }
    const text = rest === null ? buf.toString("utf8", 0, last + 1) : Buffer.concat([rest, buf.subarray(0, last + 1)]).toString("utf8");
    rest = last + 1 < n ? Buffer.from(buf.subarray(last + 1, n)) : null;
    let out = "";
    let start = 0;
    let nl;
    while ((nl = text.indexOf("\n", start)) !== -1) {
      const line = text.slice(start, nl);
      start = nl + 1;
      if (line.trim() === "") continue;
      let msg;
      try {
        msg = JSON.parse(line);
      } catch (e) {
        out += JSON.stringify({ type: "error", message: `request is not JSON: ${e.message}`, id: null }) + "\n";
        continue;
      }
      const a = respond(msg);
      const answer = isPromise(a) ? await a : a;
      out += JSON.stringify(answer) + "\n";
    }
    if (out !== "") writeAll(out);
  }
}

// src/cli.ts
var realNow = performance.now.bind(performance);
var USAGE = `usage:
  reconcile-sim-adapter [serve] [--map] MAPPING.ts [options] [-- ARGS\u2026]
  reconcile-sim-adapter build   [--map] MAPPING.ts [options]

Serves the exec protocol on stdin/stdout with the store the mapping file makes. The
mapping and everything it imports are bundled once (TypeScript stripped, .svelte.ts
modules compiled with Svelte's client runtime, $lib from svelte.config.js) and cached
under node_modules/.cache/reconcile-sim-adapter/; \`build\` fills that cache and exits.

  reconcile-sim fuzz --store exec:'reconcile-sim-adapter adapter.ts' --seeds 1000

options:
  --map FILE        the mapping file (or the first positional argument)
  --store FILE      a store module handed to the mapping's factory as its second argument
  --root DIR        the project root (default: nearest package.json above the mapping)
  --name NAME       the name in the hello answer (default: the mapping's, else js:<file>)
  --fresh-module    re-evaluate every user module on each reset (module-level singletons)
  --no-cache        rebuild the bundle even if the cached one is current
  --delta-prefix S  prepend S to every text-delta (compat for whitespace-splitting oracles;
                    also $RECONCILE_SIM_ADAPTER_DELTA_PREFIX)
  --timing          print the start-up time to stderr (also $RECONCILE_SIM_ADAPTER_TIMING=1)
  (env) RECONCILE_SIM_ADAPTER_STATS=PREFIX  write "requests cpu-ms wall-ms" to PREFIX.<pid> (every 500 requests)
  -- ARGS\u2026          passed to the mapping as harness.args
`;
function parse(argv) {
  const cli = {
    command: "serve",
    load: { map: "" },
    fresh: false,
    deltaPrefix: process.env.RECONCILE_SIM_ADAPTER_DELTA_PREFIX ?? "",
    timing: process.env.RECONCILE_SIM_ADAPTER_TIMING === "1",
    args: []
  };
  const rest = [...argv];
  if (rest[0] === "serve" || rest[0] === "build") cli.command = rest.shift();
  const value = (flag) => {
    const v = rest.shift();
    if (v === void 0) usage(`${flag} needs a value`);
    return v;
  };
  while (rest.length > 0) {
    const a = rest.shift();
    if (a === "--") {
      cli.args = rest.splice(0);
    } else if (a === "--map") cli.load.map = value(a);
    else if (a === "--store") cli.load.store = value(a);
    else if (a === "--root") cli.load.root = value(a);
    else if (a === "--name") cli.name = value(a);
    else if (a === "--fresh-module") cli.fresh = true;
    else if (a === "--no-cache") cli.load.noCache = true;
    else if (a === "--delta-prefix") cli.deltaPrefix = value(a);
    else if (a === "--timing") cli.timing = true;
    else if (a === "-h" || a === "--help") {
      process.stderr.write(USAGE);
      process.exit(0);
    } else if (a === "--version") {
      const pkg = JSON.parse((0, import_node_fs3.readFileSync)(new URL("../package.json", __importMetaUrl), "utf8"));
      process.stderr.write(`${pkg.version}
`);
      process.exit(0);
    } else if (!a.startsWith("-") && cli.load.map === "") cli.load.map = a;
    else usage(`unknown argument ${JSON.stringify(a)}`);
  }
  if (cli.load.map === "") usage("no mapping file");
  return cli;
}
function usage(problem) {
  process.stderr.write(`reconcile-sim-adapter: ${problem}

${USAGE}`);
  process.exit(2);
}
async function main() {
  const cli = parse(process.argv.slice(2));
  redirectConsole();
  const b = await bundle(cli.load);
  const compiled = new CompiledBundle(b);
  let first = null;
  const runtime = new AdapterRuntime({
    name: cli.name ?? "",
    load: () => {
      const evaluated = first ?? compiled.evaluate();
      first = null;
      return boundFactory(evaluated);
    },
    freshModule: cli.fresh,
    args: cli.args,
    deltaPrefix: cli.deltaPrefix
  });
  runtime.install();
  first = compiled.evaluate();
  const options = first.factory.options ?? {};
  runtime.setName(cli.name ?? options.name ?? `js:${(0, import_node_path2.basename)(cli.load.map)}`);
  if (options.translateIds === false) runtime.setTranslateIds(false);
  if (cli.command === "build") {
    await runtime.respond({ type: "hello", protocol: 1, id: 1 });
    const answer = await runtime.respond({ type: "reset", id: 2 });
    if (answer.type === "error") throw new Error(`the mapping failed to make a store:
${answer.message}`);
    compiled.saveCodeCache(true);
    process.stderr.write(`${b.cached ? "cached" : "built"} ${b.file} (${b.code.length} bytes${b.inputs >= 0 ? `, ${b.inputs} inputs` : ""}) in ${b.ms.toFixed(0)} ms
`);
    process.exit(0);
  }
  if (cli.timing) {
    process.stderr.write(`reconcile-sim-adapter: ready in ${realNow().toFixed(1)} ms since process start (bundle ${b.cached ? "cached" : "built"}, ${b.ms.toFixed(1)} ms)
`);
  }
  let answered = 0;
  const stats = process.env.RECONCILE_SIM_ADAPTER_STATS ? `${process.env.RECONCILE_SIM_ADAPTER_STATS}.${process.pid}` : null;
  const writeStats = () => {
    const cpu = process.cpuUsage();
    (0, import_node_fs3.writeFileSync)(stats, `${answered} ${((cpu.user + cpu.system) / 1e3).toFixed(0)} ${realNow().toFixed(0)}
`);
  };
  if (stats !== null) process.on("exit", writeStats);
  await serveStdio((msg) => {
    if (stats !== null && answered % 500 === 0) writeStats();
    const answer = runtime.respond(msg);
    if (++answered === 3 && compiled.codeCacheRejected) compiled.saveCodeCache();
    return answer;
  });
  process.exit(0);
}
main().catch((e) => {
  process.stderr.write(`reconcile-sim-adapter: ${e?.stack ?? String(e)}
`);
  process.exit(1);
});
