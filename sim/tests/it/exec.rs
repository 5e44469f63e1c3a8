//! The exec store (`--store exec:'COMMAND'`, docs/protocol.md):
//! - **differential**: the reference Node adapter (`adapters/node/`) agrees with the Rust
//!   stores after every step of thousands of fuzz seeds, and reproduces the note's bugs;
//! - **faults**: every way an adapter can misbehave is a `crash` finding with its own typed
//!   cause, the scenario so far and the adapter's stderr, the process is replaced, and
//!   nothing hangs; an adapter that cannot start is an operational error;
//! - **extensions**: boot effects, state digests, isolation, working directories;
//! - **CLI**: `run` and `fuzz` through the real binary.
//!
//! These tests need Node.js (`node` on PATH, ≥ 18). Without it they FAIL, on purpose: a
//! differential test that silently passes when one side is missing proves nothing.

use std::process::Command;
use std::time::Duration;

use crate::support::{code, repo, require_node, sim_env};
use reconcile_sim::campaign::fuzz::run_one;
use reconcile_sim::exec::{ExecError, ExecFactory};
use reconcile_sim::explore::{explore, ExploreBound, StateCache};
use reconcile_sim::model::config::WorldConfig;
use reconcile_sim::model::step::Step;
use reconcile_sim::model::store::{CrashCause, Phase};
use reconcile_sim::model::wire::RequestId;
use reconcile_sim::model::world::World;
use reconcile_sim::oracle::Invariant;
use reconcile_sim::run::strategy::StrategySpec;
use reconcile_sim::run::{Outcome, RunReport};
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
    // A healthy adapter answers in microseconds; the generous timeouts only keep a
    // heavily loaded machine (node starting slowly) from turning into a false "hang".
    ExecFactory::from_spec(&spec)
        .expect("valid spec")
        .with_startup_timeout(GENEROUS)
        .with_timeout(GENEROUS)
}

/// A deliberately faulty adapter (sim/tests/faulty/faulty.js `MODE ARGS`).
///
/// Timeouts: start-up is always generous (a node start takes seconds on a loaded machine).
/// Only the modes that wait out the per-message timeout (`hang`; `close-stdout`, whose
/// process is given that long to exit) get a short one; everything else gets a generous
/// one too, so that no test depends on how fast the machine is.
fn faulty(mode: &str) -> ExecFactory {
    require_node();
    let script = repo().join("sim/tests/faulty/faulty.js");
    let spec = format!(
        "exec:node {} {mode}",
        shell_words::quote(&script.to_string_lossy())
    );
    let message = if mode == "hang" || mode == "close-stdout" {
        SHORT
    } else {
        GENEROUS
    };
    ExecFactory::from_spec(&spec)
        .expect("valid spec")
        .with_startup_timeout(GENEROUS)
        .with_timeout(message)
}

/// A timeout no healthy adapter comes near, even on a loaded machine.
const GENEROUS: Duration = Duration::from_secs(120);
/// The per-message timeout of the adapters that hang: short, so the tests are. Healthy
/// answers stay far below it: 1 500 seeds through the reference adapter with a 250 ms
/// timeout, on two cores kept busy by two spinning loops and a build, timed out nowhere.
const SHORT: Duration = Duration::from_secs(1);

fn rust(name: &str) -> StoreKind {
    by_name(name).expect("shipped store")
}

// --- differential ----------------------------------------------------------------------

/// Seeds per store for the two stores the adapter exists for, and for the other variants.
/// Enough to cross every kind of step many times; CI compares on 5 000 and 1 000 more
/// (`scripts/check-node-differential.sh`, through `reconcile-sim diff`), outside the suite,
/// which must stay fast.
const SEEDS_MAIN: u64 = 400;
const SEEDS_OTHER: u64 = 100;

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
/// `membership`, with identical effects and renders after every step. One adapter per
/// variant serves every scenario (its processes are reset between runs, as in a campaign).
#[test]
fn every_committed_scenario_agrees_between_rust_and_node() {
    let files = reconcile_sim::campaign::check::scenario_files(&repo().join("scenarios")).unwrap();
    assert!(files.len() >= 4, "the bug scenarios are committed");
    let mut adapters: std::collections::BTreeMap<String, ExecFactory> = Default::default();
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
            let node = adapters
                .entry(variant.clone())
                .or_insert_with(|| node_store(variant));
            let (config, steps) = (scenario.config.clone(), scenario.steps());
            if let Err(d) = lockstep_replay(&rust(variant), node, config, &steps) {
                panic!("scenario {name}, store {variant}: {d}");
            }
        }
    }
}

