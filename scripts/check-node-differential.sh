#!/usr/bin/env bash
# The Node reference adapter (adapters/node) against the Rust stores, in lockstep, on
# more seeds than the test suite gives them: `reconcile-sim diff` drives both through
# every committed scenario and then the seeds, and stops at the first step where their
# effects or renders differ (exit 1, the divergence shrunk under target/diff-failures).
# The suite (sim/tests/it/exec.rs, node_durable.rs) runs the same comparison on a
# smaller budget; CI runs this after it.
#
# Usage: scripts/check-node-differential.sh [SEEDS_MAIN [SEEDS_OTHER]]
#   RECONCILE_SIM  the binary (default ${CARGO_TARGET_DIR:-target}/checked/reconcile-sim)
set -euo pipefail
cd "$(dirname "$0")/.."
sim=${RECONCILE_SIM:-${CARGO_TARGET_DIR:-target}/checked/reconcile-sim}
main=${1:-5000}
other=${2:-1000}
out=target/diff-failures

agree() { # REFERENCE SEEDS ADAPTER-ARGS...
  local reference=$1 seeds=$2
  shift 2
  "$sim" diff --store "$reference" --store "exec:node adapters/node/store.js $*" \
    --seeds "$seeds" --scenarios scenarios --out "$out"
}

# The stores the adapter exists for, and the store meant to pass.
for variant in current membership durable; do
  agree "$variant" "$main" "$variant"
done
# The note's other variants, and the asynchronous loop a wrapped real store uses.
for variant in naive fix-a fix-ab fix-abc canary; do
  agree "$variant" "$other" "$variant"
done
agree current "$other" --async current
