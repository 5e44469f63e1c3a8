#!/usr/bin/env bash
# The Node side of CI, run from a clean clone with Node >= 20 on PATH after
# `cargo build --profile checked` (it uses $RECONCILE_SIM, by default
# ${CARGO_TARGET_DIR:-target}/checked/reconcile-sim):
#
#   0. `npm ci` at the repository root: the workspace (package.json, one package-lock.json)
#      installs every package's dependencies and links adapters/js, node and examples/*.
#   1. adapters/js (the npm package reconcile-sim-adapter): npm test (tsc, the one-file
#      CLI, node --test), and the committed dist/ matches the source.
#   2. examples/svelte (a Svelte 5 store under the harness through the package):
#      npm run typecheck, then the gate through the CLI, `npm run test:cli` and
#      `npm run test:membership`: each must PASS (exit 0) with every known class of its
#      baseline (known/current, known/membership) still reproduced by its witness (none
#      FIXED) and none new; so the note's bugs are found, and only those.
#   3. Without a baseline the same check fails with exit 1 (violations), never 2 (broken):
#      the note's regression scenarios B and C break the store.
#   4. Per-seed agreement with the built-in stores on 300 seeds (invariant and class of
#      every seed equal), deltas appended verbatim as the store writes them.
#   5. examples/production (a production-shaped store driven unmodified through its own
#      fetch and WebSocket): typecheck, its CLI gate `npm run test:cli` passes with its known
#      classes only; with bug A planted back into the store, the gate fails (exit 1) and
#      names a new inv3-newer-turn class.
#   6. examples/assistant (id-less sends the backend names, a module-singleton socket,
#      grouped history, tool calls with `arguments`; its contract declared in its mapping):
#      typecheck (the root's npm ci installed it), its CLI gate passes with its known
#      classes (its three planted bugs'); with the three bugs fixed, 2000 seeds of its
#      contract find nothing (no class the adapter or the harness would have invented).
#   7. The Rust tests that need the workspace's packages, which a fresh clone's `cargo test`
#      lists as ignored: every production class round-trips through a tab's log
#      (tests/it/import.rs) and `--localize` on a planted copy of examples/svelte
#      (tests/it/localize.rs).
#
# (Each example's `npm test` is the same gate in vitest through the engine inside Node:
# scripts/ci-engine.sh runs it, once the engine is built.)
#
# About 2-3 minutes on 2 shared cores. Exit 0 when all of it holds.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin="${RECONCILE_SIM:-$root/${CARGO_TARGET_DIR:-target}/checked/reconcile-sim}"
if [ ! -x "$bin" ]; then
  echo "ci-node: $bin is missing: run cargo build --profile checked first" >&2
  exit 1
fi
export RECONCILE_SIM="$bin"
# A CI machine may be loaded: an adapter that waits its turn for a core longer than the
# per-message timeout (default 5 s) is reported as a crash that does not replay, and check
# then stops with an internal error (exit 3). A hang is still caught, later.
export RECONCILE_SIM_EXEC_TIMEOUT="${RECONCILE_SIM_EXEC_TIMEOUT:-60s}"
# Each section is announced with the seconds since the start.
say() { echo "== [${SECONDS}s] $*"; }
say "node $(node --version), npm $(npm --version)"

say "npm ci (the workspace: adapters/js, node, examples/*)"
npm ci --no-audit --no-fund
# Where the workspace links every package's executables (reconcile-sim-adapter, …).
bins=$root/node_modules/.bin

say "adapters/js: npm test"
npm test -w adapters/js
say "adapters/js: the committed dist/ is what the source builds to"
git diff --exit-code --stat -- adapters/js/dist

say "examples/svelte: typecheck"
cd examples/svelte
npm run typecheck

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# `npm run SCRIPT -- --json` (the check's report as JSON): exit 0, every witness of the
# baseline DIR shows its class, no class is new, and fuzzing met known classes.
gate() {
  local script=$1 dir=$2
  say "examples/$(basename "$PWD"): npm run $script (the gate, baseline $dir)"
  set +e
  npm run --silent "$script" -- --json > "$tmp/$script.json"
  local rc=$?
  set -e
  if [ "$rc" -ne 0 ]; then
    echo "npm run $script exited $rc (0 expected: only the known classes of $dir fail)" >&2
    node -e 'try{const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));for(const f of r.found)console.error(`NEW class ${f.class?JSON.stringify(f.class):""} [${f.invariant}]: ${f.path}`)}catch{}' "$tmp/$script.json" || true
    exit 1
  fi
  node - "$tmp/$script.json" "$dir" <<'EOF'
const fs = require("fs");
const [file, dir] = process.argv.slice(2);
const r = JSON.parse(fs.readFileSync(file, "utf8"));
const witnesses = fs.readdirSync(dir).filter((f) => f.endsWith(".json"));
const fail = (why) => { console.error(`gate: ${why}`); process.exit(1); };
const mine = r.scenarios.filter((s) => s.path.startsWith(`${dir}/`));
if (mine.length !== witnesses.length) fail(`${mine.length} of ${witnesses.length} witnesses of ${dir} replayed`);
const notKnown = mine.filter((s) => s.verdict !== "known");
if (notKnown.length > 0) fail(`witnesses not reproducing their class: ${notKnown.map((s) => `${s.path} (${s.verdict})`).join(", ")}`);
const fixed = r.scenarios.filter((s) => s.verdict === "fixed");
if (fixed.length > 0) fail(`FIXED: ${fixed.map((s) => s.path).join(", ")}`);
if (r.found.length > 0) fail(`new classes: ${r.found.map((f) => f.path).join(", ")}`);
const hit = new Set(r.batches.flatMap((b) => b.classes).map((c) => JSON.stringify(c.class)));
const failing = r.batches.reduce((n, b) => n + Object.values(b.failing).reduce((a, x) => a + x, 0), 0);
if (hit.size === 0) fail("fuzzing met no known class");
console.log(`gate: ${witnesses.length} known classes reproduced by their witnesses; fuzzing met ${hit.size} of them (${r.batches.map((b) => b.seeds).reduce((a, n) => a + n, 0)} seeds), nothing new`);
EOF
}
gate test:cli known/current
gate test:membership known/membership

