//! The coverage-guided fuzzing plumbing and the nightly run, driven through the real binary:
//! the committed corpus is exactly what `corpus` regenerates; a libFuzzer artifact becomes
//! a scenario that replays the same violation; a short nightly run writes its folder and
//! de-duplicates against earlier nights.

use std::path::{Path, PathBuf};

use crate::support::{code, repo, sim, sim_env};
use reconcile_sim::campaign::fuzz_input::encode_run;
use reconcile_sim::store::by_name;
use reconcile_sim::trace::scenario::load;

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn the_committed_corpus_is_what_corpus_regenerates() {
    let tmp = tempfile::tempdir().unwrap();
    let o = sim(&["corpus", "-o", tmp.path().to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", String::from_utf8_lossy(&o.stderr));
    for target in ["interleavings", "scenario_parser"] {
        let fresh = files(&tmp.path().join(target));
        let committed = files(&repo().join("corpus").join(target));
        assert!(!fresh.is_empty());
        assert_eq!(
            fresh.iter().map(|f| &f.0).collect::<Vec<_>>(),
            committed.iter().map(|f| &f.0).collect::<Vec<_>>(),
            "corpus/{target} is stale: run `reconcile-sim corpus`"
        );
        assert!(
            fresh == committed,
            "corpus/{target} bytes are stale: run `reconcile-sim corpus`"
        );
    }
    // Every regression seed is in the interleavings corpus.
    let names: Vec<String> = files(&repo().join("corpus/interleavings"))
        .into_iter()
        .map(|f| f.0)
        .collect();
    for bug in ["bug-a", "bug-b", "bug-c", "bug-d"] {
        assert!(
            names.iter().any(|n| n == bug),
            "{bug} missing from the corpus"
        );
    }
}

#[test]
fn a_fuzz_artifact_converts_to_a_scenario_that_replays_the_same_violation() {
    let bug_d = load(&repo().join("scenarios/bug-d.json")).unwrap();
    let store = by_name(&bug_d.store).unwrap();
    let bytes = encode_run(store, &bug_d.config, &bug_d.steps()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let artifact = tmp.path().join("crash-bug-d");
    std::fs::write(&artifact, &bytes).unwrap();
    let out = tmp.path().join("from-fuzz.json");
    let o = sim(&[
        "from-fuzz",
        artifact.to_str().unwrap(),
        "--store",
        "fix-abc",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 1, "{}", String::from_utf8_lossy(&o.stdout));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("store fix-abc, inv2-no-duplicate"), "{text}");
    let scenario = load(&out).unwrap();
    assert_eq!(scenario.store, "fix-abc");
    assert_eq!(scenario.expect.map(|i| i.name()), Some("inv2-no-duplicate"));
    let replay = sim(&["replay", out.to_str().unwrap()]);
    assert_eq!(code(&replay), 1);
    assert!(String::from_utf8(replay.stdout)
        .unwrap()
        .contains("inv2-no-duplicate"));
    // Without --store the artifact's own byte 9 chooses the store: still fix-abc here.
    let o = sim(&[
        "from-fuzz",
        artifact.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 1);
    // A passing artifact converts to nothing, exit 0; a missing one is bad input.
    std::fs::write(&artifact, [0u8; 3]).unwrap();
    assert_eq!(
        code(&sim(&[
            "from-fuzz",
            artifact.to_str().unwrap(),
            "-o",
            out.to_str().unwrap()
        ])),
        0
    );
    let missing = sim(&[
        "from-fuzz",
        "/nonexistent/crash-x",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&missing), 2);
    assert!(String::from_utf8(missing.stderr)
        .unwrap()
        .contains("cannot read /nonexistent/crash-x"));
}

/// Nights remember each other: the first night of stores with no recorded failures (the
/// note's buggy `naive` and `fix-ab`, against an empty scenarios folder) finds new classes
/// and exits 1; the second night, on the same seeds, knows every one of them from the
/// first night's folder. (A night of the shipped stores against the committed baselines
/// exits 0: `robust::a_nightly_on_a_fresh_checkout_exits_0_and_a_buggy_store_makes_it_1`.)
#[test]
fn a_short_nightly_writes_its_folder_and_knows_what_earlier_nights_found() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("nights");
    let out = out.to_str().unwrap();
    let no_scenarios = tmp.path().join("no-scenarios");
    std::fs::create_dir(&no_scenarios).unwrap();
    let night = |seed: &str| {
        sim(&[
            "nightly",
            "--time",
            "1s",
            "--no-cargo-fuzz",
            "--stores",
            "naive,fix-ab",
            "--scenarios",
            no_scenarios.to_str().unwrap(),
            "--out",
            out,
            "--seed-start",
            seed,
            "--jobs",
            "2",
        ])
    };
    let first = night("0");
    assert_eq!(
        code(&first),
        1,
        "buggy stores with nothing recorded show something new the first night"
    );
    let dirs: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 1);
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dirs[0].join("summary.json")).unwrap()).unwrap();
    assert!(dirs[0].join("summary.md").is_file());
    assert!(!summary["campaigns"].as_array().unwrap().is_empty());
    let new: Vec<&serde_json::Value> = summary["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["new"] == true)
        .collect();
    assert!(!new.is_empty());
    for f in summary["findings"].as_array().unwrap() {
        assert!(
            ["naive", "fix-ab"].contains(&f["store"].as_str().unwrap()),
            "only the stores asked for run: {f}"
        );
    }
    for f in &new {
        let path = PathBuf::from(f["scenario"].as_str().unwrap());
        let s = load(&path).unwrap();
        assert_eq!(s.store, f["store"].as_str().unwrap());
        assert_eq!(s.expect.unwrap().name(), f["invariant"].as_str().unwrap());
    }
    // The second night starts where the first did: everything it finds again is known.
    let second = night("0");
    let text = String::from_utf8(second.stdout).unwrap();
    let dirs: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 2, "a second folder for the same date");
    let mut d2 = dirs.clone();
    d2.sort();
    let summary2: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d2[1].join("summary.json")).unwrap()).unwrap();
    let known_before = summary2["known_signatures"].as_u64().unwrap();
    assert_eq!(
        known_before,
        new.len() as u64,
        "known before the second night: exactly what the first found: {text}"
    );
    for f in summary2["findings"].as_array().unwrap() {
        let sig = (f["store"].as_str().unwrap(), &f["class"]);
        if new
            .iter()
            .any(|n| (n["store"].as_str().unwrap(), &n["class"]) == sig)
        {
            assert_eq!(f["new"], false, "{sig:?} was found the first night");
        }
    }
}

