//! Integration tests for strategies, explore and coverage, driving the real binary.

use crate::support::{code, sim};

#[test]
fn explore_verifies_the_hand_counted_bound_and_plain_counts_180() {
    let o = sim(&[
        "explore",
        "--store",
        "current",
        "--sends",
        "0",
        "--scrolls",
        "1",
        "--no-cache",
    ]);
    assert_eq!(code(&o), 0);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("schedules 9 "), "{text}");
    assert!(
        text.contains("verified: no violation within bound"),
        "{text}"
    );
    let o = sim(&[
        "explore",
        "--store",
        "current",
        "--sends",
        "0",
        "--scrolls",
        "1",
        "--plain",
        "--no-cache",
    ]);
    assert!(String::from_utf8(o.stdout)
        .unwrap()
        .contains("schedules 180 "));
    // By default equal states are merged: the nine reduced schedules end in one state.
    let o = sim(&[
        "explore",
        "--store",
        "current",
        "--sends",
        "0",
        "--scrolls",
        "1",
    ]);
    assert_eq!(code(&o), 0);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("schedules 1 "), "{text}");
    assert!(text.contains("state cache: "), "{text}");
    assert!(text.contains("verified: no violation"), "{text}");
}

#[test]
fn explore_finds_the_stale_fetch_bug_in_current_and_saves_it() {
    let dir = crate::support::tmp("explore-cx");
    let out = dir.join("cx.json");
    let o = sim(&[
        "explore",
        "--store",
        "current",
        "--sends",
        "2",
        "--one-sender",
        "--first",
        // The whole world depth-first meets the stale fetch on the observer tab first (the
        // per-tab search judges the sender first, and meets a duplicate there).
        "--whole-world",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 1);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("verdict: FAIL inv3-newer-turn"), "{text}");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert!(saved["steps"].as_array().is_some_and(|s| !s.is_empty()));
}

/// `--overtakes N` bounds how many later events may overtake one: the header and the
/// verdict name it, and a counterexample saved under it keeps the bound in its world, so
/// its replay enforces it and fails the same way.
#[test]
fn explore_overtakes_is_named_and_kept_in_the_saved_counterexample() {
    let dir = crate::support::tmp("explore-overtakes");
    let out = dir.join("cx.json");
    let o = sim(&[
        "explore",
        "--store",
        "current",
        "--window",
        "2",
        "--overtakes",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 1);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("window=2 overtakes=1 "), "{text}");
    assert!(text.contains("verdict: FAIL inv2-no-duplicate"), "{text}");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(saved["config"]["ws_overtakes_max"], 1, "{saved}");
    let replayed = sim(&["replay", out.to_str().unwrap()]);
    assert_eq!(code(&replayed), 1);
    let shown = String::from_utf8(replayed.stdout).unwrap();
    assert!(shown.contains("inv2-no-duplicate"), "{shown}");
    let durable = sim(&[
        "explore",
        "--store",
        "durable",
        "--window",
        "2",
        "--overtakes",
        "1",
    ]);
    assert_eq!(code(&durable), 0);
    let text = String::from_utf8(durable.stdout).unwrap();
    assert!(
        text.contains("verified: no violation within bound"),
        "{text}"
    );
    assert!(text.contains("window=2 overtakes=1 "), "{text}");
    let in_order = sim(&["explore", "--store", "durable", "--overtakes", "1"]);
    assert_eq!(code(&in_order), 2);
    let err = String::from_utf8(in_order.stderr).unwrap();
    assert!(
        err.contains("--overtakes") && err.contains("--window 2"),
        "{err}"
    );
}

#[test]
fn pct_depth_is_printed_and_reproducible_and_depth_needs_pct() {
    let args = [
        "run",
        "--store",
        "canary",
        "--seed",
        "1",
        "--strategy",
        "pct",
        "--depth",
        "2",
    ];
    let a = sim(&args);
    assert_eq!(code(&a), 1);
    assert_eq!(a.stdout, sim(&args).stdout);
    let text = String::from_utf8(a.stdout).unwrap();
    assert!(text.contains("  strategy: pct depth = 2"), "{text}");
    assert!(text.contains("--strategy pct --depth 2"), "{text}");
    let bad = sim(&["run", "--store", "canary", "--seed", "1", "--depth", "2"]);
    assert_eq!(code(&bad), 2);
}

#[test]
fn swarm_run_prints_its_choices_and_coverage() {
    let o = sim(&[
        "run",
        "--store",
        "durable",
        "--seed",
        "4",
        "--strategy",
        "swarm",
        "--coverage",
    ]);
    assert_eq!(code(&o), 0);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("  strategy: swarm disabled = ["), "{text}");
    assert!(
        text.contains("coverage (interesting orderings reached):"),
        "{text}"
    );
}

#[test]
fn durable_survives_every_strategy_where_the_note_variants_fail() {
    for strategy in ["random", "pct", "swarm"] {
        let o = sim(&[
            "fuzz",
            "--store",
            "durable",
            "--seeds",
            "2000",
            "--strategy",
            strategy,
        ]);
        assert_eq!(code(&o), 0, "durable under {strategy}");
        let o = sim(&[
            "fuzz",
            "--store",
            "fix-abc",
            "--seeds",
            "200",
            "--strategy",
            strategy,
        ]);
        assert_eq!(code(&o), 1, "fix-abc under {strategy}");
    }
}

#[test]
fn every_strategy_finds_bug_a_and_bug_b_signatures() {
    for strategy in ["random", "pct", "swarm"] {
        for (store, inv) in [("naive", "inv3-newer-turn"), ("fix-a", "inv1-no-loss")] {
            let o = sim(&[
                "fuzz",
                "--store",
                store,
                "--seeds",
                "500",
                "--strategy",
                strategy,
                "--json",
            ]);
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            let n = v["stores"][0]["failing"][inv].as_u64().unwrap_or(0);
            assert!(n > 0, "{strategy} never hit ({store}, {inv})");
        }
    }
}

