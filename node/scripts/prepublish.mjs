// The package.json reconcile-sim is published with (node/package.json as committed is the
// one for development in this repository):
//
//   node scripts/prepublish.mjs [--write FILE]      (default: node/package.json, in place)
//
// - `optionalDependencies`: every platform package of node/npm/*/ at this version, so npm
//   installs the one for the user's platform (os, cpu and libc in its package.json) and
//   skips the others. They are not in the committed package.json: until they are
//   published, `npm ci` at the repository root could not lock them.
// - each `file:` dependency, should there be one, becomes `^VERSION` of the package that
//   path holds, as the registry has it. (reconcile-sim-adapter is `^VERSION` already: the
//   npm workspace links that range to adapters/js.)
//
// Every platform package must be at reconcile-sim's version: a difference is an error.
import { readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
if (args.length !== 0 && (args.length !== 2 || args[0] !== "--write")) {
  console.error("usage: node scripts/prepublish.mjs [--write FILE]");
  process.exit(2);
}
const dest = args.length === 2 ? resolve(args[1]) : join(here, "package.json");
const pkg = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));
const read = (dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));

const optional = {};
for (const platform of readdirSync(join(here, "npm"), { withFileTypes: true })) {
  if (!platform.isDirectory()) continue;
  const p = read(join(here, "npm", platform.name));
  if (p.version !== pkg.version) {
    console.error(`prepublish: ${p.name} is at ${p.version}, reconcile-sim at ${pkg.version}: keep them equal`);
    process.exit(1);
  }
  optional[p.name] = pkg.version;
}
pkg.optionalDependencies = Object.fromEntries(Object.entries(optional).sort(([a], [b]) => a.localeCompare(b)));

for (const [name, spec] of Object.entries(pkg.dependencies ?? {})) {
  if (!spec.startsWith("file:")) continue;
  const local = read(resolve(here, spec.slice("file:".length)));
  if (local.name !== name) {
    console.error(`prepublish: ${spec} holds ${local.name}, not ${name}`);
    process.exit(1);
  }
  pkg.dependencies[name] = `^${local.version}`;
}

writeFileSync(`${dest}.tmp`, JSON.stringify(pkg, null, 2) + "\n");
renameSync(`${dest}.tmp`, dest);
console.error(`prepublish: ${dest}: ${Object.keys(optional).length} platform packages, dependencies ${JSON.stringify(pkg.dependencies)}`);