/// Bug A (as in tests/bugs.rs): c0's deferred reconcile of t1 runs while c1's t2 streams.
fn bug_a_script() -> Script<'static> {
    static CURRENT: StoreKind = reconcile_sim::store::note::current::KIND;
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
    static CURRENT: StoreKind = reconcile_sim::store::note::current::KIND;
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

/// Run the fault seed; it must end in a crash. Returns the report and its cause, and
/// checks that the violation's text (`seen`) names the cause and quotes the stderr.
fn crash_of(factory: &ExecFactory) -> (RunReport, CrashCause) {
    let report = run_one(factory, StrategySpec::Random, FAULT_SEED);
    let Outcome::Fail(v) = &report.outcome else {
        panic!("{}: expected a crash, got a pass", factory_name(factory));
    };
    assert_eq!(v.invariant, Invariant::Crash, "{v}");
    assert_eq!(
        v.step_index,
        report.steps.len() - 1,
        "the run stops at the crash"
    );
    let cause = v.cause.clone().expect("an exec crash carries its cause");
    assert_eq!(v.seen, cause.lines(), "the text is the cause's");
    assert!(
        !v.seen.iter().any(|l| l.contains("panicked")),
        "never 'panicked' about a process: {v}"
    );
    (report, cause)
}

fn factory_name(f: &ExecFactory) -> String {
    reconcile_sim::model::store::StoreFactory::name(f)
}

/// The fault fires on the first `turn-start`: the run got that far with correct answers,
/// and the crash is on the step that delivered it. The cause is checked by `check`, its
/// first line must be `text`, and the stderr tail has the adapter's last words, from this
/// run only. The faulty process is replaced; the next run finds the same crash, to the
/// byte.
fn assert_crash_on_turn_start(mode: &str, text: &str, check: impl Fn(&CrashCause) -> bool) {
    let f = faulty(mode);
    let clients = WorldConfig::from_seed(FAULT_SEED).clients as usize;
    let (report, cause) = crash_of(&f);
    assert!(check(&cause), "{mode}: {cause:?}");
    assert_eq!(cause.to_string(), text, "{mode}");
    let tail = cause.stderr_tail().expect("a process's crash");
    assert!(
        tail.contains(&format!("fault '{mode}' on turn-start t1")),
        "{mode}: {tail:?}"
    );
    assert!(
        !tail.contains("faulty adapter starting"),
        "{mode}: only this run's stderr is quoted: {tail:?}"
    );
    assert!(
        matches!(report.steps.last(), Some(Step::DeliverEvent { .. })),
        "{:?}",
        report.steps.last()
    );
    assert!(
        report.steps.len() > 5,
        "inputs before the fault were served"
    );
    let healthy = if matches!(cause, CrashCause::StoreThrew { .. }) {
        clients
    } else {
        clients - 1
    };
    assert_eq!(f.idle_processes(), healthy, "{mode}");
    let again = run_one(&f, StrategySpec::Random, FAULT_SEED);
    assert_eq!(again.steps, report.steps, "{mode}");
    assert_eq!(
        again.outcome, report.outcome,
        "{mode}: same seed, same report"
    );
}

#[test]
fn fault_process_exits() {
    assert_crash_on_turn_start("exit", "the adapter process exited with code 3", |c| {
        matches!(
            c,
            CrashCause::Exited {
                code: Some(3),
                signal: None,
                ..
            }
        )
    });
}

#[test]
fn fault_process_hangs_past_the_timeout() {
    assert_crash_on_turn_start(
        "hang",
        "no answer within 1s (the per-message timeout; set RECONCILE_SIM_EXEC_TIMEOUT to change it)",
        |c| {
            matches!(
                c,
                CrashCause::TimedOut {
                    phase: Phase::Message,
                    waited_ms: 1000,
                    ..
                }
            )
        },
    );
}

