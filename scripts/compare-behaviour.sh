#!/usr/bin/env bash
# Byte-identity check between two builds of reconcile-sim: run the same commands with both
# and `cmp` every output (stdout, exit code, every file written). Used to prove that a
# refactor changed no behaviour.
#
#   scripts/compare-behaviour.sh OLD_BINARY NEW_BINARY [SEEDS]
#
# SEEDS (default 10000) is the fuzz budget per store and strategy. The commands:
# `fuzz --store all --json` under random, pct and swarm (with every shrunk file), `run` on
# 4 seeds of `current` and `durable`, `replay` (text, `--json`, `--format mermaid`) of every
# committed scenario, `explore --json` on 4 bounds, and `check`. Exit 0 when every output is
# identical; 1 naming each difference otherwise.
set -uo pipefail
old=$(readlink -f "$1")
new=$(readlink -f "$2")
seeds=${3:-10000}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Printed commands name the program as the tests pin it, not by the binary's path (which
# differs between the two sides); binaries older than the variable ignore it.
export RECONCILE_SIM_INVOKED_AS=reconcile-sim

run_side() {
  local dir=$1 bin=$2
  # `fuzz` prints its details only with --verbose (builds from before it had no flag and
  # always printed them).
  local verbose=
  if "$bin" fuzz --help 2>/dev/null | grep -q -- '--verbose'; then verbose=--verbose; fi
  mkdir -p "$dir"
  ln -s "$root/scenarios" "$dir/scenarios"
  cd "$dir" || exit 2
  for strategy in random pct swarm; do
    "$bin" fuzz --store all --seeds "$seeds" --strategy "$strategy" --jobs 2 --json \
      --out "out-fuzz-$strategy" > "fuzz-$strategy.json" 2>/dev/null
    echo "exit $?" >> "fuzz-$strategy.json"
  done
  "$bin" fuzz --store all --seeds 300 --coverage --jobs 2 $verbose --out out-fuzz-coverage \
    > fuzz-coverage.txt 2>/dev/null
  echo "exit $?" >> fuzz-coverage.txt
  for store in current durable; do
    for seed in 0 1 2 3; do
      "$bin" run --store "$store" --seed "$seed" --out out-run > "run-$store-$seed.txt" 2>&1
      echo "exit $?" >> "run-$store-$seed.txt"
      "$bin" run --store "$store" --seed "$seed" --json --coverage --out out-run-json \
        > "run-$store-$seed.json" 2>&1
      echo "exit $?" >> "run-$store-$seed.json"
    done
  done
  while IFS= read -r f; do
    name=$(echo "$f" | tr / _)
    "$bin" replay "$f" > "replay-$name.txt" 2>&1; echo "exit $?" >> "replay-$name.txt"
    "$bin" replay "$f" --json > "replay-$name.json" 2>&1; echo "exit $?" >> "replay-$name.json"
    "$bin" replay "$f" --format mermaid > "replay-$name.md" 2>&1
    echo "exit $?" >> "replay-$name.md"
  done < <(find scenarios/ -name '*.json' | sort)
  local i=0
  for bound in "--store current --sends 2 --one-sender" \
               "--store durable --sends 1 --one-sender --scrolls 1" \
               "--store naive --sends 1 --window 2 --no-cache" \
               "--store membership --sends 2 --one-sender --deltas 0 --tool-calls 1 --first"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    "$bin" explore $bound --json --out "explore-$i-cex.json" > "explore-$i.json" 2>/dev/null
    echo "exit $?" >> "explore-$i.json"
  done
  "$bin" check --junit check.xml --out out-check > check.txt 2>/dev/null
  echo "exit $?" >> check.txt
  "$bin" check --store current --seeds 2000 --json --out out-check-current \
    > check-current.json 2>/dev/null
  echo "exit $?" >> check-current.json
  rm scenarios
}

(run_side "$work/old" "$old")
(run_side "$work/new" "$new")

status=0
while IFS= read -r rel; do
  if [ ! -e "$work/new/$rel" ]; then
    echo "only in the old build's output: $rel"; status=1
  elif ! cmp -s "$work/old/$rel" "$work/new/$rel"; then
    echo "differs: $rel"; status=1
    diff "$work/old/$rel" "$work/new/$rel" | head -n 20
  fi
done < <(cd "$work/old" && find . -type f | sort)
while IFS= read -r rel; do
  [ -e "$work/old/$rel" ] || { echo "only in the new build's output: $rel"; status=1; }
done < <(cd "$work/new" && find . -type f | sort)
count=$(cd "$work/old" && find . -type f | wc -l)
if [ "$status" -eq 0 ]; then
  echo "identical: $count outputs"
fi
exit "$status"
