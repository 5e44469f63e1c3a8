//! Integration tests that drive the real binary.

use crate::support::{code, sim, stderr};

#[test]
fn stores_lists_every_shipped_store() {
    let o = sim(&["stores"]);
    assert_eq!(code(&o), 0);
    let text = String::from_utf8(o.stdout).unwrap();
    for name in [
        "naive",
        "fix-a",
        "fix-ab",
        "fix-abc",
        "current",
        "membership",
        "canary",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(name)),
            "{name} missing from:\n{text}"
        );
    }
}

#[test]
fn run_twice_with_one_seed_gives_identical_bytes() {
    for args in [
        &["run", "--store", "current", "--seed", "0"][..],
        &["run", "--store", "fix-a", "--seed", "7"][..],
        &["run", "--store", "membership", "--seed", "3", "--json"][..],
    ] {
        let a = sim(args);
        let b = sim(args);
        assert_eq!(a.stdout, b.stdout, "{args:?}");
        assert_eq!(code(&a), code(&b));
        assert!(!a.stdout.is_empty());
    }
}

#[test]
fn run_violation_exits_1_with_trace_and_reproduce_command() {
    let o = sim(&["run", "--store", "canary", "--seed", "0"]);
    assert_eq!(code(&o), 1);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.starts_with("store canary · seed 0"));
    assert!(
        text.contains("options:\n  clients = "),
        "options printed first"
    );
    assert!(text.contains("trace ("));
    assert!(text.contains("verdict: FAIL inv2-no-duplicate"));
    assert!(text
        .trim_end()
        .ends_with("reproduce: reconcile-sim run --store canary --seed 0"));
}

#[test]
fn run_pass_exits_0() {
    // Find a passing seed rather than hard-code one, so model changes don't break this.
    let seed = (0..200u64)
        .find(|s| {
            code(&sim(&[
                "run",
                "--store",
                "current",
                "--seed",
                &s.to_string(),
            ])) == 0
        })
        .expect("some seed passes current");
    let o = sim(&["run", "--store", "current", "--seed", &seed.to_string()]);
    assert!(String::from_utf8(o.stdout)
        .unwrap()
        .contains("verdict: PASS"));
}

#[test]
fn run_json_is_one_object_with_the_verdict() {
    let o = sim(&["run", "--store", "canary", "--seed", "0", "--json"]);
    assert_eq!(code(&o), 1);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["store"], "canary");
    assert_eq!(v["outcome"]["verdict"], "fail");
    assert_eq!(v["outcome"]["invariant"], "inv2-no-duplicate");
    assert!(v["steps"].as_array().unwrap().len() > 3);
    assert!(v["config"]["clients"].as_u64().unwrap() >= 2);
}

#[test]
fn bad_usage_exits_2_with_a_clear_message() {
    let o = sim(&["run", "--store", "nope", "--seed", "1"]);
    assert_eq!(code(&o), 2);
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("unknown store 'nope'") && err.contains("membership"),
        "{err}"
    );
    assert_eq!(
        code(&sim(&["run", "--store", "naive"])),
        2,
        "missing --seed"
    );
    assert_eq!(
        code(&sim(&["fuzz", "--store", "naive"])),
        2,
        "missing budget"
    );
    assert_eq!(
        code(&sim(&[
            "fuzz", "--store", "all", "--seeds", "5", "--jobs", "0"
        ])),
        2
    );
    assert_eq!(
        code(&sim(&[
            "run",
            "--store",
            "naive",
            "--seed",
            "1",
            "--strategy",
            "x"
        ])),
        2
    );
}

/// A budget that runs nothing is an error (a mistyped CI variable must not give a green
/// gate), unless `--allow-empty` says it is meant.
#[test]
fn fuzz_with_a_budget_that_runs_nothing_exits_2_unless_allowed() {
    for budget in [&["--seeds", "0"][..], &["--time", "0s"], &["--time", "0"]] {
        let mut args = vec!["fuzz", "--store", "current", "--out", "target/zero-work"];
        args.extend(budget);
        let o = sim(&args);
        assert_eq!(code(&o), 2, "{budget:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("runs nothing"),
            "{budget:?}: {}",
            stderr(&o)
        );
        args.push("--allow-empty");
        assert_eq!(code(&sim(&args)), 0, "{budget:?} with --allow-empty");
    }
}