#[test]
fn fault_answer_is_not_json() {
    assert_crash_on_turn_start(
        "garbage",
        "bad answer line (not JSON: expected ident at line 1 column 2): this is not json",
        |c| matches!(c, CrashCause::BadLine { line, .. } if line == "this is not json"),
    );
}

#[test]
fn fault_answers_out_of_protocol() {
    for (mode, why) in [
        ("wrong-type", "expected an output, got type 'reset'"),
        ("no-render", "an output without 'render'"),
        ("bad-effect", "unknown variant `teleport`"),
    ] {
        let f = faulty(mode);
        let (_, cause) = crash_of(&f);
        let CrashCause::BadLine { why: got, .. } = &cause else {
            panic!("{mode}: {cause:?}");
        };
        assert!(got.contains(why), "{mode}: {got}");
        assert!(
            cause.to_string().starts_with("bad answer line ("),
            "{cause}"
        );
    }
}

/// An extra answer line is caught by the id check on that process's next answer: one
/// input later, always the same one.
#[test]
fn fault_extra_answer_line() {
    let f = faulty("extra-line");
    let (report, cause) = crash_of(&f);
    let CrashCause::BadLine { why, .. } = &cause else {
        panic!("{cause:?}");
    };
    assert!(why.contains("an extra or a missing answer line"), "{why}");
    let again = run_one(&f, StrategySpec::Random, FAULT_SEED);
    assert_eq!(again.outcome, report.outcome);
}

/// A store that throws is a crash, but the adapter stayed in protocol: its process is
/// reused for the next run. The stack is quoted, and so is what it wrote to stderr before
/// it answered (every time: the harness reads stderr before it quotes it).
#[test]
fn fault_store_throws_and_the_process_is_reused() {
    assert_crash_on_turn_start(
        "throw",
        "the store threw: TypeError: cannot read properties of undefined (reading 'turnId')",
        |c| matches!(c, CrashCause::StoreThrew { .. }),
    );
    let (report, cause) = crash_of(&faulty("throw"));
    let Outcome::Fail(v) = &report.outcome else {
        unreachable!()
    };
    assert_eq!(v.seen[1], "  at handleEvent (tabs.svelte.ts:42:7)", "{v}");
    assert!(cause
        .lines()
        .contains(&"  | fault 'throw' on turn-start t1".to_string()));
}

/// A process that closes its stdout and lives on did not exit: the harness killed it,
/// and says so.
#[test]
fn fault_process_closes_its_stdout() {
    assert_crash_on_turn_start(
        "close-stdout",
        "the adapter process closed its stdout and kept running (the harness killed it)",
        |c| matches!(c, CrashCause::ClosedPipe { pipe, .. } if pipe == "stdout"),
    );
}

