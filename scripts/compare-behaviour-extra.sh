#!/usr/bin/env bash
# Usage: scripts/compare-behaviour-extra.sh OLD_BINARY NEW_BINARY (a few minutes on 2 cores).
# Byte-identity of two builds on what compare-behaviour.sh does not run: explore
# --breadth-first (jobs 1 and 2, shortest/first, whole world, no persistent sets, a limit,
# shards), explore shard merge, and fuzz/check shard merges.
set -uo pipefail
old=$(realpath "$1"); new=$(realpath "$2"); root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
run_side() {
  local dir=$1 bin=$2; mkdir -p "$dir"; ln -s "$root/scenarios" "$dir/scenarios"; cd "$dir" || exit 2
  local i=0
  while IFS= read -r bound; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    "$bin" explore $bound --json --out "bfs-$i-cex.json" > "bfs-$i.json" 2>/dev/null; echo "exit $?" >> "bfs-$i.json"
    # shellcheck disable=SC2086
    "$bin" explore $bound --out "bfs-$i-text-cex.json" > "bfs-$i.txt" 2>/dev/null; echo "exit $?" >> "bfs-$i.txt"
  done <<'B'
--store current --sends 2 --one-sender --breadth-first --jobs 1
--store current --sends 2 --one-sender --breadth-first --jobs 2
--store durable --sends 1 --one-sender --scrolls 1 --breadth-first --jobs 2
--store naive --sends 1 --window 2 --breadth-first --jobs 2
--store naive --sends 1 --window 2 --breadth-first --jobs 1 --first
--store naive --sends 2 --breadth-first --jobs 2 --whole-world
--store current --sends 1 --breadth-first --jobs 2 --no-persistent
--store current --sends 2 --breadth-first --jobs 2 --max-states 300
--store membership --sends 2 --one-sender --deltas 0 --tool-calls 1 --breadth-first --jobs 2
--store current --sends 1 --scrolls 1 --window 2 --breadth-first --jobs 2 --whole-world
B
  for s in 1 2 3; do
    "$bin" explore --store naive --sends 2 --window 2 --shard $s/3 --json > "sh-$s.json" 2>/dev/null
    "$bin" explore --store current --sends 2 --one-sender --breadth-first --jobs 2 --shard $s/3 --json > "bsh-$s.json" 2>/dev/null
  done
  "$bin" merge sh-1.json sh-2.json sh-3.json > merge-explore.txt 2>&1; echo "exit $?" >> merge-explore.txt
  "$bin" merge --json sh-3.json sh-1.json sh-2.json > merge-explore.json 2>&1; echo "exit $?" >> merge-explore.json
  "$bin" merge bsh-1.json bsh-2.json bsh-3.json > merge-bexplore.txt 2>&1; echo "exit $?" >> merge-bexplore.txt
  "$bin" merge sh-1.json sh-2.json > merge-explore-missing.txt 2>&1; echo "exit $?" >> merge-explore-missing.txt
  "$bin" merge sh-1.json sh-1.json sh-2.json > merge-explore-twice.txt 2>&1; echo "exit $?" >> merge-explore-twice.txt
  for s in 1 2 3; do
    "$bin" fuzz --store all --seeds 600 --strategy pct --jobs 2 --shard $s/3 --out "fz-$s" --result "fz-$s.result.json" > "fz-$s.txt" 2>/dev/null
    "$bin" check --store current --store naive --seeds 3000 --jobs 2 --shard $s/2 --out "ck-$s" --result "ck-$s.result.json" > "ck-$s.txt" 2>/dev/null
  done
  "$bin" merge --out fz-merged fz-1.result.json fz-2.result.json fz-3.result.json > merge-fuzz.txt 2>&1; echo "exit $?" >> merge-fuzz.txt
  "$bin" merge --json --out fz-merged2 fz-2.result.json fz-3.result.json fz-1.result.json > merge-fuzz.json 2>&1; echo "exit $?" >> merge-fuzz.json
  "$bin" merge --out fz-partial fz-1.result.json > merge-fuzz-partial.txt 2>&1; echo "exit $?" >> merge-fuzz-partial.txt
  "$bin" merge --allow-partial --out fz-partial2 fz-1.result.json fz-3.result.json > merge-fuzz-partial2.txt 2>&1; echo "exit $?" >> merge-fuzz-partial2.txt
  "$bin" merge --junit ck.xml --out ck-merged ck-1.result.json ck-2.result.json > merge-check.txt 2>&1; echo "exit $?" >> merge-check.txt
  "$bin" check --junit ck-whole.xml --store current --store naive --seeds 3000 --jobs 2 --out ck-whole > ck-whole.txt 2>/dev/null; echo "exit $?" >> ck-whole.txt
  rm scenarios
}
(run_side "$work/old" "$old"); (run_side "$work/new" "$new")
status=0
while IFS= read -r rel; do
  if [ ! -e "$work/new/$rel" ]; then echo "only in old: $rel"; status=1
  elif ! cmp -s "$work/old/$rel" "$work/new/$rel"; then echo "differs: $rel"; status=1; diff "$work/old/$rel" "$work/new/$rel" | head -n 10; fi
done < <(cd "$work/old" && find . -type f | sort)
while IFS= read -r rel; do [ -e "$work/old/$rel" ] || { echo "only in new: $rel"; status=1; }; done < <(cd "$work/new" && find . -type f | sort)
echo "files: $(cd "$work/old" && find . -type f | wc -l)"
# a glance at what ran
for f in bfs-1.json bfs-4.json bfs-8.json merge-explore.txt merge-explore-missing.txt merge-fuzz.txt merge-fuzz-partial.txt merge-check.txt; do echo "== $f"; head -c 300 "$work/new/$f"; echo; tail -n1 "$work/new/$f"; done
[ "$status" -eq 0 ] && echo "extra: identical"
exit $status