/// The first screen: the table, a line per failing store (its classes and the command
/// that reproduces it) and the file holding every class; the class lists themselves are
/// in that file (and after `--verbose`), so the screen stays a screen however many
/// classes there are.
#[test]
fn fuzz_prints_a_screen_and_writes_the_details_to_a_file() {
    let out = crate::support::tmp("first-screen");
    let o = sim(&[
        "fuzz",
        "--store",
        "all",
        "--seeds",
        "300",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let details = out.join("fuzz-details.txt");
    let written = std::fs::read_to_string(&details).unwrap();
    // Seven stores fail; each has its line, with its class count.
    for store in [
        "naive",
        "fix-a",
        "fix-ab",
        "fix-abc",
        "current",
        "membership",
        "canary",
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{store} ")) && l.contains(" · reproduce: "))
            .unwrap_or_else(|| panic!("no line for {store}:\n{text}"));
        let classes = written.matches(&format!("classes of {store} (")).count();
        assert_eq!(classes, 1, "{store}'s classes in the details");
        assert!(
            line.contains(" classes · reproduce: reconcile-sim run --store "),
            "{line}"
        );
    }
    assert!(
        !text.contains("classes of "),
        "the class lists are in the file:\n{text}"
    );
    assert!(
        text.ends_with(&format!(
            "--verbose prints them here): {}\n",
            details.display()
        )),
        "{text}"
    );
    // A screen: the header, ten stores, seven lines and the details line.
    assert!(
        text.lines().count() <= 20,
        "{} lines:\n{text}",
        text.lines().count()
    );
    // --verbose prints what the file holds, and writes no file.
    let again = crate::support::tmp("first-screen-verbose");
    let v = sim(&[
        "fuzz",
        "--store",
        "all",
        "--seeds",
        "300",
        "--verbose",
        "--out",
        again.to_str().unwrap(),
    ]);
    let verbose =
        String::from_utf8_lossy(&v.stdout).replace(again.to_str().unwrap(), out.to_str().unwrap());
    assert!(
        verbose.ends_with(&written),
        "--verbose:\n{verbose}\nfile:\n{written}"
    );
    assert!(!again.join("fuzz-details.txt").exists());
}

#[test]
fn fuzz_table_is_independent_of_jobs() {
    let fuzz = |jobs| {
        sim(&[
            "fuzz",
            "--store",
            "all",
            "--seeds",
            "300",
            "--jobs",
            jobs,
            "--verbose",
        ])
    };
    let (one, two, three) = (fuzz("1"), fuzz("2"), fuzz("3"));
    assert_eq!(code(&one), 1, "some store fails");
    assert_eq!(one.stdout, two.stdout);
    assert_eq!(one.stdout, three.stdout);
    let text = String::from_utf8(one.stdout).unwrap();
    let canary = text.lines().find(|l| l.starts_with("canary")).unwrap();
    assert!(
        !canary.contains(" 0/300  -"),
        "canary must be caught: {canary}"
    );
    assert!(text.contains("reproduce canary: reconcile-sim run --store canary --seed "));
}

#[test]
fn fuzz_json_reports_every_store() {
    let o = sim(&["fuzz", "--store", "all", "--seeds", "20", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["seeds"], 20);
    assert_eq!(
        v["stores"].as_array().unwrap().len(),
        reconcile_sim::store::STORES.len()
    );
    for s in v["stores"].as_array().unwrap() {
        assert_eq!(s["runs"], 20);
    }
}

#[test]
fn fuzz_with_a_time_budget_covers_a_prefix_of_seeds() {
    let o = sim(&["fuzz", "--store", "naive", "--time", "300ms", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let seeds = v["seeds"].as_u64().unwrap();
    assert!(seeds > 0);
    assert_eq!(v["stores"][0]["runs"].as_u64().unwrap(), seeds);
}

#[test]
fn diff_reports_the_first_divergence_shrunk_and_agreement_otherwise() {
    let out = crate::support::tmp("diff");
    let o = sim(&[
        "diff",
        "--store",
        "current",
        "--store",
        "membership",
        "--seeds",
        "200",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 1);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("'current' and 'membership' diverge after step #"),
        "{text}"
    );
    let file = text
        .lines()
        .find_map(|l| l.strip_prefix("replay: reconcile-sim diff --store current --store membership --seeds 0 --scenarios "))
        .expect("a replay command")
        .to_string();
    // The saved scenario reproduces the divergence, and a store agrees with itself.
    let again = sim(&[
        "diff",
        "--store",
        "current",
        "--store",
        "membership",
        "--seeds",
        "0",
        "--scenarios",
        &file,
    ]);
    assert_eq!(code(&again), 1);
    let same = sim(&[
        "diff", "--store", "durable", "--store", "durable", "--seeds", "50",
    ]);
    assert_eq!(code(&same), 0, "{}", String::from_utf8_lossy(&same.stdout));
    assert_eq!(
        code(&sim(&["diff", "--store", "current"])),
        2,
        "two stores are needed"
    );
}
