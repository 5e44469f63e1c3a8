//! Interrupted, limited, full or hostile (issue 17), through the real binary: Ctrl-C keeps
//! and prints what was found and ends the adapters; a full or unwritable output still
//! prints the results and fails clearly; `--time` bounds the whole run, shrinking
//! included, with a slow adapter; the nightly judges the shipped stores against their
//! baselines; `check` on an empty folder fails; flags out of range, oversized files,
//! control characters, paths with spaces and the umask are handled.
//!
//! Timing: nothing here asserts a duration tighter than the issue's own bound (10 % plus
//! one shrink limit), and the Ctrl-C tests wait for a real sign of work (an adapter
//! process started) before they signal, never for a fixed sleep.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{code, repo, require_node, sim, stderr, stdout, tmp, Scratch, INVOKED_AS};
use reconcile_sim::trace::scenario::{self, load};

/// `exec:` a correct `current` that takes `ms` per input (sim/tests/slow/slow.js).
fn slow(ms: u32) -> String {
    format!("exec:node sim/tests/slow/slow.js {ms} current")
}

/// The binary, running, its output drained by threads (so a full pipe never blocks it).
struct Running {
    child: Child,
    out: std::thread::JoinHandle<Vec<u8>>,
    err: std::thread::JoinHandle<Vec<u8>>,
    /// What it has written on stderr so far.
    err_so_far: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

struct Finished {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn spawn(args: &[&str]) -> Running {
    spawn_env(args, &[])
}

/// [`spawn`] with environment variables set.
fn spawn_env(args: &[&str], env: &[(&str, &str)]) -> Running {
    // In a process group of its own, as a shell starts a job: a signal to the group
    // reaches it and its adapters (as Ctrl-C at a terminal does), never this test.
    let mut child = Command::new(env!("CARGO_BIN_EXE_reconcile-sim"))
        .env(INVOKED_AS.0, INVOKED_AS.1)
        .process_group(0)
        .envs(env.iter().copied())
        .args(args)
        .current_dir(repo())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    let drain = |mut r: Box<dyn Read + Send>, so_far: std::sync::Arc<std::sync::Mutex<Vec<u8>>>| {
        std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = r.read(&mut chunk) {
                so_far.lock().unwrap().extend_from_slice(&chunk[..n]);
            }
            let all = so_far.lock().unwrap().clone();
            all
        })
    };
    let err_so_far = std::sync::Arc::default();
    let out = drain(
        Box::new(child.stdout.take().unwrap()),
        std::sync::Arc::default(),
    );
    let err = drain(
        Box::new(child.stderr.take().unwrap()),
        std::sync::Arc::clone(&err_so_far),
    );
    Running {
        child,
        out,
        err,
        err_so_far,
    }
}

impl Running {
    fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Wait until stderr holds `text`.
    fn wait_for_stderr(&self, text: &str) {
        let start = Instant::now();
        while !String::from_utf8_lossy(&self.err_so_far.lock().unwrap()).contains(text) {
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "stderr never said {text:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Send `signal` to the process alone.
    fn signal(&self, signal: rustix::process::Signal) {
        let pid = rustix::process::Pid::from_raw(self.pid()).unwrap();
        rustix::process::kill_process(pid, signal).unwrap();
    }

    /// Send `signal` as `to` says: to the process alone, or to its process group (it
    /// and its adapters, as a terminal's Ctrl-C or `kill -TERM -PGID` do).
    fn stop(&self, (signal, to): (rustix::process::Signal, To)) {
        match to {
            To::Process => self.signal(signal),
            To::Group => {
                let pid = rustix::process::Pid::from_raw(self.pid()).unwrap();
                rustix::process::kill_process_group(pid, signal).unwrap();
            }
        }
    }

    /// Wait for the exit, killing the process (and failing) past `within`.
    fn finish(mut self, within: Duration) -> Finished {
        let start = Instant::now();
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            if start.elapsed() > within {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "still running after {within:?}; stderr: {}",
                    String::from_utf8_lossy(&self.err.join().unwrap())
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Finished {
            code: status.code(),
            stdout: String::from_utf8(self.out.join().unwrap()).unwrap(),
            stderr: String::from_utf8(self.err.join().unwrap()).unwrap(),
        }
    }
}

/// The direct children of `pid` (Linux: /proc/PID/task/*/children).
/// Where a test sends its signal.
#[derive(Clone, Copy, Debug)]
enum To {
    /// The reconcile-sim process alone (as a scheduler or `kill PID` does).
    Process,
    /// Its process group: it and its children.
    Group,
}

/// The exit code a run stopped by `signal` ends with: 128 + its number.
fn code_of(signal: rustix::process::Signal) -> Option<i32> {
    Some(128 + signal.as_raw())
}

/// Every signal that stops a run as Ctrl-C does, each sent one way: what each stop test
/// runs through.
const STOPS: [(rustix::process::Signal, To); 3] = [
    (rustix::process::Signal::INT, To::Process),
    (rustix::process::Signal::TERM, To::Group),
    (rustix::process::Signal::HUP, To::Process),
];

fn children(pid: i32) -> Vec<i32> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return out;
    };
    for t in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(t.path().join("children")) {
            out.extend(
                text.split_whitespace()
                    .filter_map(|p| p.parse::<i32>().ok()),
            );
        }
    }
    out
}

