// Build the engine (the reconcile-sim-node crate) and put it where native.cjs looks first:
// `node scripts/build.mjs [--profile PROFILE]` (default `release`; the tests use `checked`,
// which builds faster). Needs cargo; the release workflow builds every platform's file.
import { execFileSync } from "node:child_process";
import { copyFileSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
const at = args.indexOf("--profile");
const profile = at === -1 ? "release" : args[at + 1];
execFileSync("cargo", ["build", "--profile", profile, "-p", "reconcile-sim-node"], { cwd: here, stdio: "inherit" });
const target = process.env.CARGO_TARGET_DIR ?? join(here, "..", "target");
const built = join(target, profile === "dev" ? "debug" : profile, "libreconcile_sim_node.so");
const { triple } = await import("../native.cjs").then((m) => m.default ?? m);
const dest = join(here, `reconcile-sim.${triple()}.node`);
copyFileSync(built, `${dest}.tmp`);
renameSync(`${dest}.tmp`, dest);
console.error(`built ${dest} (${profile})`);
