#!/usr/bin/env bash
# Checks the ClusterFuzzLite build without Docker: runs .clusterfuzzlite/build.sh the way
# the builder image's `compile` does, then checks what it left in $OUT and runs the fuzzers
# from there the way ClusterFuzzLite will:
#   1. both targets and both seed corpus zips are in $OUT, and are what ClusterFuzzLite
#      looks for (executables containing LLVMFuzzerTestOneInput; ASan linked in for address);
#   2. `interleavings` with RECONCILE_SIM_STORE=canary finds the canary store's planted bug
#      from an empty corpus within 60 s, and the crash file converts with
#      `reconcile-sim from-fuzz ARTIFACT --store canary` into a scenario that replays it;
#   3. `interleavings` with RECONCILE_SIM_STORE=durable (what the cflite workflows fix) does
#      not crash on its zipped seed corpus, nor does `interleavings_durable` (durable built
#      in) on its own (corpus/interleavings/), even with RECONCILE_SIM_STORE=canary set;
#   4. `scenario_parser` runs ~10 s on its zipped seed corpus without a crash.
#
# Usage: scripts/check-clusterfuzzlite.sh
# Environment:
#   RECONCILE_SIM  the harness binary for step 2 (default: ${CARGO_TARGET_DIR:-target}/checked/reconcile-sim)
#   SANITIZER      address (default: what the workflows build) or none (faster to build)
#   KEEP=1         keep the temporary builder directories even when every check passes
# Exit 0: every check passed; 1: a check failed (what and why is printed); 2: bad usage.
#
# The build runs in a clean environment holding only the builder's variables (and what
# cargo needs to find its toolchain). $SRC/reconcile-sim is a symlink to this checkout, not
# a copy, and CARGO_TARGET_DIR is fuzz/target/cflite-$SANITIZER (git-ignored, kept between
# runs): the first run builds every crate (about 3 minutes on 2 cores), later runs only what
# changed. It is not fuzz/target itself: `cargo fuzz run -s none` (.ci/run, nightly.sh)
# builds there without RUSTC_BOOTSTRAP, and proc-macro2's build script reruns whenever
# RUSTC_BOOTSTRAP changes, so sharing the directory would rebuild every crate each time
# the other kind of build had run in between.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

RECONCILE_SIM="${RECONCILE_SIM:-${CARGO_TARGET_DIR:-target}/checked/reconcile-sim}"
SANITIZER="${SANITIZER:-address}"
case "$SANITIZER" in
  address | none) ;;
  *) echo "SANITIZER must be address or none (got '$SANITIZER')" >&2; exit 2 ;;
esac

