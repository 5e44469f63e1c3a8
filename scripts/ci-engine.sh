#!/usr/bin/env bash
# The engine inside Node in CI, with the CLI built ($RECONCILE_SIM, as ci-node.sh):
#
#   1. `npm ci` at the repository root (the npm workspace), then the engine built as the
#      READMEs say, `npm run build -w node` (the crate reconcile-sim-node and the CLI, profile
#      checked, staged in node/), and node/'s tests (in process against the CLI with exec:
#      byte for byte; the gate red and green; baselines made by the CLI gate the engine and
#      the other way round).
#   2. Each example's `npm test` (svelte, production, assistant), the gate in vitest through
#      the engine: exit 0.
#   3. examples/production with bug A planted back: `npm test` exits 1, and a failing
#      test names a new class with its replay command.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
say() { echo "== [${SECONDS}s] $*"; }

say "npm ci (the workspace), the engine built (npm run build -w node), npm test -w node"
npm ci --no-audit --no-fund
npm run build -w node
npm test -w node

for example in svelte production assistant; do
  say "examples/$example: npm test (the gate in vitest, in process)"
  npm test -w "examples/$example"
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
