#!/usr/bin/env bash
# `npm i -D reconcile-sim` as a new user gets it, on this machine's platform (linux-x64-gnu
# on CI): the packages built, staged and packed as the release workflow publishes them,
# installed from the tarballs into a fresh project with the network off and no Rust
# toolchain on PATH, and the production example's gate run with vitest there.
#
#   scripts/pack-offline.sh [--profile PROFILE] [--prebuilt ENGINE.node CLI] [--pack-only DIR]
#
# With --pack-only DIR it stops after step 3, the three tarballs copied into DIR: the way to
# install the packages while they are not on the npm registry (`npm i -D DIR/*.tgz` in a
# project; node/README.md, "Install").
#
#   1. Build the engine (crate reconcile-sim-node) and the CLI (crate reconcile-sim, in
#      sim/) with cargo, profile `checked` by default; --prebuilt takes the two files
#      instead and builds nothing.
#   2. Stage them into the platform package node/npm/<platform>/ (node/scripts/stage.mjs).
#   3. `npm pack` reconcile-sim-adapter (adapters/js, its dist/ committed), reconcile-sim
#      (node/: a copy of its files, its package.json as published, by
#      node/scripts/prepublish.mjs: the platform packages as optional dependencies, the
#      adapter at its version) and reconcile-sim-<platform>.
#   4. Warm an npm cache of its own (ONLINE, the only step that is): the third-party
#      packages the project needs (esbuild, svelte, @mswjs/interceptors, vitest 4.1.12 and
#      their dependencies) come from the registry into it. It is kept in
#      ${CARGO_TARGET_DIR:-target}/pack-offline-npm-cache, so a second run fetches nothing.
#   5. A fresh project in a temporary directory: its package.json written here (the
#      tarballs, the third-party packages), `npm install --offline` from that cache with
#      PATH stripped of every directory holding cargo or rustc, and (where `unshare -n`
#      works, as root on Linux) no network at all, for the install and every run after it; examples/production copied
#      in (no node_modules, no reconcile-failures; its own package.json, lock and
#      reconcile.test.ts left out), and a vitest file that gates the store in process:
#        import { gate } from "reconcile-sim/vitest";
#        await gate({ adapter: "reconcile/adapter.ts", … seeds: 300 });
#   6. `npx vitest run` passes (exit 0); with bug A planted back into the copy's store it
#      fails (exit 1) with a "new class" test; the replay command that failure prints runs
#      as printed (`npx reconcile-sim replay …`, the CLI from the platform package) and
#      reproduces it; `npx reconcile-sim --version` works.
#
# Each step prints the seconds it took. Exit 0 when all of it holds. KEEP=1 keeps the
# temporary directory (its path is printed).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
profile=checked
engine=""
cli=""
pack_only=""
usage="usage: scripts/pack-offline.sh [--profile PROFILE] [--prebuilt ENGINE.node CLI] [--pack-only DIR]"
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile=$2; shift 2 ;;
    --prebuilt) engine=$(realpath "$2"); cli=$(realpath "$3"); shift 3 ;;
    --pack-only)
      [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
      mkdir -p "$2"
      pack_only=$(realpath "$2")
      shift 2
      ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
target=${CARGO_TARGET_DIR:-$root/target}
case "$target" in /*) ;; *) target=$root/$target ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/pack-offline.XXXXXX")
cleanup() {
  if [ "${KEEP:-}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# `step NAME COMMAND…`: run it, then print how long it took.
step() {
  local name=$1
  shift
  local start=$EPOCHREALTIME rc=0
  "$@" || rc=$?
  awk -v n="$name" -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "== time: %s: %.1f s\n", n, b - a }'
  return "$rc"
}
# `into FILE COMMAND…`: run it, its output into FILE.
into() {
  local out=$1
  shift
  "$@" > "$out" 2>&1
}
fail() {
  echo "pack-offline: $*" >&2
  exit 1
}

platform=$(node -p 'require("./node/native.cjs").triple()')
echo "== pack-offline: platform $platform, node $(node --version), npm $(npm --version)"

if [ -z "$engine" ]; then
  echo "== build: cargo build --profile $profile -p reconcile-sim -p reconcile-sim-node"
  step build cargo build --profile "$profile" -q -p reconcile-sim -p reconcile-sim-node
  step stage node node/scripts/stage.mjs --profile "$profile" --target-dir "$target"
else
  step stage node node/scripts/stage.mjs --node "$engine" --cli "$cli"
fi

echo "== pack: the three packages into $work/tarballs"
mkdir -p "$work/tarballs" "$work/src"
pack() { (cd "$1" && npm pack --silent --pack-destination "$work/tarballs") >/dev/null; }
pack_all() { pack adapters/js && pack "$work/src/node" && pack "node/npm/$platform"; }
# The main package from a copy of its files in this checkout (tracked or new, not ignored:
# no local engine build, no node_modules), with the package.json it is published with.
git ls-files -z --cached --others --exclude-standard -- node \
  | (cd "$root" && xargs -0 cp --parents -t "$work/src")
rm -rf "$work/src/node/npm"
node node/scripts/prepublish.mjs --write "$work/src/node/package.json"
step pack pack_all
ls -l "$work/tarballs"
version=$(node -p 'require("./node/package.json").version')
adapter_version=$(node -p 'require("./adapters/js/package.json").version')
main_tgz=$work/tarballs/reconcile-sim-$version.tgz
adapter_tgz=$work/tarballs/reconcile-sim-adapter-$adapter_version.tgz
platform_tgz=$work/tarballs/reconcile-sim-$platform-$version.tgz
for f in "$main_tgz" "$adapter_tgz" "$platform_tgz"; do [ -f "$f" ] || fail "$f was not packed"; done
if [ -n "$pack_only" ]; then
  cp "$main_tgz" "$adapter_tgz" "$platform_tgz" "$pack_only/"
  echo "== the packages, in $pack_only:"
  (cd "$pack_only" && ls -l "$(basename "$main_tgz")" "$(basename "$adapter_tgz")" "$(basename "$platform_tgz")")
  echo "install them in a project with: npm i -D $(printf '%q' "$pack_only")/*.tgz"
  exit 0
fi
# (Listings in variables: `grep -q` on a pipe would end tar early, a failure under pipefail.)
listing=$(tar -tzf "$main_tgz")
if grep -q '\.node$' <<<"$listing"; then fail "reconcile-sim's tarball holds an engine (.node): it must come from the platform package"; fi
listing=$(tar -tvzf "$platform_tgz")
grep -q -- "^-rwxr-xr-x .* package/reconcile-sim\$" <<<"$listing" \
  || fail "the platform package's CLI is not packed as an executable: $listing"
grep -q -- " package/reconcile-sim\.$platform\.node\$" <<<"$listing" || fail "the platform package holds no engine: $listing"

# The fresh project: the example's store and its reconcile/ mapping, our package.json.
project=$work/project
mkdir -p "$project"
# The example's own reconcile.test.ts (the same gate, 1000 seeds) is left out for the one
# written below (300 seeds).
(cd examples/production && tar -cf - --exclude=./node_modules --exclude=./reconcile-failures \
  --exclude=./package.json --exclude=./package-lock.json --exclude=./reconcile.test.ts .) | (cd "$project" && tar -xf -)
cat > "$project/package.json" <<EOF
{
  "name": "reconcile-sim-offline-check",
  "version": "0.0.0",
  "private": true,
  "type": "module",
  "scripts": {
    "test": "vitest run"
  },
  "devDependencies": {
    "esbuild": "^0.28.2",
    "reconcile-sim": "file:$main_tgz",
    "reconcile-sim-adapter": "file:$adapter_tgz",
    "svelte": "^5.57.3",
    "vitest": "4.1.12"
  },
  "overrides": {
    "reconcile-sim-$platform": "file:$platform_tgz"
  }
}
EOF
cat > "$project/reconcile.test.js" <<'EOF'
import { gate } from "reconcile-sim/vitest";

await gate({ adapter: "reconcile/adapter.ts", scenarios: "scenarios", known: "known", seeds: 300 });
EOF

# Step 4, online: the same package.json installed once into a scratch copy, which puts
# every third-party package the project needs into the cache the offline install reads.
cache=$target/pack-offline-npm-cache
mkdir -p "$cache" "$work/warm"
cp "$project/package.json" "$work/warm/"
echo "== warm the npm cache (online: third-party packages only; ours are the tarballs) in $cache"
warm() { (cd "$work/warm" && npm install --cache "$cache" --prefer-offline --no-audit --no-fund --loglevel=error); }
step warm warm

# Step 5: offline, no Rust toolchain.
nocargo=""
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  if [ -n "$d" ] && [ ! -x "$d/cargo" ] && [ ! -x "$d/rustc" ]; then nocargo=${nocargo:+$nocargo:}$d; fi
done
# With the network really off where this machine allows it (a network namespace of its
# own, as root: no interface but a down loopback), else npm's --offline alone.
nonet=()
if unshare -n true 2>/dev/null; then
  nonet=(unshare -n)
  echo "== no network: install and runs in a network namespace of their own (unshare -n)"
else
  echo "== no network namespace here (unshare -n): the install relies on npm --offline"
fi
run() {
  "${nonet[@]}" env -u RECONCILE_SIM -u RECONCILE_SIM_INVOKED_AS -u CARGO_TARGET_DIR -u CARGO PATH="$nocargo" \
    NO_COLOR=1 FORCE_COLOR=0 npm_config_cache="$cache" npm_config_offline=true npm_config_update_notifier=false "$@"
}
if run bash -c 'command -v cargo || command -v rustc' >/dev/null; then fail "cargo is still on PATH"; fi
if [ ${#nonet[@]} -gt 0 ] && run node -e 'fetch("https://registry.npmjs.org/").then(() => process.exit(0), () => process.exit(1))'; then
  fail "the registry is still reachable in the network namespace"
fi
cd "$project"
echo "== install: npm install --offline in $project (PATH without cargo: $nocargo)"
step install run npm install --offline --no-audit --no-fund
installed=node_modules/reconcile-sim-$platform
[ -x "$installed/reconcile-sim" ] || fail "$installed/reconcile-sim is missing or not executable"
[ -f "$installed/reconcile-sim.$platform.node" ] || fail "$installed holds no engine"
ls node_modules/reconcile-sim/*.node 2>/dev/null && fail "reconcile-sim was installed with an engine of its own"

echo "== the gate, green: npx vitest run (examples/production's store, 300 seeds, in process)"
set +e
step "first run (green)" into "$work/green.txt" run npx vitest run
rc=$?
set -e
grep -E "✓|Tests |Duration" "$work/green.txt"
[ "$rc" -eq 0 ] || { cat "$work/green.txt"; fail "the gate exited $rc on the store as it is (0 expected)"; }

echo "== the gate, red: bug A planted back (reloadHistory no longer keeps a newer turn streaming)"
store=src/lib/stores/chat.svelte.ts
cp "$store" "$work/store.ts"
sed -i 's/const newer = this.liveTurnId !== null \&\& this.liveTurnId !== sealedTurnId ? this.liveTurnId : null;/const newer = null as string | null;/' "$store"
if cmp -s "$store" "$work/store.ts"; then fail "the plant did not apply to $store"; fi
set +e
step "second run (planted bug)" into "$work/red.txt" run npx vitest run
rc=$?
set -e
grep -E "new class|FAIL|Tests " "$work/red.txt" | head -n 12
[ "$rc" -eq 1 ] || { cat "$work/red.txt"; fail "the gate exited $rc with bug A planted (1 expected)"; }
grep -q "new class" "$work/red.txt" || { cat "$work/red.txt"; fail "no \"new class\" in the failing run's output"; }

echo "== the CLI from the platform package: npx reconcile-sim"
run npx reconcile-sim --version
replay=$(grep -m1 -o 'npx reconcile-sim replay .*' "$work/red.txt" || true)
[ -n "$replay" ] || fail "the failing run printed no replay command"
echo "\$ $replay"
set +e
step replay into "$work/replay.txt" run bash -c "$replay"
rc=$?
set -e
tail -n 5 "$work/replay.txt"
[ "$rc" -eq 1 ] || { cat "$work/replay.txt"; fail "the printed replay command exited $rc (1 expected: the violation reproduces)"; }

# Step 7: the READMEs' snippets as written, each in a fresh project: node/README.md's gate
# (reconcile.test.ts) and its install command; adapters/js/README.md's mapping (adapter.ts)
# and its commands (install, build, fuzz). A snippet is a code block right after a line
# `<!-- pack-offline: file NAME in PROJECT … -->` (written as NAME) or `<!-- pack-offline:
# run in PROJECT[, exit N] … -->` (run with bash -e from the project, exit N expected,
# default 0). The projects hold an example's store and nothing else of ours: node-project
# examples/production's (no scenarios/ folder, as a new project has none), adapter-project
# examples/svelte's. `~` is a home of their own holding the tarballs as
# ~/reconcile-sim-tarballs, where the READMEs' `--pack-only` puts them.
echo "== the READMEs' snippets, as written, in fresh projects (node/README.md, adapters/js/README.md)"
readme=$work/readme
home=$work/home
mkdir -p "$readme" "$home/reconcile-sim-tarballs"
cp "$main_tgz" "$adapter_tgz" "$platform_tgz" "$home/reconcile-sim-tarballs/"
(cd "$root" && node - "$readme" node/README.md adapters/js/README.md) <<'EOF_NODE'
const fs = require("fs");
const path = require("path");
const [out, ...pages] = process.argv.slice(2);
const runs = {};
for (const page of pages) {
  const lines = fs.readFileSync(page, "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^<!-- pack-offline: (?:file (\S+)|run) in ([\w-]+)(?:, exit (\d+))?/.exec(lines[i]);
    if (!m) continue;
    if (!/^```\w*\s*$/.test(lines[i + 1] ?? "")) throw new Error(`${page}:${i + 1}: a pack-offline marker must be right before a code block`);
    const end = lines.indexOf("```", i + 2);
    if (end === -1) throw new Error(`${page}:${i + 2}: the code block does not end`);
    const body = lines.slice(i + 2, end).join("\n") + "\n";
    const [, file, project, exit] = m;
    fs.mkdirSync(path.join(out, project), { recursive: true });
    if (file) {
      fs.writeFileSync(path.join(out, project, file), body);
    } else {
      const n = (runs[project] = (runs[project] ?? 0) + 1);
      fs.writeFileSync(path.join(out, `${project}.run-${n}.exit-${exit ?? 0}.sh`), body);
    }
    console.log(`  ${page}:${i + 1}: ${file ? `file ${file}` : `run (exit ${exit ?? 0})`} in ${project}`);
  }
}
for (const project of ["node-project", "adapter-project"]) {
  if (!runs[project]) throw new Error(`no pack-offline run block for ${project} in ${pages.join(", ")}`);
}
EOF_NODE
# What each project holds besides the snippets: an example's store, and a package.json
# with nothing in it.
(cd "$root/examples/production" && tar -cf - src reconcile svelte.config.js tsconfig.json known) | (cd "$readme/node-project" && tar -xf -)
(cd "$root/examples/svelte" && tar -cf - src svelte.config.js tsconfig.json) | (cd "$readme/adapter-project" && tar -xf -)
for project in node-project adapter-project; do
  printf '{\n  "name": "%s",\n  "version": "0.0.0",\n  "private": true,\n  "type": "module"\n}\n' "$project" > "$readme/$project/package.json"
done
[ -f "$readme/node-project/reconcile.test.ts" ] || fail "node/README.md's gate snippet (reconcile.test.ts) was not found"
[ -f "$readme/adapter-project/adapter.ts" ] || fail "adapters/js/README.md's mapping snippet (adapter.ts) was not found"
[ ! -e "$readme/node-project/scenarios" ] || fail "node-project must have no scenarios/ folder"
# The install lines once online, in scratch copies, so the offline runs find every
# third-party package in the cache.
warm_readme() {
  local project=$1 block
  for block in "$readme/$project".run-*.sh; do
    grep -E '^npm (i|install) ' "$block" > "$work/warm-$project.sh" || continue
    rm -rf "$work/warm-$project"
    mkdir -p "$work/warm-$project"
    cp "$readme/$project/package.json" "$work/warm-$project/"
    (cd "$work/warm-$project" && HOME=$home npm_config_cache=$cache npm_config_audit=false npm_config_fund=false \
      npm_config_loglevel=error npm_config_update_notifier=false bash -e "$work/warm-$project.sh")
  done
}
step "warm (readme)" warm_readme node-project
step "warm (readme)" warm_readme adapter-project
export RECONCILE_SIM_EXEC_TIMEOUT=${RECONCILE_SIM_EXEC_TIMEOUT:-60s}
for project in node-project adapter-project; do
  for block in "$readme/$project".run-*.sh; do
    want=${block##*.exit-}
    want=${want%.sh}
    echo "== $project: $(basename "$block") (exit $want expected), offline:"
    sed 's/^/  $ /' "$block"
    set +e
    (cd "$readme/$project" && step "$(basename "$block")" into "$work/$(basename "$block").txt" run env HOME="$home" bash -e -o pipefail "$block")
    rc=$?
    set -e
    tail -n 6 "$work/$(basename "$block").txt"
    [ "$rc" -eq "$want" ] || { cat "$work/$(basename "$block").txt"; fail "$project: $(basename "$block") exited $rc ($want expected)"; }
  done
done
echo "== node-project: npx vitest run (node/README.md's gate, no scenarios/ folder): green"
set +e
(cd "$readme/node-project" && step "readme gate" into "$work/readme-gate.txt" run npx vitest run)
rc=$?
set -e
grep -E "✓|✗|×|Tests |scenarios" "$work/readme-gate.txt" | head -n 12
[ "$rc" -eq 0 ] || { cat "$work/readme-gate.txt"; fail "node/README.md's gate exited $rc in a fresh project (0 expected)"; }
echo "pack-offline passed in ${SECONDS}s"
