//! The exec store (`--store exec:'COMMAND'`, docs/protocol.md):
//! - **differential**: the reference Node adapter (`adapters/node/`) agrees with the Rust
//!   stores after every step of thousands of fuzz seeds, and reproduces the note's bugs;
//! - **faults**: every way an adapter can misbehave is a `crash` finding with the scenario
//!   so far and the adapter's stderr, the process is replaced, and nothing hangs;
//! - **CLI**: `run` and `fuzz` through the real binary.
//!
//! These tests need Node.js (`node` on PATH, ≥ 18). Without it they FAIL, on purpose: a
//! differential test that silently passes when one side is missing proves nothing.

use std::process::Command;
use std::time::Duration;

use crate::support::{code, repo, require_node, sim_env};
use reconcile_sim::campaign::fuzz::run_one;
use reconcile_sim::model::config::WorldConfig;
use reconcile_sim::model::step::Step;
use reconcile_sim::oracle::Invariant;
use reconcile_sim::run::{Outcome, RunReport};
use reconcile_sim::store::exec::ExecFactory;
use reconcile_sim::store::{by_name, StoreKind};
use reconcile_sim::testing::differential::{lockstep_replay, lockstep_seed, Agreement};
use reconcile_sim::testing::script::{scripted_config, Script};

/// `exec:node <repo>/adapters/node/store.js VARIANT`
fn node_store(variant: &str) -> ExecFactory {
    node_store_with(variant, "")
}

/// The same, with extra adapter flags (`--async`).
fn node_store_with(variant: &str, flags: &str) -> ExecFactory {
    require_node();
    let script = repo().join("adapters/node/store.js");
    let spec = format!(
        "exec:node {} {flags} {variant}",
        shell_words::quote(&script.to_string_lossy())
    );
    // A healthy adapter answers in microseconds; the generous timeout only keeps a
    // heavily loaded machine (node starting slowly) from turning into a false "hang".
    ExecFactory::from_spec(&spec)
        .expect("valid spec")
        .with_timeout(Duration::from_secs(60))
}

/// A deliberately faulty adapter (sim/tests/faulty/faulty.js) with a short timeout.
fn faulty(mode: &str) -> ExecFactory {
    require_node();
    let script = repo().join("sim/tests/faulty/faulty.js");
    let spec = format!(
        "exec:node {} {mode}",
        shell_words::quote(&script.to_string_lossy())
    );
    // Only the hang test waits out the timeout, so only it gets a shorter one; it is still
    // generous, because the timeout also covers the adapter's start-up and every answer
    // before the hang, which take seconds on a loaded machine (a 400 ms timeout failed
    // there). With a short timeout everywhere, a loaded machine could take longer than it
    // to report a node process's exit, and the test would see "no answer" instead of
    // "exited".
    let timeout = if mode == "hang" {
        Duration::from_secs(5)
    } else {
        Duration::from_secs(20)
    };
    ExecFactory::from_spec(&spec)
        .expect("valid spec")
        .with_timeout(timeout)
}

fn rust(name: &str) -> StoreKind {
    by_name(name).expect("shipped store")
}

// --- differential ----------------------------------------------------------------------

/// Seeds per store for the two stores the adapter exists for, and for the other variants.
const SEEDS_MAIN: u64 = 2000;
const SEEDS_OTHER: u64 = 300;

fn agree_on_seeds(variant: &str, seeds: u64) -> Agreement {
    agree_on_seeds_with(variant, "", seeds)
}

fn agree_on_seeds_with(variant: &str, flags: &str, seeds: u64) -> Agreement {
    let (reference, candidate) = (rust(variant), node_store_with(variant, flags));
    let mut total = Agreement::default();
    for seed in 0..seeds {
        match lockstep_seed(&reference, &candidate, seed) {
            Ok(a) => {
                total.steps += a.steps;
                total.inputs += a.inputs;
            }
            Err(d) => panic!("seed {seed}: {d}"),
        }
    }
    assert!(
        total.inputs > total.steps / 2,
        "the stores were barely used"
    );
    eprintln!(
        "differential {variant}{}{flags}: {seeds} seeds, {} steps, {} store inputs, identical effects and renders",
        if flags.is_empty() { "" } else { " " },
        total.steps,
        total.inputs
    );
    total
}

#[test]
fn node_current_agrees_with_rust_current_on_every_step() {
    agree_on_seeds("current", SEEDS_MAIN);
}

#[test]
fn node_membership_agrees_with_rust_membership_on_every_step() {
    agree_on_seeds("membership", SEEDS_MAIN);
}

#[test]
fn node_note_variants_agree_with_rust_on_every_step() {
    for variant in ["naive", "fix-a", "fix-ab", "fix-abc", "canary"] {
        agree_on_seeds(variant, SEEDS_OTHER);
    }
}

