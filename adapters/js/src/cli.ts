#!/usr/bin/env node
// reconcile-sim-adapter: serve a mapping file (and the Svelte/TypeScript store it imports)
// over reconcile-sim's exec protocol, or build its bundle ahead of time.

const realNow = performance.now.bind(performance);

import { readFileSync, writeFileSync } from "node:fs";
import { Coverage } from "./coverage.js";
import { Host } from "./host.js";
import { WRAPPER, type LoadOptions } from "./loader.js";
import { redirectConsole, serveStdio } from "./serve.js";
import type { Answer } from "./wire.js";

/** `answer` (a hello answer, or a promise of one) with `feature` announced too. */
function withFeature(answer: Answer | Promise<Answer>, feature: string): Answer | Promise<Answer> {
  const add = (a: Answer): Answer => {
    if (a.type !== "hello") return a;
    return { ...a, features: [...(a.features ?? []), feature] };
  };
  return answer instanceof Promise ? answer.then(add) : add(answer);
}

const USAGE = `usage:
  reconcile-sim-adapter [serve] [--map] MAPPING.ts [options] [-- ARGS…]
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
  -- ARGS…          passed to the mapping as harness.args
`;

interface Cli {
  command: "serve" | "build";
  load: LoadOptions;
  name?: string;
  fresh: boolean;
  deltaPrefix: string;
  timing: boolean;
  args: string[];
}

function parse(argv: string[]): Cli {
  const cli: Cli = {
    command: "serve",
    load: { map: "" },
    fresh: false,
    deltaPrefix: process.env.RECONCILE_SIM_ADAPTER_DELTA_PREFIX ?? "",
    timing: process.env.RECONCILE_SIM_ADAPTER_TIMING === "1",
    args: [],
  };
  const rest = [...argv];
  if (rest[0] === "serve" || rest[0] === "build") cli.command = rest.shift() as Cli["command"];
  const value = (flag: string): string => {
    const v = rest.shift();
    if (v === undefined) usage(`${flag} needs a value`);
    return v;
  };
  while (rest.length > 0) {
    const a = rest.shift()!;
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
      const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
      process.stderr.write(`${pkg.version}\n`);
      process.exit(0);
    } else if (!a.startsWith("-") && cli.load.map === "") cli.load.map = a;
    else usage(`unknown argument ${JSON.stringify(a)}`);
  }
  if (cli.load.map === "") usage("no mapping file");
  return cli;
}

function usage(problem: string): never {
  process.stderr.write(`reconcile-sim-adapter: ${problem}\n\n${USAGE}`);
  process.exit(2);
}

async function main(): Promise<void> {
  const cli = parse(process.argv.slice(2));
  // Nothing but the protocol on stdout, from the first moment (loading may print).
  redirectConsole();
  const host = await Host.load({ load: cli.load, name: cli.name, freshModule: cli.fresh, args: cli.args, deltaPrefix: cli.deltaPrefix });
  const b = host.bundle;
  const compiled = host.compiled;
  const runtime = await host.open();
  if (cli.command === "build") {
    // Load it and make one store now: a broken mapping fails here, not in the first
    // adapter process, and V8's code cache then covers what the first run compiles.
    await runtime.respond({ type: "hello", protocol: 1, id: 1 });
    const answer = await runtime.respond({ type: "reset", id: 2 });
    if (answer.type === "error") throw new Error(`the mapping failed to make a store:\n${answer.message}`);
    compiled.saveCodeCache(true);
    process.stderr.write(`${b.cached ? "cached" : "built"} ${b.file} (${b.code.length} bytes${b.inputs >= 0 ? `, ${b.inputs} inputs` : ""}) in ${b.ms.toFixed(0)} ms\n`);
    process.exit(0);
  }
  if (cli.timing) {
    process.stderr.write(`reconcile-sim-adapter: ready in ${realNow().toFixed(1)} ms since process start (bundle ${b.cached ? "cached" : "built"}, ${b.ms.toFixed(1)} ms)\n`);
  }
  let answered = 0;
  // Per process, rewritten every 500 requests and at exit (the harness may kill us): requests, CPU ms, ms since start.
  const stats = process.env.RECONCILE_SIM_ADAPTER_STATS ? `${process.env.RECONCILE_SIM_ADAPTER_STATS}.${process.pid}` : null;
  const writeStats = () => {
    const cpu = process.cpuUsage();
    writeFileSync(stats!, `${answered} ${((cpu.user + cpu.system) / 1000).toFixed(0)} ${realNow().toFixed(0)}\n`);
  };
  if (stats !== null) process.on("exit", writeStats);
  // The coverage extension, for the harness's --localize: answered here, outside the store's
  // runtime, and set up only when the bundle's source map is there.
  const coverage = Coverage.load(b.file, b.code, WRAPPER.length, () => {
    compiled.recompileForCoverage();
    runtime.reload();
  });
  await serveStdio((msg) => {
    if (stats !== null && answered % 500 === 0) writeStats();
    const m = msg as { type?: unknown; id?: unknown } | null;
    if (coverage !== null && m !== null && typeof m === "object" && m.type === "coverage") {
      answered++;
      const id = typeof m.id === "number" ? m.id : null;
      runtime.unprepare();
      return coverage.take().then(
        (c): Answer => ({ type: "coverage", root: c.root, files: c.files, id }),
        (e: unknown): Answer => ({ type: "error", message: `coverage: ${(e as Error).message}`, id }),
      );
    }
    let answer = runtime.respond(msg);
    if (coverage !== null && m !== null && typeof m === "object" && m.type === "hello") answer = withFeature(answer, "coverage");
    // After the first run's reset: V8's code cache, with what that compiled, for the next processes.
    if (++answered === 3 && compiled.codeCacheRejected) compiled.saveCodeCache();
    return answer;
  });
  process.exit(0);
}

main().catch((e: unknown) => {
  process.stderr.write(`reconcile-sim-adapter: ${(e as Error)?.stack ?? String(e)}\n`);
  process.exit(1);
});