/// A grandchild holding stdout open does not turn the exit into a timeout (the generous
/// per-message timeout is never waited out), and it is killed with the process group.
#[test]
fn fault_exit_with_a_grandchild_holding_stdout() {
    let started = std::time::Instant::now();
    let f = faulty("grandchild");
    let (_, cause) = crash_of(&f);
    assert!(
        matches!(cause, CrashCause::Exited { code: Some(5), .. }),
        "{cause:?}"
    );
    assert!(
        started.elapsed() < GENEROUS,
        "the exit was seen, not timed out"
    );
    let tail = cause.stderr_tail().unwrap();
    let pid: u32 = tail
        .lines()
        .find_map(|l| l.strip_prefix("grandchild "))
        .expect("the grandchild's pid")
        .parse()
        .unwrap();
    // Killed: gone, or a zombie, once the signal is acted on.
    let deadline = std::time::Instant::now() + GENEROUS;
    loop {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat.is_empty() || stat.contains(") Z ") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the grandchild lives: {stat}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Adapters that break the handshake, driven without a probe (a library caller): the
/// first input reports the start-up's fault.
#[test]
fn fault_bad_handshakes() {
    for (mode, text) in [
        (
            "bad-version",
            "protocol error: bad handshake: the harness speaks protocol 1, the adapter answered protocol 99",
        ),
        (
            "no-hello",
            "protocol error: bad handshake: expected a hello answer, got type 'output'",
        ),
        ("die-on-load", "the adapter process exited with code 1"),
    ] {
        let f = faulty(mode);
        let (report, cause) = crash_of(&f);
        assert_eq!(cause.to_string(), text, "{mode}");
        assert_eq!(report.steps.len(), 1, "{mode}: crash on the first input");
        assert_eq!(f.idle_processes(), 0, "{mode}: nothing broken is pooled");
    }
    let (_, cause) = crash_of(&faulty("die-on-load"));
    assert!(cause
        .lines()
        .contains(&"  | ReferenceError: storeModule is not defined".to_string()));
}

/// An adapter that cannot get through its start-up is an operational error of the probe
/// (the CLI exits 2), naming the command and quoting its stderr: it exits at once, exits
/// with a usage error, breaks the handshake, or does not start in time.
#[test]
fn a_command_that_cannot_start_fails_the_probe() {
    require_node();
    let store_js = repo().join("adapters/node/store.js");
    let store_js = shell_words::quote(&store_js.to_string_lossy()).into_owned();
    let cases: Vec<(ExecFactory, &str, &str)> = vec![
        (
            ExecFactory::from_spec("exec:true").unwrap(),
            "exec store command 'true' did not start: the adapter process exited with code 0",
            "stderr: (empty)",
        ),
        (
            ExecFactory::from_spec(&format!("exec:node {store_js} nope")).unwrap(),
            "the adapter process exited with code 2",
            "usage: node store.js VARIANT",
        ),
        (
            faulty("die-on-load"),
            "exited with code 1",
            "| ReferenceError",
        ),
        (
            faulty("bad-version"),
            "bad handshake",
            "faulty adapter starting in mode bad-version",
        ),
        (
            faulty("slow-start").with_startup_timeout(Duration::from_millis(500)),
            "the adapter did not start within 500ms (the start-up timeout",
            "",
        ),
    ];
    for (f, cause, stderr) in cases {
        let err = f.probe().expect_err(&factory_name(&f));
        assert!(matches!(err, ExecError::Startup { .. }), "{err:?}");
        let text = err.to_string();
        assert!(text.contains(cause), "{text}");
        assert!(text.contains(stderr), "{text}");
        assert_eq!(f.idle_processes(), 0);
    }
}

/// An adapter that takes 3 s to start is no crash with the default timeouts.
#[test]
fn a_slow_starting_adapter_is_not_a_crash() {
    require_node();
    let script = repo().join("sim/tests/faulty/faulty.js");
    let spec = format!(
        "exec:node {} slow-start",
        shell_words::quote(&script.to_string_lossy())
    );
    let f = ExecFactory::from_spec(&spec).unwrap();
    f.probe()
        .expect("starts within the default start-up timeout");
    let seed = (0..100)
        .find(|&s| WorldConfig::from_seed(s).clients == 2)
        .unwrap();
    let report = run_one(&f, StrategySpec::Random, seed);
    assert_ne!(report.outcome.invariant(), Some(Invariant::Crash));
    assert_eq!(
        report.outcome,
        run_one(&rust("current"), StrategySpec::Random, seed).outcome
    );
}

/// A process that died while idle in the pool is replaced, not reported against the next
/// run.
#[test]
fn a_process_that_died_idle_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let f = faulty(&format!(
        "pid-file {}",
        shell_words::quote(&pid_file.to_string_lossy())
    ));
    f.probe().unwrap();
    assert_eq!(f.idle_processes(), 1);
    let pid: i32 = std::fs::read_to_string(&pid_file).unwrap().parse().unwrap();
    Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap();
    // Dead: our child, so a zombie until the pool finds it, and one that can be waited
    // for only once all its threads are gone (node has several).
    let dead = || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let threads = std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, |d| d.count());
        stat.contains(") Z ") && threads <= 1
    };
    while !dead() {
        std::thread::sleep(Duration::from_millis(10));
    }
    let report = run_one(&f, StrategySpec::Random, 0);
    assert_eq!(
        report.outcome,
        run_one(&rust("current"), StrategySpec::Random, 0).outcome
    );
}

