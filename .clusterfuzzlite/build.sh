#!/bin/bash -eu
# ClusterFuzzLite build script: builds every cargo-fuzz target of fuzz/ and puts each
# binary in $OUT, with its committed seed corpus beside it as $OUT/<target>_seed_corpus.zip.
#
# The builder's `compile` runs it as `bash -eux $SRC/build.sh` from $SRC/reconcile-sim,
# having set SRC, OUT, WORK, SANITIZER, FUZZING_ENGINE, FUZZING_LANGUAGE, ARCHITECTURE,
# RUSTFLAGS (--cfg fuzzing, -Zsanitizer=address for address builds, ...) and, for the
# prebuilt libFuzzer, CUSTOM_LIBFUZZER_PATH. Without Docker it runs the same way with those
# variables set by hand (scripts/check-clusterfuzzlite.sh does that). It works with the
# builder's nightly toolchain and with a stable one (sanitizer flags then need
# RUSTC_BOOTSTRAP=1, set below).

: "${SRC:?SRC is not set (the builder sets it; see scripts/check-clusterfuzzlite.sh)}"
: "${OUT:?OUT is not set (the builder sets it; see scripts/check-clusterfuzzlite.sh)}"
project="$SRC/reconcile-sim"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)" # absolute: the zip step below runs from inside each corpus dir
cd "$project"

# libFuzzer is the only engine cargo-fuzz builds for.
engine="${FUZZING_ENGINE:-libfuzzer}"
if [ "$engine" != libfuzzer ]; then
  echo "build.sh: FUZZING_ENGINE=$engine is not supported (cargo-fuzz targets are libFuzzer targets)" >&2
  exit 1
fi

# $SANITIZER -> cargo-fuzz's --sanitizer. ClusterFuzzLite supports only address for Rust;
# the others are mapped so that every build the builder can ask for still succeeds:
#   undefined: Rust has no UBSan (the builder's RUSTFLAGS carry no sanitizer for it either),
#              so the targets are built without one; safe Rust's own checks remain, and
#              --debug-assertions below adds overflow checks.
#   coverage:  the builder's `cargo` wrapper turns `cargo fuzz build` into a
#              -Cinstrument-coverage `cargo build` into the same directory; no sanitizer.
#   none:      no sanitizer (what `cargo fuzz run -s none` and .ci/run use).
sanitizer="${SANITIZER:-address}"
case "$sanitizer" in
  address) cargo_fuzz_sanitizer=address ;;
  none | undefined | coverage) cargo_fuzz_sanitizer=none ;;
  *)
    echo "build.sh: SANITIZER=$sanitizer is not supported for this Rust project (address, undefined, coverage, none)" >&2
    exit 1
    ;;
esac

# cargo-fuzz builds for an explicit --target and puts the binaries under
# <target dir>/<triple>/release/. The builder does not set CARGO_BUILD_TARGET; honour it if
# someone does, otherwise derive the triple from $ARCHITECTURE.
case "${ARCHITECTURE:-x86_64}" in
  x86_64) triple=x86_64-unknown-linux-gnu ;;
  aarch64) triple=aarch64-unknown-linux-gnu ;;
  *)
    echo "build.sh: ARCHITECTURE=${ARCHITECTURE} is not supported" >&2
    exit 1
    ;;
esac
triple="${CARGO_BUILD_TARGET:-$triple}"

# The builder's toolchain is nightly. On a stable one, -Zsanitizer (added by cargo-fuzz for
# ASan, and by the builder's RUSTFLAGS) is refused unless RUSTC_BOOTSTRAP=1.
if ! rustc --version | grep -q -E 'nightly|-dev'; then
  case "$cargo_fuzz_sanitizer ${RUSTFLAGS:-}" in
    address* | *-Z*) export RUSTC_BOOTSTRAP=1 ;;
  esac
fi

# The fuzz targets: the [[bin]] names of fuzz/Cargo.toml (cargo-fuzz's own list; not
# `cargo fuzz list`, which the builder's coverage wrapper would turn into a build).
targets=$(awk '/^\[\[bin\]\]/ { bin = 1; next } /^\[/ { bin = 0 }
               bin && /^name *=/ { sub(/^name *= *"/, ""); sub(/".*/, ""); print }' fuzz/Cargo.toml)
if [ -z "$targets" ]; then
  echo "build.sh: no [[bin]] fuzz targets in fuzz/Cargo.toml" >&2
  exit 1
fi

# Release build with debug assertions and overflow checks, as cargo-fuzz's defaults (and
# .ci/run's smoke run) have it. Through `cargo fuzz`, so that the builder's wrapper sees it.
cargo fuzz build --release --debug-assertions --sanitizer "$cargo_fuzz_sanitizer" --target "$triple"

# Where cargo put them: fuzz/'s own workspace target dir unless CARGO_TARGET_DIR moves it.
target_dir="${CARGO_TARGET_DIR:-$project/fuzz/target}"
case "$target_dir" in /*) ;; *) target_dir="$project/fuzz/$target_dir" ;; esac
bin_dir="$target_dir/$triple/release"

# Seed corpora: corpus/<target>/ (committed; fuzz/corpus/ is git-ignored scratch), zipped
# flat into $OUT/<target>_seed_corpus.zip as ClusterFuzzLite expects. `zip` is in the builder image; Python's zipfile otherwise.
zip_dir() { # zip_dir DIR ZIP: every regular file of DIR, flat, into a new ZIP
  rm -f "$2"
  if command -v zip >/dev/null 2>&1; then
    (cd "$1" && find . -maxdepth 1 -type f -printf '%P\n' | LC_ALL=C sort | zip -q -X -@ "$2")
  else
    python3 - "$1" "$2" <<'PY'
import os, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        if os.path.isfile(path):
            z.write(path, name)
PY
  fi
}

for target in $targets; do
  if [ ! -x "$bin_dir/$target" ]; then
    echo "build.sh: cargo fuzz build did not produce $bin_dir/$target" >&2
    exit 1
  fi
  cp "$bin_dir/$target" "$OUT/$target"
  seeds="$project/corpus/$target"
  case "$target" in
    # A variant of interleavings with its store fixed in the binary (e.g. a future
    # interleavings_durable) decodes the same bytes, so it shares interleavings' seeds.
    interleavings_*) [ -d "$seeds" ] || seeds="$project/corpus/interleavings" ;;
  esac
  if [ -d "$seeds" ] && [ -n "$(ls -A "$seeds")" ]; then
    zip_dir "$seeds" "$OUT/${target}_seed_corpus.zip"
  else
    echo "build.sh: note: no seed corpus for $target (corpus/$target/ is missing or empty)"
  fi
done
