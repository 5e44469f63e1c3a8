#!/usr/bin/env node
// Runs the reconcile-sim binary with these arguments: $RECONCILE_SIM if set, else
// `reconcile-sim` on PATH (under `npm run`, the workspace's node_modules/.bin holds the npm
// package's `reconcile-sim`, which runs the CLI `npm run build -w node` staged). Its exit
// status is ours.
//
// Under `npm run`, the store's command (`reconcile-sim-adapter …`) is found through
// node_modules/.bin, which a plain shell does not search: the replay commands the binary
// prints would fail when pasted ("No such file or directory"). So the binary is told
// (RECONCILE_SIM_INVOKED_AS) to print them as `env "PATH=<the .bin holding
// reconcile-sim-adapter>:$PATH" <the binary's absolute path>`, which runs as printed from
// any directory. (In the repository's npm workspace that .bin is the root's.)
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

const bin = process.env.RECONCILE_SIM || "reconcile-sim";
const env = { ...process.env };
if (process.env.npm_lifecycle_event && !process.env.RECONCILE_SIM_INVOKED_AS) {
  const absolute = bin.includes("/") ? path.resolve(bin) : onPath(bin);
  const local = binDir();
  if (absolute && local) {
    env.RECONCILE_SIM_INVOKED_AS = `env "PATH=${local}:$PATH" ${quote(absolute)}`;
  }
}
const result = spawnSync(bin, process.argv.slice(2), { stdio: "inherit", env });
if (result.error) {
  const missing = result.error.code === "ENOENT";
  process.stderr.write(
    missing
      ? `reconcile-sim not found (${bin}): install the workspace and build the CLI at the repository root ` +
          "(npm ci && npm run build -w node), or set RECONCILE_SIM=/path/to/reconcile-sim\n"
      : `${bin}: ${result.error.message}\n`,
  );
  process.exit(2);
}
process.exit(result.status ?? 1);

/** The nearest `node_modules/.bin` above this directory that holds reconcile-sim-adapter, if any. */
function binDir() {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const bin = path.join(dir, "node_modules", ".bin");
    if (existsSync(path.join(bin, "reconcile-sim-adapter"))) return bin;
    if (path.dirname(dir) === dir) return null;
  }
}

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
