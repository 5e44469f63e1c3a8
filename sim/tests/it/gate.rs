//! What `check`'s verdict rests on, end to end through the binary (issue 36):
//! - **suspects fail the gate**: a store whose only finding is a suspect fails `check`,
//!   with and without a `--known` baseline that excuses all its failures;
//! - **a baseline belongs to its store**: `check --store all --known
//!   scenarios/known/current` excuses `current`'s known classes on `current` only, never
//!   another store's failures of the same class.
//!
//! The suspect test needs Node.js, like `exec_findings.rs`, and fails without it.

use std::path::Path;

use crate::support::{code, repo, require_node, sim_env, sim_in, stderr, stdout, tmp};

/// The `current` store with a random suffix on every live row id: right verdicts,
/// renders that differ from run to run (`sim/tests/faulty/faulty.js`).
const RANDOM_IDS: &str = "exec:node sim/tests/faulty/faulty.js random-ids";

/// Timeouts no healthy adapter comes near, even on a loaded machine.
const TIMEOUTS: [(&str, &str); 2] = [
    ("RECONCILE_SIM_EXEC_TIMEOUT", "2m"),
    ("RECONCILE_SIM_EXEC_STARTUP_TIMEOUT", "2m"),
];

fn check_json(args: &[&str], env: &[(&str, &str)]) -> (i32, serde_json::Value) {
    let o = sim_env(args, env);
    let json = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("check --json: {e}: {}", stderr(&o)));
    (code(&o), json)
}

/// `current`'s known failures, each file's `store` made `store`.
fn known_failures_of(store: &str, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let known = repo().join("scenarios/known/current");
    for entry in std::fs::read_dir(known).unwrap() {
        let path = entry.unwrap().path();
        let mut sc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        sc["store"] = store.into();
        let text = serde_json::to_string_pretty(&sc).unwrap();
        std::fs::write(dir.join(path.file_name().unwrap()), text).unwrap();
    }
}

/// A store whose only finding is a suspect (`nondeterministic`: seed 3 passes on
/// `current`, and the determinism check, on by default for `exec:` stores, sees the
/// renders differ) fails the check. So does one whose failures are all of known classes
/// (seeds 0..3, against `current`'s known failures recorded for it): a known class
/// excuses a failure that happens again, never a store that is unstable.
#[test]
fn a_store_whose_only_finding_is_a_suspect_fails_check_with_and_without_known() {
    require_node();
    let dir = tmp("gate-suspect");
    let (empty, known) = (dir.join("empty"), dir.join("known"));
    std::fs::create_dir_all(&empty).unwrap();
    known_failures_of(RANDOM_IDS, &known);
    let out = dir.join("out");
    let common = [
        "check",
        "--store",
        RANDOM_IDS,
        "--scenarios",
        empty.to_str().unwrap(),
        "--allow-empty",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ];
    let with = |extra: &[&str]| {
        let mut args = common.to_vec();
        args.extend_from_slice(extra);
        check_json(&args, &TIMEOUTS)
    };
    for (label, extra) in [
        ("no baseline", vec!["--seed", "3", "--seeds", "1"]),
        (
            "every failure known",
            vec![
                "--seed",
                "0",
                "--seeds",
                "3",
                "--known",
                known.to_str().unwrap(),
            ],
        ),
    ] {
        let (exit, json) = with(&extra);
        let batches = json["batches"].as_array().unwrap();
        assert!(
            batches.iter().all(|b| b["classes"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c["known"] == true)),
            "{label}: no new class, the batches pass: {json}"
        );
        assert!(
            json["scenarios"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["ok"] == true),
            "{label}: {json}"
        );
        let suspects = json["suspects"].as_array().unwrap();
        assert!(
            suspects.iter().any(|s| s["kind"] == "nondeterministic"),
            "{label}: {json}"
        );
        assert_eq!(exit, 1, "{label}: a suspect fails the check: {json}");
    }
}