/// The cargo-fuzz phase after a build that succeeds (a stand-in `cargo` on `PATH`: its
/// `fuzz build` exits 0; each `fuzz run` records its target, store and `-max_total_time`,
/// writes one crash artifact where `-artifact_prefix` says, and exits 0). Each target gets
/// its share of what the in-process phase left (`interleavings` half, `scenario_parser`
/// the rest), runs, and its crash becomes what it is: on `interleavings` a finding of the
/// store it was fixed to (new, shrunk and saved), on `scenario_parser` a loader bug.
#[test]
fn a_night_gives_each_cargo_fuzz_target_its_share_and_reads_its_crashes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = |name: &str| {
        let d = tmp.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        d
    };
    let (bin, fuzz, corpus, none, nights) = (
        dir("bin"),
        dir("fuzz"),
        dir("corpus"),
        dir("no-scenarios"),
        tmp.path().join("nights"),
    );
    std::fs::write(fuzz.join("Cargo.toml"), "[package]\n").unwrap();
    stand_in_cargo(&bin);
    // bug A's run on `naive`, as the interleavings target's bytes.
    let bug_a = load(&repo().join("scenarios/bug-a.json")).unwrap();
    let crash = tmp.path().join("crash-bytes");
    let bytes = encode_run(by_name("naive").unwrap(), &bug_a.config, &bug_a.steps()).unwrap();
    std::fs::write(&crash, bytes).unwrap();
    let record = tmp.path().join("record");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let budget = 20;
    let o = sim_env(
        &[
            "nightly",
            "--time",
            &format!("{budget}s"),
            "--stores",
            "durable",
            "--fuzz-stores",
            "naive",
            "--fuzz-dir",
            fuzz.to_str().unwrap(),
            "--corpus",
            corpus.to_str().unwrap(),
            "--scenarios",
            none.to_str().unwrap(),
            "--out",
            nights.to_str().unwrap(),
            "--seed-start",
            "0",
            "--jobs",
            "1",
        ],
        &[
            ("PATH", &path),
            ("STAND_IN_RECORD", record.to_str().unwrap()),
            ("STAND_IN_CRASH", crash.to_str().unwrap()),
        ],
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(code(&o), 1, "a new finding: exit 1\n{stdout}\n{stderr}");
    let runs = stand_in_runs(&record);
    let targets: Vec<(&str, &str)> = runs
        .iter()
        .map(|(t, s, _)| (t.as_str(), s.as_str()))
        .collect();
    assert_eq!(
        targets,
        [("interleavings", "naive"), ("scenario_parser", "none")],
        "each target once, in order\n{stderr}"
    );
    // 60 % of the budget goes in-process; of the 8 s left, `interleavings` gets half (4 s,
    // or 2 to 3 when the in-process phase overran by up to 4 s on a loaded machine) and
    // `scenario_parser`, the last, all that is left after it: more than the first's.
    let (first, last) = (runs[0].2, runs[1].2);
    let left = budget * 4 / 10;
    assert!(
        (2..=left / 2).contains(&first),
        "interleavings: half of what is left, got {first} s"
    );
    assert!(
        first < last && last <= left,
        "scenario_parser: the rest, got {last} s after {first} s"
    );
    the_night_read_each_crash(&nights);
}

