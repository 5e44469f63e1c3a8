//! Behaviours of the newer code (issue 52) through the real binary: a `--world` range on an
//! option whose minimum is not 0 gives the documented world and run, coherent pin pairs
//! run and incoherent ones are refused, and a binary started with an empty `argv[0]`
//! still prints commands that start with the program.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

use reconcile_sim::model::config::WorldConfig;

use crate::support::{code, repo, sim, stderr, stdout, tmp, INVOKED_AS};

/// `ws_reorder_window=2..=3` on a seed that draws an ordered socket: window 2 by
/// `2 + (1 - 1) % 2`, so the run is exactly the run of `ws_reorder_window=2` (not of 3):
/// the same world, steps, drain and outcome.
#[test]
fn a_window_range_runs_the_seed_in_the_world_its_formula_gives() {
    let seed = (0..)
        .find(|&s| {
            let c = WorldConfig::from_seed(s);
            c.ws_reorder_window == 1 && c.clients == 2 && c.sends_per_client >= 2
        })
        .unwrap()
        .to_string();
    let run = |world: &str| {
        let o = sim(&[
            "run", "--store", "current", "--seed", &seed, "--json", "--world", world,
        ]);
        assert!(matches!(code(&o), 0 | 1), "{world}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["world_pins"], serde_json::json!([world]), "{world}");
        ["config", "steps", "drain", "outcome"].map(|k| v[k].clone())
    };
    let ranged = run("ws_reorder_window=2..=3");
    assert_eq!(ranged[0]["ws_reorder_window"], 2, "{}", ranged[0]);
    assert_eq!(ranged, run("ws_reorder_window=2"));
    assert_ne!(ranged, run("ws_reorder_window=3"));
}

/// Turnless deltas with a window range that contains 1 is a world (every seed's window is
/// 1); with one that does not, the pins are refused before anything runs (exit 2).
#[test]
fn turnless_deltas_run_with_a_window_range_holding_one_and_are_refused_without() {
    for (window, coherent) in [
        ("1..=2", true),
        ("1..=3", true),
        ("1", true),
        ("2..=3", false),
        ("2", false),
    ] {
        let w = format!("ws_reorder_window={window}");
        let o = sim(&[
            "fuzz",
            "--store",
            "durable",
            "--seeds",
            "30",
            "--world",
            "deltas_without_turn_ids=true",
            "--world",
            &w,
            "--json",
        ]);
        if coherent {
            assert!(matches!(code(&o), 0 | 1), "{w}: {}", stderr(&o));
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            let pins = v["worlds"]["pins"].to_string();
            assert!(
                pins.contains("deltas_without_turn_ids=true") && pins.contains(&w),
                "{pins}"
            );
        } else {
            assert_eq!(code(&o), 2, "{w}: {}", stdout(&o));
            assert!(
                stderr(&o).contains(
                    "incoherent pins: deltas_without_turn_ids = true needs ws_reorder_window = 1"
                ),
                "{w}: {}",
                stderr(&o)
            );
        }
    }
}

/// Started with an empty `argv[0]` (as `execve` allows) and neither cargo nor
/// `RECONCILE_SIM_INVOKED_AS` to say otherwise, the binary names itself by its absolute
/// path in the commands it prints; the printed replay runs when pasted.
#[test]
fn printed_commands_start_with_the_binary_when_argv0_is_empty() {
    let out = tmp("empty-argv0");
    let bin = env!("CARGO_BIN_EXE_reconcile-sim");
    let o = Command::new(bin)
        .arg0("")
        .env_remove(INVOKED_AS.0)
        .env_remove("CARGO")
        .current_dir(repo())
        .args(["run", "--store", "naive", "--seed", "1", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let text = stdout(&o);
    let exe = std::fs::canonicalize(bin).unwrap();
    let mut printed = 0;
    for prefix in ["replay: ", "reproduce: "] {
        for line in text.lines().filter_map(|l| l.trim().strip_prefix(prefix)) {
            let words = shell_words::split(line).unwrap();
            assert_eq!(PathBuf::from(&words[0]), exe, "{prefix}{line}");
            printed += 1;
        }
    }
    assert!(printed >= 2, "a replay and a reproduce line:\n{text}");
    let replay = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("replay: "))
        .unwrap();
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
}
