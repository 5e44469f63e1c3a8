#!/usr/bin/env bash
# First contact, as a new user meets it: a fresh clone of this checkout's commit (what git
# holds: nothing built, nothing installed, no node_modules), where the set-up and test
# commands of the root README and of every example's README run verbatim and must pass.
#
#   scripts/ci-first-contact.sh [--list]
#
# The commands are read from the pages themselves, so the pages and this check cannot
# drift: each ```sh block right after a line starting `<!-- first-contact` is one script,
# run with `bash -e -o pipefail` from the clone's root (a `cd` inside it holds for the rest
# of that block). The root README's block runs first, then each examples/*/README.md's in
# name order; a README of an example with no such block is an error (each example's page
# must say how to run it from a fresh clone). `--list` prints the blocks and runs nothing.
#
# The environment is the caller's, less what a new user would not have set
# (RECONCILE_SIM, RECONCILE_SIM_INVOKED_AS), with two additions that change no command:
# CARGO_TARGET_DIR, and the adapter timeouts of CI (RECONCILE_SIM_EXEC_TIMEOUT 60s, as
# scripts/ci-node.sh: a loaded runner is slow, not wrong). CARGO_TARGET_DIR is this
# checkout's target dir (${CARGO_TARGET_DIR:-target}) when the checkout is clean, so the
# clone's build reuses the dependencies built there: cargo names a workspace's artifacts by
# paths relative to it, so the clone's build replaces the checkout's, which is harmless
# only when both hold the same sources. With changes here it is a target dir of its own
# (target/first-contact: a full build the first time). KEEP=1 keeps the clone (its path is
# printed). Exit 0 when every block passed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
list=false
case "${1:-}" in
  "") ;;
  --list) list=true ;;
  *) echo "usage: scripts/ci-first-contact.sh [--list]" >&2; exit 2 ;;
esac
say() { echo "== [${SECONDS}s] $*"; }

# `blocks FILE`: each marked block of FILE, as NUL-terminated scripts.
blocks() {
  awk '
    /^<!-- first-contact/ { marked = 1; next }
    marked && /^```sh[[:space:]]*$/ { inside = 1; marked = 0; body = ""; next }
    marked && !/^[[:space:]]*$/ { marked = 0 }
    inside && /^```[[:space:]]*$/ { inside = 0; printf "%s%c", body, 0; next }
    inside { body = body $0 "\n" }
  ' "$1"
}

pages=(README.md)
for readme in examples/*/README.md; do pages+=("$readme"); done
scripts=()
origins=()
for page in "${pages[@]}"; do
  n=0
  while IFS= read -r -d '' block; do
    n=$((n + 1))
    scripts+=("$block")
    origins+=("$page, block $n")
  done < <(blocks "$page")
  if [ "$n" -eq 0 ]; then
    echo "ci-first-contact: $page has no first-contact block (a \`<!-- first-contact -->\` line right before a \`\`\`sh block of its set-up and test commands)" >&2
    exit 1
  fi
done

if $list; then
  for i in "${!scripts[@]}"; do
    echo "== ${origins[$i]}"
    printf '%s' "${scripts[$i]}"
  done
  exit 0
fi

commit=$(git rev-parse HEAD)
target=${CARGO_TARGET_DIR:-$root/target}
case "$target" in /*) ;; *) target=$root/$target ;; esac
if [ -n "$(git status --porcelain)" ]; then
  echo "ci-first-contact: the clone is of $commit; the changes here are not in it, and its cargo builds go to $target/first-contact" >&2
  target=$target/first-contact
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/first-contact.XXXXXX")
cleanup() {
  if [ "${KEEP:-}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
clone=$work/reconcile-sim
say "git clone of $root at $commit into $clone"
git clone -q --no-hardlinks "$root" "$clone"
git -C "$clone" checkout -q --detach "$commit"

for i in "${!scripts[@]}"; do
  say "${origins[$i]}, verbatim from $clone:"
  printf '%s' "${scripts[$i]}" | sed 's/^/  $ /'
  printf '%s' "${scripts[$i]}" > "$work/block-$i.sh"
  set +e
  (cd "$clone" && env -u RECONCILE_SIM -u RECONCILE_SIM_INVOKED_AS CARGO_TARGET_DIR="$target" \
    RECONCILE_SIM_EXEC_TIMEOUT="${RECONCILE_SIM_EXEC_TIMEOUT:-60s}" bash -e -o pipefail "$work/block-$i.sh")
  rc=$?
  set -e
  if [ "$rc" -ne 0 ]; then
    echo "ci-first-contact: ${origins[$i]} failed (exit $rc) on a fresh clone" >&2
    exit 1
  fi
done
say "the clone is as clean as it was (the commands write only ignored files)"
if [ -n "$(git -C "$clone" status --porcelain)" ]; then
  git -C "$clone" status --short
  echo "ci-first-contact: the READMEs' commands left the clone dirty" >&2
  exit 1
fi
echo "ci-first-contact passed in ${SECONDS}s: ${#scripts[@]} blocks from ${#pages[@]} pages"
