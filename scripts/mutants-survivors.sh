#!/usr/bin/env bash
# Re-run the mutation round of issue 36 (docs/mutation-journal.md) and list the mutants that
# survive it. Before a release: `scripts/mutants-survivors.sh` (the short list: the spots
# the hand-planted bugs and the survivors new tests killed sit in, about 620 mutants), or
# `scripts/mutants-survivors.sh --all` (every mutant of the files in scope, about 1 050:
# hours on two cores).
#
# Needs cargo-mutants (`cargo install cargo-mutants --locked`; the round used 27.1.0).
# Builds in its own copy of the tree and its own target directory (never --in-place), one
# job at a time, with the `checked` profile at opt-level 1 (each mutant an incremental
# rebuild of the library's test binary, judged by the unit tests of shrink, class, check,
# merge, recheck, findings, run and the world; with --all, by every library test under trace, campaign, run and model). Exit 0 when every mutant was caught or unviable; 1 when some survived (listed) or
# timed out (listed: a timeout counts as caught for cargo-mutants, but read it).
set -euo pipefail
cd "$(dirname "$0")/.."

out="${MUTANTS_OUT:-${TMPDIR:-/tmp}/reconcile-sim-mutants}"
export CARGO_TARGET_DIR="${MUTANTS_TARGET_DIR:-${TMPDIR:-/tmp}/reconcile-sim-mutants-target}"
# Cheaper builds for the round only: the tests it runs are unit tests, fast at opt-level 1.
export CARGO_PROFILE_CHECKED_OPT_LEVEL=1
export CARGO_PROFILE_CHECKED_DEBUG=0
export CARGO_PROFILE_CHECKED_INCREMENTAL=true
export CARGO_PROFILE_CHECKED_CODEGEN_UNITS=256

