//! Sharded campaigns (`--shard I/N --result FILE`) and `merge`: the merged results of 1, 3
//! and 7 shards print and write exactly what the unsharded run does (text, JSON, JUnit,
//! shrunk scenario files), whatever order the parts are given in; bad parts are refused
//! with exit 2. The same at 20 000 seeds: scripts/check-sharding.sh (run by .ci/run).

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{code, repo, sim_in, stderr, stdout, tmp};

/// Run the binary in `dir` (created); exit 0 or 1 expected.
fn run(dir: &Path, args: &[&str]) -> Output {
    std::fs::create_dir_all(dir).unwrap();
    let o = sim_in(dir, args);
    assert!(
        matches!(code(&o), 0 | 1),
        "{args:?} exited {}: {}",
        code(&o),
        stderr(&o)
    );
    o
}

/// The JSON `o` printed, without what the time of the run it comes from says (the
/// campaign's and settling's seconds, which a merge of shards cannot know): what must be
/// equal between a run and the merge of its shards.
/// Paths in it are written as [`text_in`] writes them, `dir` being where it ran.
fn json_but_timing(o: &Output, dir: &Path) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(&text_in(o, dir)).unwrap();
    if let Some(map) = v.as_object_mut() {
        for key in [
            "campaign_seconds",
            "settle_seconds",
            "settle_budget_seconds",
        ] {
            map.remove(key);
        }
    }
    v
}

/// What `o` printed, with `dir` (where it ran) written `[DIR]`: printed paths are absolute,
/// so that a command pasted anywhere works, and a run and the merge of its shards ran in
/// different folders.
fn text_in(o: &Output, dir: &Path) -> String {
    stdout(o).replace(&dir.display().to_string(), "[DIR]")
}

/// The file `name` in `dir`, with `dir` written `[DIR]` (see [`text_in`]).
fn file_in(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name))
        .unwrap()
        .replace(&dir.display().to_string(), "[DIR]")
}

/// Every file under `dir`, by path relative to it, with its bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}

/// Run `args` as `n` shards in `dir`, each with `--out failures` in its own directory and
/// its result as `dir/shard-I.result.json`; returns the result files, last shard first.
fn shards(dir: &Path, args: &[&str], n: u64) -> Vec<String> {
    let mut results = Vec::new();
    for i in 1..=n {
        let shard = format!("{i}/{n}");
        let result = dir.join(format!("shard-{i}.result.json"));
        let result = result.to_str().unwrap().to_string();
        let mut a = args.to_vec();
        a.extend(["--shard", &shard, "--out", "failures", "--result", &result]);
        run(&dir.join(format!("shard-{i}")), &a);
        results.insert(0, result);
    }
    results
}

