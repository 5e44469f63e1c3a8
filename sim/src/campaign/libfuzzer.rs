//! cargo-fuzz from the library's side: running a target for a while (the nightly run's
//! coverage-guided phase) and turning the crash artifacts of `interleavings` back into
//! failures to shrink.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::campaign::findings::Failure;
use crate::campaign::fuzz_input::run_bytes_in;
use crate::run::worlds::Worlds;
use crate::run::Outcome;
use crate::store::StoreKind;

/// One cargo-fuzz target's results.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TargetSummary {
    /// The target.
    pub target: String,
    /// The store the target was fixed to, if any.
    pub store: Option<String>,
    /// Its time budget.
    pub seconds: u64,
    /// libFuzzer's own count, when it printed one.
    pub executions: Option<u64>,
    /// The crash files it wrote.
    pub artifacts: Vec<String>,
    /// Set when the target could not be run (build failed, cargo-fuzz missing…).
    pub error: Option<String>,
}

/// How a child process of the night ended.
enum Ended {
    /// It exited by itself (its log is complete).
    Exited,
    /// The night was cancelled (Ctrl-C, SIGTERM): it was stopped.
    Cancelled,
    /// It was still running at the deadline: it was stopped.
    Deadline,
}

/// Run `cmd` in a process group of its own, its output (stdout and stderr) going to
/// `log`, until it exits, `cancel` is set or `deadline` passes. Stopping sends SIGINT to
/// the whole group (libFuzzer then writes its final stats; cargo passes it on to rustc),
/// then SIGKILL to what is left after a grace period, so no cargo, rustc or fuzzer
/// process outlives the night. A signal sent to reconcile-sim alone, as a scheduler
/// sends it, therefore stops the child too.
fn supervise(
    cmd: &mut Command,
    log: &Path,
    deadline: Instant,
    cancel: &AtomicBool,
) -> std::io::Result<Ended> {
    use std::os::unix::process::CommandExt;
    let out = std::fs::File::create(log)?;
    let err = out.try_clone()?;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0)
        .spawn()?;
    let group = rustix::process::Pid::from_child(&child);
    let stop = |child: &mut std::process::Child| {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::INT);
        let grace = Instant::now() + Duration::from_secs(5);
        while Instant::now() < grace {
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // Whatever of the group is left (the fuzzer's forks, a rustc) goes now.
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        let _ = child.wait();
    };
    loop {
        if child.try_wait()?.is_some() {
            // The group may hold stragglers (fork mode's workers) after cargo exits.
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            return Ok(Ended::Exited);
        }
        if cancel.load(Ordering::Relaxed) {
            stop(&mut child);
            return Ok(Ended::Cancelled);
        }
        if Instant::now() >= deadline {
            stop(&mut child);
            return Ok(Ended::Deadline);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Build every cargo-fuzz target (`cargo fuzz build -s none`), by `deadline`: the build
/// is part of the night's budget, and a night whose budget ends during it says so
/// instead of running over. Its output goes to `<night>/cargo-fuzz-build.log`.
/// `Err` says why the targets are not ready to run.
pub fn build_targets(
    fuzz_dir: &Path,
    night_dir: &Path,
    deadline: Instant,
    cancel: &AtomicBool,
) -> Result<(), String> {
    let fuzz_dir = absolute(fuzz_dir);
    let log = night_dir.join("cargo-fuzz-build.log");
    let mut cmd = Command::new("cargo");
    cmd.current_dir(fuzz_dir.parent().unwrap_or(Path::new("/")))
        .args(["fuzz", "build", "-s", "none"]);
    match supervise(&mut cmd, &log, deadline, cancel) {
        Err(e) => Err(format!("cannot run cargo fuzz: {e}")),
        Ok(Ended::Cancelled) => Err("stopped while the targets were building".into()),
        Ok(Ended::Deadline) => Err(format!(
            "the budget ended while the targets were building (see {}); build them before the night: cargo fuzz build -s none (scripts/nightly.sh does)",
            log.display()
        )),
        Ok(Ended::Exited) => {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            if text.contains("no such command") {
                Err("cargo-fuzz is not installed: cargo install cargo-fuzz".into())
            } else if did_not_build(&text) {
                Err(format!("the targets did not build (see {})", log.display()))
            } else {
                Ok(())
            }
        }
    }
}

/// How long a target may run past its `-max_total_time` (libFuzzer's start and final
/// stats) before it is stopped.
const OVERRUN: Duration = Duration::from_secs(15);

/// Whether cargo's output `text` says the fuzz crate did not compile.
fn did_not_build(text: &str) -> bool {
    text.contains("error: could not compile") || text.contains("error[E")
}

/// The environment of a target's run: the store it is fixed to (or none), and the pins
/// and judged invariants of `worlds` (or none: nothing leaks in from reconcile-sim's own).
fn set_target_env(cmd: &mut Command, store: Option<StoreKind>, worlds: &Worlds) {
    match store {
        Some(k) => cmd.env("RECONCILE_SIM_STORE", k.name),
        None => cmd.env_remove("RECONCILE_SIM_STORE"),
    };
    for var in [
        crate::model::pins::WORLD_ENV,
        crate::run::worlds::INVARIANTS_ENV,
    ] {
        cmd.env_remove(var);
    }
    for (var, value) in worlds.env() {
        cmd.env(var, value);
    }
}

/// Run one cargo-fuzz target for `secs` seconds, the committed corpus as read-only seeds
/// and `fuzz/corpus/<target>` as the scratch corpus libFuzzer writes to; crashes go to
/// `<night>/artifacts/<target>/`, and fork mode keeps fuzzing past them. `worlds` reach
/// the target through its environment ([`Worlds::env`]). The target is stopped (with
/// every process it started) when `cancel` is set or a few seconds past its time, should
/// libFuzzer overrun it.
#[allow(clippy::too_many_arguments)]
pub fn run_target(
    fuzz_dir: &Path,
    corpus_dir: &Path,
    night_dir: &Path,
    target: &str,
    store: Option<StoreKind>,
    (secs, jobs): (u64, usize),
    worlds: &Worlds,
    cancel: &AtomicBool,
) -> TargetSummary {
    let mut t = TargetSummary {
        target: target.to_string(),
        store: store.map(|k| k.name.to_string()),
        seconds: secs,
        executions: None,
        artifacts: Vec::new(),
        error: None,
    };
    let fuzz_dir = absolute(fuzz_dir);
    let label = match store {
        Some(k) => format!("{target}-{}", k.name),
        None => target.to_string(),
    };
    let artifacts = night_dir.join("artifacts").join(&label);
    let scratch = fuzz_dir.join("corpus").join(target);
    for d in [&artifacts, &scratch] {
        if let Err(e) = std::fs::create_dir_all(d) {
            t.error = Some(format!("cannot create {}: {e}", d.display()));
            return t;
        }
    }
    let mut cmd = Command::new("cargo");
    set_target_env(&mut cmd, store, worlds);
    cmd.current_dir(fuzz_dir.parent().unwrap_or(Path::new("/")))
        .args(["fuzz", "run", "-s", "none", target])
        .arg(absolute(&scratch))
        .arg(absolute(&corpus_dir.join(target)))
        .arg("--")
        .arg(format!("-max_total_time={secs}"))
        .arg(format!(
            "-artifact_prefix={}/",
            absolute(&artifacts).display()
        ))
        .arg(format!("-fork={}", jobs.max(1)))
        .arg("-ignore_crashes=1")
        .arg("-print_final_stats=1");
    let log = night_dir.join(format!("cargo-fuzz-{label}.log"));
    // libFuzzer stops itself at -max_total_time; the margin covers its start and its
    // final stats, and a fuzzer that ignores its limit is stopped there.
    let deadline = Instant::now() + Duration::from_secs(secs) + OVERRUN;
    match supervise(&mut cmd, &log, deadline, cancel) {
        Err(e) => t.error = Some(format!("cannot run cargo fuzz: {e}")),
        Ok(ended) => {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            t.executions = executions_in(&text);
            if did_not_build(&text) {
                t.error = Some(format!("the target did not build (see {})", log.display()));
            } else if let Ended::Deadline = ended {
                t.error = Some(format!(
                    "still running {}s past its time: stopped (see {})",
                    OVERRUN.as_secs(),
                    log.display()
                ));
            }
        }
    }
    t.artifacts = crash_files(&artifacts);
    t
}

fn absolute(p: &Path) -> std::path::PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The number of executions libFuzzer reported in its output: its final stats, or the
/// largest `#N` of the status lines fork mode prints.
fn executions_in(log: &str) -> Option<u64> {
    log.lines()
        .filter_map(|l| l.strip_prefix("stat::number_of_executed_units:"))
        .chain(log.lines().filter_map(|l| {
            l.strip_prefix('#')
                .and_then(|r| r.split([':', ' ', '\t']).next())
        }))
        .filter_map(|n| n.trim().parse::<u64>().ok())
        .max()
}

/// The `crash-*` files in `dir`, sorted.
fn crash_files(dir: &Path) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("crash-"))
                })
                .map(|p| p.display().to_string())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// A libFuzzer artifact of `interleavings` (store chosen by its bytes unless `store` fixes
