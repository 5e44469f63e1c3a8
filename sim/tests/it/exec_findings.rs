//! What the harness says about a misbehaving `exec:` store, end to end through the binary:
//! - **each fault its own cause, everywhere**: an adapter that exits, hangs or writes
//!   garbage is a `crash` whose typed cause and stderr tail reach the text report, the
//!   JSON and the JUnit file; one that keeps state across `reset` is named `state-leak` on
//!   the first campaign that shows it; one whose renders change from run to run,
//!   `nondeterministic`; a timeout that does not happen again, `flaky`, and the campaign
//!   still prints its table (issue 11, issue 16);
//! - **consent and portability**: a scenario's command runs only with `--allow-exec` (or
//!   a command of the user's own with `--store`), where the scenario recorded it, from any
//!   working directory; a command that cannot run there is an exit-2 error naming it
//!   (issue 17 item 5, issue 16);
//! - **an adapter that never starts** is bad usage (exit 2, its stderr quoted) for every
//!   command that takes a store (issue 17 item 7);
//! - **pinning** never puts a starting adapter on one CPU.
//!
//! These need Node.js, like `exec.rs`, and fail without it.

use std::path::Path;

use crate::support::{code, repo, require_node, sim_env, sim_in, stderr, stdout, tmp, Scratch};

const FAULTY: &str = "sim/tests/faulty/faulty.js";

/// `exec:node sim/tests/faulty/faulty.js MODE`
fn faulty(mode: &str) -> String {
    format!("exec:node {FAULTY} {mode}")
}

/// Timeouts no healthy adapter comes near, even on a loaded machine; `hang` gets a short
/// per-message one (it waits it out; healthy answers stay far below it, see `exec.rs`'s
/// `SHORT`).
fn timeouts(mode: &str) -> Vec<(&'static str, &'static str)> {
    let message = if mode == "hang" { "1s" } else { "2m" };
    vec![
        ("RECONCILE_SIM_EXEC_TIMEOUT", message),
        ("RECONCILE_SIM_EXEC_STARTUP_TIMEOUT", "2m"),
    ]
}

/// The three reports of one faulty adapter: `fuzz`'s text, `check --json` and its JUnit
/// file, over `seeds` seeds from 1 (seed 1 reaches a `turn-start`, where the faults fire).
struct Reports {
    /// Where the campaigns saved their findings, kept while the reports are read.
    _dir: Scratch,
    text: String,
    json: serde_json::Value,
    junit: String,
}

fn reports(label: &str, mode: &str, seeds: &str) -> Reports {
    require_node();
    let dir = tmp(&format!("findings-{label}"));
    let (empty, out, junit) = (dir.join("empty"), dir.join("out"), dir.join("check.xml"));
    std::fs::create_dir_all(&empty).unwrap();
    let store = faulty(mode);
    let common = |cmd: &'static str| {
        vec![
            cmd.to_string(),
            "--store".into(),
            store.clone(),
            "--seeds".into(),
            seeds.into(),
            "--jobs".into(),
            "2".into(),
            "--out".into(),
            out.to_string_lossy().into_owned(),
            // Shrinking a timeout waits it out on every replay (and on each replay
            // shrinking makes to analyse a trace): one is enough to show it is saved.
            "--max-shrink-iters".into(),
            "1".into(),
        ]
    };
    let mut fuzz = common("fuzz");
    fuzz.extend(["--seed-start".into(), "1".into(), "--verbose".into()]);
    let args: Vec<&str> = fuzz.iter().map(String::as_str).collect();
    let o = sim_env(&args, &timeouts(mode));
    assert_eq!(code(&o), 1, "{mode} fuzz: {}", stderr(&o));
    let text = stdout(&o);
    let mut check = common("check");
    check.extend([
        "--seed".into(),
        "1".into(),
        "--scenarios".into(),
        empty.to_string_lossy().into_owned(),
        "--allow-empty".into(),
        "--json".into(),
        "--junit".into(),
        junit.to_string_lossy().into_owned(),
    ]);
    let args: Vec<&str> = check.iter().map(String::as_str).collect();
    let o = sim_env(&args, &timeouts(mode));
    assert_eq!(code(&o), 1, "{mode} check: {}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{mode}: check --json: {e}: {}", stdout(&o)));
    let junit = std::fs::read_to_string(&junit).unwrap();
    Reports {
        _dir: dir,
        text,
        json,
        junit,
    }
}

