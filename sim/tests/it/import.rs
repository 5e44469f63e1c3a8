//! `import`: a tab's recorded log turned back into a scenario, through the real binary.
//! The logs are written by `replay --log` (the reference recorder: what the adapter's
//! recorder writes, without an app), then imported, replayed and shrunk. The production
//! round trip needs the workspace's packages (`npm ci`): a fresh clone's `cargo test` lists
//! it as ignored, and `scripts/ci-node.sh` runs it after its `npm ci`.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::{code, repo, require_node, sim, stderr, stdout, tmp, INVOKED_AS};

/// The binary run in `dir` with the workspace's `node_modules/.bin` on PATH (as `npm run`
/// puts it there), so an `exec:reconcile-sim-adapter …` store starts.
fn sim_npm(dir: &Path, args: &[&str]) -> Output {
    let bin = repo().join("node_modules/.bin");
    assert!(
        bin.join("reconcile-sim-adapter").exists(),
        "run `npm ci` at the repository root: the production example's store runs through reconcile-sim-adapter"
    );
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new(env!("CARGO_BIN_EXE_reconcile-sim"))
        .current_dir(dir)
        .env(INVOKED_AS.0, INVOKED_AS.1)
        .env("PATH", path)
        .args(args)
        .output()
        .expect("binary runs")
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", stdout(o), stderr(o)))
}

const PRODUCTION: &str = "exec:reconcile-sim-adapter reconcile/adapter.ts";

/// The production example's witnesses (`known/`), in name order: all eight of its classes.
fn production_witnesses(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir.join("known"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 8, "{files:?}");
    files
}

/// The witness replayed for its class and failing tab, then again with that tab's reference
/// log (`replay --log --tab N`) written to `log`: the class's name.
fn reference_log(dir: &Path, name: &str, witness: &str, log: &str) -> String {
    let original = json(&sim_npm(
        dir,
        &["replay", witness, "--allow-exec", "--json"],
    ));
    let class = original["class_name"].as_str().unwrap().to_string();
    let tab = original["outcome"]["client"].as_u64().unwrap().to_string();
    let o = sim_npm(
        dir,
        &[
            "replay",
            witness,
            "--allow-exec",
            "--log",
            log,
            "--tab",
            &tab,
        ],
    );
    assert_eq!(code(&o), 1, "{name}: {}", stderr(&o));
    class
}

/// `log` imported on the production store to `out` (with `extra` flags), the import naming
/// `class`, and `out` replayed showing it again: the replay's JSON.
fn import_and_replay(
    dir: &Path,
    name: &str,
    log: &str,
    out: &str,
    extra: &[&str],
    class: &str,
) -> serde_json::Value {
    let mut args = vec!["import", log, "--store", PRODUCTION, "-o", out];
    args.extend_from_slice(extra);
    let o = sim_npm(dir, &args);
    assert_eq!(code(&o), 0, "{name}: {}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains(class), "{name}: {}", stdout(&o));
    let replayed = json(&sim_npm(dir, &["replay", out, "--allow-exec", "--json"]));
    assert_eq!(replayed["class_name"], class, "{name}");
    assert_eq!(replayed["reproduced"], true, "{name}");
    replayed
}

/// Every known class of the production example: the witness replayed with the failing
/// tab's log written, the log imported (the tab's view only: the other tabs and the
/// backend inferred), the scenario replayed (the same class), then shrunk (1-minimal).
#[test]
#[ignore = "needs the workspace's packages (`npm ci` at the root): scripts/ci-node.sh runs it"]
fn every_production_class_round_trips_through_a_tab_log() {
    require_node();
    let dir = repo().join("examples/production");
    let scratch = tmp("import-production");
    for witness in production_witnesses(&dir) {
        let name = witness.file_stem().unwrap().to_string_lossy().into_owned();
        let w = witness.to_str().unwrap();
        let log = scratch.join(format!("{name}.log.json"));
        let log = log.to_str().unwrap();
        let class = reference_log(&dir, &name, w, log);
        let out = scratch.join(format!("{name}.json"));
        let out = out.to_str().unwrap();
        let replayed = import_and_replay(&dir, &name, log, out, &[], &class);
        assert_eq!(replayed["skipped"], serde_json::json!([]), "{name}");
        let shrunk = scratch.join(format!("{name}.shrunk.json"));
        let shrunk = shrunk.to_str().unwrap();
        let o = sim_npm(&dir, &["shrink", out, "--allow-exec", "-o", shrunk]);
        assert_eq!(code(&o), 0, "{name}: {}{}", stdout(&o), stderr(&o));
        assert!(stdout(&o).contains("(1-minimal)"), "{name}: {}", stdout(&o));
    }
}

/// The logs the adapter's own recorder wrote (`RECONCILE_SIM_RECORD_DIR`, `PID-N.json`):
/// each process's last run, the one the command drove (the runs before it are the harness's
/// start-up resets). One process per tab; the names do not say which tab.
fn recorded_logs(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut last = std::collections::BTreeMap::<String, (u64, std::path::PathBuf)>::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        let (pid, run) = stem.rsplit_once('-').unwrap();
        let run: u64 = run.parse().unwrap();
        let slot = last.entry(pid.to_string()).or_insert((0, p.clone()));
        if run >= slot.0 {
            *slot = (run, p);
        }
    }
    last.into_values().map(|(_, p)| p).collect()
}