/// The asynchronous adapter loop (the one a wrapped real store uses) answers the same.
#[test]
fn node_async_loop_agrees_with_rust_on_every_step() {
    agree_on_seeds_with("current", "--async", SEEDS_OTHER);
}

/// The comparison can fail: the Node `membership` store is not the Rust `current`.
#[test]
fn the_differential_driver_catches_a_different_store() {
    let (reference, candidate) = (rust("current"), node_store("membership"));
    let d = (0..200)
        .find_map(|seed| lockstep_seed(&reference, &candidate, seed).err())
        .expect("current and membership differ on some seed");
    let text = d.to_string();
    assert!(text.contains("render differs"), "{text}");
}

/// Every committed scenario file under `scenarios/` (recursively) replays in lockstep
/// against the Rust and the Node version of the store it names, and of `current` and
/// `membership`, with identical effects and renders after every step.
#[test]
fn every_committed_scenario_agrees_between_rust_and_node() {
    let files = reconcile_sim::campaign::check::scenario_files(&repo().join("scenarios")).unwrap();
    assert!(files.len() >= 4, "the bug scenarios are committed");
    for path in &files {
        let scenario = reconcile_sim::trace::scenario::load(path).unwrap();
        let name = path.display().to_string();
        let mut variants = vec![
            scenario.store.clone(),
            "current".into(),
            "membership".into(),
        ];
        variants.dedup();
        for variant in &variants {
            assert_scenario_agrees(&name, variant, scenario.config.clone(), &scenario.steps());
        }
    }
}

fn assert_scenario_agrees(name: &str, variant: &str, config: WorldConfig, steps: &[Step]) {
    if let Err(d) = lockstep_replay(&rust(variant), &node_store(variant), config, steps) {
        panic!("scenario {name}, store {variant}: {d}");
    }
}

/// Bug A (as in tests/bugs.rs): c0's deferred reconcile of t1 runs while c1's t2 streams.
fn bug_a_script() -> Script<'static> {
    static CURRENT: StoreKind = reconcile_sim::store::current::KIND;
    let mut s = Script::new(scripted_config(), &CURRENT);
    s.deliver_all(0).deliver_all(1);
    s.send(0).post(0).deliver_all(0).deliver_all(1);
    s.delta().deliver_all(0).deliver_all(1);
    s.finish_turn();
    s.scroll_up(0);
    s.deliver_all(0);
    s.deliver_all(1).fetch(1);
    s.send(1).post(1);
    s.delta();
    s.deliver_all(0);
    s.scroll_down(0).fetch(0);
    s
}

/// Bug D (as in tests/bugs.rs): a consumed interrupt bubble lingers after its seal.
fn bug_d_script() -> Script<'static> {
    static CURRENT: StoreKind = reconcile_sim::store::current::KIND;
    let mut s = Script::new(scripted_config(), &CURRENT);
    s.deliver_all(0).deliver_all(1);
    s.send(1).post(1).deliver_all(0);
    s.send(0).post(0);
    s.tool_call().tool_result(true);
    s.delta().finish_turn();
    s.deliver_all(0).fetch(0);
    s
}

/// The Node stores reproduce the note's bugs in both directions, like the Rust ones.
#[test]
fn node_stores_reproduce_bugs_a_and_d_both_directions() {
    let a = bug_a_script();
    assert_eq!(
        a.judge(&node_store("naive")).outcome.invariant(),
        Some(Invariant::NewerTurnPreserved)
    );
    assert_eq!(a.judge(&node_store("fix-a")).outcome, Outcome::Pass);
    assert_eq!(a.judge(&node_store("current")).outcome, Outcome::Pass);
    let d = bug_d_script();
    assert_eq!(
        d.judge(&node_store("fix-abc")).outcome.invariant(),
        Some(Invariant::NoDuplicate)
    );
    assert_eq!(d.judge(&node_store("current")).outcome, Outcome::Pass);
}