/// `--known scenarios/known/current` is `current`'s baseline: with every store under
/// test, another store's failure of one of its classes (naive shows several) is not
/// excused, in the fuzz batches and in the replay of the known files themselves.
#[test]
fn a_known_baseline_excuses_its_own_store_only() {
    let dir = tmp("gate-baseline");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = dir.join("out");
    let (exit, json) = check_json(
        &[
            "check",
            "--store",
            "all",
            "--known",
            "scenarios/known/current",
            "--scenarios",
            empty.to_str().unwrap(),
            "--allow-empty",
            "--seeds",
            "64",
            "--max-shrink-iters",
            "20",
            "--json",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(exit, 1, "{json}");
    let baseline: Vec<&serde_json::Value> = json["baseline"]["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            assert_eq!(entry[0], "current", "{entry}");
            &entry[1]
        })
        .collect();
    assert!(!baseline.is_empty());
    // Fuzzed: a class of the baseline seen on another store is new there.
    let mut elsewhere = 0;
    for b in json["batches"].as_array().unwrap() {
        for c in b["classes"].as_array().unwrap() {
            if baseline.contains(&&c["class"]) {
                let own = b["store"] == "current";
                assert_eq!(c["known"] == true, own, "{} {}", b["store"], c["name"]);
                elsewhere += usize::from(!own);
            }
        }
    }
    assert!(
        elsewhere > 0,
        "no other store showed a class of current's: {json}"
    );
    // Replayed: a known file of `current` showing its class on `naive` is not accepted.
    let on_naive: Vec<&serde_json::Value> = json["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["store"] == "naive" && baseline.contains(&&s["class"]))
        .collect();
    assert!(!on_naive.is_empty(), "{json}");
    for s in on_naive {
        assert_ne!(s["verdict"], "known", "{s}");
        assert_eq!(s["ok"], false, "{s}");
    }
}

/// A new store's project has no `scenarios/` folder (and an empty one cannot be committed):
/// `check --store S` there gates on the fuzzing alone and says in one line that there are
/// no scenarios, with `--known` too; a folder named with `--scenarios` that is not there is
/// still bad input, and so is a check with neither scenarios nor a store (it would prove
/// nothing).
#[test]
fn check_store_without_a_scenarios_folder_gates_on_fuzzing_alone() {
    let dir = tmp("gate-no-scenarios");
    let o = sim_in(&dir, &["check", "--store", "durable", "--seeds", "200"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with(
            "scenarios: none (no scenarios folder here; --scenarios DIR replays a folder of them)\n"
        ),
        "{text}"
    );
    assert!(text.ends_with("check: PASS\n"), "{text}");

    let known = repo().join("scenarios/known/current");
    let o = sim_in(
        &dir,
        &[
            "check",
            "--store",
            "current",
            "--seeds",
            "200",
            "--known",
            known.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with(&format!(
            "scenarios: {} replayed from {} (no scenarios folder here; ",
            json_files(&known),
            known.display()
        )),
        "{text}"
    );

    let o = sim_in(
        &dir,
        &[
            "check",
            "--store",
            "durable",
            "--seeds",
            "200",
            "--scenarios",
            "scenarios",
        ],
    );
    assert_eq!(code(&o), 2, "a folder named must exist: {}", stdout(&o));
    assert!(
        stderr(&o).contains("cannot read the scenarios directory scenarios"),
        "{}",
        stderr(&o)
    );
    let o = sim_in(&dir, &["check"]);
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert!(
        stderr(&o).contains(
            "no scenarios folder here and no --store: nothing to replay and nothing to fuzz"
        ),
        "{}",
        stderr(&o)
    );
}

/// One `exec:` store run through two command lines (here `node adapters/node/store.js
/// current` from the repository and the same file by its absolute path from elsewhere; in
/// a project, `npm run`'s `reconcile-sim-adapter adapter.ts`, the shell's
/// `node_modules/.bin/reconcile-sim-adapter adapter.ts` and the engine inside Node) is one
/// store: its adapter states one name (`node:current`), its saved files are named by it
/// and record it, and a baseline made through one command line gates the store through
/// the other (before, the second gate refused the baseline as another store's).
#[test]
fn a_baseline_made_through_one_command_line_gates_the_same_exec_store_through_another() {
    require_node();
    let dir = tmp("gate-one-name");
    let (empty, known) = (dir.join("empty"), dir.join("known"));
    std::fs::create_dir_all(&empty).unwrap();
    let relative = "exec:node adapters/node/store.js current";
    let absolute = format!(
        "exec:node {} current",
        shell_words::quote(&repo().join("adapters/node/store.js").to_string_lossy())
    );
    let gate = |store: &str, extra: &[&str]| {
        let mut args = vec![
            "check",
            "--store",
            store,
            "--scenarios",
            empty.to_str().unwrap(),
            "--allow-empty",
            "--seeds",
            "300",
            "--max-shrink-time",
            "5s",
            "--no-check-determinism",
            "--json",
        ];
        args.extend_from_slice(extra);
        check_json(&args, &TIMEOUTS)
    };
    let (exit, json) = gate(relative, &["--out", known.to_str().unwrap()]);
    assert_eq!(
        exit, 1,
        "current fails through the reference adapter: {json}"
    );
    let found = json["found"].as_array().unwrap();
    assert!(found.len() >= 2, "{json}");
    for f in found {
        let path = Path::new(f["path"].as_str().unwrap());
        let name = path.file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with("node_current-"),
            "named by the stated name: {name}"
        );
        let sc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(sc["store"], relative, "{name}");
        assert_eq!(sc["store_name"], "node:current", "{name}");
    }
    let (exit, json) = gate(
        &absolute,
        &[
            "--known",
            known.to_str().unwrap(),
            "--out",
            dir.join("out").to_str().unwrap(),
        ],
    );
    let scenarios = json["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), found.len(), "{json}");
    assert!(
        scenarios.iter().all(|s| s["verdict"] == "known"),
        "every file of the baseline shows its class on the same store: {json}"
    );
    assert_eq!(json["found"], serde_json::json!([]), "{json}");
    assert_eq!(exit, 0, "{json}");

    // The same files without the name (as files were written before it was recorded) are
    // of the command line they name only: the other one's gate refuses them.
    let unnamed = dir.join("unnamed");
    std::fs::create_dir_all(&unnamed).unwrap();
    for entry in std::fs::read_dir(&known).unwrap() {
        let path = entry.unwrap().path();
        let mut sc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        sc.as_object_mut().unwrap().remove("store_name");
        std::fs::write(
            unnamed.join(path.file_name().unwrap()),
            serde_json::to_string_pretty(&sc).unwrap(),
        )
        .unwrap();
    }
    let o = sim_env(
        &[
            "check",
            "--store",
            &absolute,
            "--known",
            unnamed.to_str().unwrap(),
            "--seeds",
            "10",
            "--out",
            dir.join("out2").to_str().unwrap(),
        ],
        &TIMEOUTS,
    );
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert!(
        stderr(&o).contains("no known failure there is of a store under test"),
        "{}",
        stderr(&o)
    );
}

/// How many scenario files a folder holds (a baseline's size, read rather than written in:
/// it grows as classes are added).
fn json_files(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "json")
        })
        .count()
}