/// Writes `bin/cargo`, a stand-in for cargo-fuzz: `fuzz build` exits 0; each `fuzz run`
/// appends its target, `RECONCILE_SIM_STORE` and `-max_total_time` to the file
/// `$STAND_IN_RECORD`, copies `$STAND_IN_CRASH` as a crash file where `-artifact_prefix`
/// says, prints libFuzzer's final-stats line and exits 0.
fn stand_in_cargo(bin: &Path) {
    let cargo = bin.join("cargo");
    std::fs::write(
        &cargo,
        r#"#!/bin/sh
[ "$2" = build ] && exit 0
for a in "$@"; do
  case "$a" in
    -max_total_time=*) secs=${a#*=} ;;
    -artifact_prefix=*) prefix=${a#*=} ;;
  esac
done
echo "$5 ${RECONCILE_SIM_STORE:-none} $secs" >> "$STAND_IN_RECORD"
cp "$STAND_IN_CRASH" "${prefix}crash-stand-in"
echo "stat::number_of_executed_units: 7"
"#,
    )
    .unwrap();
    std::fs::set_permissions(&cargo, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

/// The `fuzz run`s [`stand_in_cargo`] recorded in `record`: (target, store or `none`,
/// seconds), in order.
fn stand_in_runs(record: &Path) -> Vec<(String, String, u64)> {
    std::fs::read_to_string(record)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split(' ').collect();
            (w[0].to_string(), w[1].to_string(), w[2].parse().unwrap())
        })
        .collect()
}

/// Asserts what the night in `nights` (the only one) made of the stand-in's crashes: both
/// targets' runs in its summary, the `scenario_parser` crash its one problem (a loader bug),
/// the `interleavings` crash a new `naive` finding whose saved file breaks its invariant.
fn the_night_read_each_crash(nights: &Path) {
    let night = std::fs::read_dir(nights)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(night.join("summary.json")).unwrap()).unwrap();
    let ran = summary["cargo_fuzz"].as_array().unwrap();
    assert_eq!(ran.len(), 2, "{summary}");
    for t in ran {
        assert_eq!(t["executions"], 7, "{t}");
        assert_eq!(t["artifacts"].as_array().unwrap().len(), 1, "{t}");
    }
    let problems: Vec<&str> = summary["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("scenario_parser crashed on ")
            && problems[0].contains("artifacts/scenario_parser/crash-stand-in"),
        "{problems:?}"
    );
    let found: Vec<&serde_json::Value> = summary["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["source"] == "cargo-fuzz/interleavings")
        .collect();
    assert_eq!(found.len(), 1, "{summary}");
    assert_eq!(found[0]["store"], "naive");
    assert_eq!(found[0]["new"], true);
    let saved = load(Path::new(found[0]["scenario"].as_str().unwrap())).unwrap();
    assert_eq!(saved.store, "naive");
    assert_eq!(
        saved.expect.map(|i| i.name()),
        found[0]["invariant"].as_str()
    );
}