failures=0
ok() { echo "ok:   $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

tmp="$(mktemp -d "${TMPDIR:-/tmp}/cflite-check.XXXXXX")"
finish() {
  local rc=$?
  if [ "$rc" -eq 0 ] && [ "${KEEP:-0}" != 1 ]; then
    rm -rf "$tmp"
  else
    echo "(builder directories kept in $tmp)"
  fi
}
trap finish EXIT

# --- the builder's environment -------------------------------------------------------
# base-image:        SRC=/src OUT=/out WORK=/work
# base-builder:      SANITIZER=address FUZZING_ENGINE=libfuzzer ARCHITECTURE=x86_64
# helper/build_fuzzers: FUZZING_LANGUAGE from project.yaml (rust)
# compile (Rust):    RUSTFLAGS="--cfg fuzzing [-Zsanitizer=$SANITIZER] -Cdebuginfo=1
#                    -Cforce-frame-pointers" (no -Zsanitizer for undefined, coverage, none)
# Not simulated: CC/CXX=clang and the clang-only CFLAGS/CXXFLAGS (this machine's C++
# compiler is g++, and nothing here is C except libFuzzer), CUSTOM_LIBFUZZER_PATH (the
# builder links its prebuilt libclang_rt.fuzzer.a; here libfuzzer-sys compiles its bundled
# libFuzzer) and RUSTUP_TOOLCHAIN (the builder pins a nightly; here the default toolchain,
# for which build.sh sets RUSTC_BOOTSTRAP=1 when it is stable).
SRC="$tmp/src" OUT="$tmp/out" WORK="$tmp/work"
mkdir -p "$SRC" "$OUT" "$WORK"
ln -s "$repo" "$SRC/reconcile-sim"                     # Dockerfile: COPY . $SRC/reconcile-sim
cp .clusterfuzzlite/build.sh "$SRC/build.sh"           # Dockerfile: COPY .clusterfuzzlite/build.sh $SRC/
if [ "$SANITIZER" = address ]; then
  rustflags="--cfg fuzzing -Zsanitizer=address -Cdebuginfo=1 -Cforce-frame-pointers"
else
  rustflags="--cfg fuzzing -Cdebuginfo=1 -Cforce-frame-pointers"
fi
builder_env=(
  "PATH=$PATH" "HOME=$HOME" "TMPDIR=${TMPDIR:-/tmp}"
  "SRC=$SRC" "OUT=$OUT" "WORK=$WORK"
  "SANITIZER=$SANITIZER" "FUZZING_ENGINE=libfuzzer" "FUZZING_LANGUAGE=rust" "ARCHITECTURE=x86_64"
  "RUSTFLAGS=$rustflags"
  "CARGO_TARGET_DIR=$repo/fuzz/target/cflite-$SANITIZER"
)
for var in CARGO_HOME RUSTUP_HOME CARGO_BUILD_JOBS http_proxy https_proxy HTTP_PROXY HTTPS_PROXY no_proxy NO_PROXY; do
  if [ -n "${!var:-}" ]; then builder_env+=("$var=${!var}"); fi
done

echo "== build: SANITIZER=$SANITIZER bash -eux \$SRC/build.sh (SRC=$SRC)"
start=$(now)
if (cd "$SRC/reconcile-sim" && env -i "${builder_env[@]}" bash -eux "$SRC/build.sh") >"$tmp/build.log" 2>&1; then
  ok "build.sh succeeded in $(elapsed "$start") s (log: $tmp/build.log)"
else
  tail -n 40 "$tmp/build.log"
  fail "build.sh failed after $(elapsed "$start") s"
  exit 1
fi

# --- what $OUT holds -----------------------------------------------------------------
for target in interleavings interleavings_durable scenario_parser; do
  bin="$OUT/$target"
  if [ -f "$bin" ] && [ -x "$bin" ]; then
    ok "\$OUT/$target exists ($(du -h "$bin" | cut -f1))"
  else
    fail "\$OUT/$target is missing or not executable"
    continue
  fi
  # ClusterFuzzLite takes as fuzz targets the executables in $OUT containing this symbol.
  if grep -q -a LLVMFuzzerTestOneInput "$bin"; then
    ok "\$OUT/$target is a libFuzzer target (contains LLVMFuzzerTestOneInput)"
  else
    fail "\$OUT/$target does not contain LLVMFuzzerTestOneInput: ClusterFuzzLite would skip it"
  fi
  if [ "$SANITIZER" = address ]; then
    if grep -q -a __asan_report "$bin"; then
      ok "\$OUT/$target is built with AddressSanitizer"
    else
      fail "\$OUT/$target has no AddressSanitizer runtime although SANITIZER=address"
    fi
  fi
  zip="$OUT/${target}_seed_corpus.zip"
  # A variant of interleavings with its store built in shares interleavings' seeds (build.sh).
  seeds_dir="corpus/$target"
  case "$target" in interleavings_*) [ -d "$seeds_dir" ] || seeds_dir=corpus/interleavings ;; esac
  want=$(find "$seeds_dir" -maxdepth 1 -type f | wc -l)
  if [ ! -f "$zip" ]; then
    fail "\$OUT/${target}_seed_corpus.zip is missing"
    continue
  fi
  mkdir -p "$tmp/seeds/$target"
  if ! python3 -m zipfile -e "$zip" "$tmp/seeds/$target" 2>"$tmp/unzip-$target.log"; then
    fail "\$OUT/${target}_seed_corpus.zip is not a readable zip: $(cat "$tmp/unzip-$target.log")"
    continue
  fi
  got=$(find "$tmp/seeds/$target" -type f | wc -l)
  if [ "$got" -eq "$want" ] && diff -r -q "$seeds_dir" "$tmp/seeds/$target" >/dev/null; then
    ok "\$OUT/${target}_seed_corpus.zip holds $seeds_dir/ ($got files, identical)"
  else
    fail "\$OUT/${target}_seed_corpus.zip holds $got files that differ from $seeds_dir/ ($want files)"
  fi
done
if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi

# The runner's settings for every fuzzer (base-runner: FUZZER_ARGS and, of ASAN_OPTIONS,
# the parts that change what counts as a crash).
fuzzer_args=(-rss_limit_mb=2560 -timeout=25)
export ASAN_OPTIONS="detect_leaks=1:detect_odr_violation=0:handle_abort=1:allocator_may_return_null=1:symbolize=1"
unset RECONCILE_SIM_STORE