/// `--max-states` on one thread stops at the same state in every run, whatever the
/// machine's speed: the same counts printed twice, and exactly one state past the limit.
#[test]
fn explore_max_states_on_one_thread_prints_the_same_counts_every_run() {
    let run = || {
        let o = sim(&[
            "explore",
            "--store",
            "durable",
            "--sends",
            "2",
            "--deltas",
            "0",
            "--jobs",
            "1",
            "--max-states",
            "3000",
        ]);
        assert_eq!(code(&o), 4, "inconclusive");
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(
            err.contains("--max-states 3000 reached (3001 distinct states)"),
            "{err}"
        );
        // Every line but the one with the elapsed time and rates.
        let out = String::from_utf8(o.stdout).unwrap();
        let counts: Vec<String> = out
            .lines()
            .filter(|l| !l.contains("steps/s"))
            .map(String::from)
            .collect();
        assert!(
            counts
                .iter()
                .any(|l| l.contains("3001 distinct full states")),
            "{out}"
        );
        counts
    };
    assert_eq!(run(), run());
}

/// `explore --json` prints one JSON object on stdout and nothing else (the scenario lines
/// go to stderr); `--time` stops a search inconclusive (exit 4) and says what it covered;
/// the world flags reach the bound (turn failures, colliding texts, an observer).
#[test]
fn explore_json_is_json_only_and_time_stops_with_what_was_covered() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cx.json");
    let o = sim(&[
        "explore",
        "--store",
        "current",
        "--sends",
        "2",
        "--one-sender",
        "--first",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 1);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("stdout is JSON only");
    assert_eq!(v["kind"], "explore");
    assert_eq!(v["result"]["verified"], false);
    assert!(String::from_utf8(o.stderr).unwrap().contains("scenario: "));
    let o = sim(&[
        "explore", "--store", "durable", "--sends", "2", "--time", "1ms",
    ]);
    assert_eq!(
        code(&o),
        4,
        "a search stopped by its limit is inconclusive, not bad input"
    );
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("not a verification (covered: per tab: c0 (stopped by the limit)"),
        "{text}"
    );
    assert!(String::from_utf8(o.stderr)
        .unwrap()
        .contains("--time 1ms reached"));
    let o = sim(&[
        "explore",
        "--store",
        "durable",
        "--sends",
        "1",
        "--clients",
        "3",
        "--observer",
        "--turn-failures",
        "--message-texts",
        "colliding",
        "--deltas",
        "0",
        "--json",
        "--max-states",
        "2000",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let world = &v["result"]["config"]["world"];
    assert_eq!(world["turn_failures"], true, "{world}");
    assert_eq!(world["message_texts"], "colliding", "{world}");
    assert_eq!(world["passive_observer"], true, "{world}");
}

/// The depth-first search on two threads prints what one thread prints, byte for byte,
/// when it finds a counterexample (it is the one-thread search's), and verifies what one
/// thread verifies; `--jobs` out of range is refused by name.
/// Inert POST responses are on by default and say so; `--no-inert-responses` delivers them,
/// with the same verdict and the same counterexample length, in more states.
#[test]
fn explore_skips_post_responses_unless_told_and_gets_the_same_answer() {
    let run = |store: &str, extra: &[&str]| {
        let o = sim(&[&["explore", "--store", store, "--sends", "1"][..], extra].concat());
        (code(&o), String::from_utf8(o.stdout).unwrap())
    };
    let states = |text: &str| -> u64 {
        let after = text
            .split("distinct states ")
            .nth(1)
            .expect("a state count");
        after
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let (c1, inert) = run("durable", &[]);
    let (c2, delivered) = run("durable", &["--no-inert-responses"]);
    assert_eq!((c1, c2), (0, 0), "{inert}{delivered}");
    assert!(inert.contains("; its own POST responses inert"), "{inert}");
    assert!(!delivered.contains("inert"), "{delivered}");
    assert!(states(&inert) < states(&delivered), "{inert}{delivered}");
    let length = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("counterexample ("))
            .map(str::to_string)
    };
    let (c1, inert) = run("current", &[]);
    let (c2, delivered) = run("current", &["--no-inert-responses"]);
    assert_eq!((c1, c2), (1, 1), "{inert}{delivered}");
    assert!(length(&inert).is_some());
    assert_eq!(length(&inert), length(&delivered));
}

#[test]
fn explore_on_two_threads_gives_the_one_thread_verdict_and_counterexample() {
    let args = |store: &'static str, jobs: &'static str| {
        vec![
            "explore",
            "--store",
            store,
            "--sends",
            "2",
            "--one-sender",
            "--jobs",
            jobs,
        ]
    };
    let one = sim(&args("current", "1"));
    let two = sim(&args("current", "2"));
    assert_eq!(code(&one), 1);
    assert_eq!(code(&two), 1);
    assert_eq!(
        String::from_utf8(two.stdout).unwrap(),
        String::from_utf8(one.stdout).unwrap()
    );
    let verified = sim(&args("durable", "2"));
    assert_eq!(code(&verified), 0);
    let text = String::from_utf8(verified.stdout).unwrap();
    assert!(
        text.contains("verified: no violation within bound"),
        "{text}"
    );
    for bad in [&["--jobs", "0"][..], &["--jobs", "2", "--exact-keys"]] {
        let o = sim(&[&["explore", "--store", "durable"][..], bad].concat());
        assert_eq!(code(&o), 2);
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(err.contains("--jobs"), "{err}");
    }
}
