#!/usr/bin/env node
// Runs the reconcile-sim binary with these arguments: $RECONCILE_SIM if set, else
// `reconcile-sim` on PATH. Its exit status is ours.
import { spawnSync } from "node:child_process";

const bin = process.env.RECONCILE_SIM || "reconcile-sim";
const result = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  const missing = result.error.code === "ENOENT";
  process.stderr.write(
    missing
      ? `reconcile-sim not found (${bin}): put it on PATH or set RECONCILE_SIM=/path/to/reconcile-sim\n` +
          "(from the repository root: cargo build --release, then RECONCILE_SIM=$PWD/target/release/reconcile-sim)\n"
      : `${bin}: ${result.error.message}\n`,
  );
  process.exit(2);
}
process.exit(result.status ?? 1);
