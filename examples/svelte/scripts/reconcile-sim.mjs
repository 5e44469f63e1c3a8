#!/usr/bin/env node
// Runs the reconcile-sim binary with these arguments: $RECONCILE_SIM if set, else
// `reconcile-sim` on PATH. Its exit status is ours.
//
// Under `npm run`, the store's command (`reconcile-sim-adapter …`) is found through
// node_modules/.bin, which a plain shell does not search: the replay commands the binary
// prints would fail when pasted ("No such file or directory"). So the binary is told
// (RECONCILE_SIM_INVOKED_AS) to print them as `env "PATH=<this package's .bin>:$PATH"
// <the binary's absolute path>`, which runs as printed from any directory.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

const bin = process.env.RECONCILE_SIM || "reconcile-sim";
const env = { ...process.env };
if (process.env.npm_lifecycle_event && !process.env.RECONCILE_SIM_INVOKED_AS) {
  const absolute = bin.includes("/") ? path.resolve(bin) : onPath(bin);
  const local = path.resolve("node_modules/.bin");
  if (absolute && existsSync(local)) {
    env.RECONCILE_SIM_INVOKED_AS = `env "PATH=${local}:$PATH" ${quote(absolute)}`;
  }
}
const result = spawnSync(bin, process.argv.slice(2), { stdio: "inherit", env });
if (result.error) {
  const missing = result.error.code === "ENOENT";
  process.stderr.write(
    missing
      ? `reconcile-sim not found (${bin}): put it on PATH or set RECONCILE_SIM=/path/to/reconcile-sim\n` +
          "(from the repository root: cargo build --profile checked, then RECONCILE_SIM=$PWD/target/checked/reconcile-sim)\n"
      : `${bin}: ${result.error.message}\n`,
  );
  process.exit(2);
}
process.exit(result.status ?? 1);

/** The absolute path `name` has on PATH, if any. */
function onPath(name) {
  for (const dir of (process.env.PATH || "").split(path.delimiter)) {
    const candidate = path.resolve(dir || ".", name);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** `s` quoted for a POSIX shell when it needs it. */
function quote(s) {
  return /^[A-Za-z0-9_./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
