// Loads the engine for this platform: `reconcile-sim.<triple>.node` next to this file (a
// build from a clone, `npm run build -w node`), else the platform package
// `reconcile-sim-<triple>`. One error names the platform, both tries, and the command that
// gets an engine here.
"use strict";

const { existsSync } = require("node:fs");
const { join } = require("node:path");

/** This platform as the packages name it: linux-x64-gnu, linux-arm64-musl, darwin-arm64, win32-x64-msvc, … */
function triple() {
  const { platform, arch } = process;
  if (platform === "linux") {
    const report = typeof process.report?.getReport === "function" ? process.report.getReport() : null;
    const glibc = report?.header?.glibcVersionRuntime;
    return `linux-${arch}-${glibc ? "gnu" : "musl"}`;
  }
  if (platform === "win32") return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

/** What cargo names the engine (the cdylib) and the CLI binary on `platform`'s system. */
function builtNames(platform) {
  const system = platform.split("-")[0];
  const library = { win32: "reconcile_sim_node.dll", darwin: "libreconcile_sim_node.dylib" }[system] ?? "libreconcile_sim_node.so";
  return { library, exe: system === "win32" ? "reconcile-sim.exe" : "reconcile-sim" };
}

/** The repository this package is the `node/` folder of, when it is one (a clone), else null. */
function clone() {
  const root = join(__dirname, "..");
  return existsSync(join(root, "sim", "Cargo.toml")) && existsSync(join(root, "package.json")) ? root : null;
}

/**
 * How to get the engine and the CLI for `platform`, in words ending with the command that
 * does it: in a clone, the build; elsewhere the platform package, which is not on the npm
 * registry yet, so its tarball (or the CLI from source).
 */
function remedy(platform) {
  const root = clone();
  if (root !== null) {
    return `Build the engine and the CLI from this clone (cargo, minutes): cd ${JSON.stringify(root)} && npm run build -w node`;
  }
  return (
    `The engine and the CLI come in the package reconcile-sim-${platform}, which is not on the npm registry yet: ` +
    `pack it in a clone of reconcile-sim (scripts/pack-offline.sh --pack-only DIR) and install the ` +
    `tarballs with npm i -D DIR/*.tgz; or, for the CLI alone, cargo install --path sim --locked ` +
    `in that clone and set RECONCILE_SIM to the binary.`
  );
}

function load() {
  const t = triple();
  const tried = [];
  for (const candidate of [join(__dirname, `reconcile-sim.${t}.node`), `reconcile-sim-${t}`]) {
    try {
      return require(candidate);
    } catch (e) {
      tried.push(`${candidate}: ${String(e?.message ?? e).split("\n")[0]}`);
    }
  }
  throw new Error(`reconcile-sim: no engine for this platform (${t}). ${remedy(t)}\nTried:\n  ${tried.join("\n  ")}`);
}

module.exports = { triple, builtNames, clone, remedy, load };
