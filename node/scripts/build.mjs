// Build the engine and the CLI from this clone and put them where the package looks first:
//
//   npm run build -w node            (at the repository root; or `npm run build` in node/)
//   node scripts/build.mjs [--profile PROFILE]
//
// One cargo build of the crates reconcile-sim-node (the engine, a Node-API module) and
// reconcile-sim (the CLI), profile `checked` by default (the README's profile: the tests and
// the main job share its build; `--profile release` is about 1.25x faster and builds for
// minutes longer), then both staged next to index.js: `reconcile-sim.<platform>.node`, where
// native.cjs loads the engine from, and `reconcile-sim` (`reconcile-sim.exe`), which
// `npx reconcile-sim` (bin/reconcile-sim.js) runs, so the replay commands a failing gate
// prints run as printed. Needs cargo (https://rustup.rs); the release workflow builds every
// platform's files instead (scripts/stage.mjs).
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, renameSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const { triple, builtNames } = createRequire(import.meta.url)("../native.cjs");
const usage = "usage: node scripts/build.mjs [--profile PROFILE]   (npm run build -w node -- --profile release)";
const args = process.argv.slice(2);
let profile = "checked";
if (args.length === 2 && args[0] === "--profile" && args[1]) profile = args[1];
else if (args.length !== 0) {
  console.error(usage);
  process.exit(2);
}

const crates = ["-p", "reconcile-sim", "-p", "reconcile-sim-node"];
console.error(`build: cargo build --profile ${profile} ${crates.join(" ")} (the engine and the CLI; minutes on a first build)`);
try {
  execFileSync("cargo", ["build", "--profile", profile, ...crates], { cwd: here, stdio: "inherit" });
} catch (e) {
  if (e.code === "ENOENT") {
    console.error(
      "build: cargo is not on PATH. Install Rust (https://rustup.rs), then run this again; " +
        "or install the packages from tarballs (node/README.md, \"Install\").",
    );
  } else {
    console.error(`build: cargo build --profile ${profile} ${crates.join(" ")} failed (exit ${e.status ?? e.signal})`);
  }
  process.exit(1);
}

const platform = triple();
const target = resolve(here, process.env.CARGO_TARGET_DIR ?? join("..", "target"));
const built = join(target, profile === "dev" ? "debug" : profile);
const { library, exe } = builtNames(platform);
for (const [from, to, mode] of [
  [join(built, library), `reconcile-sim.${platform}.node`, 0o644],
  [join(built, exe), exe, 0o755],
]) {
  if (!existsSync(from)) {
    console.error(`build: cargo reported success but ${from} is missing`);
    process.exit(1);
  }
  const dest = join(here, to);
  copyFileSync(from, `${dest}.tmp`);
  chmodSync(`${dest}.tmp`, mode);
  renameSync(`${dest}.tmp`, dest);
  console.error(`build: staged ${dest}`);
}
console.error("build: the engine and `npx reconcile-sim` are ready (try: npx reconcile-sim --version)");