/// it) → the failure it shows, if it fails, with the store it ran on.
pub fn artifact_failure(
    bytes: &[u8],
    store: Option<StoreKind>,
    description: String,
    worlds: &Worlds,
) -> Option<(StoreKind, Failure)> {
    let run = run_bytes_in(bytes, store, worlds);
    let Outcome::Fail(v) = &run.report.outcome else {
        return None;
    };
    let class = crate::trace::class::classify(
        &run.store,
        run.report.config.clone(),
        &run.report.steps,
        &[],
    )
    .class;
    let failure = Failure {
        store: run.store.name.to_string(),
        invariant: v.invariant,
        seed: None,
        strategy: Some("libfuzzer".to_string()),
        description: Some(description),
        config: run.report.config,
        steps: run.report.steps,
        class,
        mask: Vec::new(),
        cause: v.cause.clone(),
        without: Vec::new(),
        pins: worlds.effective(),
    };
    Some((run.store, failure))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn executions_are_read_from_final_stats_or_status_lines() {
        assert_eq!(
            executions_in("#1024: cov: 3\n#2048\tpulse\nstat::number_of_executed_units: 5000\n"),
            Some(5000)
        );
        assert_eq!(executions_in("#17: cov\n#9 NEW\n"), Some(17));
        assert_eq!(executions_in("nothing here"), None);
    }

    /// Whether process `pid` still runs a minute on (a zombie does not run; a killed
    /// process takes a moment to be seen dead).
    fn alive(pid: i32) -> bool {
        let running = || {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                let state = stat.rsplit(')').next().unwrap_or("").trim_start();
                !state.starts_with('Z') && !state.starts_with('X')
            })
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while running() {
            if Instant::now() >= deadline {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    /// A shell that starts a grandchild (which, in the background of a non-interactive
    /// shell, ignores SIGINT, as a stubborn rustc or fuzzer fork might) and waits.
    fn family(dir: &Path) -> (Command, PathBuf) {
        let pid_file = dir.join("grandchild.pid");
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(format!(
            "sleep 600 & echo $! > {}; echo started; wait",
            pid_file.display()
        ));
        (cmd, pid_file)
    }

    fn grandchild(pid_file: &Path) -> i32 {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(pid) = std::fs::read_to_string(pid_file)
                .ok()
                .and_then(|t| t.trim().parse().ok())
            {
                return pid;
            }
            assert!(
                Instant::now() < deadline,
                "the shell never started its child"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Cancelling (Ctrl-C, SIGTERM) or reaching the deadline stops the child and every
    /// process of its group; an exit on its own leaves its whole output in the log.
    #[test]
    fn a_supervised_child_and_its_group_end_on_cancel_and_at_the_deadline() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        // Exits by itself.
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg("echo out; echo err >&2");
        let ended = supervise(
            &mut cmd,
            &log,
            Instant::now() + Duration::from_secs(600),
            &AtomicBool::new(false),
        );
        assert!(matches!(ended, Ok(Ended::Exited)));
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "out\nerr\n");
        // Cancelled from another thread once the grandchild runs.
        let cancel = AtomicBool::new(false);
        let (mut cmd, pid_file) = family(dir.path());
        let ended = std::thread::scope(|scope| {
            scope.spawn(|| {
                grandchild(&pid_file);
                cancel.store(true, Ordering::Relaxed);
            });
            supervise(
                &mut cmd,
                &log,
                Instant::now() + Duration::from_secs(600),
                &cancel,
            )
        });
        assert!(matches!(ended, Ok(Ended::Cancelled)));
        assert!(
            !alive(grandchild(&pid_file)),
            "the grandchild outlived a cancel"
        );
        // The deadline.
        std::fs::remove_file(&pid_file).unwrap();
        let (mut cmd, pid_file) = family(dir.path());
        let ended = supervise(
            &mut cmd,
            &log,
            Instant::now() + Duration::from_millis(300),
            &AtomicBool::new(false),
        );
        assert!(matches!(ended, Ok(Ended::Deadline)));
        assert!(
            !alive(grandchild(&pid_file)),
            "the grandchild outlived the deadline"
        );
    }
}