say "examples/svelte: without a baseline the note's scenarios break the store (exit 1, not 2)"
for extra in "" " -- membership"; do
  set +e
  PATH="$bins:$PATH" "$bin" check --store "exec:reconcile-sim-adapter adapter.ts$extra" \
    --scenarios scenarios --seeds 0 --allow-empty --out "$tmp/failures" > "$tmp/plain.txt" 2>&1
  rc=$?
  set -e
  if [ "$rc" -ne 1 ] || ! grep -q "FAIL  scenarios/bug-b.json" "$tmp/plain.txt"; then
    cat "$tmp/plain.txt"
    echo "check without a baseline exited $rc (1 expected, with bug-b failing)" >&2
    exit 1
  fi
  grep -c "FAIL  scenarios/" "$tmp/plain.txt" | sed "s/^/  scenarios failing (exec:…adapter.ts$extra): /"
done

say "examples/svelte: per-seed agreement with the built-in stores (300 seeds each)"
node scripts/agreement.mjs --seeds 300 --keep current
node scripts/agreement.mjs --seeds 300 --keep membership

say "examples/production (a production-shaped store, unmodified): typecheck"
cd "$root/examples/production"
npm run typecheck
gate test:cli known

say "examples/production: a planted bug (bug A back) fails the gate, named as a new class"
store=src/lib/stores/chat.svelte.ts
cp "$store" "$tmp/store.ts"
trap 'cp "$tmp/store.ts" "$root/examples/production/$store"; rm -rf "$tmp"' EXIT
sed -i 's/const newer = this.liveTurnId !== null \&\& this.liveTurnId !== sealedTurnId ? this.liveTurnId : null;/const newer = null as string | null;/' "$store"
if cmp -s "$store" "$tmp/store.ts"; then echo "the plant did not apply to $store" >&2; exit 1; fi
set +e
npm run --silent test:cli -- --json > "$tmp/planted.json"
rc=$?
set -e
cp "$tmp/store.ts" "$store"
node - "$tmp/planted.json" "$rc" <<'EOF'
const fs = require("fs");
const [file, rc] = process.argv.slice(2);
const r = JSON.parse(fs.readFileSync(file, "utf8"));
const fail = (why) => { console.error(`planted bug: ${why}`); process.exit(1); };
if (rc !== "1") fail(`the gate exited ${rc} (1 expected)`);
const inv3 = r.found.filter((f) => f.invariant === "inv3-newer-turn");
if (inv3.length === 0) fail(`no new inv3-newer-turn class (new: ${r.found.map((f) => f.path).join(", ") || "none"})`);
console.log(`planted bug: the gate failed with ${r.found.length} new classes, ${inv3.map((f) => JSON.stringify(f.class)).join(", ")} among them`);
EOF

say "examples/assistant (three planted bugs, its contract in its mapping): typecheck, the gate"
cd "$root/examples/assistant"
npm run typecheck
gate test:cli known

say "examples/assistant: with its three planted bugs fixed, 2000 seeds of its contract find nothing"
conv=src/lib/stores/conversation.svelte.ts
cp "$conv" "$tmp/conversation.ts"
trap 'cp "$tmp/conversation.ts" "$root/examples/assistant/$conv"; rm -rf "$tmp"' EXIT
sed -i -e 's/^        if (waiting) waiting.turnId = frame.data.turn_id;$/        void waiting;/' \
  -e 's/^      if (row.role === "user") for (const id of row.message_ids) this.#saved.add(id);$/      for (const id of row.message_ids) this.#saved.add(id);/' \
  -e 's/^    this.live = this.live.filter((m) => m.role === "user");$//' "$conv"
if [ "$(diff "$conv" "$tmp/conversation.ts" | grep -c '^<')" -ne 3 ]; then echo "the three fixes did not all apply to $conv" >&2; exit 1; fi
npx reconcile-sim-adapter build reconcile/adapter.ts
PATH="$bins:$PATH" "$bin" fuzz --store "exec:reconcile-sim-adapter reconcile/adapter.ts" \
  --seeds 2000 --jobs 2 --out "$tmp/fixed" > "$tmp/fixed.txt" 2>&1 || { cat "$tmp/fixed.txt"; echo "the fixed assistant store failed (exit 0 expected)" >&2; exit 1; }
cp "$tmp/conversation.ts" "$conv"
npx reconcile-sim-adapter build reconcile/adapter.ts
grep -m1 "runs in" "$tmp/fixed.txt"

say "the Rust tests that need the workspace's packages (ignored by a fresh clone's cargo test)"
cd "$root"
cargo test --profile checked --test it -- --ignored --exact \
  import::every_production_class_round_trips_through_a_tab_log \
  import::the_adapters_recorder_round_trips_production_witnesses \
  localize::a_planted_bug_s_classes_carry_ranked_lines_and_an_unreachable_branch_never_ranks
echo "ci-node passed in ${SECONDS}s"