/// Every `text` field's value, anywhere in `v`.
fn texts_in(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("text", serde_json::Value::String(t)) => out.push(t.clone()),
                    _ => texts_in(x, out),
                }
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| texts_in(x, out)),
        _ => {}
    }
}

/// What a log shows, without its ids, texts and times (the recorder spells ids as the app
/// does, the reference recorder as the world does): kinds, routes, events, outcomes, rows.
fn shape(entries: &[serde_json::Value]) -> Vec<String> {
    entries
        .iter()
        .map(|e| {
            let ev = &e["event"];
            let rows: Vec<String> = e["fetch"]["rows"]
                .as_array()
                .map(|r| {
                    r.iter()
                        .map(|r| format!("{}:{}", r["seq"], r["role"]))
                        .collect()
                })
                .unwrap_or_default();
            format!(
                "{} {} {} {} {} {} {} {:?}",
                e["kind"],
                e["route"],
                ev["type"],
                ev["status"],
                ev["reason"],
                ev["call"],
                e["post"]["outcome"],
                rows
            )
        })
        .collect()
}

/// The production store replayed with the adapter's recorder on (`RECONCILE_SIM_RECORD=1`,
/// private by default), its log written by the adapter, then imported and replayed.
fn record_through_the_adapter(dir: &Path, scenario: &str, logs: &Path, extra: &[&str]) -> Output {
    std::fs::create_dir_all(logs).unwrap();
    let bin = repo().join("node_modules/.bin");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new(env!("CARGO_BIN_EXE_reconcile-sim"))
        .current_dir(dir)
        .env(INVOKED_AS.0, INVOKED_AS.1)
        .env("PATH", path)
        .env("RECONCILE_SIM_RECORD", "1")
        .env("RECONCILE_SIM_RECORD_DIR", logs)
        .args(["replay", scenario, "--allow-exec"])
        .args(extra)
        .output()
        .expect("binary runs")
}