/// A store that keeps state across `reset` (the `leak` mode): a fresh process behaves,
/// a reused one does not, so its verdict depends on the process that served the run.
/// Isolation (a fresh process per store) makes every run a first run.
#[test]
fn a_state_leak_shows_on_reused_processes_and_isolation_hides_it() {
    let seed = (0..200)
        .find(|&s| run_one(&rust("current"), StrategySpec::Random, s).outcome == Outcome::Pass)
        .expect("current passes some seed");
    let pooled = faulty("leak");
    assert_eq!(
        run_one(&pooled, StrategySpec::Random, seed).outcome,
        Outcome::Pass,
        "first run: fresh processes"
    );
    let second = run_one(&pooled, StrategySpec::Random, seed).outcome;
    assert!(
        matches!(&second, Outcome::Fail(v) if v.invariant != Invariant::Crash),
        "second run: reused processes show the leak: {second:?}"
    );
    let isolated = faulty("leak").with_isolation(true);
    for _ in 0..2 {
        assert_eq!(
            run_one(&isolated, StrategySpec::Random, seed).outcome,
            Outcome::Pass
        );
        assert_eq!(
            isolated.idle_processes(),
            0,
            "isolated processes are not kept"
        );
    }
}

/// An adapter with the `boot` feature: each new store's fetch is queued for its tab's
/// fetch server when the world is made, and the run goes on from there.
#[test]
fn boot_effects_are_routed_when_the_world_is_made() {
    let f = faulty("boot");
    let config = WorldConfig::from_seed(FAULT_SEED);
    let world = World::new(config.clone(), &f);
    for c in world.clients() {
        assert_eq!(
            c.fetch_requests().copied().collect::<Vec<_>>(),
            [RequestId(1)]
        );
    }
    drop(world);
    let report = run_one(&f, StrategySpec::Random, FAULT_SEED);
    assert_ne!(report.outcome.invariant(), Some(Invariant::Crash));
    assert!(
        report
            .steps
            .iter()
            .chain(&report.drain)
            .any(|s| matches!(s, Step::DeliverFetchResponse { .. })),
        "the boot fetch is served and delivered"
    );
    // Effects on the reset answer of an adapter that did not announce `boot` are ignored,
    // as harnesses before the extension ignored them.
    let f = faulty("boot-unannounced");
    let world = World::new(config, &f);
    assert!(world
        .clients()
        .iter()
        .all(|c| c.fetch_requests().len() == 0));
    drop(world);
    let report = run_one(&f, StrategySpec::Random, FAULT_SEED);
    assert_ne!(report.outcome.invariant(), Some(Invariant::Crash));
}

/// The bytes a store feeds to `hash_state`.
#[derive(Default)]
struct Bytes(Vec<u8>);