/// The check's crash class of cause `kind`.
fn crash_class<'a>(r: &'a Reports, kind: &str) -> &'a serde_json::Value {
    r.json["batches"][0]["classes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["cause"]["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} class: {}", r.json["batches"]))
}

/// A crash class of the check's fuzz batches: its cause, and the cause of the finding
/// saved for it, are both `kind`, and the JUnit failure quotes `text` and `stderr`.
fn assert_crash_everywhere(r: &Reports, kind: &str, text: &str, stderr_line: &str) {
    assert!(
        !r.text.contains("panicked") && !r.junit.contains("panicked"),
        "never 'panicked' about a process"
    );
    // Text: the cause and the stderr tail, under the table.
    assert!(r.text.contains("crash of exec:node"), "{}", r.text);
    assert!(r.text.contains(text), "{}", r.text);
    assert!(r.text.contains(&format!("| {stderr_line}")), "{}", r.text);
    // JSON: the batch's class and the shrunk finding carry the typed cause.
    let class = crash_class(r, kind);
    assert!(
        class["cause"]["stderr_tail"]
            .as_str()
            .unwrap()
            .contains(stderr_line),
        "{class}"
    );
    let found = r.json["found"].as_array().unwrap();
    assert!(
        found.iter().any(|f| f["cause"]["kind"] == kind),
        "{found:?}"
    );
    // JUnit: the failing batch's description quotes the cause and the stderr.
    assert!(r.junit.contains(text), "{}", r.junit);
    assert!(
        r.junit.contains(&stderr_line.replace('\'', "&apos;")),
        "{}",
        r.junit
    );
    assert!(
        r.json["suspects"].as_array().unwrap().is_empty(),
        "{}",
        r.json
    );
}

#[test]
fn an_adapter_that_exits_is_a_crash_with_its_exit_code_in_every_report() {
    let r = reports("exit", "exit", "2");
    assert_crash_everywhere(
        &r,
        "exited",
        "the adapter process exited with code 3",
        "fault 'exit' on turn-start t1",
    );
    assert_eq!(crash_class(&r, "exited")["cause"]["code"], 3);
}

#[test]
fn an_adapter_that_hangs_is_a_crash_by_timeout_in_every_report() {
    let r = reports("hang", "hang", "1");
    assert_crash_everywhere(
        &r,
        "timed-out",
        "no answer within 1s (the per-message timeout",
        "fault 'hang' on turn-start t1",
    );
    assert_eq!(crash_class(&r, "timed-out")["cause"]["phase"], "message");
}

#[test]
fn an_adapter_that_writes_garbage_is_a_crash_by_bad_line_in_every_report() {
    let r = reports("garbage", "garbage", "2");
    assert_crash_everywhere(
        &r,
        "bad-line",
        "bad answer line (not JSON",
        "fault 'garbage' on turn-start t1",
    );
    assert_eq!(
        crash_class(&r, "bad-line")["cause"]["line"],
        "this is not json"
    );
}

/// The `leak` adapter keeps a counter across `reset`: from a process's second run on, its
/// render shows one row too many. The first campaign that shows it names it `state-leak`
/// (its failures happen again on reused processes and not in fresh ones), in the text,
/// the JSON and the JUnit file, and no failure of it is shrunk as if it were the store's
/// logic.
#[test]
fn an_adapter_that_keeps_state_across_reset_is_named_leaking_on_its_first_campaign() {
    let r = reports("leak", "leak", "3");
    assert!(
        r.text.contains(&format!(
            "state-leak: {} LEAKS STATE across reset",
            faulty("leak")
        )),
        "{}",
        r.text
    );
    assert!(
        r.text
            .contains("fails again on a reused adapter process but not in a fresh one"),
        "{}",
        r.text
    );
    let suspects = r.json["suspects"].as_array().unwrap();
    assert!(!suspects.is_empty(), "{}", r.json);
    assert!(
        suspects.iter().all(|s| s["kind"] == "state-leak"),
        "{suspects:?}"
    );
    assert!(suspects.iter().all(|s| s["seed"].is_u64()), "{suspects:?}");
    let scenario = suspects[0]["scenario"].as_str().unwrap();
    assert!(scenario.ends_with(".json") && scenario.contains("state-leak-seed"));
    assert!(Path::new(scenario).exists());
    assert!(
        r.json["found"].as_array().unwrap().is_empty(),
        "a leak's failure is not shrunk as the store's logic: {}",
        r.json["found"]
    );
    assert!(
        r.junit.contains("<testsuite name=\"stability\""),
        "{}",
        r.junit
    );
    assert!(
        r.junit
            .contains(&format!("message=\"{}: state-leak\"", faulty("leak"))),
        "{}",
        r.junit
    );
}

