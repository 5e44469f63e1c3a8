//! The backend's contract, declared once by the store (an adapter's `hello` `world`):
//! applied by `run`, `fuzz`, `check`, `replay` and `explore` without a flag, printed in
//! their headers, recorded in result and scenario files, overridden by `--world`; and
//! settling bounded by the campaign (`--settle-time`), what it did not finish listed.

use crate::support::{code, repo, sim_in, stderr, stdout, tmp};

/// The reference adapter declaring an ordered socket and consume reasons.
const DECLARING: &str =
    "exec:node adapters/node/store.js current --world ordered-socket --world consume_reasons=true";

fn json(o: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

#[test]
fn a_declared_contract_draws_every_world_and_shows_in_headers_results_and_scenarios() {
    let dir = tmp("contract");
    let root = repo();
    let out = dir.path().join("out");
    let result = dir.path().join("r.result.json");
    let o = sim_in(
        &root,
        &[
            "fuzz",
            "--store",
            DECLARING,
            "--seeds",
            "40",
            "--jobs",
            "1",
            "--out",
            out.to_str().unwrap(),
            "--result",
            result.to_str().unwrap(),
        ],
    );
    assert!(matches!(code(&o), 0 | 1), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("contract (declared by the store): ws_reorder_window=1 consume_reasons=true"),
        "{text}"
    );
    // Every world of the campaign was drawn under it: the result file says so, and every
    // saved scenario's world has an ordered socket and consume reasons.
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
    let worlds = &r["result"]["report"]["worlds"];
    assert_eq!(
        worlds["contract"],
        serde_json::json!(["ws_reorder_window=1", "consume_reasons=true"]),
        "{r}"
    );
    let saved: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    assert!(!saved.is_empty(), "current fails some of 40 seeds");
    for p in &saved {
        let sc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        assert_eq!(sc["config"]["ws_reorder_window"], 1, "{}", p.display());
        assert_eq!(sc["config"]["consume_reasons"], true, "{}", p.display());
        assert_eq!(
            sc["contract"],
            serde_json::json!(["ws_reorder_window=1", "consume_reasons=true"])
        );
        // A replay with the store prints the contract, and the world is inside it.
        let o = sim_in(
            &root,
            &["replay", p.to_str().unwrap(), "--store", DECLARING],
        );
        let t = stdout(&o);
        assert!(t.contains("contract (declared by the store)"), "{t}");
        assert!(!t.contains("outside the contract"), "{t}");
    }
    // `run` draws the same world for a seed under the contract, and prints it.
    let o = sim_in(
        &root,
        &["run", "--store", DECLARING, "--seed", "3", "--json"],
    );
    let v = json(&o);
    assert_eq!(v["config"]["ws_reorder_window"], 1, "{v}");
    assert_eq!(v["config"]["consume_reasons"], true, "{v}");
}

#[test]
fn world_overrides_the_contract_and_the_header_names_what_it_overrode() {
    let root = repo();
    let dir = tmp("contract-override");
    let o = sim_in(
        &root,
        &[
            "fuzz",
            "--store",
            DECLARING,
            "--seeds",
            "20",
            "--jobs",
            "1",
            "--world",
            "consume_reasons=false",
            "--out",
            dir.path().to_str().unwrap(),
        ],
    );
    assert!(matches!(code(&o), 0 | 1), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("--world overrides: consume_reasons=false (was true)"),
        "{text}"
    );
    // A contract that makes a pin incoherent, or one that names a file, is bad usage.
    let o = sim_in(
        &root,
        &[
            "run",
            "--store",
            "exec:node adapters/node/store.js current --world deltas_without_turn_ids=true",
            "--seed",
            "1",
            "--world",
            "ws_reorder_window=3",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("incoherent"), "{}", stderr(&o));
    let o = sim_in(
        &root,
        &[
            "run",
            "--store",
            "exec:node adapters/node/store.js current --world mine.json",
            "--seed",
            "1",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("mine.json"), "{}", stderr(&o));
}

#[test]
fn replay_says_when_a_scenario_s_world_is_outside_the_store_s_contract() {
    let root = repo();
    // bug-a's world reorders events (window 2): an app with one ordered socket never meets it.
    let o = sim_in(
        &root,
        &[
            "replay",
            "scenarios/bug-a.json",
            "--store",
            "exec:node adapters/node/store.js naive --world ordered-socket",
            "--json",
        ],
    );
    let v = json(&o);
    let outside = v["outside_contract"].as_array().unwrap();
    let config = std::fs::read_to_string(root.join("scenarios/bug-a.json")).unwrap();
    let window: serde_json::Value = serde_json::from_str(&config).unwrap();
    if window["config"]["ws_reorder_window"] == 1 {
        assert!(outside.is_empty(), "{v}");
    } else {
        assert_eq!(outside, &[serde_json::json!("ws_reorder_window=1")], "{v}");
    }
    // The same file on a store that declares nothing is inside every contract.
    let o = sim_in(
        &root,
        &[
            "replay",
            "scenarios/bug-a.json",
            "--store",
            "exec:node adapters/node/store.js naive",
            "--json",
        ],
    );
    assert_eq!(json(&o)["outside_contract"], serde_json::json!([]));
}

/// Settling within a budget finds the same classes as settling without one (classes come
/// from the campaign), and lists what it did not finish; both times are printed.
#[test]
fn settling_within_a_budget_finds_the_same_classes_and_lists_what_it_did_not_finish() {
    let root = repo();
    let dir = tmp("settle");
    let fuzz = |budget: &str, out: &str| {
        let out = dir.path().join(out);
        let o = sim_in(
            &root,
            &[
                "fuzz",
                "--store",
                "current",
                "--seeds",
                "300",
                "--jobs",
                "2",
                "--settle-time",
                budget,
                "--out",
                out.to_str().unwrap(),
                "--json",
            ],
        );
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        json(&o)
    };
    let unbounded = fuzz("unbounded", "u");
    let none = fuzz("0s", "z");
    let classes = |v: &serde_json::Value| {
        v["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["class_name"].clone(), s["seed"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(classes(&none), classes(&unbounded));
    assert!(!classes(&none).is_empty());
    for s in none["scenarios"].as_array().unwrap() {
        assert!(
            s["one_minimal"] == false || s["needs_unsearched"] == true,
            "with no time to settle, each is unfinished and says so: {s}"
        );
    }
    for s in unbounded["scenarios"].as_array().unwrap() {
        assert_eq!(s["one_minimal"], true, "{s}");
        assert_eq!(s["needs_unsearched"], false, "{s}");
    }
    for v in [&none, &unbounded] {
        assert!(v["campaign_seconds"].as_f64().unwrap() > 0.0, "{v}");
        assert!(v["settle_seconds"].as_f64().is_some(), "{v}");
    }
    assert_eq!(none["settle_budget_seconds"], 0.0);
    assert_eq!(unbounded["settle_budget_seconds"], serde_json::Value::Null);
    // The text says so on its first screen: the unfinished lines and the times.
    let o = sim_in(
        &root,
        &[
            "fuzz",
            "--store",
            "current",
            "--seeds",
            "300",
            "--jobs",
            "2",
            "--settle-time",
            "0s",
            "--out",
            dir.path().join("t").to_str().unwrap(),
        ],
    );
    let text = stdout(&o);
    assert!(
        text.contains("not shrunk to 1-minimal within the budget"),
        "{text}"
    );
    assert!(
        stderr(&o).contains("time: campaign") && stderr(&o).contains("--settle-time 0s"),
        "{}",
        stderr(&o)
    );
}
