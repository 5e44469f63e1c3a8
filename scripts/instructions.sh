#!/usr/bin/env bash
# The benchmark gate: instructions executed by fixed workloads, counted by valgrind's
# callgrind, against the baseline committed in bench/instructions.tsv. An instruction count
# is what a noisy shared machine cannot move (repeated runs agree to 0.01 %), so a workload
# that grows past the margin is slower code, not a busy neighbour.
#
#   scripts/instructions.sh            # measure, compare, exit 1 naming each workload grown
#   scripts/instructions.sh --bless    # measure and write the baseline (after a change
#                                      # meant to cost more, or a new toolchain)
#
# Environment:
#   RECONCILE_SIM   the binary (default: ${CARGO_TARGET_DIR:-target}/checked/reconcile-sim,
#                   the build the tests and .ci/run use; the baseline is of that profile)
#   MARGIN_PCT      growth allowed before the gate fails (default 3)
# Counts depend on the compiler: the baseline records the rustc it was measured with, and
# against another one the gate prints the counts and ratios but does not fail (re-bless).
# Exit 0: within the margin; 1: a workload grew past it; 2: bad usage or a missing tool.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
bin="${RECONCILE_SIM:-${CARGO_TARGET_DIR:-target}/checked/reconcile-sim}"
margin="${MARGIN_PCT:-3}"
baseline=bench/instructions.tsv
bless=0
case "${1:-}" in
  --bless) bless=1 ;;
  "") ;;
  *) echo "usage: scripts/instructions.sh [--bless]" >&2; exit 2 ;;
esac
command -v valgrind >/dev/null || { echo "instructions: valgrind is not installed" >&2; exit 2; }
[ -x "$bin" ] || { echo "instructions: no binary at $bin (cargo build --profile checked)" >&2; exit 2; }

work="$(mktemp -d "${TMPDIR:-/tmp}/instructions.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# The long trace the shrink workload shrinks: a naive run's failure, saved unshrunk (51
# steps; 415 replays to 1-minimal). Made here, not measured.
"$bin" run --store naive --seed 503 --max-shrink-iters 0 --out "$work/long" >/dev/null 2>&1 || true
long="$(ls "$work"/long/*.json 2>/dev/null | head -n 1)"
[ -n "$long" ] || { echo "instructions: the long trace was not written" >&2; exit 2; }

# name <TAB> arguments: every workload on one thread, so the count is one program's.
workloads=(
  "steps-current	fuzz --store current --seeds 300 --jobs 1 --no-classes"
  "steps-durable	fuzz --store durable --seeds 300 --jobs 1 --no-classes"
  "classes-current	fuzz --store current --seeds 100 --jobs 1"
  "shrink-long	shrink $long -o $work/shrunk.json"
  "explore-durable	explore --store durable --sends 1 --tool-calls 1 --jobs 1"
)

measure() {
  # shellcheck disable=SC2086
  RECONCILE_SIM_INVOKED_AS=reconcile-sim valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    "$bin" "$@" > /dev/null 2> "$work/valgrind.txt" || true
  sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$work/valgrind.txt" | tail -n 1
}

rustc_now="$(rustc --version 2>/dev/null || echo unknown)"
declare -A base
rustc_base=""
if [ -f "$baseline" ]; then
  rustc_base="$(sed -n 's/^# rustc: //p' "$baseline")"
  while IFS=$'\t' read -r name n; do
    case "$name" in '#'* | "") continue ;; esac
    base[$name]=$n
  done < "$baseline"
fi

results=()
grown=0
printf '%-18s %15s %15s %8s\n' workload instructions baseline ratio
for w in "${workloads[@]}"; do
  name="${w%%	*}"
  args="${w#*	}"
  case "$args" in fuzz*) args="$args --out $work/out-$name" ;; esac
  # shellcheck disable=SC2086
  n="$(measure $args)"
  [ -n "$n" ] || { echo "instructions: $name: valgrind counted nothing (see $work/valgrind.txt)" >&2; cat "$work/valgrind.txt" >&2; exit 2; }
  results+=("$name	$n")
  b="${base[$name]:-}"
  if [ -n "$b" ]; then
    ratio="$(awk -v n="$n" -v b="$b" 'BEGIN { printf "%.4f", n / b }')"
    printf '%-18s %15s %15s %8s\n' "$name" "$n" "$b" "$ratio"
    if awk -v n="$n" -v b="$b" -v m="$margin" 'BEGIN { exit !(n > b * (1 + m / 100)) }'; then
      echo "GREW: $name executes ${ratio}x the baseline's instructions (margin ${margin} %)"
      grown=$((grown + 1))
    fi
  else
    printf '%-18s %15s %15s %8s\n' "$name" "$n" "-" "-"
  fi
done

if [ "$bless" = 1 ]; then
  {
    echo "# Instructions per workload (scripts/instructions.sh --bless), checked profile."
    echo "# rustc: $rustc_now"
    for r in "${results[@]}"; do echo "$r"; done
  } > "$baseline.tmp"
  mv "$baseline.tmp" "$baseline"
  echo "baseline written: $baseline"
  exit 0
fi
if [ "$grown" -gt 0 ]; then
  if [ -n "$rustc_base" ] && [ "$rustc_base" != "$rustc_now" ]; then
    echo "the baseline was measured with $rustc_base, this is $rustc_now: not failing (re-bless with this toolchain)"
    exit 0
  fi
  echo "instructions: $grown workload(s) grew past the ${margin} % margin"
  exit 1
fi
echo "instructions: every workload within ${margin} % of the baseline"
