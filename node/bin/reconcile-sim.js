#!/usr/bin/env node
// `npx reconcile-sim …`: runs the reconcile-sim CLI binary with these arguments, its
// standard streams ours, signals sent to this process passed on to it, and its exit status
// (or the signal that ended it) ours. The binary, first found of:
//
//   1. $RECONCILE_SIM (a binary built from source, say `target/release/reconcile-sim`);
//   2. in a clone: `reconcile-sim` (`reconcile-sim.exe` on Windows) next to this package,
//      where `npm run build -w node` stages it beside the engine, else the newest of
//      cargo's release, checked and debug builds ($CARGO_TARGET_DIR or target/);
//   3. the one in the platform package `reconcile-sim-<platform>`, which npm installs with
//      this package as an optional dependency (the engine's .node is in it too).
//
// When there is none, the error says the command that gets one (native.cjs, `remedy`).
//
// Printed commands (replay, reproduce) name the program `npx reconcile-sim`, so they run
// as pasted in the project (RECONCILE_SIM_INVOKED_AS, when set, still says otherwise).
import { spawn } from "node:child_process";
import { chmodSync, existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const { triple, remedy } = require("../native.cjs");
const here = dirname(dirname(fileURLToPath(import.meta.url)));
const platform = triple();
const exe = process.platform === "win32" ? "reconcile-sim.exe" : "reconcile-sim";

/** The binary to run, or null; `tried` collects where it was looked for. */
function find(tried) {
  const given = process.env.RECONCILE_SIM;
  if (given) return given;
  const local = join(here, exe);
  if (existsSync(local)) return local;
  tried.push(local);
  // In a clone of the repository (this package is its node/): the newest cargo build.
  if (existsSync(join(here, "..", "sim", "Cargo.toml"))) {
    const target = process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(here, "..", "target");
    const builds = ["release", "checked", "debug"].map((p) => join(target, p, exe)).filter((f) => existsSync(f));
    builds.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
    if (builds.length > 0) return builds[0];
    tried.push(`${join(target, "{release,checked,debug}", exe)} (a cargo build in this clone)`);
  }
  const pkg = `reconcile-sim-${platform}`;
  let dir;
  try {
    dir = dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    tried.push(`the package ${pkg}: not installed`);
    return null;
  }
  const installed = join(dir, exe);
  if (existsSync(installed)) return installed;
  tried.push(`${installed}: missing from the package ${pkg}`);
  return null;
}

const tried = [];
const bin = find(tried);
if (bin === null) {
  process.stderr.write(
    `reconcile-sim: no CLI binary for this platform (${platform}). ${remedy(platform)}\n` +
      `(RECONCILE_SIM, when set, names the binary to run.) Looked for:\n  ${tried.join("\n  ")}\n`,
  );
  process.exit(2);
}

const env = { ...process.env };
if (!env.RECONCILE_SIM_INVOKED_AS) env.RECONCILE_SIM_INVOKED_AS = "npx reconcile-sim";
run(true);

/** Start the binary; a package manager that dropped its executable bit gets it back once. */
function run(mayFix) {
  const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", env });
  // SIGTERM and SIGHUP (what `timeout`, a CI runner or a scheduler sends to this process)
  // are passed on. Ctrl-C is not: a terminal sends it to the whole foreground process
  // group, the binary included, and npm passes it on to this process too, so passing it
  // on again would reach the binary as a second signal (which shortens its grace to save
  // and print). Listening for it keeps this process alive until the binary has ended.
  const forwarded = process.platform === "win32" ? ["SIGTERM"] : ["SIGTERM", "SIGHUP"];
  const pass = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  const wait = () => {};
  process.on("SIGINT", wait);
  for (const s of forwarded) process.on(s, pass);
  const done = () => {
    process.off("SIGINT", wait);
    for (const s of forwarded) process.off(s, pass);
  };
  child.on("error", (e) => {
    done();
    if (mayFix && e.code === "EACCES" && bin !== env.RECONCILE_SIM) {
      try {
        chmodSync(bin, 0o755);
        return run(false);
      } catch {
        // reported below
      }
    }
    process.stderr.write(`reconcile-sim: cannot run ${bin}: ${e.message}\n`);
    process.exit(2);
  });
  child.on("exit", (code, signal) => {
    done();
    if (signal !== null) {
      // Ended by a signal: end the same way, so a caller sees what the binary's caller would.
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}