# --- the planted violation -----------------------------------------------------------
echo "== interleavings, RECONCILE_SIM_STORE=canary, empty corpus, at most 60 s"
mkdir -p "$tmp/canary-corpus" "$tmp/canary-artifacts"
start=$(now)
set +e
RECONCILE_SIM_STORE=canary "$OUT/interleavings" "${fuzzer_args[@]}" -max_total_time=60 \
  -artifact_prefix="$tmp/canary-artifacts/" "$tmp/canary-corpus" >"$tmp/canary.log" 2>&1
rc=$?
set -e
took=$(elapsed "$start")
artifact=$(ls "$tmp"/canary-artifacts/crash-* 2>/dev/null | head -n 1 || true)
if [ "$rc" -eq 0 ] || [ -z "$artifact" ]; then
  tail -n 30 "$tmp/canary.log"
  ls "$tmp/canary-artifacts"
  fail "interleavings did not catch the canary within 60 s (exit $rc after $took s)"
  exit 1
fi
execs=$(grep -o -E '^#[0-9]+' "$tmp/canary.log" | tail -n 1 || true)
ok "interleavings caught the canary after $took s (last status line ${execs:-?}): $(grep -m1 -o 'store canary: .*' "$tmp/canary.log" | cut -c1-120)"

if [ ! -x "$RECONCILE_SIM" ]; then
  fail "no harness binary at $RECONCILE_SIM (build it with cargo build --profile checked, or set RECONCILE_SIM)"
  exit 1
fi
set +e
"$RECONCILE_SIM" from-fuzz "$artifact" --store canary -o "$tmp/canary.json" >"$tmp/from-fuzz.txt" 2>&1
rc=$?
"$RECONCILE_SIM" replay "$tmp/canary.json" >"$tmp/canary-replay.txt" 2>&1
rc2=$?
set -e
if [ "$rc" -eq 1 ] && [ "$rc2" -eq 1 ] && grep -q "reproduced" "$tmp/canary-replay.txt"; then
  ok "the artifact converts (from-fuzz --store canary) and replays: $(tail -n 1 "$tmp/canary-replay.txt")"
else
  cat "$tmp/from-fuzz.txt" "$tmp/canary-replay.txt"
  fail "the canary artifact did not convert to a scenario replaying the same violation (from-fuzz exit $rc, replay exit $rc2)"
fi

# --- the store the workflows fix -----------------------------------------------------
echo "== interleavings, RECONCILE_SIM_STORE=durable, on its seed corpus (-runs=0)"
set +e
RECONCILE_SIM_STORE=durable "$OUT/interleavings" "${fuzzer_args[@]}" -runs=0 \
  -artifact_prefix="$tmp/durable-" "$tmp/seeds/interleavings" >"$tmp/durable.log" 2>&1
rc=$?
set -e
if [ "$rc" -eq 0 ]; then
  ok "no crash on the $(find "$tmp/seeds/interleavings" -type f | wc -l) interleavings seeds with the durable store"
else
  tail -n 30 "$tmp/durable.log"
  fail "interleavings crashed on its seed corpus with RECONCILE_SIM_STORE=durable (exit $rc)"
fi

echo "== interleavings_durable (durable built in), RECONCILE_SIM_STORE=canary set, on its seed corpus (-runs=0)"
set +e
RECONCILE_SIM_STORE=canary "$OUT/interleavings_durable" "${fuzzer_args[@]}" -runs=0 \
  -artifact_prefix="$tmp/durable-builtin-" "$tmp/seeds/interleavings_durable" >"$tmp/durable-builtin.log" 2>&1
rc=$?
set -e
if [ "$rc" -eq 0 ]; then
  ok "no crash on the $(find "$tmp/seeds/interleavings_durable" -type f | wc -l) seeds: the store is durable whatever the environment says"
else
  tail -n 30 "$tmp/durable-builtin.log"
  fail "interleavings_durable crashed on its seed corpus (exit $rc)"
fi

# --- the parser target ---------------------------------------------------------------
echo "== scenario_parser on its seed corpus, 10 s"
mkdir -p "$tmp/parser-corpus" "$tmp/parser-artifacts"
set +e
"$OUT/scenario_parser" "${fuzzer_args[@]}" -max_total_time=10 -artifact_prefix="$tmp/parser-artifacts/" \
  "$tmp/parser-corpus" "$tmp/seeds/scenario_parser" >"$tmp/parser.log" 2>&1
rc=$?
set -e
if [ "$rc" -eq 0 ]; then
  ok "scenario_parser: no crash in 10 s ($(grep -E '^#[0-9]+.*(DONE|pulse)' "$tmp/parser.log" | tail -n 1 | cut -c1-100))"
else
  tail -n 40 "$tmp/parser.log"
  fail "scenario_parser crashed (exit $rc)"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "ClusterFuzzLite build check passed"
