//! The scenario subcommands through the real binary: `replay`, `shrink`, `check`, and the
//! scenario files `run` and `fuzz` write for every failure.

use crate::support::{code, repo, sim, sim_in, stderr, stdout, tmp};
use std::path::Path;

#[test]
fn replay_of_a_bug_seed_exits_1_with_a_timeline_and_the_breaking_step_marked() {
    let o = sim(&["replay", "scenarios/bug-d.json"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with("scenario scenarios/bug-d.json · store fix-abc\n"),
        "{text}"
    );
    let header = text
        .lines()
        .find(|l| l.starts_with("  step  backend"))
        .unwrap();
    for col in ["backend", "c0", "c1"] {
        assert!(header.contains(col), "{header}");
    }
    let broken: Vec<&str> = text.lines().filter(|l| l.starts_with('✗')).collect();
    assert_eq!(broken.len(), 1, "{text}");
    assert!(broken[0].contains("◀ inv2-no-duplicate broken here"));
    assert!(text.contains("backend DB (the truth)"), "{text}");
    assert!(
        text.contains("expected inv2-no-duplicate: reproduced"),
        "{text}"
    );
}

#[test]
fn replay_on_the_fixed_store_exits_0_and_output_is_deterministic() {
    let a = sim(&["replay", "scenarios/bug-d.json", "--store", "current"]);
    let b = sim(&["replay", "scenarios/bug-d.json", "--store", "current"]);
    assert_eq!(code(&a), 0, "{}", stdout(&a));
    assert_eq!(a.stdout, b.stdout);
    assert!(stdout(&a).contains("verdict: PASS"));
}

#[test]
fn replay_mermaid_is_a_fenced_sequence_diagram() {
    let o = sim(&["replay", "scenarios/bug-a.json", "--format", "mermaid"]);
    assert_eq!(code(&o), 1);
    let text = stdout(&o);
    assert!(text.starts_with("```mermaid\nsequenceDiagram\n"), "{text}");
    assert!(text.trim_end().ends_with("```"));
    assert!(text.contains("participant C1 as c1"));
    assert!(
        text.contains("rect rgb("),
        "the breaking step is highlighted"
    );
    assert!(text.contains("->>"));
    for line in text.lines() {
        assert!(!line.contains(';'), "mermaid statement separator in {line}");
    }
}

#[test]
fn replay_json_reports_skipped_steps_of_an_edited_file() {
    let dir = tmp("edited");
    let text = std::fs::read_to_string(repo().join("scenarios/bug-b.json")).unwrap();
    // Delete the handle-post step: the later steps that need t1 are no longer enabled.
    let edited: String = text
        .lines()
        .filter(|l| !l.contains("\"kind\": \"handle-post\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let path = dir.join("edited.json");
    std::fs::write(&path, edited).unwrap();
    let o = sim(&["replay", path.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let skipped = v["skipped"].as_array().unwrap();
    assert!(!skipped.is_empty(), "{v}");
    assert!(skipped[0]["step"]["kind"].is_string());
    let text = stdout(&sim(&["replay", path.to_str().unwrap()]));
    assert!(text.contains("skipped: not enabled"), "{text}");
    assert!(text.contains("skipped "), "{text}");
}

#[test]
fn bad_scenarios_exit_2_naming_file_line_and_column() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_input");
    let o = sim_in(&dir, &["replay", "step-client-out-of-range.json"]);
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o).trim_end(),
        format!(
            "error: {}",
            std::fs::read_to_string(dir.join("step-client-out-of-range.expected"))
                .unwrap()
                .trim_end()
        )
    );
    let o = sim_in(&dir, &["replay", "truncated.json"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).starts_with("error: truncated.json:23:4: invalid JSON"),
        "{}",
        stderr(&o)
    );
    let o = sim(&["replay", "no/such/file.json"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no/such/file.json: cannot read the file"));
    // An unknown store, in the file or on the command line.
    let d = tmp("badstore");
    let text = std::fs::read_to_string(repo().join("scenarios/bug-b.json"))
        .unwrap()
        .replace("\"store\": \"fix-a\"", "\"store\": \"fix-z\"");
    std::fs::write(d.join("s.json"), text).unwrap();
    let o = sim_in(&d, &["replay", "s.json"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("s.json: field `store`: unknown store 'fix-z'"),
        "{}",
        stderr(&o)
    );
    let o = sim(&["replay", "scenarios/bug-b.json", "--store", "nope"]);
    assert_eq!(code(&o), 2);
    let o = sim_in(&d, &["check"]);
    assert_eq!(code(&o), 2, "check refuses a corpus with a bad file");
}

#[test]
fn shrink_writes_a_one_minimal_scenario_that_still_fails() {
    let dir = tmp("shrink");
    // A long failing run, saved unshrunk by hand: take `run --json` steps.
    let o = sim(&[
        "run",
        "--store",
        "fix-ab",
        "--seed",
        "0",
        "--json",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let long = serde_json::json!({
        "version": 1,
        "store": "fix-ab",
        "expect": v["outcome"]["invariant"],
        "config": v["config"],
        "steps": v["steps"],
    });
    let input = dir.join("long.json");
    std::fs::write(&input, serde_json::to_string_pretty(&long).unwrap()).unwrap();
    let out = dir.join("short.json");
    let o = sim(&[
        "shrink",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    // Exit 0: shrunk and written (issue 48: it was 1, a success that read as a failure).
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("(1-minimal)"), "{}", stdout(&o));
    assert!(stdout(&o).contains(&format!("replay: reconcile-sim replay {}", out.display())));
    let r = sim(&["replay", out.to_str().unwrap(), "--json"]);
    let rv: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    assert_eq!(rv["outcome"]["invariant"], v["outcome"]["invariant"]);
    assert_eq!(rv["reproduced"], true);
    assert!(rv["steps"].as_u64().unwrap() < v["steps"].as_array().unwrap().len() as u64);
    // A passing scenario has nothing to shrink.
    let o = sim(&[
        "shrink",
        "scenarios/bug-d.json",
        "--store",
        "current",
        "-o",
        dir.join("x.json").to_str().unwrap(),
    ]);
    // Exit 1: nothing to shrink, nothing written.
    assert_eq!(code(&o), 1);
    assert!(stdout(&o).contains("nothing to shrink"));
    assert!(!dir.join("x.json").exists());
    // The give-up message names the flag.
    let o = sim(&[
        "shrink",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--max-shrink-iters",
        "2",
    ]);
    assert!(stdout(&o).contains("--max-shrink-iters"), "{}", stdout(&o));
}

#[test]
fn run_and_fuzz_save_every_failure_shrunk_with_a_replay_command() {
    let dir = tmp("runfuzz");
    let o = sim(&[
        "run",
        "--store",
        "canary",
        "--seed",
        "0",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 1);
    // Named by store, root-cause class and seed.
    let path = dir.join("canary-queued-consumed-lingers-seed0.json");
    assert!(stdout(&o).contains(&format!("replay: reconcile-sim replay {}", path.display())));
    assert_eq!(code(&sim(&["replay", path.to_str().unwrap()])), 1);

    let fdir = tmp("fuzzout");
    let o = sim(&[
        "fuzz",
        "--store",
        "all",
        "--seeds",
        "50",
        "--out",
        fdir.to_str().unwrap(),
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let saved = v["scenarios"].as_array().unwrap();
    // One file per (store, root-cause class) that failed.
    let signatures: usize = v["stores"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["classes"].as_array().map_or(0, Vec::len))
        .sum();
    assert!(signatures > 0);
    assert_eq!(saved.len(), signatures);
    assert_eq!(std::fs::read_dir(&fdir).unwrap().count(), signatures);
    for s in saved {
        let r = sim(&["replay", s["path"].as_str().unwrap(), "--json"]);
        let rv: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
        assert_eq!(rv["outcome"]["invariant"], s["invariant"], "{s}");
        assert_eq!(rv["class"], s["class"], "{s}");
    }
}

#[test]
fn check_without_a_store_reproduces_every_seed_and_exits_0() {
    let o = sim(&["check"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("ok    scenarios/bug-a.json on naive"),
        "{text}"
    );
    assert!(text.ends_with("check: PASS\n"));
}

#[test]
fn check_on_a_store_before_a_fix_fails_that_bug_and_writes_junit_and_failures() {
    let dir = tmp("check");
    let junit = dir.join("junit.xml");
    let out = dir.join("failures");
    let o = sim(&[
        "check",
        "--store",
        "naive",
        "--seeds",
        "1500",
        "--seed",
        "2489cff",
        "--junit",
        junit.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 1);
    let text = stdout(&o);
    assert!(
        text.contains("FAIL  scenarios/bug-a.json: naive must break nothing, got inv3-newer-turn"),
        "{text}"
    );
    // Replay commands name the file by its absolute path (they run when pasted anywhere).
    let scenarios = repo().join("scenarios");
    assert!(
        text.contains(&format!(
            "replay: reconcile-sim replay {}\n",
            scenarios.join("bug-a.json").display()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "replay: reconcile-sim replay {} --store naive\n",
            scenarios.join("bug-d.json").display()
        )) || !text.contains("FAIL  scenarios/bug-d.json"),
        "{text}"
    );
    assert!(text.contains("new failure on naive: "), "{text}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.starts_with("<?xml"));
    assert!(
        xml.contains(&format!(
            "<testsuite name=\"scenarios\" tests=\"{}\"",
            reconcile_sim::campaign::check::scenario_files(&repo().join("scenarios"))
                .unwrap()
                .len()
        )),
        "{xml}"
    );
    assert!(
        xml.contains("<testsuite name=\"fuzz naive\" tests=\"2\""),
        "{xml}"
    );
    assert!(xml.contains("<failure"));
    // One file per signature, each replaying to its invariant.
    let files: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(!files.is_empty());
    for f in files {
        assert_eq!(code(&sim(&["replay", f.to_str().unwrap()])), 1);
    }
    // Same --seed string, same seeds and bytes.
    let again = sim(&[
        "check",
        "--store",
        "naive",
        "--seeds",
        "1500",
        "--seed",
        "2489cff",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(again.stdout, o.stdout);
}

#[test]
fn check_on_a_store_that_passes_everything_exits_0() {
    // The bug-d seed alone, on current, with no fuzzing: nothing breaks.
    let dir = tmp("checkpass");
    std::fs::copy(repo().join("scenarios/bug-d.json"), dir.join("bug-d.json")).unwrap();
    let o = sim(&[
        "check",
        "--store",
        "current",
        "--scenarios",
        dir.to_str().unwrap(),
        "--seeds",
        "0",
        "--allow-empty",
    ]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let o = sim(&[
        "check",
        "--store",
        "current",
        "--scenarios",
        dir.to_str().unwrap(),
        "--seeds",
        "0",
        "--allow-empty",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["scenarios"][0]["ok"], true);
}