#[test]
fn fuzz_shards_merge_to_the_unsharded_run_byte_for_byte() {
    let base = tmp("shard-fuzz");
    // 320 seeds are 5 blocks of 64: 3 shards get 2, 2, 1; 7 shards get 1, 1, 1, 1, 1 and
    // two get none (an empty shard's result merges like any other).
    let fuzz = [
        "fuzz",
        "--store",
        "all",
        "--seeds",
        "320",
        "--seed-start",
        "5",
        "--jobs",
        "2",
        // Shrinking by replay count is deterministic, so shards and the whole still agree
        // byte for byte; the whole run saves 58 classes, and the runs are 13.
        "--max-shrink-iters",
        "150",
        "--verbose",
    ];
    let mut whole_args = fuzz.to_vec();
    whole_args.extend(["--out", "failures"]);
    let whole = run(&base.join("whole"), &whole_args);
    whole_args.push("--json");
    let whole_json = run(&base.join("whole-json"), &whole_args);
    assert_eq!(code(&whole), 1, "the buggy stores fail");
    let whole_files = files(&base.join("whole/failures"));
    assert!(
        whole_files.len() > 20,
        "classes saved: {}",
        whole_files.len()
    );
    for n in [1, 3, 7] {
        let dir = base.join(format!("n{n}"));
        let results = shards(&dir, &fuzz, n);
        // Given last shard first, as files.
        let mut m = vec!["merge"];
        m.extend(results.iter().map(String::as_str));
        m.extend(["--out", "failures"]);
        let merged = run(&dir.join("merged"), &m);
        assert_eq!(code(&merged), code(&whole));
        assert_eq!(
            text_in(&merged, &dir.join("merged")),
            text_in(&whole, &base.join("whole")),
            "{n} shards: text"
        );
        assert_eq!(
            files(&dir.join("merged/failures")),
            whole_files,
            "{n} shards: scenario files"
        );
        // Given as the directory.
        let d = dir.to_str().unwrap();
        let json = run(
            &dir.join("merged-json"),
            &["merge", d, "--out", "failures", "--json"],
        );
        assert_eq!(
            json_but_timing(&json, &dir.join("merged-json")),
            json_but_timing(&whole_json, &base.join("whole-json")),
            "{n} shards: JSON"
        );
    }
    // A shard alone says which seeds it covered.
    let one = run(
        &base.join("one"),
        &[
            "merge",
            base.join("n3/shard-2.result.json").to_str().unwrap(),
            "--allow-partial",
            "--json",
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    assert_eq!(v["shards"]["done"], serde_json::json!([2]));
    // Shard 2 of 3 holds blocks 1 and 4: seeds 69..133 and 261..325.
    assert_eq!(v["covered"], serde_json::json!([[69, 133], [261, 325]]));
    assert_eq!(v["seeds"], 128);
}

#[test]
fn check_shards_merge_to_the_unsharded_check_byte_for_byte() {
    let base = tmp("shard-check");
    let scenarios = repo().join("scenarios");
    // 5 batches: 7 shards leave two with nothing to fuzz.
    let check = [
        "check",
        "--store",
        "durable",
        "--scenarios",
        scenarios.to_str().unwrap(),
        "--seeds",
        "4500",
        "--seed",
        "a-commit",
        "--jobs",
        "2",
    ];
    let mut whole_args = check.to_vec();
    whole_args.extend(["--out", "failures", "--junit", "check.xml"]);
    let whole = run(&base.join("whole"), &whole_args);
    assert_eq!(code(&whole), 0, "{}", stdout(&whole));
    whole_args.push("--json");
    let whole_json = run(&base.join("whole-json"), &whole_args);
    for n in [1, 3, 7] {
        let dir = base.join(format!("n{n}"));
        let results = shards(&dir, &check, n);
        let mut m = vec!["merge"];
        m.extend(results.iter().map(String::as_str));
        m.extend(["--out", "failures", "--junit", "check.xml"]);
        let merged = run(&dir.join("merged"), &m);
        assert_eq!(code(&merged), 0);
        assert_eq!(
            text_in(&merged, &dir.join("merged")),
            text_in(&whole, &base.join("whole")),
            "{n} shards: text"
        );
        assert_eq!(
            file_in(&dir.join("merged"), "check.xml"),
            file_in(&base.join("whole"), "check.xml"),
            "{n} shards: JUnit"
        );
        m.push("--json");
        let json = run(&dir.join("merged-json"), &m);
        assert_eq!(
            json_but_timing(&json, &dir.join("merged-json")),
            json_but_timing(&whole_json, &base.join("whole-json")),
            "{n} shards: JSON"
        );
    }
}

/// With some of current's known classes as the baseline, the others are new: found by
/// fuzzing in several shards at different seeds, and by the scenarios (which shard 1
/// replays). The merge keeps, per class, the lowest seed's scenario, else a scenario's.
#[test]
fn check_shards_with_new_classes_merge_to_the_unsharded_check() {
    let base = tmp("shard-check-new");
    let known = base.join("known");
    std::fs::create_dir_all(&known).unwrap();
    for name in [
        "queued-own-turn-gone-at-fetch.json",
        "optimistic-consumed-lingers.json",
        "queued-consumed-lingers.json",
        "optimistic-own-turn-gone-at-fetch.json",
    ] {
        std::fs::copy(
            repo().join("scenarios/known/current").join(name),
            known.join(name),
        )
        .unwrap();
    }
    let scenarios = repo().join("scenarios");
    let check = [
        "check",
        "--store",
        "current",
        "--scenarios",
        scenarios.to_str().unwrap(),
        "--known",
        known.to_str().unwrap(),
        "--seeds",
        "2500",
        "--jobs",
        "2",
    ];
    let mut whole_args = check.to_vec();
    whole_args.extend(["--out", "failures", "--junit", "check.xml"]);
    let whole = run(&base.join("whole"), &whole_args);
    assert_eq!(code(&whole), 1);
    let text = stdout(&whole);
    assert!(text.contains("NEW class"), "{text}");
    whole_args.push("--json");
    let whole_json = run(&base.join("whole-json"), &whole_args);
    let v: serde_json::Value = serde_json::from_slice(&whole_json.stdout).unwrap();
    let found = v["found"].as_array().unwrap();
    assert!(found.iter().any(|f| f["seed"].is_u64()), "{v}");
    let whole_files = files(&base.join("whole/failures"));
    assert_eq!(whole_files.len(), found.len());
    let dir = base.join("n3");
    let results = shards(&dir, &check, 3);
    let mut m = vec!["merge"];
    m.extend(results.iter().map(String::as_str));
    m.extend(["--out", "failures", "--junit", "check.xml"]);
    let merged = run(&dir.join("merged"), &m);
    assert_eq!(code(&merged), 1);
    assert_eq!(
        text_in(&merged, &dir.join("merged")),
        text_in(&whole, &base.join("whole"))
    );
    assert_eq!(files(&dir.join("merged/failures")), whole_files);
    assert_eq!(
        file_in(&dir.join("merged"), "check.xml"),
        file_in(&base.join("whole"), "check.xml")
    );
    m.push("--json");
    assert_eq!(
        json_but_timing(&run(&dir.join("merged-json"), &m), &dir.join("merged-json")),
        json_but_timing(&whole_json, &base.join("whole-json"))
    );
}

/// The ways a merge is refused, each exit 2 with a message that says why.
#[test]
fn merge_refuses_parts_that_are_not_one_campaign() {
    let base = tmp("shard-refuse");
    let fuzz = ["fuzz", "--store", "canary", "--seeds", "200", "--jobs", "1"];
    let r = shards(&base.join("a"), &fuzz, 2);
    let (two, one) = (r[0].as_str(), r[1].as_str());
    let refused = |args: &[&str], says: &str| {
        let o = sim_in(&base, args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stdout(&o));
        assert!(
            stderr(&o).contains(says),
            "{args:?}: expected '{says}' in: {}",
            stderr(&o)
        );
    };
    refused(&["merge", one], "shard 2/2 missing");
    // The same path twice is one file; a copy of it is a shard given twice.
    refused(&["merge", one, one], "shard 2/2 missing");
    let copy = base.join("copy.result.json");
    std::fs::copy(one, &copy).unwrap();
    refused(
        &["merge", one, copy.to_str().unwrap(), two],
        "shard 1/2 is given twice",
    );
    // Another configuration: the first seed differs.
    let mut other = fuzz.to_vec();
    other.extend(["--seed-start", "64"]);
    let o = shards(&base.join("b"), &other, 2);
    refused(
        &["merge", one, o[0].as_str()],
        "ran different configurations (`config.seed_start` is 0 in one and 64 in the other)",
    );
    // Another shard count.
    let three = shards(&base.join("c"), &fuzz, 3);
    refused(&["merge", one, three[0].as_str()], "share N in --shard I/N");
    // Another kind.
    let checks = shards(
        &base.join("d"),
        &[
            "check",
            "--store",
            "durable",
            "--scenarios",
            repo().join("scenarios/known").to_str().unwrap(),
            "--seeds",
            "10",
        ],
        2,
    );
    refused(
        &["merge", one, checks[0].as_str()],
        "only results of one kind",
    );
    // Another tool version.
    let text = std::fs::read_to_string(two).unwrap();
    let forged = base.join("forged.result.json");
    std::fs::write(
        &forged,
        text.replacen(
            &format!("reconcile-sim {}", env!("CARGO_PKG_VERSION")),
            "reconcile-sim 0.0.1",
            1,
        ),
    )
    .unwrap();
    refused(
        &["merge", one, forged.to_str().unwrap()],
        "written by reconcile-sim 0.0.1",
    );
    // Not a result; a directory without one; nothing at all.
    let scenario = repo().join("scenarios/bug-a.json");
    refused(&["merge", scenario.to_str().unwrap()], "not a result file");
    let empty = base.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    refused(
        &["merge", empty.to_str().unwrap()],
        "no result file in this directory",
    );
    refused(&["merge", "/nonexistent/x.result.json"], "no such file");
    // A damaged embedded scenario.
    let damaged = base.join("damaged.result.json");
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["result"]["scenarios"][0]["saved"]["scenario"]["steps"] = serde_json::json!(7);
    std::fs::write(&damaged, v.to_string()).unwrap();
    refused(
        &["merge", one, damaged.to_str().unwrap()],
        "the embedded scenario",
    );
    // --junit for what has none.
    refused(
        &["merge", one, two, "--junit", "x.xml"],
        "only check results",
    );
    // Both halves merge (in either order), and with --allow-partial one alone does.
    let ok = sim_in(&base, &["merge", two, one, "--out", "m"]);
    assert_eq!(code(&ok), 1, "{}", stderr(&ok));
    let partial = sim_in(&base, &["merge", one, "--allow-partial", "--out", "m1"]);
    assert_eq!(code(&partial), 1, "{}", stderr(&partial));
    assert!(stdout(&partial).contains("· shard 1/2: 1 of every 2 blocks"));
}

#[test]
fn shard_flags_are_range_checked() {
    for (shard, says) in [
        ("0/3", "between 1 and N = 3"),
        ("4/3", "between 1 and N = 3"),
        ("1/0", "at least 1"),
        ("2", "is not I/N"),
        ("x/2", "'x' is not a whole number"),
    ] {
        for cmd in [
            vec!["fuzz", "--store", "canary", "--seeds", "1"],
            vec!["check"],
            vec!["nightly", "--time", "1s", "--no-cargo-fuzz"],
        ] {
            let mut args = cmd.clone();
            args.extend(["--shard", shard]);
            let o = sim_in(&repo(), &args);
            assert_eq!(code(&o), 2, "{args:?}");
            assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        }
    }
}

/// With a time budget, each shard covers a prefix of its own seeds; the merge counts every
/// seed any shard ran, and says which ranges those are when they are not one.
#[test]
fn time_budget_shards_merge_to_the_union_of_their_seeds() {
    let base = tmp("shard-time");
    let fuzz = [
        "fuzz", "--store", "canary", "--time", "300ms", "--jobs", "1",
    ];
    let r = shards(&base, &fuzz, 2);
    let mut shard_seeds = 0;
    for f in &r {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        shard_seeds += v["result"]["report"]["seeds"].as_u64().unwrap();
        assert_eq!(v["result"]["config"]["budget"]["time"], "300ms");
    }
    let o = run(
        &base.join("merged"),
        &["merge", base.to_str().unwrap(), "--json"],
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["seeds"].as_u64().unwrap(), shard_seeds);
    assert_eq!(v["stores"][0]["runs"].as_u64().unwrap(), shard_seeds);
    let covered: u64 = match v.get("covered") {
        Some(c) => c
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[1].as_u64().unwrap() - r[0].as_u64().unwrap())
            .sum(),
        None => shard_seeds,
    };
    assert_eq!(covered, shard_seeds);
}

/// Two shards of a short night (no cargo-fuzz) merge into one night folder: campaigns add
/// up, each signature is found once per strategy, and every new one has its scenario.
#[test]
fn nightly_shards_merge_into_one_night_folder() {
    let base = tmp("shard-nightly");
    let scenarios = repo().join("scenarios");
    let mut parts = Vec::new();
    for i in 1..=2 {
        let shard = format!("{i}/2");
        let result = base.join(format!("shard-{i}.result.json"));
        let o = sim_in(
            &base,
            &[
                "nightly",
                "--time",
                "3s",
                "--no-cargo-fuzz",
                // The note's buggy stores (not run unless named) have new classes.
                "--stores",
                "all",
                "--scenarios",
                scenarios.to_str().unwrap(),
                "--out",
                &format!("nights-{i}"),
                "--seed-start",
                "1000",
                "--jobs",
                "1",
                "--shard",
                &shard,
                "--result",
                result.to_str().unwrap(),
            ],
        );
        assert_eq!(
            code(&o),
            1,
            "new classes of the buggy stores: {}",
            stderr(&o)
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
        parts.push(v);
    }
    let o = sim_in(&base, &["merge", base.to_str().unwrap(), "--out", "merged"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let nights: Vec<_> = std::fs::read_dir(base.join("merged")).unwrap().collect();
    assert_eq!(nights.len(), 1);
    let night = nights.into_iter().next().unwrap().unwrap().path();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(night.join("summary.json")).unwrap())
            .unwrap();
    assert!(night.join("summary.md").is_file());
    assert!(night.join("result.json").is_file());
    for (k, c) in summary["campaigns"].as_array().unwrap().iter().enumerate() {
        let sum: u64 = parts
            .iter()
            .map(|p| {
                p["result"]["summary"]["campaigns"][k]["report"]["seeds"]
                    .as_u64()
                    .unwrap()
            })
            .sum();
        assert_eq!(c["report"]["seeds"].as_u64().unwrap(), sum);
    }
    let findings = summary["findings"].as_array().unwrap();
    let mut seen = std::collections::BTreeSet::new();
    let mut new = 0;
    for f in findings {
        let key = (
            f["source"].to_string(),
            f["store"].to_string(),
            f["class"].to_string(),
        );
        assert!(
            seen.insert(key),
            "one finding per signature and strategy: {f}"
        );
        if f["new"] == true {
            new += 1;
            let path = base.join(f["scenario"].as_str().unwrap());
            let sc = std::fs::read_to_string(&path).unwrap();
            assert!(sc.contains("\"class\""), "{}", path.display());
            // The scenario replays the class it stands for.
            let r = sim_in(&base, &["replay", path.to_str().unwrap()]);
            assert_eq!(code(&r), 1, "{}", stdout(&r));
        }
    }
    assert!(new > 0);
    assert_eq!(
        std::fs::read_dir(night.join("scenarios")).unwrap().count(),
        new
    );
}

/// A shard whose `--out` cannot be written prints its table with every class NOT SAVED
/// and exits 2, yet its result carries the scenarios, so `merge` writes exactly the
/// unsharded run's files and prints its text. A `--result` that cannot be written is
/// reported after the table (exit 2), the scenario files still written.
#[test]
fn unwritable_files_of_a_shard_are_reported_and_its_result_keeps_the_scenarios() {
    let base = tmp("shard-unwritable");
    let fuzz = [
        "fuzz",
        "--store",
        "current",
        "--seeds",
        "300",
        "--jobs",
        "1",
        "--verbose",
    ];
    let whole = base.join("whole");
    let expected = run(&whole, &[&fuzz[..], &["--out", "failures"]].concat());
    assert!(!files(&whole.join("failures")).is_empty());

    let part = base.join("part");
    std::fs::create_dir_all(&part).unwrap();
    std::fs::write(part.join("not-a-dir"), "x").unwrap();
    let result = part.join("part.result.json");
    let result = result.to_str().unwrap();
    let extra = ["--shard", "1/1", "--out", "not-a-dir", "--result", result];
    let o = sim_in(&part, &[&fuzz[..], &extra[..]].concat());
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stdout(&o).contains("classes of current"), "{}", stdout(&o));
    assert!(stdout(&o).contains("NOT SAVED"), "{}", stdout(&o));
    assert!(stderr(&o).contains("could not be saved"), "{}", stderr(&o));

    let merged = base.join("merged");
    let m = run(&merged, &["merge", result, "--out", "failures"]);
    assert_eq!(text_in(&m, &merged), text_in(&expected, &whole));
    assert_eq!(
        files(&merged.join("failures")),
        files(&whole.join("failures"))
    );

    let bad = part.join("not-a-dir").join("x.result.json");
    let extra = ["--out", "failures", "--result", bad.to_str().unwrap()];
    let o = sim_in(&part, &[&fuzz[..], &extra[..]].concat());
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(text_in(&o, &part), text_in(&expected, &whole));
    assert!(
        stderr(&o).contains("the result file could not be written"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        files(&part.join("failures")),
        files(&whole.join("failures"))
    );
}

/// `explore --shard I/N --json` results merge with `merge` into the whole search's verdict
/// and shortest counterexample (the soundness tests check the counts in process); a merge
/// with a shard missing is refused, exit 2, naming the shard.
#[test]
fn explore_shards_merge_into_the_whole_search() {
    let dir = tmp("shard-explore");
    std::fs::create_dir_all(&dir).unwrap();
    let search = ["explore", "--store", "current", "--sends", "1", "--json"];
    let whole: serde_json::Value = serde_json::from_slice(&run(&dir, &search).stdout).unwrap();
    let mut parts = Vec::new();
    for i in 1..=3 {
        let mut a = search.to_vec();
        let shard = format!("{i}/3");
        a.extend(["--shard", &shard]);
        let o = run(&dir, &a);
        let file = dir.join(format!("explore-{i}.json"));
        std::fs::write(&file, &o.stdout).unwrap();
        parts.push(file.to_str().unwrap().to_string());
    }
    let mut args = vec!["merge", "--json"];
    args.extend(parts.iter().rev().map(String::as_str));
    let o = run(&dir, &args);
    let merged: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(merged["kind"], "explore");
    assert_eq!(merged["shards"]["done"], serde_json::json!([1, 2, 3]));
    let (w, m) = (&whole["result"], &merged["result"]);
    assert_eq!(m["verified"], w["verified"]);
    assert_eq!(
        m["report"]["counterexample"]["steps"]
            .as_array()
            .map(Vec::len),
        w["report"]["counterexample"]["steps"]
            .as_array()
            .map(Vec::len),
        "shortest counterexample length"
    );
    assert_eq!(
        m["report"]["counterexample"]["violation"]["invariant"],
        w["report"]["counterexample"]["violation"]["invariant"]
    );
    // The text of the same merge, and its exit code: a counterexample is exit 1.
    let o = sim_in(
        &dir,
        &args[..1]
            .iter()
            .chain(&args[2..])
            .copied()
            .collect::<Vec<_>>(),
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("shards 3 of 3 merged"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("verdict: FAIL"), "{}", stdout(&o));
    // A shard missing.
    let o = sim_in(&dir, &["merge", &parts[0], &parts[2]]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("2/3 missing"), "{}", stderr(&o));
}

/// `v` as the arguments `run` takes.
fn argv(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// An `exec:` store's shards merge to the files of the unsharded run byte for byte, its
/// `store_dir` included (relative to the file's folder, as the run writes it; the merge
/// used to write it absolute).
#[test]
fn the_shards_of_an_exec_store_merge_to_its_unsharded_files_byte_for_byte() {
    crate::support::require_node();
    let base = tmp("shard-exec");
    let store = format!(
        "exec:node {} fix-ab",
        repo().join("adapters/node/store.js").display()
    );
    let fuzz = [
        "fuzz",
        "--store",
        &store,
        "--seeds",
        "128",
        "--jobs",
        "1",
        "--max-shrink-iters",
        "150",
        // Through an adapter on a loaded machine the default budget may cut a shard and
        // the whole run at different points: a replay budget shrinks alike in both.
        "--settle-time",
        "unbounded",
    ];
    let with = |extra: &[&str]| -> Vec<String> {
        fuzz.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    let whole = with(&["--out", "whole"]);
    run(&base, &argv(&whole));
    for i in 1..=2 {
        let shard = format!("{i}/2");
        let result = format!("part-{i}.result.json");
        let out = format!("part-{i}");
        let part = with(&["--shard", &shard, "--out", &out, "--result", &result]);
        run(&base, &argv(&part));
    }
    run(
        &base,
        &[
            "merge",
            "part-2.result.json",
            "part-1.result.json",
            "--out",
            "merged",
        ],
    );
    // The scenario files (the run also writes its details file; the merge prints them).
    let scenarios = |dir: &str| -> Vec<(PathBuf, String)> {
        files(&base.join(dir))
            .into_iter()
            .filter(|(p, _)| p.extension().is_some_and(|e| e == "json"))
            .map(|(p, b)| (p, String::from_utf8(b).unwrap()))
            .collect()
    };
    let whole_files = scenarios("whole");
    assert!(!whole_files.is_empty(), "fix-ab fails: classes saved");
    assert!(
        whole_files[0].1.contains("\"store_dir\": \"..\""),
        "{}",
        whole_files[0].1
    );
    let merged = scenarios("merged");
    let names = |v: &[(PathBuf, String)]| v.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&merged), names(&whole_files));
    for (m, w) in merged.iter().zip(&whole_files) {
        assert_eq!(m.1, w.1, "{}", m.0.display());
    }
}
