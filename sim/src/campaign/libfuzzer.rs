//! cargo-fuzz from the library's side: running a target for a while (the nightly run's
//! coverage-guided phase) and turning the crash artifacts of `interleavings` back into
//! failures to shrink.

use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::campaign::findings::Failure;
use crate::campaign::fuzz_input::run_bytes_in;
use crate::run::worlds::Worlds;
use crate::run::Outcome;
use crate::store::StoreKind;
use crate::trace::scenario::write_atomically;

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

/// Run one cargo-fuzz target for `secs` seconds, the committed corpus as read-only seeds
/// and `fuzz/corpus/<target>` as the scratch corpus libFuzzer writes to; crashes go to
/// `<night>/artifacts/<target>/`, and fork mode keeps fuzzing past them. `worlds` reach
/// the target through its environment ([`Worlds::env`]).
pub fn run_target(
    fuzz_dir: &Path,
    corpus_dir: &Path,
    night_dir: &Path,
    target: &str,
    store: Option<StoreKind>,
    (secs, jobs): (u64, usize),
    worlds: &Worlds,
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
    match cmd.output() {
        Err(e) => t.error = Some(format!("cannot run cargo fuzz: {e}")),
        Ok(out) => {
            let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&out.stderr));
            let _ = write_atomically(&log, text.as_bytes());
            t.executions = executions_in(&text);
            if text.contains("error: could not compile") || text.contains("error[E") {
                t.error = Some(format!("the target did not build (see {})", log.display()));
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
        pins: worlds.pins.clone(),
    };
    Some((run.store, failure))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn executions_are_read_from_final_stats_or_status_lines() {
        assert_eq!(
            executions_in("#1024: cov: 3\n#2048\tpulse\nstat::number_of_executed_units: 5000\n"),
            Some(5000)
        );
        assert_eq!(executions_in("#17: cov\n#9 NEW\n"), Some(17));
        assert_eq!(executions_in("nothing here"), None);
    }
}