impl std::hash::Hasher for Bytes {
    fn finish(&self) -> u64 {
        0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
}

fn digest(world: &World, client: usize) -> Option<Vec<u8>> {
    let mut b = Bytes::default();
    world.clients()[client]
        .store()
        .hash_state(&mut b)
        .then_some(b.0)
}

/// The reference adapter answers `state`: equal stores, equal digests; a store that took
/// an input, another. An adapter without the feature is asked nothing.
#[test]
fn state_digests_through_the_reference_adapter() {
    let f = node_store("current");
    let mut world = World::new(scripted_config(), &f);
    let (a, b) = (digest(&world, 0).unwrap(), digest(&world, 1).unwrap());
    assert_eq!(a, b, "two fresh stores");
    assert_eq!(a.len(), 64, "a SHA-256, hex");
    world.apply(Step::DeliverEvent {
        client: 0,
        event: 1,
    });
    assert_ne!(
        digest(&world, 0).unwrap(),
        b,
        "c0 learned the agent is idle"
    );
    assert_eq!(digest(&world, 1).unwrap(), b);
    // Another adapter of the same store (faulty.js `state`) digests the same state alike.
    let other = World::new(scripted_config(), &faulty("state"));
    assert_eq!(digest(&other, 0).unwrap(), b);
    let plain = World::new(scripted_config(), &faulty("exit"));
    assert_eq!(digest(&plain, 0), None);
}

/// With digests, `explore` through the reference adapter merges states as it does in
/// process: the same verdict and the same distinct full states.
#[test]
fn explore_through_the_adapter_caches_states_like_in_process() {
    // One tab sending two messages: small enough that backtracking by replay through the
    // adapter stays cheap, big enough that the cache has revisits to merge (checked below).
    let mut bound = ExploreBound::small(1, 2);
    bound.reductions.state_cache = true;
    let inproc = explore(&rust("current"), &bound, &mut |_| {});
    let exec = explore(&node_store("current"), &bound, &mut |_| {});
    assert_eq!(exec.state_cache, StateCache::On);
    assert!(
        exec.distinct_full_states > 100,
        "{}",
        exec.distinct_full_states
    );
    assert_eq!(exec.distinct_full_states, inproc.distinct_full_states);
    assert!(exec.revisits_pruned > 0, "the cache merged nothing");
    assert_eq!(exec.revisits_pruned, inproc.revisits_pruned);
    assert_eq!(exec.schedules, inproc.schedules);
    assert_eq!(
        exec.counterexample.map(|c| c.violation.invariant),
        inproc.counterexample.map(|c| c.violation.invariant)
    );
}

/// A scenario's command runs where it was recorded: relative paths resolve from the
/// factory's working directory, and a command missing there is a spawn error naming it.
#[test]
fn commands_run_in_the_working_directory() {
    require_node();
    let f = ExecFactory::from_spec_in("exec:node store.js current", repo().join("adapters/node"))
        .unwrap();
    f.probe().unwrap();
    assert_eq!(
        run_one(&f, StrategySpec::Random, 3).outcome,
        run_one(&rust("current"), StrategySpec::Random, 3).outcome
    );
    let dir = tempfile::tempdir().unwrap();
    let missing = ExecFactory::from_spec_in("exec:./adapter.sh --flag", dir.path()).unwrap();
    let err = missing.probe().unwrap_err();
    assert!(matches!(err, ExecError::Spawn { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.starts_with("cannot start exec store command './adapter.sh --flag' in "),
        "{text}"
    );
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
                "fuzz",
                "--store",
                store,
                "--seeds",
                seeds,
                "--json",
                "--jobs",
                jobs,
                "--out",
                out,
                // Shrinking through the adapter costs a round trip per step of every
                // replay; a replay budget (unlike a time budget) shrinks alike in both.
                "--max-shrink-iters",
                "100",
                "--settle-time",
                "unbounded",
            ],
            &[],
        );
        let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("fuzz --json");
        // How long the run took is the one thing two runs do not share.
        for key in [
            "campaign_seconds",
            "settle_seconds",
            "settle_budget_seconds",
        ] {
            v.as_object_mut().unwrap().remove(key);
        }
        (code(&o), v)
    };
    // Each class a campaign finds is shrunk through the adapter: 80 seeds find several.
    let (exec_code, exec) = fuzz(spec, "80", "2");
    let (inproc_code, inproc) = fuzz("current", "80", "2");
    assert_eq!(exec_code, inproc_code);
    assert_eq!(exec["seeds"], 80);
    assert!(exec["scenarios"].as_array().unwrap().len() >= 4, "{exec}");
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
    let (_, one) = fuzz(spec, "30", "1");
    let (_, two) = fuzz(spec, "30", "2");
    assert_eq!(one, two);
}

#[test]
fn cli_run_reports_a_fault_as_a_crash_with_its_cause_stderr_and_reproduce_line() {
    require_node();
    let spec = "exec:node sim/tests/faulty/faulty.js exit";
    // Every replay that reaches the fault starts a new process: shrinking is cut short.
    let run = [
        "run",
        "--store",
        spec,
        "--seed",
        "1",
        "--max-shrink-iters",
        "2",
    ];
    let o = sim_env(&run, &[]);
    assert_eq!(code(&o), 1);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("trace ("), "{text}");
    assert!(text.contains("verdict: FAIL crash violated on c2 after step #12"));
    assert!(
        text.contains("the adapter process exited with code 3"),
        "{text}"
    );
    assert!(text.contains("| fault 'exit' on turn-start t1"), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    // An exec store's command runs where the run did: the reproduce line goes back there.
    assert!(text.trim_end().ends_with(&format!(
        "reproduce: cd {} && reconcile-sim run --store 'exec:node sim/tests/faulty/faulty.js exit' --seed 1",
        shell_words::quote(&repo().display().to_string())
    )));
    assert!(
        o.stderr.is_empty(),
        "a fault prints nothing to stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let again = sim_env(&run, &[]);
    assert_eq!(
        String::from_utf8(again.stdout).unwrap(),
        text,
        "same seed, same bytes"
    );
    // --json: the violation carries the typed cause with the stderr tail.
    let o = sim_env(&[&run[..], &["--json"]].concat(), &[]);
    assert_eq!(code(&o), 1);
    let json = String::from_utf8(o.stdout).unwrap();
    let at = json.find("\"cause\"").unwrap_or_else(|| panic!("{json}"));
    let rest = &json[at..];
    assert!(rest.contains("\"kind\": \"exited\""), "{rest}");
    assert!(rest.contains("\"code\": 3"), "{rest}");
    assert!(rest.contains("fault 'exit' on turn-start t1"), "{rest}");
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
        // Short per message (only the hang waits it out), generous start-up.
        &[
            ("RECONCILE_SIM_EXEC_TIMEOUT", "1s"),
            ("RECONCILE_SIM_EXEC_STARTUP_TIMEOUT", "2m"),
        ],
    );
    assert_eq!(code(&o), 1);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("no answer within 1s (the per-message timeout; set RECONCILE_SIM_EXEC_TIMEOUT to change it)"),
        "{text}"
    );
}

