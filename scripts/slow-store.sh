#!/usr/bin/env bash
# Issue 11's acceptance, measured: a store that sleeps 3 s when it starts and 1 s before
# every 50th input its process is given (sim/tests/faulty/faulty.js `slow`, the `durable`
# store underneath, which passes), fuzzed for 2000 seeds with the default timeouts (5 s per
# message, 60 s to start). `fuzz` must print its table (a timeout that does not happen
# again is a `flaky` finding, not an abort) and never exit 2 or 3.
#
#   scripts/slow-store.sh [OUT_DIR] [extra fuzz flags…]
#
# It takes a while by design: about one second of sleep per 50 inputs, spread over the
# worker threads. The integration test
# `exec_findings::a_timeout_that_does_not_happen_again_is_flaky_and_the_campaign_goes_on`
# is the same situation scaled down (and made certain to time out).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-reconcile-failures/slow-store}
shift || true
cargo build --release --quiet
start=$(date +%s)
set +e
./target/release/reconcile-sim fuzz \
  --store "exec:node sim/tests/faulty/faulty.js slow 3000 1000 50" \
  --seeds 2000 --out "$out" "$@"
code=$?
set -e
echo "exit code $code after $(( $(date +%s) - start )) s" >&2
if [ "$code" -ge 2 ]; then
  echo "FAIL: fuzz exited $code for a store's slowness" >&2
  exit 1
fi
