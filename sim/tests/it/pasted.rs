//! Printed commands run when pasted anywhere (issue 48: they ran only in the directory of
//! the run that printed them). Each kind of command the tool prints (run's reproduce,
//! fuzz's replay and shrink hints, check's replay, shrink's own, the replay line the
//! engine prints in vitest as `npx reconcile-sim replay FILE`, and the `cargo run` form)
//! is taken from the real binary's output in one directory, with relative `--out` paths,
//! and run verbatim with `sh -c` from another.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{code, repo, require_node, stderr, stdout, tmp, INVOKED_AS};

/// The binary, run in `dir` with `args`; the program named `name` in what it prints.
fn sim_named(dir: &Path, name: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_reconcile-sim"));
    cmd.current_dir(dir).env(INVOKED_AS.0, name).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("binary runs")
}

/// A directory holding `reconcile-sim` (this build), `npx` and `cargo` stand-ins that run
/// it as the printed commands start it: `npx reconcile-sim ARGS`, `cargo run
/// --manifest-path M [--release|--profile P] -- ARGS` (which checks that M is a manifest).
fn stand_ins() -> crate::support::Scratch {
    let bin = tmp("pasted-bin");
    let exe = env!("CARGO_BIN_EXE_reconcile-sim");
    let write = |name: &str, body: String| {
        let path = bin.join(name);
        std::fs::write(&path, body).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    write("reconcile-sim", format!("#!/bin/sh\nexec '{exe}' \"$@\"\n"));
    write(
        "npx",
        format!(
            "#!/bin/sh\n[ \"$1\" = reconcile-sim ] || {{ echo \"npx stand-in: $1\" >&2; exit 97; }}\nshift\nexec '{exe}' \"$@\"\n"
        ),
    );
    write(
        "cargo",
        format!(
            "#!/bin/sh\n[ \"$1\" = run ] && [ \"$2\" = --manifest-path ] || {{ echo \"cargo stand-in: $*\" >&2; exit 98; }}\n[ -f \"$3\" ] || {{ echo \"cargo stand-in: no manifest $3\" >&2; exit 99; }}\nshift 3\nwhile [ \"$1\" != -- ]; do shift; done\nshift\nexec '{exe}' \"$@\"\n"
        ),
    );
    bin
}

/// `line` pasted into `sh -c` in `dir`, with the stand-ins first on `PATH`.
fn paste(line: &str, dir: &Path, bin: &Path) -> Output {
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env("PATH", path)
        .env_remove(INVOKED_AS.0)
        .env_remove("CARGO")
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .unwrap()
}

/// The text after `prefix` on every line of `text` that has it (trimmed).
fn lines_after<'t>(text: &'t str, prefix: &str) -> Vec<&'t str> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix(prefix))
        .collect()
}

/// The scenario path a printed `replay`/`shrink` command names (its third word).
fn named_file(line: &str) -> PathBuf {
    let words = shell_words::split(line).unwrap();
    let at = words
        .iter()
        .position(|w| w == "replay" || w == "shrink")
        .unwrap();
    PathBuf::from(&words[at + 1])
}

