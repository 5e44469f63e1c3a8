#!/usr/bin/env bash
# The nightly fuzz run, for a scheduler: builds everything first (so the time budget is
# spent fuzzing), then runs `reconcile-sim nightly` with the arguments given, e.g.
#   scripts/nightly.sh --time 30m --out nightly
# Exit 0: nothing new; 1: new failure signatures (or a problem) in the night's folder;
# 2: bad usage. Ctrl-C keeps everything found so far and still writes the summary.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
cargo build --release -q
(cd fuzz && cargo fuzz build -s none >/dev/null)
exec ./target/release/reconcile-sim nightly "$@"