/// An adapter whose live row ids change from run to run (its verdicts do not): two runs of
/// one seed in fresh processes differ, so the determinism check calls it
/// `nondeterministic`, naming the step and the rows.
#[test]
fn check_determinism_names_a_nondeterministic_adapter() {
    require_node();
    let out = tmp("findings-random");
    let o = sim_env(
        &[
            "fuzz",
            "--store",
            &faulty("random-ids"),
            "--seeds",
            "2",
            "--check-determinism",
            "--json",
            "--out",
            out.to_str().unwrap(),
        ],
        &timeouts("random-ids"),
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let suspects = json["suspects"].as_array().unwrap();
    let s = suspects
        .iter()
        .find(|s| s["kind"] == "nondeterministic")
        .unwrap_or_else(|| panic!("{suspects:?}"));
    let why = s["why"].as_str().unwrap();
    assert!(
        why.contains("two runs of the seed in fresh adapter processes differ")
            && why.contains("different renders"),
        "{why}"
    );
    // The same store without the check: its verdicts alone show nothing unstable.
    let o = sim_env(
        &[
            "fuzz",
            "--store",
            &faulty("random-ids"),
            "--seeds",
            "2",
            "--json",
            "--out",
            out.to_str().unwrap(),
        ],
        &timeouts("random-ids"),
    );
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        json["suspects"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["kind"] != "nondeterministic"),
        "{json}"
    );
}

/// Issue 11's slow store, scaled down: no start-up delay, and the 600th input a process is
/// given (counted across runs) sleeps 60 s, far past a 2 s per-message timeout. Which run
/// meets that input depends on what its process served before, and no single run gives a
/// tab 600 inputs, so the timeout cannot happen again when the failing run is replayed
/// (in a fresh process it never comes; on reused ones only by chance, and a timeout must
/// repeat in both to count): it is `flaky`, with the run's trace saved, and `fuzz` prints
/// its table and JSON and exits 1, never 2 or 3. With one thread the pool serves runs in
/// a fixed order, so the same seeds time out on every machine; how long a healthy answer
/// takes does not matter (a spurious timeout on a loaded machine would be flaky too).
#[test]
fn a_timeout_that_does_not_happen_again_is_flaky_and_the_campaign_goes_on() {
    require_node();
    let out = tmp("findings-slow");
    let store = faulty("slow 0 60000 600");
    let args = [
        "fuzz",
        "--store",
        &store,
        "--seeds",
        "40",
        "--jobs",
        "1",
        "--verbose",
        "--out",
        out.to_str().unwrap(),
    ];
    let env = [
        ("RECONCILE_SIM_EXEC_TIMEOUT", "1s"),
        ("RECONCILE_SIM_EXEC_STARTUP_TIMEOUT", "2m"),
    ];
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let o = sim_env(&json_args, &env);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["seeds"], 40, "the table covers every seed");
    let crashes = json["stores"][0]["failing"]["crash"].as_u64().unwrap();
    assert!(crashes >= 1, "{json}");
    let suspects = json["suspects"].as_array().unwrap();
    assert!(!suspects.is_empty(), "{json}");
    for s in suspects {
        assert_eq!(s["kind"], "flaky", "{s}");
        assert_eq!(s["cause"]["kind"], "timed-out", "{s}");
        assert!(Path::new(s["scenario"].as_str().unwrap()).exists(), "{s}");
    }
    assert!(json["scenarios"].as_array().unwrap().is_empty(), "{json}");
    // The text report: the table, then the flaky finding with its cause.
    let o = sim_env(&args, &env);
    assert_eq!(code(&o), 1);
    let text = stdout(&o);
    assert!(text.contains("inv1-no-loss"), "{text}");
    assert!(text.contains("has FLAKY failures"), "{text}");
    assert!(
        text.contains("a timeout that did not happen again when replayed"),
        "{text}"
    );
    assert!(text.contains("no answer within 1s"), "{text}");
}

// --- consent and portable scenarios -------------------------------------------------------

/// The committed exec scenario: `node adapters/node/store.js current` recorded from the
/// repository root (its `store_dir` is `../../..`, relative to the file).
fn committed() -> std::path::PathBuf {
    repo().join("sim/tests/exec_scenarios/node-current.json")
}

