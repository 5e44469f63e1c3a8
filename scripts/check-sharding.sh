#!/usr/bin/env bash
# Sharding acceptance at full size: for `fuzz --store all` and `check --store durable` on
# 20 000 seeds, the results of 1, 3 and 7 shards (`--shard I/N --result FILE`), merged with
# `reconcile-sim merge`, print and write exactly what the unsharded run does: the same
# table (text), JSON and JUnit bytes, and the same shrunk scenario files. The merge is
# given the shard results in reverse order, to show that order does not matter.
# (`cargo test` checks the same on smaller budgets: tests/it/shard.rs.)
#
# Usage: scripts/check-sharding.sh
# Environment:
#   RECONCILE_SIM  the binary (default: ${CARGO_TARGET_DIR:-target}/checked/reconcile-sim, built if missing)
#   SEEDS          seeds per store (default 20000)
#   SHARDS         shard counts to try (default "1 3 7")
#   JOBS           worker threads per run (default 2)
#   KEEP=1         keep the scratch directory even when everything matched
# Exit 0: every merge matched; 1: a difference (shown); 2: bad usage.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

SEEDS="${SEEDS:-20000}"
SHARDS="${SHARDS:-1 3 7}"
JOBS="${JOBS:-2}"
bin="${RECONCILE_SIM:-$repo/${CARGO_TARGET_DIR:-target}/checked/reconcile-sim}"
case "$bin" in /*) ;; *) bin="$repo/$bin" ;; esac
if [ ! -x "$bin" ]; then
  cargo build --profile checked -q
fi
for n in $SHARDS; do
  case "$n" in '' | *[!0-9]* | 0) echo "SHARDS must be positive whole numbers (got '$n')" >&2; exit 2 ;; esac
done

tmp="$(mktemp -d "${TMPDIR:-/tmp}/sharding-check.XXXXXX")"
mkdir -p "$tmp/fuzz" "$tmp/check"
failures=0
finish() {
  if [ "$failures" -eq 0 ] && [ "${KEEP:-0}" != 1 ]; then rm -rf "$tmp"; else echo "(kept $tmp)"; fi
}
trap finish EXIT

# run DIR ARGS...: the binary in DIR (created), exit 0 or 1 accepted (1 = violations found).
run() {
  local dir="$1"
  shift
  mkdir -p "$dir"
  local rc=0
  (cd "$dir" && "$bin" "$@") || rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "FAIL: reconcile-sim $* exited $rc" >&2
    exit 1
  fi
  return 0
}

# The JSON of a run without the seconds its campaign and settling took (a merge of shards
# cannot know them): what must be equal between a run and the merge of its shards.
untimed() { # untimed FILE: rewrite FILE in place
  node -e '
    const fs = require("fs"); const f = process.argv[1];
    const v = JSON.parse(fs.readFileSync(f, "utf8"));
    for (const k of ["campaign_seconds", "settle_seconds", "settle_budget_seconds"]) delete v[k];
    fs.writeFileSync(f, JSON.stringify(v, null, 2) + "\n");' "$1"
}

same() { # same WHAT A B
  if cmp -s "$2" "$3"; then
    echo "ok:   $1"
  else
    echo "FAIL: $1 differs"
    diff "$2" "$3" | head -n 20 || true
    failures=$((failures + 1))
  fi
}

same_dir() { # same_dir WHAT A B
  if diff -r -q "$2" "$3" >/dev/null; then
    echo "ok:   $1 ($(find "$2" -type f | wc -l) files)"
  else
    echo "FAIL: $1 differ"
    diff -r -q "$2" "$3" | head -n 20 || true
    failures=$((failures + 1))
  fi
}

elapsed() { echo "$((SECONDS - $1)) s"; }

# --- fuzz --store all ------------------------------------------------------------------
# Settling unbounded: with a budget, how far a class is shrunk depends on the machine's
# speed, and a shard and the whole run would be cut at different points.
fuzz=(fuzz --store all --seeds "$SEEDS" --jobs "$JOBS" --settle-time unbounded)
echo "== ${fuzz[*]}: the unsharded run"
t=$SECONDS
# --verbose: `merge` prints the whole report (the details a single `fuzz` writes to
# fuzz-details.txt and points to), and writes no details file, as the merge writes none.
run "$tmp/fuzz/whole" "${fuzz[@]}" --verbose --out failures >"$tmp/fuzz/whole.txt" 2>/dev/null
run "$tmp/fuzz/whole-json" "${fuzz[@]}" --out failures --json >"$tmp/fuzz/whole.json" 2>/dev/null
untimed "$tmp/fuzz/whole.json"
echo "   (both runs: $(elapsed "$t"))"
for n in $SHARDS; do
  echo "== ${fuzz[*]}: $n shard(s), merged"
  t=$SECONDS
  results=()
  for i in $(seq 1 "$n"); do
    run "$tmp/fuzz/$n/shard-$i" "${fuzz[@]}" --shard "$i/$n" --out failures --result "$tmp/fuzz/$n/shard-$i.result.json" >/dev/null 2>&1
    results=("$tmp/fuzz/$n/shard-$i.result.json" "${results[@]}")
  done
  echo "   (shards: $(elapsed "$t"))"
  run "$tmp/fuzz/$n/merged" merge "${results[@]}" --out failures >"$tmp/fuzz/$n/merged.txt"
  run "$tmp/fuzz/$n/merged-json" merge "$tmp/fuzz/$n" --out failures --json >"$tmp/fuzz/$n/merged.json"
  untimed "$tmp/fuzz/$n/merged.json"
  same "fuzz, $n shards: table (text)" "$tmp/fuzz/whole.txt" "$tmp/fuzz/$n/merged.txt"
  same "fuzz, $n shards: JSON" "$tmp/fuzz/whole.json" "$tmp/fuzz/$n/merged.json"
  same_dir "fuzz, $n shards: shrunk scenario files" "$tmp/fuzz/whole/failures" "$tmp/fuzz/$n/merged/failures"
done

# --- check --store durable -------------------------------------------------------------
check=(check --store durable --scenarios "$repo/scenarios" --seeds "$SEEDS" --jobs "$JOBS" --settle-time unbounded)
echo "== ${check[*]}: the unsharded run"
t=$SECONDS
run "$tmp/check/whole" "${check[@]}" --out failures --junit check.xml >"$tmp/check/whole.txt" 2>/dev/null
run "$tmp/check/whole-json" "${check[@]}" --out failures --json >"$tmp/check/whole.json" 2>/dev/null
untimed "$tmp/check/whole.json"
echo "   (both runs: $(elapsed "$t"))"
for n in $SHARDS; do
  echo "== ${check[*]}: $n shard(s), merged"
  results=()
  for i in $(seq 1 "$n"); do
    run "$tmp/check/$n/shard-$i" "${check[@]}" --shard "$i/$n" --out failures --result "$tmp/check/$n/shard-$i.result.json" >/dev/null 2>&1
    results=("$tmp/check/$n/shard-$i.result.json" "${results[@]}")
  done
  run "$tmp/check/$n/merged" merge "${results[@]}" --out failures --junit check.xml >"$tmp/check/$n/merged.txt"
  run "$tmp/check/$n/merged-json" merge "$tmp/check/$n" --out failures --json >"$tmp/check/$n/merged.json"
  untimed "$tmp/check/$n/merged.json"
  same "check, $n shards: text" "$tmp/check/whole.txt" "$tmp/check/$n/merged.txt"
  same "check, $n shards: JSON" "$tmp/check/whole.json" "$tmp/check/$n/merged.json"
  same "check, $n shards: JUnit" "$tmp/check/whole/check.xml" "$tmp/check/$n/merged/check.xml"
done

if [ "$failures" -ne 0 ]; then
  echo "$failures difference(s)"
  exit 1
fi
echo "sharding check passed: $SEEDS seeds, shards $SHARDS"