/// The real recorder's round trip: each witness of the production example replayed with
/// the recorder installed inside the adapter (over the store's own fetch and WebSocket, rows
/// read back through the mapping's `unchunk`, private by default). The failing tab's log is
/// the one whose shape is the reference recorder's (`replay --log --tab N`): that it exists
/// checks the recorder saw what the world did. It is imported and replayed: the same class.
/// And a correct run (a witness cut before its failure) gives a log that imports and passes.
#[test]
#[ignore = "needs the workspace's packages (`npm ci` at the root): scripts/ci-node.sh runs it"]
fn the_adapters_recorder_round_trips_production_witnesses() {
    require_node();
    let dir = repo().join("examples/production");
    let scratch = tmp("import-recorder");
    for witness in production_witnesses(&dir) {
        let name = witness.file_stem().unwrap().to_string_lossy().into_owned();
        let w = witness.to_str().unwrap();
        let reference = scratch.join(format!("{name}.reference.json"));
        let reference = reference.to_str().unwrap();
        let class = reference_log(&dir, &name, w, reference);
        let want = shape(&entries(reference).1);
        let logs = scratch.join(&name);
        let o = record_through_the_adapter(&dir, w, &logs, &[]);
        assert_eq!(code(&o), 1, "{name}: {}", stderr(&o));
        let recorded = recorded_logs(&logs);
        let log = recorded
            .iter()
            .find(|l| shape(&entries(l.to_str().unwrap()).1) == want)
            .unwrap_or_else(|| {
                panic!(
                    "{name}: no recorded log has the reference's shape {want:#?}; recorded: {:#?}",
                    recorded
                        .iter()
                        .map(|l| shape(&entries(l.to_str().unwrap()).1))
                        .collect::<Vec<_>>()
                )
            });
        let text = std::fs::read_to_string(log).unwrap();
        let head: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(head["recorder"], "reconcile-sim-adapter/record", "{name}");
        // Private by default: every text in the log (sends, POSTs, frames, rows) is a
        // placeholder (the worlds' texts are `msg:m1` tokens or everyday words like `ok`).
        assert_eq!(head["private"], true, "{name}");
        let mut texts = Vec::new();
        texts_in(&head["entries"], &mut texts);
        assert!(!texts.is_empty(), "{name}: no text at all in {text}");
        for t in texts {
            assert!(
                t.starts_with("<text#") && t.ends_with('>'),
                "{name}: a text in a private log: {t}"
            );
        }
        let out = scratch.join(format!("{name}.json"));
        let out = out.to_str().unwrap();
        // A private log cannot show that one text holds another, so the import searches a
        // world of distinct texts before one of colliding texts: queued-consumed-lingers (3
        // tabs) needs 771 740 states where the reference log, with its texts, needs 262 073.
        let states = ["--states-max", "1000000"];
        import_and_replay(&dir, &name, log.to_str().unwrap(), out, &states, &class);
    }
    // A correct run: the witness's first 7 steps pass on this store (its failure comes later).
    let mut cut: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("known/optimistic-other-turn-gone-at-fetch.json"))
            .unwrap(),
    )
    .unwrap();
    cut["steps"].as_array_mut().unwrap().truncate(7);
    let obj = cut.as_object_mut().unwrap();
    obj.remove("expect");
    obj.remove("class");
    let passing = scratch.join("passing.json");
    std::fs::write(&passing, cut.to_string()).unwrap();
    let logs = scratch.join("passing");
    let o = record_through_the_adapter(
        &dir,
        passing.to_str().unwrap(),
        &logs,
        &["--store", PRODUCTION],
    );
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let recorded = recorded_logs(&logs);
    assert_eq!(recorded.len(), 1, "one tab, one process: {recorded:?}");
    let out = scratch.join("passing.out.json");
    let out = out.to_str().unwrap();
    let o = sim_npm(
        &dir,
        &[
            "import",
            recorded[0].to_str().unwrap(),
            "--store",
            PRODUCTION,
            "-o",
            out,
        ],
    );
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("verdict: pass"), "{}", stdout(&o));
    let o = sim_npm(&dir, &["replay", out, "--allow-exec"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
}

/// A scenario that passes on a store gives a log that imports and passes there.
#[test]
fn a_correct_runs_log_imports_and_passes() {
    let scratch = tmp("import-pass");
    let log = scratch.join("log.json");
    let out = scratch.join("out.json");
    let (log, out) = (log.to_str().unwrap(), out.to_str().unwrap());
    let o = sim(&[
        "replay",
        "scenarios/bug-a.json",
        "--store",
        "fix-a",
        "--log",
        log,
    ]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let o = sim(&["import", log, "--store", "fix-a", "-o", out]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("verdict: pass"), "{}", stdout(&o));
    let o = sim(&["replay", out]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    // And the same log on the store with bug A fails as the original did.
    let o = sim(&["import", log, "--store", "naive", "-o", out]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("verdict: inv3-newer-turn"),
        "{}",
        stdout(&o)
    );
}

fn entries(log: &str) -> (serde_json::Value, Vec<serde_json::Value>) {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(log).unwrap()).unwrap();
    let e = v["entries"].as_array().unwrap().clone();
    (v, e)
}

/// A frame removed or moved: the import explains the edited log (and judges it) or stops
/// at an entry it names, exit 2; never anything else.
#[test]
fn an_edited_log_imports_or_names_the_entry() {
    let scratch = tmp("import-edited");
    let log = scratch.join("log.json");
    let log = log.to_str().unwrap();
    let o = sim(&["replay", "scenarios/bug-c.json", "--log", log]);
    assert_eq!(code(&o), 1);
    let (head, all) = entries(log);
    let frames: Vec<usize> = (0..all.len())
        .filter(|&i| all[i]["kind"] == "frame")
        .collect();
    let mut named = 0;
    let mut imported = 0;
    for (k, &i) in frames.iter().enumerate() {
        for moved in [false, true] {
            let mut edited = all.clone();
            let frame = edited.remove(i);
            if moved {
                // Swapped with the next frame.
                let Some(&j) = frames.get(k + 1) else {
                    continue;
                };
                edited.insert(j - 1, frame);
            }
            let mut v = head.clone();
            v["entries"] = serde_json::Value::Array(edited);
            let path = scratch.join(format!("e{i}-{moved}.json"));
            std::fs::write(&path, v.to_string()).unwrap();
            let out = scratch.join(format!("e{i}-{moved}.out.json"));
            let o = sim(&[
                "import",
                path.to_str().unwrap(),
                "--store",
                "fix-ab",
                "-o",
                out.to_str().unwrap(),
            ]);
            match code(&o) {
                0 => {
                    imported += 1;
                    assert!(stdout(&o).contains("verdict: "), "{}", stdout(&o));
                    assert!(out.exists());
                }
                2 => {
                    named += 1;
                    let e = stderr(&o);
                    assert_eq!(e.lines().count(), 1, "{e}");
                    assert!(e.contains("cannot be explained by the model"), "{e}");
                    assert!(e.contains(": entry "), "{e}");
                    assert!(!out.exists());
                }
                c => panic!("exit {c}: {}{}", stdout(&o), stderr(&o)),
            }
        }
    }
    // Both happen: some edits are still a world's schedule, some are not.
    assert!(
        named > 0 && imported > 0,
        "named {named}, imported {imported}"
    );
}

/// A truncated or malformed log: one line naming the file, exit 2, nothing written.
#[test]
fn a_truncated_or_malformed_log_is_one_clear_line() {
    let scratch = tmp("import-bad");
    let log = scratch.join("log.json");
    let log = log.to_str().unwrap();
    sim(&["replay", "scenarios/bug-b.json", "--log", log]);
    let text = std::fs::read_to_string(log).unwrap();
    let out = scratch.join("out.json");
    for (name, bytes, says) in [
        ("cut", text[..text.len() / 2].to_string(), "ends early"),
        (
            "scenario",
            std::fs::read_to_string(repo().join("scenarios/bug-b.json")).unwrap(),
            "not a reconcile-sim log",
        ),
        (
            "entry",
            text.replacen("\"route\":\"post\"", "\"route\":\"put\"", 1),
            "entry ",
        ),
        (
            "orphan",
            text.replacen(
                "\"kind\":\"response\",\"request\":3",
                "\"kind\":\"response\",\"request\":99",
                1,
            ),
            "which the tab never made",
        ),
    ] {
        let path = scratch.join(format!("{name}.json"));
        std::fs::write(&path, bytes).unwrap();
        let o = sim(&[
            "import",
            path.to_str().unwrap(),
            "--store",
            "fix-a",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code(&o), 2, "{name}: {}", stderr(&o));
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{name}: {e}");
        assert!(
            e.contains(says) && e.contains(&format!("{name}.json")),
            "{name}: {e}"
        );
        assert!(!out.exists(), "{name}");
    }
}

#[test]
fn the_checked_in_log_schema_is_generated_from_the_types() {
    let path = repo().join("docs/log.schema.json");
    let actual = reconcile_sim::trace::log::json_schema();
    if std::env::var_os("RECONCILE_SIM_BLESS").is_some() {
        reconcile_sim::util::fs::write_atomically(&path, actual.as_bytes()).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == actual,
        "docs/log.schema.json is stale: regenerate it with RECONCILE_SIM_BLESS=1 cargo test --profile checked --test it import::"
    );
}