/// Whether process `pid` still runs (a zombie waiting to be reaped does not).
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => {
            // "pid (comm) S …": the state follows the last ')'.
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
    }
}

/// Wait until `running` has started `n` adapter processes (the first is the probe that
/// checks the adapter before anything runs; with two workers, a second means a worker is
/// in a run); all those seen.
fn adapters_started(running: &Running, n: usize) -> Vec<i32> {
    let start = Instant::now();
    let mut seen: Vec<i32> = Vec::new();
    loop {
        for kid in children(running.pid()) {
            if !seen.contains(&kid) {
                seen.push(kid);
            }
        }
        if seen.len() >= n {
            return seen;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no adapter process started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The binary on a slow adapter ([`slow`]), told where its adapters say they are ready.
fn spawn_slow(args: &[&str], ready: &Path) -> Running {
    std::fs::create_dir_all(ready).unwrap();
    spawn_env(
        args,
        &[("RECONCILE_SIM_SLOW_READY", ready.to_str().unwrap())],
    )
}

/// Wait until `n` slow adapters have handled an input (each writes a file into `ready`),
/// so a signal finds runs under way rather than an adapter still starting; the adapter
/// processes seen by then.
fn adapters_working(running: &Running, n: usize, ready: &Path) -> Vec<i32> {
    let start = Instant::now();
    while std::fs::read_dir(ready).map_or(0, |d| d.count()) < n {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "fewer than {n} adapters handled an input"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    adapters_started(running, n)
}

/// `fuzz --time 10m --jobs 2 --verbose --out OUT` on a slow adapter, once both its
/// adapters have handled an input: the run, its adapters, and their ready folder (kept
/// while the test runs).
fn slow_fuzz_under_way(out: &Path) -> (Running, Vec<i32>, Scratch) {
    let store = slow(2);
    let ready = tmp("slow-ready");
    let running = spawn_slow(
        &[
            "fuzz",
            "--store",
            &store,
            "--time",
            "10m",
            "--jobs",
            "2",
            "--verbose",
            "--out",
            out.to_str().unwrap(),
        ],
        &ready,
    );
    let adapters = adapters_working(&running, 2, &ready);
    (running, adapters, ready)
}

/// Adapters end with the run (within a generous moment for the kernel to reap them).
fn assert_ended(pids: &[i32]) {
    let start = Instant::now();
    while pids.iter().any(|&p| alive(p)) && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<i32> = pids.iter().copied().filter(|&p| alive(p)).collect();
    assert!(left.is_empty(), "adapter processes left running: {left:?}");
}

fn scenario_files(dir: &Path) -> Vec<PathBuf> {
    reconcile_sim::campaign::check::scenario_files(dir).unwrap_or_default()
}

/// A replay on the in-process `current` (the slow adapter is `current`): the class the
/// file records shows, under its mask. (`--store` on the command line: no exec consent
/// needed.)
fn assert_replays_on_current(file: &Path) {
    let o = sim(&[
        "replay",
        file.to_str().unwrap(),
        "--store",
        "current",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let sc = load(file).unwrap();
    assert_eq!(
        v["class"],
        serde_json::to_value(&sc.class).unwrap(),
        "{}: {}",
        file.display(),
        stdout(&o)
    );
    assert!(sc.class.is_some());
}

// ---------------------------------------------------------------------------------------
// 1. Ctrl-C

/// Ctrl-C during `fuzz --time` stops between seeds: the table covers what ran, every
/// class found is saved (unshrunk) and replays, the adapters end, exit 130. Without the
/// handler the process died silently with nothing saved and adapters left running.
#[test]
fn ctrl_c_during_fuzz_keeps_prints_and_saves_what_was_found() {
    stopped_fuzz_keeps_prints_and_saves_what_was_found(
        "ctrlc-fuzz",
        (rustix::process::Signal::INT, To::Process),
    );
}

/// SIGTERM (what `timeout`, CI runners, systemd and container runtimes send) and SIGHUP
/// (a closed terminal) stop a campaign the way Ctrl-C does: nothing found is lost.
#[test]
fn sigterm_and_sighup_during_fuzz_keep_print_and_save_what_was_found() {
    use rustix::process::Signal;
    stopped_fuzz_keeps_prints_and_saves_what_was_found("term-fuzz", (Signal::TERM, To::Process));
    stopped_fuzz_keeps_prints_and_saves_what_was_found("hup-fuzz", (Signal::HUP, To::Process));
    stopped_fuzz_keeps_prints_and_saves_what_was_found(
        "term-group-fuzz",
        (Signal::TERM, To::Group),
    );
}

fn stopped_fuzz_keeps_prints_and_saves_what_was_found(
    name: &str,
    stop: (rustix::process::Signal, To),
) {
    require_node();
    let out = tmp(name);
    let (running, adapters, _ready) = slow_fuzz_under_way(&out);
    let signalled = Instant::now();
    running.stop(stop);
    let done = running.finish(Duration::from_secs(120));
    let stopped_in = signalled.elapsed();
    assert_eq!(done.code, code_of(stop.0), "{stop:?}: {}", done.stderr);
    assert!(
        stopped_in < Duration::from_secs(60),
        "a 10-minute budget stopped {stopped_in:?} after Ctrl-C"
    );
    // The table, covering at least the first seed (a started chunk always finishes it).
    let seeds: u64 = done
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("fuzz · strategy random · seeds 0.."))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no table: {}", done.stdout));
    assert!(seeds >= 1, "{}", done.stdout);
    assert!(done.stdout.contains("inv2-no-duplicate"), "{}", done.stdout);
    assert!(done.stderr.contains("interrupted"), "{}", done.stderr);
    // Seed 0 fails on current: its class is saved, and replays.
    let files = scenario_files(&out);
    assert!(!files.is_empty(), "nothing saved: {}", done.stdout);
    for f in &files {
        assert!(
            done.stdout
                .contains(&f.file_name().unwrap().to_string_lossy().to_string()),
            "{} saved but not reported: {}",
            f.display(),
            done.stdout
        );
        assert_replays_on_current(f);
    }
    assert_ended(&adapters);
}

/// Ctrl-C, SIGTERM (to the group) and SIGHUP during `check`: the report so far,
/// `check: INTERRUPTED`, exit 128 + the signal, adapters ended.
#[test]
fn a_signal_during_check_reports_what_ran_and_exits_128_plus_it() {
    for stop in STOPS {
        signal_during_check(stop);
    }
}

fn signal_during_check(stop: (rustix::process::Signal, To)) {
    require_node();
    let out = tmp("ctrlc-check");
    let store = slow(2);
    let ready = tmp("slow-ready");
    let running = spawn_slow(
        &[
            "check",
            "--store",
            &store,
            "--scenarios",
            "scenarios/known",
            "--allow-empty",
            "--seeds",
            "1000000",
            "--jobs",
            "2",
            "--out",
            out.to_str().unwrap(),
        ],
        &ready,
    );
    let adapters = adapters_working(&running, 1, &ready);
    running.stop(stop);
    let done = running.finish(Duration::from_secs(120));
    assert_eq!(
        done.code,
        code_of(stop.0),
        "{stop:?}: {}\n{}",
        done.stdout,
        done.stderr
    );
    let said = format!(
        "{stop:?}\nstdout:\n{}\nstderr:\n{}",
        done.stdout, done.stderr
    );
    assert!(done.stdout.contains("check: INTERRUPTED"), "{said}");
    assert!(!done.stdout.contains("check: PASS"), "{said}");
    assert_ended(&adapters);
}

/// Ctrl-C, SIGTERM (to the group) and SIGHUP during `run` on a slow adapter: the run in
/// progress ends, its trace and verdict are printed, the failure is saved (shrinking stops
/// at once) and replays; exit 128 + the signal.
#[test]
fn a_signal_during_run_prints_the_trace_and_saves_the_failure() {
    for stop in STOPS {
        signal_during_run(stop);
    }
}

fn signal_during_run(stop: (rustix::process::Signal, To)) {
    require_node();
    let out = tmp("ctrlc-run");
    let store = slow(10);
    let ready = tmp("slow-ready");
    let running = spawn_slow(
        &[
            "run",
            "--store",
            &store,
            "--seed",
            "0",
            "--out",
            out.to_str().unwrap(),
        ],
        &ready,
    );
    let adapters = adapters_working(&running, 1, &ready);
    running.stop(stop);
    let done = running.finish(Duration::from_secs(120));
    assert_eq!(
        done.code,
        code_of(stop.0),
        "{stop:?}: {}\n{}",
        done.stdout,
        done.stderr
    );
    let said = format!(
        "{stop:?}\nstdout:\n{}\nstderr:\n{}",
        done.stdout, done.stderr
    );
    assert!(done.stdout.contains("verdict: FAIL"), "{said}");
    assert!(done.stdout.contains("reproduce: "), "{said}");
    let files = scenario_files(&out);
    assert_eq!(files.len(), 1, "{said}");
    assert_replays_on_current(&files[0]);
    assert_ended(&adapters);
}

/// A signal during `nightly`'s cargo-fuzz phase: the night's summary is printed, it exits
/// with 128 plus the signal, and no cargo process is left (cargo runs in a process group of its own,
/// which a signal to reconcile-sim's group does not reach: the night must end it). A
/// stand-in `cargo` on `PATH` (a shell script that starts a long `sleep`) plays cargo-fuzz.
#[test]
fn a_signal_during_nightly_prints_its_summary_and_ends_cargo() {
    use rustix::process::Signal;
    let bin = tmp("fake-cargo");
    let cargo = bin.join("cargo");
    std::fs::write(&cargo, "#!/bin/sh\nsleep 600 &\nwait\n").unwrap();
    std::fs::set_permissions(&cargo, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for stop in [
        (Signal::INT, To::Process),
        (Signal::TERM, To::Group),
        (Signal::HUP, To::Process),
    ] {
        let out = tmp("signal-nightly");
        let running = spawn_env(
            &[
                "nightly",
                "--time",
                "30s",
                "--stores",
                "naive",
                "--jobs",
                "1",
                "--out",
                out.to_str().unwrap(),
            ],
            &[("PATH", &path)],
        );
        // The stand-in cargo and its sleep, once the night has started them.
        let start = Instant::now();
        let cargo_group = loop {
            let kids = children(running.pid());
            if let Some(&kid) = kids.first() {
                if !children(kid).is_empty() {
                    break [vec![kid], children(kid)].concat();
                }
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "cargo never started"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        running.stop(stop);
        let done = running.finish(Duration::from_secs(60));
        assert_eq!(
            done.code,
            code_of(stop.0),
            "{stop:?}: {}\n{}",
            done.stdout,
            done.stderr
        );
        assert!(
            done.stdout.contains("## New classes"),
            "{stop:?}: {}",
            done.stdout
        );
        assert_ended(&cargo_group);
    }
}

/// A second signal still lets the run print what it found, and it quits within the grace
/// period: here the first stop is slow (a slow adapter's runs in progress), the second
/// comes at once.
#[test]
fn a_second_signal_still_prints_the_table_and_quits_soon() {
    use rustix::process::Signal;
    require_node();
    let out = tmp("second-signal");
    let (running, adapters, _ready) = slow_fuzz_under_way(&out);
    running.stop((Signal::TERM, To::Process));
    // Two signals sent at once may reach it as one: the second goes once the first is seen.
    running.wait_for_stderr("SIGTERM: finishing");
    running.stop((Signal::TERM, To::Process));
    let done = running.finish(Duration::from_secs(60));
    assert_eq!(done.code, code_of(Signal::TERM), "{}", done.stderr);
    assert!(done.stderr.contains("SIGTERM again"), "{}", done.stderr);
    assert!(
        done.stdout.contains("fuzz · strategy random · seeds 0.."),
        "{}",
        done.stdout
    );
    assert_ended(&adapters);
}

// ---------------------------------------------------------------------------------------
// 2. Unwritable, full, or a file

/// CPU time `pid` has used, in clock ticks (utime + stime of /proc/PID/stat).
fn cpu_ticks(pid: i32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    // After "pid (comm)": state is field 0, utime 11, stime 12.
    let get = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    get(11) + get(12)
}

/// Ctrl-C stops a search that would run for many minutes (`--sends 2` with both tabs
/// sending): it ends with exit 130, prints what it covered as inconclusive and says it was
/// interrupted. The signal is sent once the process has used half a second of CPU, so it
/// is searching (the handler is installed first thing), however slowly the machine starts
/// it.
#[test]
fn a_signal_during_explore_stops_the_search_and_prints_what_it_covered() {
    for stop in STOPS {
        signal_during_explore(stop);
    }
}

fn signal_during_explore(stop: (rustix::process::Signal, To)) {
    let running = spawn(&["explore", "--store", "durable", "--sends", "2"]);
    let start = Instant::now();
    while cpu_ticks(running.pid()) < 50 {
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "explore used no CPU"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    running.stop(stop);
    let done = running.finish(Duration::from_secs(120));
    assert_eq!(done.code, code_of(stop.0), "{stop:?}: {}", done.stderr);
    assert!(
        done.stdout.contains("not a verification"),
        "{}",
        done.stdout
    );
    assert!(
        done.stderr.contains("interrupted (by a signal) at"),
        "{}",
        done.stderr
    );
}

/// A directory nobody may write into: a read-only one, or for root (whom permissions do
/// not stop) a path under /sys, which refuses everyone. With the scratch directory that
/// holds it, if any, to keep while the path is used.
fn unwritable_dir(name: &str) -> (Option<Scratch>, PathBuf) {
    if rustix::process::geteuid().is_root() {
        return (
            None,
            PathBuf::from("/sys/reconcile-sim-unwritable").join(name),
        );
    }
    let d = tmp(name);
    let mut perms = std::fs::metadata(&d).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o555);
    std::fs::set_permissions(&d, perms).unwrap();
    let out = d.join("out");
    (Some(d), out)
}

/// `--out` that is a file: the table and every class are printed, each marked NOT SAVED,
/// the error names the problem, exit 2 (not 1: the findings were not kept).
#[test]
fn fuzz_with_out_a_file_prints_the_table_and_fails_clearly() {
    let dir = tmp("out-a-file");
    let file = dir.join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let o = sim(&[
        "fuzz",
        "--store",
        "current",
        "--seeds",
        "200",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("store ") && text.contains("current "),
        "{text}"
    );
    assert!(text.contains("classes of current"), "{text}");
    assert!(text.contains("NOT SAVED"), "{text}");
    assert!(!text.contains("replay: reconcile-sim replay"), "{text}");
    let err = stderr(&o);
    assert!(err.contains("is not a directory"), "{err}");
    assert!(err.contains("could not be saved"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), b"x", "the file is untouched");
}

/// `run` into a directory it cannot write: the trace, verdict and reproduce command are
/// printed, then the error, exit 2.
#[test]
fn run_into_an_unwritable_directory_prints_the_trace_then_fails() {
    let (_scratch, out) = unwritable_dir("run-ro");
    let o = sim(&[
        "run",
        "--store",
        "current",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("trace ("), "{text}");
    assert!(text.contains("verdict: FAIL"), "{text}");
    assert!(text.contains("scenario: NOT SAVED"), "{text}");
    assert!(
        text.contains("reproduce: reconcile-sim run --store current --seed 1"),
        "{text}"
    );
    assert!(stderr(&o).contains("cannot write"), "{}", stderr(&o));
}

/// `shrink -o /dev/full` (a full device): the summary, then the shrunk scenario itself on
/// stdout (it loads), then "No space left on device", exit 2.
#[test]
fn shrink_to_a_full_device_prints_the_scenario_instead() {
    let o = sim(&["shrink", "scenarios/bug-a.json", "-o", "/dev/full"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("scenario: NOT SAVED"), "{text}");
    let json = text
        .split_once("the shrunk scenario, which could not be written:\n")
        .expect("the scenario is printed")
        .1;
    let dir = tmp("shrink-full");
    std::fs::write(dir.join("s.json"), json).unwrap();
    let sc = load(&dir.join("s.json")).unwrap();
    assert_eq!(sc.store, "naive");
    assert!(
        stderr(&o).contains("No space left on device"),
        "{}",
        stderr(&o)
    );
    let full = std::fs::metadata("/dev/full").unwrap().file_type();
    assert!(
        std::os::unix::fs::FileTypeExt::is_char_device(&full),
        "/dev/full is still the device, not a file renamed over it"
    );
}

/// `check --junit /dev/full`: the report and its verdict are printed, then the error.
#[test]
fn check_with_a_full_junit_file_prints_the_report_then_fails() {
    let o = sim(&["check", "--junit", "/dev/full"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stdout(&o).contains("check: PASS"), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("No space left on device"),
        "{}",
        stderr(&o)
    );
}

/// `explore --out` under a file: the counterexample is printed, then the error, exit 2.
#[test]
fn explore_with_an_unwritable_out_prints_the_counterexample() {
    let dir = tmp("explore-out");
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let target = file.join("found.json");
    let o = sim(&[
        "explore",
        "--store",
        "naive",
        "--first",
        "--out",
        target.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stdout(&o).contains("counterexample ("), "{}", stdout(&o));
    assert!(stdout(&o).contains("steps (JSON): "), "{}", stdout(&o));
    assert!(stderr(&o).contains("is not a directory"), "{}", stderr(&o));
}

/// A disk that fills (every file write fails: RLIMIT_FSIZE 0, SIGXFSZ ignored, as `ulimit
/// -f 0` does): the nightly still prints its whole summary, lists what it could not write,
/// and exits 2; before, it aborted at the first file without a summary.
#[test]
fn a_nightly_on_a_full_disk_prints_its_summary_and_lists_the_lost_files() {
    let out = tmp("nightly-full");
    let o = Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 0; trap '' XFSZ; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_reconcile-sim"))
        .args([
            "nightly",
            "--time",
            "2s",
            "--no-cargo-fuzz",
            "--stores",
            "naive",
            "--scenarios",
            tmp("nightly-full-none").to_str().unwrap(),
            "--seed-start",
            "0",
            "--jobs",
            "2",
            "--out",
            out.to_str().unwrap(),
        ])
        .current_dir(repo())
        .output()
        .unwrap();
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("# Nightly run"), "{text}");
    assert!(text.contains("## New classes: "), "{text}");
    assert!(text.contains("## Files not written"), "{text}");
    assert!(text.contains("summary.json"), "{text}");
    assert!(stderr(&o).contains("could not write"), "{}", stderr(&o));
    // Nothing half-written was left behind.
    let written = scenario_files(&out);
    assert!(written.is_empty(), "written on a full disk: {written:?}");
}

/// Files are created as `create` would (0666 less the umask), both ways.
#[test]
fn saved_files_honour_the_umask() {
    for (umask, mode) in [("022", 0o644), ("077", 0o600)] {
        let out = tmp(&format!("umask-{umask}"));
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!("umask {umask}; exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_reconcile-sim"))
            .args(["run", "--store", "current", "--seed", "1", "--out"])
            .arg(&out)
            .current_dir(repo())
            .output()
            .unwrap();
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        let files = scenario_files(&out);
        assert_eq!(files.len(), 1);
        let got = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&files[0]).unwrap().permissions(),
        ) & 0o777;
        assert_eq!(got, mode, "umask {umask}");
    }
}

// ---------------------------------------------------------------------------------------
// 3. --time bounds the whole run

/// With an adapter slow enough that shrinking one failure takes minutes, `fuzz --time 8s`
/// ends within the budget plus 10 % plus one shrink limit (here 20 s), shrinking
/// included; it used to spend 194 s on a 10 s budget. Every class found is still saved,
/// and replays.
#[test]
fn fuzz_time_bounds_the_whole_run_with_a_slow_adapter() {
    require_node();
    let out = tmp("time-bound");
    let store = slow(5);
    let started = Instant::now();
    let running = spawn(&[
        "fuzz",
        "--store",
        &store,
        "--time",
        "8s",
        "--max-shrink-time",
        "20s",
        "--jobs",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    let done = running.finish(Duration::from_secs(300));
    let took = started.elapsed();
    assert_eq!(done.code, Some(1), "{}", done.stderr);
    let bound = Duration::from_secs(8).mul_f64(1.1) + Duration::from_secs(20);
    assert!(took <= bound, "took {took:?}, bound {bound:?}");
    let files = scenario_files(&out);
    assert!(!files.is_empty(), "{}", done.stdout);
    for f in &files {
        assert_replays_on_current(f);
    }
}

// ---------------------------------------------------------------------------------------
// 6. The nightly judges the shipped stores against their baselines

/// On a fresh checkout (the committed scenarios, the default stores `durable` and
/// `current`), a night finds only known classes and exits 0; the same night with one of
/// the note's buggy stores named finds classes nobody recorded and exits 1 (so the
/// verdict can fail).
#[test]
fn a_nightly_on_a_fresh_checkout_exits_0_and_a_buggy_store_makes_it_1() {
    let night = |extra: &[&str]| {
        let out = tmp(&format!("nightly-fresh-{}", extra.len()));
        let mut args = vec![
            "nightly",
            "--time",
            "2s",
            "--no-cargo-fuzz",
            "--seed-start",
            "0",
            "--jobs",
            "2",
            "--out",
        ];
        let out_s = out.to_str().unwrap().to_string();
        args.push(&out_s);
        args.extend_from_slice(extra);
        let o = sim(&args);
        (o, out)
    };
    let (o, _) = night(&[]);
    assert_eq!(code(&o), 0, "{}\n{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("## New classes: 0"), "{text}");
    assert!(
        text.contains("- current: "),
        "current's known classes show: {text}"
    );
    let (o, _) = night(&["--stores", "durable,current,fix-abc"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stdout(&o).contains("| fix-abc |"), "{}", stdout(&o));
}

/// Two nights sharing one `--out` at the same time get a folder each, each with its whole
/// summary (the folder is claimed by creating it).
#[test]
fn two_nights_sharing_out_get_a_folder_each() {
    let out = tmp("nightly-two");
    let args = |o: &Path| {
        vec![
            "nightly".to_string(),
            "--time".into(),
            "1s".into(),
            "--no-cargo-fuzz".into(),
            "--stores".into(),
            "durable".into(),
            "--seed-start".into(),
            "0".into(),
            "--jobs".into(),
            "1".into(),
            "--out".into(),
            o.to_str().unwrap().into(),
        ]
    };
    let a = args(&out);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let first = spawn(&a);
    let second = spawn(&a);
    for done in [
        first.finish(Duration::from_secs(120)),
        second.finish(Duration::from_secs(120)),
    ] {
        assert_eq!(done.code, Some(0), "{}", done.stderr);
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    assert_eq!(dirs.len(), 2, "{dirs:?}");
    for d in &dirs {
        let s: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.join("summary.json")).unwrap()).unwrap();
        assert_eq!(s["night_dir"], d.display().to_string());
    }
}

// ---------------------------------------------------------------------------------------
// 8. check on an empty folder

#[test]
fn check_on_an_empty_folder_fails_unless_allowed() {
    let empty = tmp("check-empty");
    let o = sim(&["check", "--scenarios", empty.to_str().unwrap()]);
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert!(stderr(&o).contains("no scenario files"), "{}", stderr(&o));
    assert!(stderr(&o).contains("--allow-empty"), "{}", stderr(&o));
    assert!(!stdout(&o).contains("PASS"), "{}", stdout(&o));
    let o = sim(&[
        "check",
        "--scenarios",
        empty.to_str().unwrap(),
        "--allow-empty",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("scenarios: 0 replayed"),
        "{}",
        stdout(&o)
    );
}

/// A reader that goes away (`reconcile-sim stores --json | head`) ends the process quietly,
/// exit 141 as SIGPIPE would, never with a panic message: here stdout's reader is closed
/// before the binary writes anything, so every write meets a broken pipe.
#[test]
fn a_closed_stdout_ends_the_process_quietly() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = Command::new(env!("CARGO_BIN_EXE_reconcile-sim"))
        .args(["stores", "--json"])
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(code(&o), 141, "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
}

/// Zero work fails: `fuzz --seeds 0` and `check --store S --seeds 0` (a gate whose fuzzing
/// a mistyped CI variable turned off) exit 2 naming `--allow-empty`, which accepts them.
#[test]
fn zero_seeds_fail_unless_allowed() {
    for args in [
        &["fuzz", "--store", "current", "--seeds", "0"][..],
        &["fuzz", "--store", "current", "--time", "0s"],
        &["check", "--store", "current", "--seeds", "0"],
    ] {
        let o = sim(args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stdout(&o));
        assert!(
            stderr(&o).contains("--allow-empty"),
            "{args:?}: {}",
            stderr(&o)
        );
        assert!(!stdout(&o).contains("PASS"), "{}", stdout(&o));
    }
    let o = sim(&[
        "check",
        "--store",
        "durable",
        "--seeds",
        "0",
        "--allow-empty",
    ]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    assert!(
        stdout(&o).contains("fuzz: skipped (--seeds 0)"),
        "{}",
        stdout(&o)
    );
}

// ---------------------------------------------------------------------------------------
// 9. README: the cargo-fuzz commands work on a fresh clone

/// Every directory a README `cargo fuzz run` command passes exists in a fresh clone:
/// committed (tracked by git), or made by an earlier `mkdir -p` in the same block.
/// (`fuzz/corpus/` is git-ignored scratch: a fresh clone lacks it.)
#[test]
fn the_readme_cargo_fuzz_commands_name_only_directories_a_fresh_clone_has() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let tracked = Command::new("git")
        .args(["ls-files", "corpus", "fuzz"])
        .current_dir(repo())
        .output()
        .unwrap();
    let tracked = String::from_utf8(tracked.stdout).unwrap();
    let mut checked = 0;
    for block in readme.split("```sh").skip(1) {
        let block = block.split("```").next().unwrap();
        let mut made: Vec<String> = Vec::new();
        for line in block.lines() {
            let command = line.split(" #").next().unwrap();
            if !command.contains("cargo fuzz run") && !command.trim_start().starts_with("mkdir") {
                continue;
            }
            let words = shell_words::split(command).unwrap();
            if words.first().map(String::as_str) == Some("mkdir") {
                made.extend(
                    words
                        .iter()
                        .skip(1)
                        .filter(|w| !w.starts_with('-'))
                        .cloned(),
                );
            }
            let Some(run) = words.iter().position(|w| w == "run") else {
                continue;
            };
            if !words.windows(2).any(|w| w == ["cargo", "fuzz"]) {
                continue;
            }
            let target = words[run + 1..]
                .iter()
                .find(|w| !w.starts_with('-') && *w != "none")
                .unwrap();
            for dir in words.iter().skip_while(|w| *w != target).skip(1) {
                if dir.starts_with('-') {
                    break;
                }
                let committed = tracked.lines().any(|f| f.starts_with(&format!("{dir}/")));
                assert!(
                    committed || made.contains(dir),
                    "README: `{line}` passes {dir}, which a fresh clone does not have (mkdir -p it first)"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 4, "only {checked} corpus directories checked");
}

// ---------------------------------------------------------------------------------------
// Limits and small defects

/// A scenario of `n` steps, all on one line (the case that was quadratic).
fn one_line_scenario(n: usize) -> String {
    let base = load(&repo().join("scenarios/bug-a.json")).unwrap();
    let config = serde_json::to_string(&base.config).unwrap();
    let mut text = format!(r#"{{"version":1,"store":"current","config":{config},"steps":["#);
    for i in 0..n {
        if i > 0 {
            text.push(',');
        }
        text.push_str(r#"{"kind":"send","client":0}"#);
    }
    text.push_str("]}");
    text
}

/// Loading is linear: 100 000 steps on one line load well inside a generous bound (the
/// quadratic loader took 3.3 s for 16 000, so about 2 minutes for these).
#[test]
fn a_long_scenario_on_one_line_loads_in_linear_time() {
    let dir = tmp("long-scenario");
    let path = dir.join("long.json");
    std::fs::write(&path, one_line_scenario(100_000)).unwrap();
    let started = Instant::now();
    let sc = load(&path).unwrap();
    assert_eq!(sc.steps.len(), 100_000);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

/// More steps than the documented limit, or a file past the size limit: a clear error
/// naming the file and the limit, exit 2.
#[test]
fn oversized_scenarios_are_refused_naming_the_file_and_the_limit() {
    let dir = tmp("oversized");
    let many = dir.join("many.json");
    std::fs::write(&many, one_line_scenario(scenario::STEPS_MAX + 1)).unwrap();
    let o = sim(&["replay", many.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(err.contains("many.json"), "{err}");
    assert!(
        err.contains(&format!("at most {}", scenario::STEPS_MAX)),
        "{err}"
    );
    let big = dir.join("big.json");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(scenario::FILE_BYTES_MAX + 1).unwrap();
    let o = sim(&["replay", big.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(err.contains("big.json"), "{err}");
    assert!(err.contains("at most 33554432 bytes"), "{err}");
}

/// Flags out of range: a clear error and exit 2, never an allocation, a panic or a wrap.
#[test]
fn numeric_flags_out_of_range_are_clear_errors() {
    let max = u64::MAX.to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "fuzz",
                "--store",
                "current",
                "--seeds",
                "10",
                "--strategy",
                "pct",
                "--depth",
                "4294967295",
            ],
            "--depth 4294967295 is too deep",
        ),
        (
            vec![
                "fuzz",
                "--store",
                "current",
                "--seeds",
                "10",
                "--jobs",
                "100000000",
            ],
            "--jobs 100000000 is too many",
        ),
        (
            vec![
                "fuzz",
                "--store",
                "current",
                "--seeds",
                "10",
                "--seed-start",
                &max,
            ],
            "go past the largest seed",
        ),
        (
            vec!["check", "--seed", &max, "--seeds", "10"],
            "go past the largest seed",
        ),
        (
            vec!["fuzz", "--store", "current", "--time", "1000000y"],
            "is too long",
        ),
        (
            vec!["explore", "--store", "naive", "--clients", "200"],
            "--clients 200 is too many",
        ),
    ];
    for (args, message) in cases {
        let o = sim(&args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
    // In range still runs: the largest start with the seeds that fit.
    let start = (u64::MAX - 3).to_string();
    let o = sim(&[
        "fuzz",
        "--store",
        "durable",
        "--seeds",
        "3",
        "--seed-start",
        &start,
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

/// `check`'s replay commands paste into a shell: a path with a space comes out quoted,
/// and splitting the printed command gives back the file.
#[test]
fn check_prints_replay_commands_a_shell_can_run() {
    let scratch = tmp("quoted");
    let dir = scratch.join("with space");
    std::fs::create_dir_all(&dir).unwrap();
    // bug-a breaks inv3 on naive; a copy that expects a pass fails its check.
    let mut sc = load(&repo().join("scenarios/bug-a.json")).unwrap();
    sc.expect = None;
    sc.save(&dir.join("it's.json")).unwrap();
    let o = sim(&["check", "--scenarios", dir.to_str().unwrap()]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let line = stdout(&o)
        .lines()
        .find_map(|l| l.trim().strip_prefix("replay: ").map(str::to_string))
        .unwrap_or_else(|| panic!("{}", stdout(&o)));
    let words = shell_words::split(&line).unwrap();
    assert_eq!(words[..2], ["reconcile-sim", "replay"]);
    assert_eq!(PathBuf::from(&words[2]), dir.join("it's.json"), "{line}");
}

/// Printed commands run when pasted: started by a path (as scripts and CI start it), the
/// binary names itself by its absolute path, so the printed replay command runs from any
/// directory; the tests elsewhere pin the name with `RECONCILE_SIM_INVOKED_AS`, which a
/// wrapper (an npm script) sets to how its users start it.
#[test]
fn printed_commands_name_the_binary_as_it_was_started() {
    let out = tmp("pasted");
    let bin = env!("CARGO_BIN_EXE_reconcile-sim");
    let o = Command::new(bin)
        .env_remove(INVOKED_AS.0)
        .env_remove("CARGO")
        .current_dir(repo())
        .args(["run", "--store", "naive", "--seed", "1", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let text = stdout(&o);
    let replay = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("replay: "))
        .unwrap_or_else(|| panic!("no replay line:\n{text}"));
    let words = shell_words::split(replay).unwrap();
    assert_eq!(
        PathBuf::from(&words[0]),
        std::fs::canonicalize(bin).unwrap(),
        "{replay}"
    );
    // Pasted into a shell somewhere else, it runs and reproduces the failure.
    let pasted = Command::new("sh")
        .arg("-c")
        .arg(replay)
        .current_dir(out.path())
        .env_remove(INVOKED_AS.0)
        .output()
        .unwrap();
    assert_eq!(code(&pasted), 1, "{}", stderr(&pasted));
    assert!(
        stdout(&pasted).contains("reproduced"),
        "{}",
        stdout(&pasted)
    );
    // With the override, the name is the override's.
    let o = Command::new(bin)
        .env(INVOKED_AS.0, "npx reconcile-sim")
        .current_dir(repo())
        .args(["run", "--store", "naive", "--seed", "1", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        stdout(&o).contains("replay: npx reconcile-sim replay "),
        "{}",
        stdout(&o)
    );
}

/// A description with terminal escape sequences reaches the terminal as escapes, not as
/// control bytes.
#[test]
fn control_characters_in_a_scenario_never_reach_the_terminal() {
    let dir = tmp("escapes");
    let path = dir.join("evil.json");
    let mut sc = load(&repo().join("scenarios/bug-a.json")).unwrap();
    sc.description = Some("harmless\u{1b}[2J\u{1b}]0;pwned\u{7} text\r\n".to_string());
    std::fs::write(&path, sc.to_json()).unwrap();
    let o = sim(&["replay", path.to_str().unwrap()]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("harmless\\u{1b}[2J"), "{text}");
    assert!(
        !o.stdout
            .iter()
            .any(|&b| b == 0x1b || b == 0x07 || b == b'\r'),
        "{text}"
    );
}

mod signal_pairs;
