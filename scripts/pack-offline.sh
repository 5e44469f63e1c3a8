#!/usr/bin/env bash
# `npm i -D reconcile-sim` as a new user gets it, on this machine's platform (linux-x64-gnu
# on CI): the packages built, staged and packed as the release workflow publishes them,
# installed from the tarballs into a fresh project with the network off and no Rust
# toolchain on PATH, and the production example's gate run with vitest there.
#
#   scripts/pack-offline.sh [--profile PROFILE] [--prebuilt ENGINE.node CLI]
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
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile=$2; shift 2 ;;
    --prebuilt) engine=$(realpath "$2"); cli=$(realpath "$3"); shift 3 ;;
    *) echo "usage: scripts/pack-offline.sh [--profile PROFILE] [--prebuilt ENGINE.node CLI]" >&2; exit 2 ;;
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
    NO_COLOR=1 FORCE_COLOR=0 npm_config_cache="$cache" npm_config_offline=true "$@"
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
echo "pack-offline passed in ${SECONDS}s"