/// The reference adapter gives exactly the answers the example exchange in
/// docs/protocol.md shows (the requests are checked against the harness in exec.rs).
#[test]
fn the_protocol_page_example_answers_are_what_the_node_adapter_says() {
    require_node();
    let page = std::fs::read_to_string(repo().join("docs/protocol.md")).unwrap();
    let requests: String = page
        .lines()
        .filter_map(|l| l.strip_prefix("> "))
        .map(|l| format!("{l}\n"))
        .collect();
    let answers: Vec<&str> = page.lines().filter_map(|l| l.strip_prefix("< ")).collect();
    assert!(answers.len() >= 10, "example exchange not found");
    for flags in [&[][..], &["--async"][..]] {
        let mut child = Command::new("node")
            .arg(repo().join("adapters/node/store.js"))
            .args(flags)
            .arg("current")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(requests.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let got = String::from_utf8(out.stdout).unwrap();
        assert_eq!(got.lines().collect::<Vec<_>>(), answers, "{flags:?}");
    }
}

// --- faults ----------------------------------------------------------------------------

/// Seed 1 has three clients and a `turn-start` reaches c2 at step 12 (checked below).
const FAULT_SEED: u64 = 1;

/// Run the fault seed; it must end in a crash whose message contains `fragments`.
fn assert_crash(factory: &ExecFactory, fragments: &[&str]) -> RunReport {
    let report = run_one(
        factory,
        reconcile_sim::run::strategy::StrategySpec::Random,
        FAULT_SEED,
    );
    let Outcome::Fail(v) = &report.outcome else {
        panic!("{}: expected a crash, got a pass", factory_name(factory));
    };
    assert_eq!(v.invariant, Invariant::Crash, "{v}");
    assert_eq!(
        v.step_index,
        report.steps.len() - 1,
        "the run stops at the crash"
    );
    let seen = v.seen.join("\n");
    for f in fragments {
        assert!(seen.contains(f), "missing '{f}' in:\n{seen}");
    }
    report
}

fn factory_name(f: &ExecFactory) -> String {
    reconcile_sim::model::store::StoreFactory::name(f)
}

/// The fault fires on the first `turn-start`: the run got that far with correct answers,
/// and the crash is on the step that delivered it.
fn assert_crash_on_turn_start(mode: &str, fragment: &str) {
    let f = faulty(mode);
    let clients = WorldConfig::from_seed(FAULT_SEED).clients as usize;
    let stderr = format!("| fault '{mode}' on turn-start t1");
    let report = assert_crash(&f, &[fragment, &stderr]);
    assert!(
        matches!(report.steps.last(), Some(Step::DeliverEvent { .. })),
        "{:?}",
        report.steps.last()
    );
    assert!(
        report.steps.len() > 5,
        "inputs before the fault were served"
    );
    // The faulty process was killed; the healthy ones went back to the pool.
    assert_eq!(f.idle_processes(), clients - 1, "{mode}");
    // The next run restarts a process and finds the same fault at the same step.
    let again = assert_crash(&f, &[fragment, &stderr]);
    assert_eq!(again.steps, report.steps);
}

#[test]
fn fault_process_exits() {
    assert_crash_on_turn_start("exit", "the process exited (exit status: 3)");
}

#[test]
fn fault_process_hangs_past_the_timeout() {
    assert_crash_on_turn_start("hang", "no answer within 5s");
}

#[test]
fn fault_answer_is_not_json() {
    assert_crash_on_turn_start("garbage", "the answer is not JSON");
}

#[test]
fn fault_answer_of_the_wrong_type() {
    assert_crash_on_turn_start("wrong-type", "expected an output, got type 'reset'");
}

#[test]
fn fault_output_without_render() {
    assert_crash_on_turn_start("no-render", "an output without 'render'");
}

#[test]
fn fault_effect_outside_the_protocol() {
    assert_crash_on_turn_start("bad-effect", "unknown variant `teleport`");
}

/// An extra answer line is caught by the id check on that process's next answer: one
/// input later, always the same one.
#[test]
fn fault_extra_answer_line() {
    let f = faulty("extra-line");
    let fragment = "an extra or a missing answer line";
    let report = assert_crash(&f, &[fragment]);
    let again = assert_crash(&f, &[fragment]);
    assert_eq!(again.steps, report.steps);
}

/// A store that throws is a crash, but the adapter stayed in protocol: its process is
/// reused for the next run.
#[test]
fn fault_store_throws_and_the_process_is_reused() {
    let f = faulty("throw");
    let clients = WorldConfig::from_seed(FAULT_SEED).clients as usize;
    assert_crash(&f, &["the store threw: TypeError"]);
    assert_eq!(f.idle_processes(), clients);
    assert_crash(&f, &["the store threw: TypeError"]);
    assert_eq!(f.idle_processes(), clients, "no process was added");
}

#[test]
fn fault_bad_handshakes() {
    for (mode, fragment) in [
        (
            "bad-version",
            "bad handshake: the harness speaks protocol 1, the adapter answered protocol 99",
        ),
        (
            "no-hello",
            "bad handshake: expected a hello answer, got type 'output'",
        ),
        ("die-on-load", "the process exited (exit status: 1)"),
    ] {
        let f = faulty(mode);
        let report = assert_crash(&f, &[fragment]);
        assert_eq!(report.steps.len(), 1, "{mode}: crash on the first input");
        assert_eq!(f.idle_processes(), 0, "{mode}: nothing broken is pooled");
    }
    let report = assert_crash(&faulty("die-on-load"), &["| ReferenceError"]);
    assert_eq!(report.steps.len(), 1);
}

// --- CLI -------------------------------------------------------------------------------

#[test]
fn cli_fuzz_through_node_prints_the_same_table_as_in_process() {
    require_node();
    let spec = "exec:node adapters/node/store.js current";
    let out = tempfile::tempdir().unwrap();
    let out = out.path().to_str().unwrap();
    let fuzz = |store: &str, seeds: &str, jobs: &str| {
        let o = sim_env(
            &[
                "fuzz", "--store", store, "--seeds", seeds, "--json", "--jobs", jobs, "--out", out,
            ],
            &[],
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("fuzz --json");
        (code(&o), v)
    };
    let (exec_code, exec) = fuzz(spec, "300", "2");
    let (inproc_code, inproc) = fuzz("current", "300", "2");
    assert_eq!(exec_code, inproc_code);
    assert_eq!(exec["seeds"], 300);
    // The table (stores × invariants, first failing seeds) is the same once the store's
    // name is swapped; the shrunk scenario files differ only by that name.
    let mut exec_stores = exec["stores"].clone();
    exec_stores[0]["store"] = "current".into();
    assert_eq!(exec_stores, inproc["stores"]);
    let signatures = |v: &serde_json::Value| -> Vec<(String, u64, u64)> {
        v["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let inv = s["invariant"].as_str().unwrap().to_string();
                (
                    inv,
                    s["seed"].as_u64().unwrap(),
                    s["steps"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(signatures(&exec), signatures(&inproc));
    // Independent of --jobs.
    let (_, one) = fuzz(spec, "200", "1");
    let (_, two) = fuzz(spec, "200", "2");
    assert_eq!(one, two);
}

#[test]
fn cli_run_reports_a_fault_as_a_crash_with_trace_stderr_and_reproduce_line() {
    require_node();
    let spec = "exec:node sim/tests/faulty/faulty.js exit";
    let o = sim_env(&["run", "--store", spec, "--seed", "1"], &[]);
    assert_eq!(code(&o), 1);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("trace ("), "{text}");
    assert!(text.contains("verdict: FAIL crash violated on c2 after step #12"));
    assert!(text.contains("the process exited (exit status: 3)"));
    assert!(text.contains("| fault 'exit' on turn-start t1"));
    assert!(text.trim_end().ends_with(
        "reproduce: reconcile-sim run --store 'exec:node sim/tests/faulty/faulty.js exit' --seed 1"
    ));
    assert!(
        o.stderr.is_empty(),
        "a fault prints nothing to stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let again = sim_env(&["run", "--store", spec, "--seed", "1"], &[]);
    assert_eq!(
        String::from_utf8(again.stdout).unwrap(),
        text,
        "same seed, same bytes"
    );
}

#[test]
fn cli_run_times_out_a_hanging_adapter() {
    require_node();
    let o = sim_env(
        &[
            "run",
            "--store",
            "exec:node sim/tests/faulty/faulty.js hang",
            "--seed",
            "1",
            // Each shrinking replay waits out the timeout too: two are enough here.
            "--max-shrink-iters",
            "2",
        ],
        // Generous: the timeout also covers the adapter's start-up and the answers before
        // the hang, which take seconds on a loaded machine.
        &[("RECONCILE_SIM_EXEC_TIMEOUT", "4s")],
    );
    assert_eq!(code(&o), 1);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("no answer within 4s (the per-message timeout; set RECONCILE_SIM_EXEC_TIMEOUT to change it)"),
        "{text}"
    );
}

#[test]
fn cli_exec_store_that_cannot_start_is_bad_usage() {
    for (spec, fragment) in [
        (
            "exec:/nonexistent/adapter --flag",
            "cannot start exec store command '/nonexistent/adapter --flag'",
        ),
        ("exec:node 'unclosed", "bad exec store"),
        ("exec:", "bad exec store 'exec:': no command"),
    ] {
        let o = sim_env(&["run", "--store", spec, "--seed", "0"], &[]);
        assert_eq!(code(&o), 2, "{spec}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(err.contains(fragment), "{spec}: {err}");
    }
    let o = sim_env(
        &["run", "--store", "exec:true", "--seed", "0"],
        &[("RECONCILE_SIM_EXEC_TIMEOUT", "soon")],
    );
    assert_eq!(code(&o), 2);
    assert!(String::from_utf8(o.stderr)
        .unwrap()
        .contains("RECONCILE_SIM_EXEC_TIMEOUT='soon'"));
}