#[test]
fn cli_exec_store_that_cannot_start_is_bad_usage() {
    require_node();
    for (spec, fragments) in [
        (
            "exec:/nonexistent/adapter --flag",
            &["cannot start exec store command '/nonexistent/adapter --flag'"][..],
        ),
        ("exec:node 'unclosed", &["bad exec store"]),
        ("exec:", &["bad exec store 'exec:': no command"]),
        (
            "exec:true",
            &["exec store command 'true' did not start: the adapter process exited with code 0"],
        ),
        (
            "exec:node adapters/node/store.js nope",
            &[
                "exec store command 'node adapters/node/store.js nope' did not start: the adapter process exited with code 2",
                "| usage: node store.js VARIANT",
            ],
        ),
    ] {
        let o = sim_env(&["run", "--store", spec, "--seed", "0"], &[]);
        assert_eq!(code(&o), 2, "{spec}");
        let err = String::from_utf8(o.stderr).unwrap();
        for fragment in fragments {
            assert!(err.contains(fragment), "{spec}: {err}");
        }
    }
    for var in [
        "RECONCILE_SIM_EXEC_TIMEOUT",
        "RECONCILE_SIM_EXEC_STARTUP_TIMEOUT",
    ] {
        let o = sim_env(
            &["run", "--store", "exec:true", "--seed", "0"],
            &[(var, "soon")],
        );
        assert_eq!(code(&o), 2);
        assert!(String::from_utf8(o.stderr)
            .unwrap()
            .contains(&format!("{var}='soon'")));
    }
}

/// An adapter's `hello` may state its virtual-clock setting; the factory keeps it after
/// the probe, and the text reports of `fuzz` and `check` say it under which it was found.
#[test]
fn the_clock_an_adapter_states_in_its_hello_heads_the_reports() {
    use reconcile_sim::model::store::StoreFactory;
    let stated = faulty("clock");
    stated.probe().expect("starts");
    assert_eq!(
        stated.settings().as_deref(),
        Some("clock: timers run when due; the clock moves 250 ms per input")
    );
    let silent = faulty("state");
    silent.probe().expect("starts");
    assert_eq!(silent.settings(), None);

    let script = repo().join("sim/tests/faulty/faulty.js");
    let script = shell_words::quote(&script.to_string_lossy()).into_owned();
    for (mode, stated) in [("clock", true), ("state", false)] {
        let spec = format!("exec:node {script} {mode}");
        let line = format!("{spec}: clock: timers run when due; the clock moves 250 ms per input");
        for args in [
            vec!["fuzz", "--store", spec.as_str(), "--seeds", "2"],
            vec![
                "check",
                "--store",
                spec.as_str(),
                "--seeds",
                "2",
                "--scenarios",
                "scenarios/paths",
            ],
        ] {
            let o = sim_env(&args, &[]);
            let out = String::from_utf8(o.stdout).unwrap();
            assert_eq!(
                out.lines().next() == Some(line.as_str()),
                stated,
                "{args:?}:\n{out}"
            );
            assert_eq!(out.contains("clock:"), stated, "{args:?}:\n{out}");
        }
    }
}
