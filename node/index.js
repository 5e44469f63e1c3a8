// reconcile-sim inside Node: the engine (a Node-API module) runs a command in this
// process, and the store is the team's own code, loaded from the same mapping file that
// `reconcile-sim-adapter` serves over `exec:` (one `defineAdapter` works both ways).
//
// The engine hands out request lines of the exec protocol for one adapter at a time; each
// adapter is a `reconcile-sim-adapter` runtime with its own copy of the app's modules (as
// each `exec:` adapter is a process of its own). Results, reports and saved scenario
// files are those the CLI gives with `--store exec:'reconcile-sim-adapter MAPPING'`, and
// a saved file replays with the CLI.

import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Worker } from "node:worker_threads";

const require = createRequire(import.meta.url);
const { load, clone } = require("./native.cjs");

let native = null;
const engine = () => (native ??= load());

/**
 * `reconcile-sim-adapter`'s Host (which loads a mapping and answers for it), imported when
 * first needed, so that a missing install is an error that says the command that fixes it.
 */
async function adapterHost() {
  try {
    return (await import("reconcile-sim-adapter/host")).Host;
  } catch (e) {
    if (e?.code !== "ERR_MODULE_NOT_FOUND" && e?.code !== "ERR_PACKAGE_PATH_NOT_EXPORTED") throw e;
    const root = clone();
    const fix =
      root === null
        ? "install it beside reconcile-sim: it is not on the npm registry yet, so from the tarballs scripts/pack-offline.sh --pack-only DIR makes in a clone of reconcile-sim (npm i -D DIR/*.tgz)"
        : `install the workspace: cd ${JSON.stringify(root)} && npm ci`;
    throw new Error(`reconcile-sim: cannot load the package reconcile-sim-adapter (${e.message.split("\n")[0]}): ${fix}`);
  }
}

/** Quote `word` for a POSIX shell, as the CLI's command lines are split. */
function quote(word) {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The `exec:` store that runs the same adapter as a process: the store's name in results. */
export function execStore(options) {
  const words = ["reconcile-sim-adapter", options.adapter];
  if (options.store !== undefined) words.push("--store", options.store);
  if (options.name !== undefined) words.push("--name", options.name);
  if (options.freshModule) words.push("--fresh-module");
  if (options.deltaPrefix) words.push("--delta-prefix", options.deltaPrefix);
  if (options.args?.length) words.push("--", ...options.args);
  return `exec:${words.map(quote).join(" ")}`;
}

function describe(e) {
  return e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e);
}

/**
 * Drive `engine` to the end: every request line it hands out is answered by the adapter
 * it names (opened with `open()` when first named), in order; the command's result.
 * `leave()` is called at the end, however it ends (the real globals back).
 */
export async function drive(engine, open, leave = () => {}) {
  try {
    return await answerAll(engine, open);
  } finally {
    leave();
  }
}

async function answerAll(engine, open) {
  const adapters = new Map();
  let step = engine.next(null, null);
  while (step.done == null) {
    for (const id of step.closed) adapters.delete(id);
    let answers = null;
    let error = null;
    try {
      let adapter = adapters.get(step.adapter);
      if (adapter === undefined) {
        adapter = await open();
        adapters.set(step.adapter, adapter);
      }
      answers = "";
      const lines = step.requests;
      let start = 0;
      let nl;
      while ((nl = lines.indexOf("\n", start)) !== -1) {
        const line = lines.slice(start, nl);
        start = nl + 1;
        let answer = adapter.respond(JSON.parse(line));
        if (answer instanceof Promise) answer = await answer;
        answers += JSON.stringify(answer) + "\n";
      }
    } catch (e) {
      answers = null;
      error = `the adapter failed: ${describe(e)}`;
    }
    step = engine.next(answers, error);
  }
  return JSON.parse(step.done);
}

/**
 * A path option: as given (relative to the current directory, as the CLI takes it, so
 * reports name it the same way), or, with `options.cwd`, taken from there.
 */
const at = (options, path) => (options?.cwd === undefined ? path : resolve(options.cwd, path));

/**
 * Run `command` with `options.workers` worker threads (default 1: here), each running one
 * shard of the seeds with its own engine and adapters; the parts' results are merged into
 * the whole command's, so the result does not depend on the number of workers. A `fuzz`'s
 * workers meet after their campaigns and settle the failures between them, each once
 * (see `openMeeting`); a worker that fails abandons the meeting, so none waits for it.
 */
async function run(options, command) {
  const workers = options?.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1) throw new TypeError(`${command.command}: \`workers\` must be a whole number >= 1 (got ${workers})`);
  if (workers === 1) return runHere(options, command);
  const parts = mkdtempSync(join(tmpdir(), "reconcile-sim-parts-"));
  const meeting = command.command === "fuzz" ? engine().openMeeting(workers) : undefined;
  const abandon = (e) => {
    if (meeting !== undefined) engine().abandonMeeting(meeting, `another worker of this command failed: ${e instanceof Error ? e.message : String(e)}`);
    throw e;
  };
  try {
    const replies = await Promise.all(
      Array.from({ length: workers }, (_, i) =>
        inWorker({ ...options, workers: 1, out: join(parts, `part-${i + 1}`) }, { ...command, shard: [i + 1, workers], meeting }).catch(abandon),
      ),
    );
    const out = at(options, options.out ?? "reconcile-failures");
    const merged = JSON.parse(engine().merge(replies.map((r) => r.resultFile), out, options.program));
    merged.settings = replies[0].settings;
    return merged;
  } finally {
    if (meeting !== undefined) engine().closeMeeting(meeting);
    rmSync(parts, { recursive: true, force: true });
  }
}