#[test]
fn run_s_reproduce_and_replay_commands_run_from_another_directory() {
    let (here, elsewhere, bin) = (tmp("pasted-here"), tmp("pasted-elsewhere"), stand_ins());
    let o = sim_named(
        &here,
        "reconcile-sim",
        &["run", "--store", "naive", "--seed", "1", "--out", "found"],
        &[],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let text = stdout(&o);
    let reproduce = lines_after(&text, "reproduce: ");
    let replay = lines_after(&text, "replay: ");
    assert_eq!((reproduce.len(), replay.len()), (1, 1), "{text}");
    assert!(named_file(replay[0]).is_absolute(), "{}", replay[0]);
    let verdict = |t: &str| {
        t.lines()
            .find(|l| l.starts_with("verdict: "))
            .map(str::to_string)
    };
    let again = paste(reproduce[0], &elsewhere, &bin);
    assert_eq!(code(&again), 1, "{}: {}", reproduce[0], stderr(&again));
    assert_eq!(verdict(&stdout(&again)), verdict(&text));
    let replayed = paste(replay[0], &elsewhere, &bin);
    assert_eq!(code(&replayed), 1, "{}: {}", replay[0], stderr(&replayed));
    assert!(
        stdout(&replayed).contains(": reproduced"),
        "{}",
        stdout(&replayed)
    );
}

/// Through cargo (`CARGO` and `CARGO_MANIFEST_DIR` set, as `cargo run` sets them), the
/// program is `cargo run --manifest-path /abs/sim/Cargo.toml --profile P --`, which cargo
/// resolves from any directory.
#[test]
fn the_cargo_run_form_names_the_manifest_and_runs_from_another_directory() {
    let (here, elsewhere, bin) = (tmp("pasted-here"), tmp("pasted-elsewhere"), stand_ins());
    let manifest_dir = repo().join("sim");
    let o = Command::new(env!("CARGO_BIN_EXE_reconcile-sim"))
        .current_dir(&here)
        .env_remove(INVOKED_AS.0)
        .env("CARGO", "cargo")
        .env("CARGO_MANIFEST_DIR", &manifest_dir)
        .args(["run", "--store", "naive", "--seed", "1", "--out", "found"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let text = stdout(&o);
    let replay = lines_after(&text, "replay: ")[0];
    let manifest = manifest_dir.join("Cargo.toml");
    assert!(
        replay.starts_with(&format!(
            "cargo run --manifest-path {} ",
            shell_words::quote(&manifest.display().to_string())
        )),
        "{replay}"
    );
    let replayed = paste(replay, &elsewhere, &bin);
    assert_eq!(code(&replayed), 1, "{replay}: {}", stderr(&replayed));
    assert!(
        stdout(&replayed).contains(": reproduced"),
        "{}",
        stdout(&replayed)
    );
}

/// An `exec:` store's command runs in the current directory, so its reproduce command
/// starts with a `cd` there.
#[test]
fn an_exec_store_s_reproduce_command_goes_back_to_where_its_command_runs() {
    require_node();
    let (elsewhere, bin) = (tmp("pasted-elsewhere"), stand_ins());
    let out = tmp("pasted-out");
    let o = sim_named(
        &repo(),
        "reconcile-sim",
        &[
            "run",
            "--store",
            "exec:node adapters/node/store.js naive",
            "--seed",
            "1",
            "--out",
        ]
        .into_iter()
        .chain([out.to_str().unwrap()])
        .collect::<Vec<_>>(),
        &[],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let text = stdout(&o);
    let reproduce = lines_after(&text, "reproduce: ")[0];
    assert!(reproduce.starts_with("cd "), "{reproduce}");
    let again = paste(reproduce, &elsewhere, &bin);
    assert_eq!(code(&again), 1, "{reproduce}: {}", stderr(&again));
}

/// fuzz's details name each class's scenario by its absolute path in a `replay:` line, and
/// each scenario not shrunk to 1-minimal with a `shrink:` line, which writes beside it.
#[test]
fn fuzz_s_replay_and_shrink_hints_run_from_another_directory() {
    let (here, elsewhere, bin) = (tmp("pasted-here"), tmp("pasted-elsewhere"), stand_ins());
    let o = sim_named(
        &here,
        "reconcile-sim",
        &[
            "fuzz",
            "--store",
            "naive",
            "--seeds",
            "20",
            "--jobs",
            "1",
            "--max-shrink-iters",
            "3",
            "--out",
            "found",
            "--verbose",
        ],
        &[],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let text = stdout(&o);
    let replays = lines_after(&text, "replay: ");
    let shrinks = lines_after(&text, "shrink: ");
    assert!(!replays.is_empty() && !shrinks.is_empty(), "{text}");
    let replayed = paste(replays[0], &elsewhere, &bin);
    assert_eq!(code(&replayed), 1, "{}: {}", replays[0], stderr(&replayed));
    assert!(
        stdout(&replayed).contains(": reproduced"),
        "{}",
        stdout(&replayed)
    );
    let file = named_file(shrinks[0]);
    assert!(file.is_absolute(), "{}", shrinks[0]);
    let shrunk = paste(shrinks[0], &elsewhere, &bin);
    assert_eq!(code(&shrunk), 0, "{}: {}", shrinks[0], stderr(&shrunk));
    let beside = file.with_file_name(format!(
        "{}.shrunk.json",
        file.file_stem().unwrap().to_str().unwrap()
    ));
    assert!(beside.is_file(), "{}", stdout(&shrunk));
    assert!(
        stdout(&shrunk).contains(&format!("scenario: {}", beside.display())),
        "{}",
        stdout(&shrunk)
    );
}

/// check's replay lines, and the engine's (`npx reconcile-sim replay FILE`, what a vitest
/// failure prints), run from another directory.
#[test]
fn check_s_and_the_engine_s_replay_commands_run_from_another_directory() {
    let (here, elsewhere, bin) = (tmp("pasted-here"), tmp("pasted-elsewhere"), stand_ins());
    let scenarios = repo().join("scenarios");
    for name in ["reconcile-sim", "npx reconcile-sim"] {
        let o = sim_named(
            &here,
            name,
            &[
                "check",
                "--store",
                "naive",
                "--seeds",
                "100",
                "--scenarios",
                scenarios.to_str().unwrap(),
                "--out",
                "found",
            ],
            &[],
        );
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        let text = stdout(&o);
        let replays = lines_after(&text, "replay: ");
        assert!(!replays.is_empty(), "{text}");
        for line in replays.iter().take(2) {
            assert!(line.starts_with(&format!("{name} replay ")), "{line}");
            assert!(named_file(line).is_absolute(), "{line}");
            let replayed = paste(line, &elsewhere, &bin);
            assert_eq!(code(&replayed), 1, "{line}: {}", stderr(&replayed));
        }
    }
}