/// `replay`, `shrink` and `check` do not run a command a scenario names unless asked; the
/// error names the command and both ways to proceed. `--store exec:…` is consent to that
/// command (in the working directory).
#[test]
fn a_scenarios_command_runs_only_with_consent() {
    require_node();
    let file = committed();
    let file = file.to_str().unwrap();
    let dir = tmp("consent");
    let shrunk = dir.join("shrunk.json");
    let scenarios = dir.join("scenarios");
    std::fs::create_dir_all(&scenarios).unwrap();
    std::fs::copy(committed(), scenarios.join("node-current.json")).unwrap();
    let refused: Vec<Vec<&str>> = vec![
        vec!["replay", file],
        vec!["shrink", file, "-o", shrunk.to_str().unwrap()],
        vec!["check", "--scenarios", scenarios.to_str().unwrap()],
    ];
    for args in &refused {
        let o = sim_in(&dir, args);
        assert_eq!(code(&o), 2, "{args:?}");
        let err = stderr(&o);
        assert!(
            err.contains("it names the command 'node adapters/node/store.js current'")
                && err.contains("pass --allow-exec to run it")
                && err.contains("--store exec:"),
            "{args:?}: {err}"
        );
        assert!(!shrunk.exists());
    }
    // Allowed: from a directory that is not the repository, the command runs where it was
    // recorded and reproduces.
    let o = sim_in(&dir, &["replay", file, "--allow-exec", "--json"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["reproduced"], true, "{json}");
    let o = sim_in(
        &dir,
        &[
            "shrink",
            file,
            "-o",
            shrunk.to_str().unwrap(),
            "--allow-exec",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("--allow-exec"), "{}", stdout(&o));
    // The shrunk file records the same directory, relative to where it now is.
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&shrunk).unwrap()).unwrap();
    let recorded = written["store_dir"].as_str().unwrap();
    assert_eq!(
        dir.join(recorded).canonicalize().unwrap(),
        repo().canonicalize().unwrap()
    );
    // `--store` names the command: consent, run in the working directory (the repo).
    let o = sim_env(
        &[
            "replay",
            file,
            "--store",
            "exec:node adapters/node/store.js current",
        ],
        &[],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
}

/// A committed exec scenario replays from another working directory (it records its
/// directory relative to itself), and a copy that took it away from its adapter fails
/// with exit 2, naming the command, the directory and the missing file: never a crash.
#[test]
fn a_committed_exec_scenario_replays_anywhere_or_names_what_is_missing() {
    require_node();
    let elsewhere = tmp("portable");
    let o = sim_in(
        &elsewhere,
        &[
            "replay",
            committed().to_str().unwrap(),
            "--allow-exec",
            "--json",
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["reproduced"], true);
    // Written by `run` into a scratch directory from the repository root, replayed from
    // another: the same.
    let out = tmp("portable-out");
    let o = sim_env(
        &[
            "run",
            "--store",
            "exec:node adapters/node/store.js current",
            "--seed",
            "0",
            "--json",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let run: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let written = run["scenario"].as_str().unwrap();
    assert!(
        run["replay"].as_str().unwrap().ends_with("--allow-exec"),
        "{run}"
    );
    let o = sim_in(&elsewhere, &["replay", written, "--allow-exec", "--json"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    // Copied away from the adapter: exit 2, naming what is missing.
    let copy = elsewhere.join("copied.json");
    std::fs::copy(committed(), &copy).unwrap();
    let o = sim_in(
        &elsewhere,
        &["replay", copy.to_str().unwrap(), "--allow-exec"],
    );
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains("exec store command 'node adapters/node/store.js current' did not start")
            && err.contains("adapters/node/store.js does not exist"),
        "{err}"
    );
    assert!(!err.contains("crash"), "{err}");
    // A program that is not there at all: the same, as a spawn error.
    let missing = elsewhere.join("missing.json");
    let text = std::fs::read_to_string(committed())
        .unwrap()
        .replace("exec:node adapters", "exec:./no-such-adapter.sh adapters");
    std::fs::write(&missing, text).unwrap();
    let o = sim_in(
        &elsewhere,
        &["replay", missing.to_str().unwrap(), "--allow-exec"],
    );
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(
        err.contains(
            "cannot start exec store command './no-such-adapter.sh adapters/node/store.js current'"
        ),
        "{err}"
    );
}

// --- an adapter that never starts --------------------------------------------------------

/// `exec:true` (exits at once) and a usage error (an unknown variant) are bad usage for
/// every command that takes a store: exit 2, the command named, its stderr quoted; never a
/// crash finding, never exit 1.
#[test]
fn an_adapter_that_never_starts_is_bad_usage_for_every_command() {
    require_node();
    let dir = tmp("never-starts");
    let file = dir.join("s.json");
    let out = dir.join("out");
    let scenarios = dir.join("scenarios");
    std::fs::create_dir_all(&scenarios).unwrap();
    for (spec, said) in [
        ("exec:true", "the adapter process exited with code 0"),
        (
            "exec:node adapters/node/store.js nope",
            "| usage: node store.js VARIANT",
        ),
    ] {
        // A scenario naming it, run from the repository.
        let text = std::fs::read_to_string(repo().join("scenarios/bug-a.json"))
            .unwrap()
            .replace("\"store\": \"naive\"", &format!("\"store\": {spec:?}"));
        assert!(text.contains(spec));
        std::fs::write(&file, &text).unwrap();
        std::fs::write(scenarios.join("s.json"), &text).unwrap();
        let (f, o, sc) = (
            file.to_str().unwrap(),
            out.to_str().unwrap(),
            scenarios.to_str().unwrap(),
        );
        let commands: Vec<Vec<&str>> = vec![
            vec!["run", "--store", spec, "--seed", "0", "--out", o],
            vec!["fuzz", "--store", spec, "--seeds", "5", "--out", o],
            vec!["check", "--store", spec, "--seeds", "5", "--out", o],
            vec!["replay", f, "--store", spec],
            vec!["replay", f, "--allow-exec"],
            vec!["shrink", f, "--store", spec, "-o", o],
            vec!["check", "--scenarios", sc, "--allow-exec"],
            vec![
                "diff", "--store", "current", "--store", spec, "--seeds", "3",
            ],
            vec!["explore", "--store", spec, "--sends", "1"],
        ];
        for args in commands {
            let o = sim_env(&args, &[]);
            let err = stderr(&o);
            assert_eq!(code(&o), 2, "{args:?}: {err}");
            let command = spec.strip_prefix("exec:").unwrap();
            assert!(
                err.contains(&format!("exec store command '{command}' did not start")),
                "{args:?}: {err}"
            );
            assert!(err.contains(said), "{args:?}: {err}");
        }
    }
}

// --- pinning ------------------------------------------------------------------------------

/// A starting adapter may run on every CPU the harness may (node's start-up and its
/// compiler threads are not queued behind one busy CPU); once started, its main thread is
/// on one CPU with the harness thread talking to it. The `affinity` adapter writes where
/// it may run when it starts and at the second input of each run. With `--isolate` every
/// run starts its processes, so from the second run on they are started by a harness
/// thread that has pinned itself.
#[test]
#[cfg(target_os = "linux")]
fn pinning_never_puts_a_starting_adapter_on_one_cpu() {
    require_node();
    let dir = tmp("affinity");
    let log = dir.join("cpus.log");
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let ours = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_string();
    let o = sim_env(
        &[
            "fuzz",
            "--store",
            &format!("exec:node {FAULTY} affinity {}", log.display()),
            "--seeds",
            "3",
            "--jobs",
            "1",
            "--isolate",
            "--out",
            dir.join("out").to_str().unwrap(),
        ],
        &[],
    );
    assert!(code(&o) <= 1, "{}", stderr(&o));
    let lines = std::fs::read_to_string(&log).unwrap();
    let starts: Vec<&str> = lines
        .lines()
        .filter_map(|l| l.strip_prefix("start "))
        .collect();
    let inputs: Vec<&str> = lines
        .lines()
        .filter_map(|l| l.strip_prefix("input "))
        .collect();
    assert!(starts.len() >= 4, "{lines}");
    assert!(
        starts.iter().all(|s| *s == ours),
        "every starting adapter may run where the harness may ({ours}): {lines}"
    );
    let cpus = |list: &str| -> usize {
        list.split(',')
            .map(|r| match r.split_once('-') {
                Some((a, b)) => b.parse::<usize>().unwrap() - a.parse::<usize>().unwrap() + 1,
                None => 1,
            })
            .sum()
    };
    assert!(!inputs.is_empty(), "{lines}");
    if cpus(&ours) >= 2 {
        assert!(
            inputs.iter().all(|s| cpus(s) == 1),
            "a started adapter is pinned to one CPU: {lines}"
        );
    }
}