/** `runHere(options, command)` in a worker thread of its own. */
function inWorker(options, command) {
  return new Promise((done, failed) => {
    const worker = new Worker(new URL("./worker.js", import.meta.url), { workerData: { options, command } });
    let answered = false;
    worker.once("message", (m) => {
      answered = true;
      if (m.error !== undefined) failed(new Error(m.error));
      else done(m.reply);
    });
    worker.once("error", failed);
    worker.once("exit", (code) => {
      if (!answered) failed(new Error(`a reconcile-sim worker exited with code ${code} before it answered`));
    });
  });
}

/** Load the mapping and run `command` (the engine's JSON command, its `store` added) here. */
export async function runHere(options, command) {
  if (typeof options?.adapter !== "string") throw new TypeError(`${command.command}: \`adapter\` (the mapping file) is required`);
  const cwd = options.cwd ?? process.cwd();
  const Host = await adapterHost();
  const host = await Host.load({
    load: {
      map: resolve(cwd, options.adapter),
      store: options.store === undefined ? undefined : resolve(cwd, options.store),
      root: options.root === undefined ? undefined : resolve(cwd, options.root),
    },
    name: options.name,
    freshModule: options.freshModule,
    args: options.args,
    deltaPrefix: options.deltaPrefix,
  });
  const { Engine } = engine();
  const full = {
    ...command,
    store: execStore(options),
    dir: cwd,
    out: options.out === undefined ? undefined : at(options, options.out),
    world: options.world === undefined ? [] : [options.world].flat(),
    invariants: options.invariants,
    skip: options.skip,
    strategy: options.strategy,
    depth: options.depth,
    maxShrinkIters: options.maxShrinkIters,
    maxShrinkTimeMs: options.maxShrinkTimeMs,
    settleTime: options.settleTime,
  };
  return drive(new Engine(JSON.stringify(full)), () => host.open(), () => host.leave());
}

/**
 * `reconcile-sim fuzz --store exec:'reconcile-sim-adapter ADAPTER' --seeds N`, in this
 * process. Options: `adapter` (the mapping file), `seeds`, and as the CLI's flags:
 * `seedStart`, `out`, `world` (a string or a list), `noClasses`, `invariants`, `skip`,
 * `strategy`, `depth`, `maxShrinkIters`, `maxShrinkTimeMs` (`--max-shrink-time` in
 * milliseconds), `settleTime` (`--settle-time`: `"campaign"`, `"90s"`, `"unbounded"`); the adapter's: `store`, `name`, `freshModule`, `deltaPrefix`, `args`;
 * `cwd` (default: the current directory; relative paths are taken from it).
 * Returns `{ settings, table, details, warnings, failed, runs, result }`: the CLI's
 * text, and its `--json` object as `result`.
 */
export function fuzz(options) {
  return run(options, {
    command: "fuzz",
    seeds: options?.seeds,
    seedStart: options?.seedStart ?? 0,
    noClasses: options?.noClasses ?? false,
  });
}

/**
 * `reconcile-sim check --store exec:'reconcile-sim-adapter ADAPTER'`, in this process: the
 * gate. Options as `fuzz`'s, and `scenarios` (default `scenarios`, which may be missing: then none), `known` (the baseline
 * of known classes), `seeds` (default 10 000), `seed` (a number or any string, hashed),
 * `allowEmpty`, `noCheckDeterminism`. Returns `{ settings, text, failed, notWritten,
 * result }`: the CLI's text and its `--json` report as `result`. `assertGate` throws when
 * it failed.
 */
export function check(options) {
  return run(options, {
    command: "check",
    seeds: options?.seeds,
    seed: options?.seed === undefined ? undefined : String(options.seed),
    scenarios: at(options, options?.scenarios ?? "scenarios"),
    // A folder named must exist; the default one may be missing (no scenarios).
    scenariosNamed: options?.scenarios !== undefined,
    known: options?.known === undefined ? undefined : at(options, options.known),
    allowEmpty: options?.allowEmpty ?? false,
    noCheckDeterminism: options?.noCheckDeterminism ?? false,
  });
}

/**
 * The HTML page of each scenario file in `options.files` (`reconcile-sim report FILE`),
 * written beside it (`x.json` → `x.html`) from a replay on the adapter `options` name, in
 * this process. Returns `{ reports: [{ file, page } | { file, error }] }`.
 */
export function report(options) {
  return runHere(options, { command: "report", files: [options?.files ?? []].flat().map((f) => at(options, f)) });
}

/**
 * Throw when a `check` (or `fuzz`) result failed, with its report (every new class, its
 * scenario file and replay command) as the message: for test runners (`await
 * assertGate(check({...}))` in a vitest or node:test test).
 */
export async function assertGate(result) {
  const r = await result;
  const notWritten = [r.notWritten ?? []].flat().filter(Boolean);
  if (r.failed || notWritten.length > 0) {
    const report = r.text ?? `${r.table}${r.details ?? ""}`;
    const lost = notWritten.length > 0 ? `\nnot written:\n  ${notWritten.join("\n  ")}` : "";
    throw new Error(`reconcile-sim: the gate failed\n${r.settings ?? ""}${report}${lost}`);
  }
  return r;
}
