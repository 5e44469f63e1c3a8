// Loads the engine for this platform: `reconcile-sim.<triple>.node` next to this file (a
// local build, `npm run build`), else the platform package `reconcile-sim-<triple>` that
// npm installed as an optional dependency. One error names the platform and both tries.
"use strict";

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
  throw new Error(
    `reconcile-sim: no engine for this platform (${t}). Install the package reconcile-sim-${t} ` +
      `(npm installs it with reconcile-sim unless optional dependencies are off), or build one with ` +
      `\`npm run build\` in the reconcile-sim package. Tried:\n  ${tried.join("\n  ")}`,
  );
}

module.exports = { triple, load };
