#!/usr/bin/env bash
# The engine inside Node in CI, after scripts/ci-node.sh (which installed the examples)
# and with the CLI built ($RECONCILE_SIM, as ci-node.sh): 
#
#   1. node/ (the npm package reconcile-sim and the crate reconcile-sim-node): npm ci, the
#      engine built (checked profile), its tests (in process against the CLI with exec:
#      byte for byte; the gate red and green).
#   2. Each example's `npm test`, the gate in vitest through the engine: exit 0.
#   3. examples/production with bug A planted back: `npm test` exits 1, and a failing
#      test names a new class with its replay command.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
say() { echo "== [${SECONDS}s] $*"; }

say "node/: npm ci, the engine built, npm test"
(cd node && npm ci --no-audit --no-fund && node scripts/build.mjs --profile checked && npm test)

for example in svelte production; do
  say "examples/$example: npm test (the gate in vitest, in process)"
  (cd "examples/$example" && npm test)
done

say "examples/production: bug A planted back, npm test fails naming a new class"
cd "$root/examples/production"
store=src/lib/stores/chat.svelte.ts
tmp=$(mktemp -d)
cp "$store" "$tmp/store.ts"
trap 'cp "$tmp/store.ts" "$root/examples/production/$store"; rm -rf "$tmp"' EXIT
sed -i 's/const newer = this.liveTurnId !== null \&\& this.liveTurnId !== sealedTurnId ? this.liveTurnId : null;/const newer = null as string | null;/' "$store"
if cmp -s "$store" "$tmp/store.ts"; then echo "the plant did not apply to $store" >&2; exit 1; fi
set +e
NO_COLOR=1 npx vitest run > "$tmp/planted.txt" 2>&1
rc=$?
set -e
cp "$tmp/store.ts" "$store"
if [ "$rc" -ne 1 ] || ! grep -q "new class: .*\[inv3-newer-turn\]" "$tmp/planted.txt" || ! grep -q "replay: npx reconcile-sim replay " "$tmp/planted.txt" \
  || ! grep -q "report: .*\.html" "$tmp/planted.txt"; then
  cat "$tmp/planted.txt"
  echo "planted bug: vitest exited $rc (1 expected, naming a new inv3-newer-turn class with its replay command and its HTML report)" >&2
  exit 1
fi
echo "planted bug: $(grep -c "× new class" "$tmp/planted.txt" || true) new-class tests failed, among them: $(grep -m1 -o "new class: .*\[inv3-newer-turn\]" "$tmp/planted.txt")"
echo "ci-engine passed in ${SECONDS}s"