files=(
  -f sim/src/trace/shrink.rs -f sim/src/trace/class.rs
  -f 'sim/src/campaign/check/*.rs' -f sim/src/campaign/recheck.rs -f sim/src/campaign/findings.rs
  -f 'sim/src/campaign/merge/*.rs' -f 'sim/src/trace/scenario/*.rs'
  -f sim/src/run/mod.rs -f sim/src/model/world.rs -f sim/src/campaign/nightly.rs
)
# The short list: the functions the seven behaviours of issue 36 rest on.
short="budget_left|one_minimal -|in Shrinker<'_>::one_minimal|in Shrinker<'_>::ddmin"
short+="|BreaksInvariant<'_>>::run|in shrink_with|ClassWatch<'_>::trigger"
# note_client's stale-fetch check only (its other arms are judged with the `it` tests).
short+="|replace (\\|=|<) with [^ ]+ in ClassWatch<'_>::note_client"
short+="|lingering|CheckReport::ok|Baseline::|FuzzBatch::ok|add_store|add_class"
short+="|fuzz.rs.*first_per_signature|drain_and_check"
# cargo-mutants 27.1.0 does not filter "delete field F from struct S expression" mutants
# (struct expressions with `..base`) by --re or --exclude-re: the short list also holds
# the seven of `search_without` (findings.rs), `Limits::until` (shrink.rs) and
# `FuzzResult::limits` (merge/fuzz.rs), judged like the rest.
# The second round's survivors that new tests killed, by function (docs/mutation-journal.md).
short+="|DoesNotFail>::fmt|check_one_minimal_by|in shrink_failing|Rel::client|try_remove"
short+="|for Class>::fmt|fate_words|binding_words|kebab|Class::bare|Class::of_violation"
short+="|Class::key|slug|every_class|effect_of|shape_clause|event_kind"
# The fourth round's (docs/mutation-journal.md): model/world.rs's survivors and shrink.rs's passes.
short+="|World::push_agent_steps|World::deliveries_closed|World::push_deliveries"
short+="|World::is_enabled|World::is_quiescent|BootFailed>::render"
short+="|Shrinker<'_>::drop_clients|Shrinker<'_>::cut_budgets|Shrinker<'_>::renumber_clients"
short+="|group_candidates|Analysis<'_>>::on_step|event_turn -> Option<u32> with Some"
short+="|SuspectKind::name|for SuspectKind>::fmt|Suspect::headline|settle -> Settled|in settle\$"
short+="|Share::take|recheck ->|recheck_replayed|in replays\$|replay_words|suspect_file"
short+="|effects_words|check_determinism"
# The fifth round's (docs/mutation-journal.md): findings.rs's survivors killed, recheck's check_seed.
short+="|replay_command|reproduce_command|FindingError::is_internal|save_shrunk|need_less"
short+="|needs_of|search_without|out_of_time|shrink_class|check_seed"
# The sixth round's (docs/mutation-journal.md): findings.rs's last survivors, trace/scenario/'s.
short+="|mask_still_needed|Scenario::record_dir"
# The seventh round's: `save`'s parent guard (310:24 → true survives, argued equivalent).
short+="|in Scenario::save|Scenario::save ->"
# The eighth round's: run/mod.rs's observer plumbing and main-phase index, check/'s
# scenario verdicts, baseline, new-class failures, saving and write errors.
short+="|Observer for \\(A, B\\)>|Observer for &mut O>|Observer for \\(\\)>|in execute_observed"
short+="|replay_scenarios|ScenarioVerdict::ok|baseline_of|new_class_failures|save_failures"
short+="|write_errors"
# The ninth round's: campaign/nightly.rs's known signatures, in-process phase and record.
short+="|known_signatures ->|in known_signatures\$|Night<'_>::in_process|Night<'_>::record ->"
# The tenth round's: the rest of campaign/check/ (the batches, the cases, the JUnit XML,
# the request's seed, run_check and the determinism check), every mutant of those files.
short+="|campaign/check/(batches|cases|junit|request|mod)\\.rs:"
# Left out: the four mutants of fuzz_batches_shard's loop that never end on a sharded batch
# (106:21, 106:34, 106:42, 109:23 in the tenth round: a 180 s timeout each, read in
# docs/mutation-journal.md), by their words, which two quickly caught ones share (107:48, 126:19).
hangs="replace (<|&&|\\+|\\+=) with (<=|\\|\\||\\*|-=) in fuzz_batches_shard"
# The tenth round's: campaign/merge/'s refusals (header, shards of one campaign, missing
# shards), the merges of fuzz, check and nightly results
# (suspects' order, contiguity, one failure per class, the night's campaigns and findings).
short+="|merge/mod.rs.*(in header\$|header ->|shards_of_one_campaign|require_complete)"
short+="|FuzzResult::contiguous|for FuzzResult>::merge|for CheckResult>::merge|first_per_class"
short+="|for NightlyResult>::merge|merge_campaign|nightly.rs.*first_per_signature|mark_new|nightly.rs.*scenario_of"
filter=(--re "$short" --exclude-re "$hangs")
tests=(trace::shrink:: trace::class:: campaign::check:: campaign::merge:: run::tests:: model::world:: campaign::recheck:: campaign::findings:: trace::scenario:: campaign::nightly::)
if [[ "${1:-}" == "--all" ]]; then
  filter=()
  tests=(trace:: campaign:: run:: model::)
fi

# The test names go after a second `--`: `cargo test` takes only one name before its own
# `--`, and a usage error counts as a caught mutant (the first round's result was void so).
cargo mutants "${files[@]}" "${filter[@]}" --no-shuffle -j 1 --profile checked \
  -C --lib --baseline skip --timeout 180 --build-timeout 900 -o "$out" \
  -- -- "${tests[@]}" || true

dir="$out/mutants.out"
echo
echo "caught: $(wc -l < "$dir/caught.txt"), unviable: $(wc -l < "$dir/unviable.txt"), missed: $(wc -l < "$dir/missed.txt"), timeout: $(wc -l < "$dir/timeout.txt")"
status=0
if [[ -s "$dir/missed.txt" ]]; then
  echo "survivors (docs/mutation.md lists the ones argued equivalent):"
  sed 's/^/  /' "$dir/missed.txt"
  status=1
fi
if [[ -s "$dir/timeout.txt" ]]; then
  echo "timed out:"
  sed 's/^/  /' "$dir/timeout.txt"
  status=1
fi
exit $status
