// Put a built engine (the reconcile-sim-node crate's cdylib) and CLI binary (the
// `reconcile-sim` bin of the crate in sim/) into the platform package node/npm/<platform>/,
// named as its package.json lists them, ready for `npm pack` / `npm publish`:
//
//   node scripts/stage.mjs [--profile PROFILE] [--target-dir DIR] [--target RUST_TRIPLE]
//                          [--platform PLATFORM] [--node FILE] [--cli FILE]
//
// By default the files cargo built for this machine: DIR/PROFILE/ (DIR/RUST_TRIPLE/PROFILE/
// with --target), DIR being $CARGO_TARGET_DIR or the repository's target/, PROFILE
// `release`; PLATFORM this machine's (linux-x64-gnu, darwin-arm64, …; a cross build names
// its own). --node and --cli give the two files instead. Nothing is built here.
import { chmodSync, copyFileSync, existsSync, readFileSync, renameSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const { triple, builtNames } = createRequire(import.meta.url)("../native.cjs");

const usage =
  "usage: node scripts/stage.mjs [--profile PROFILE] [--target-dir DIR] [--target RUST_TRIPLE] " +
  "[--platform PLATFORM] [--node FILE] [--cli FILE]";
function fail(why) {
  console.error(`stage: ${why}`);
  process.exit(2);
}

const opts = {};
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 2) {
  const name = args[i].replace(/^--/, "");
  if (!["profile", "target-dir", "target", "platform", "node", "cli"].includes(name) || !args[i].startsWith("--")) {
    fail(`unknown argument ${args[i]}\n${usage}`);
  }
  if (args[i + 1] === undefined) fail(`${args[i]} needs a value\n${usage}`);
  opts[name] = args[i + 1];
}

const platform = opts.platform ?? triple();
const dir = join(here, "npm", platform);
if (!existsSync(join(dir, "package.json"))) fail(`no platform package for ${platform} (node/npm/${platform}/package.json)`);
const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
const main = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));
if (pkg.version !== main.version) {
  fail(`${pkg.name} is at ${pkg.version} but reconcile-sim at ${main.version}: keep them equal`);
}
if (main.optionalDependencies?.[pkg.name] !== undefined && main.optionalDependencies[pkg.name] !== main.version) {
  fail(`reconcile-sim depends on ${pkg.name}@${main.optionalDependencies[pkg.name]}, not ${main.version}`);
}

// What cargo names the two outputs on the platform's system.
const { library, exe } = builtNames(platform);
const profile = opts.profile ?? "release";
const targetDir = resolve(opts["target-dir"] ?? process.env.CARGO_TARGET_DIR ?? join(here, "..", "target"));
const built = join(targetDir, ...(opts.target ? [opts.target] : []), profile === "dev" ? "debug" : profile);

const nodeFile = `reconcile-sim.${platform}.node`;
for (const want of [nodeFile, exe]) {
  if (!pkg.files?.includes(want)) fail(`${pkg.name}'s package.json does not list ${want} in files`);
}
if (pkg.main !== nodeFile) fail(`${pkg.name}'s main is ${pkg.main}, not ${nodeFile}`);

for (const [from, to, mode] of [
  [opts.node ? resolve(opts.node) : join(built, library), nodeFile, 0o644],
  [opts.cli ? resolve(opts.cli) : join(built, exe), exe, 0o755],
]) {
  if (!existsSync(from)) fail(`${from} is missing: build it first (cargo build --profile ${profile} -p reconcile-sim -p reconcile-sim-node)`);
  const dest = join(dir, to);
  copyFileSync(from, `${dest}.tmp`);
  chmodSync(`${dest}.tmp`, mode);
  renameSync(`${dest}.tmp`, dest);
  console.error(`staged ${dest} (from ${from})`);
}
