//! How a printed command names this program, so that it runs when pasted into a shell, in
//! any directory: `reconcile-sim` only when that is how it was started (found on `PATH`),
//! `cargo run --manifest-path /abs/sim/Cargo.toml --release --` when cargo started it (the
//! manifest named, as cargo finds none from another directory), else the binary's
//! absolute path. `RECONCILE_SIM_INVOKED_AS` overrides all three: a wrapper (an npm
//! script, `npx`) says how a person should start it, and the tests pin it to
//! `reconcile-sim` so that what they compare does not depend on where the binary was
//! built. The paths in printed commands are absolute too ([`absolute`]).

use std::path::Path;
use std::sync::OnceLock;

/// The environment variable that overrides how printed commands name the program.
pub const INVOKED_AS_VAR: &str = "RECONCILE_SIM_INVOKED_AS";

/// The name, once decided.
static PROGRAM: OnceLock<String> = OnceLock::new();

/// Name the program `name` in printed commands, unless `RECONCILE_SIM_INVOKED_AS` says
/// otherwise or a command was printed already: for a front end whose process is not this
/// binary (the engine inside Node, where the first argument is `node`).
pub fn name_as(name: &str) {
    let invoked_as = std::env::var(INVOKED_AS_VAR).ok();
    let _ = PROGRAM.set(name_for(invoked_as.as_deref(), None, name, None));
}

/// The program's name in printed commands (already quoted for a shell where needed),
/// decided once per process from how it was started ([`name_for`]).
pub fn program() -> &'static str {
    PROGRAM.get_or_init(|| {
        let invoked_as = std::env::var(INVOKED_AS_VAR).ok();
        // Cargo sets `CARGO` for what it runs, and `CARGO_MANIFEST_DIR` for `cargo run`.
        let by_cargo = std::env::var_os("CARGO").map(|_| {
            std::env::var_os("CARGO_MANIFEST_DIR")
                .map(|dir| Path::new(&dir).join("Cargo.toml"))
                .filter(|m| m.is_absolute() && m.is_file())
        });
        let argv0 = std::env::args_os()
            .next()
            .map(|a| a.to_string_lossy().into_owned())
            .unwrap_or_default();
        let exe = std::env::current_exe().ok();
        name_for(
            invoked_as.as_deref(),
            by_cargo.as_ref().map(|m| m.as_deref()),
            &argv0,
            exe.as_deref(),
        )
    })
}

/// [`program`], as a function of how the process was started: the override; whether cargo
/// started it (`Some`), with the manifest of the package it ran when known; the first
/// argument as given; and the binary's path.
pub fn name_for(
    invoked_as: Option<&str>,
    by_cargo: Option<Option<&Path>>,
    argv0: &str,
    exe: Option<&Path>,
) -> String {
    if let Some(name) = invoked_as.map(str::trim).filter(|n| !n.is_empty()) {
        return name.to_string();
    }
    let profile = exe
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .and_then(|p| p.to_str());
    if let Some(manifest) = by_cargo {
        let flag = match profile {
            Some("release") => Some("--release".to_string()),
            Some("debug") => Some(String::new()),
            Some(p)
                if !p.is_empty()
                    && p.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
            {
                Some(format!("--profile {p}"))
            }
            _ => None,
        };
        if let Some(flag) = flag {
            let mut command = "cargo run".to_string();
            if let Some(m) = manifest {
                command.push_str(" --manifest-path ");
                command.push_str(&shell_words::quote(&m.display().to_string()));
            }
            if !flag.is_empty() {
                command.push(' ');
                command.push_str(&flag);
            }
            command.push_str(" --");
            return command;
        }
    }
    if !argv0.is_empty() && !argv0.contains('/') {
        return argv0.to_string();
    }
    match exe {
        Some(path) => shell_words::quote(&path.display().to_string()).into_owned(),
        None => "reconcile-sim".to_string(),
    }
}

/// `path` made absolute against the current directory (without touching the file system,
/// so a file not written yet, or a symbolic link, keeps its name): what printed commands
/// name, so that they run when pasted in another directory. Unchanged when it is absolute
/// already or the current directory cannot be read.
pub fn absolute(path: &Path) -> std::path::PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exe(path: &str) -> Option<&Path> {
        Some(Path::new(path))
    }

    #[test]
    fn the_override_wins() {
        let name = name_for(
            Some("npx reconcile-sim"),
            Some(None),
            "x",
            exe("/r/target/release/reconcile-sim"),
        );
        assert_eq!(name, "npx reconcile-sim");
        // An empty override is no override.
        assert_eq!(
            name_for(Some(" "), None, "reconcile-sim", None),
            "reconcile-sim"
        );
    }

    #[test]
    fn started_by_cargo_the_command_is_cargo_run_with_the_manifest_and_the_profile() {
        let manifest = Path::new("/my repo/sim/Cargo.toml");
        let at = |p| {
            name_for(
                None,
                Some(Some(manifest)),
                "/r/target/x/reconcile-sim",
                exe(p),
            )
        };
        assert_eq!(
            at("/r/target/release/reconcile-sim"),
            "cargo run --manifest-path '/my repo/sim/Cargo.toml' --release --"
        );
        assert_eq!(
            at("/r/target/debug/reconcile-sim"),
            "cargo run --manifest-path '/my repo/sim/Cargo.toml' --"
        );
        assert_eq!(
            at("/r/target/checked/reconcile-sim"),
            "cargo run --manifest-path '/my repo/sim/Cargo.toml' --profile checked --"
        );
        // Without the manifest (cargo ran it some other way), the profile alone.
        let at = |p| name_for(None, Some(None), "/r/target/x/reconcile-sim", exe(p));
        assert_eq!(
            at("/r/target/checked/reconcile-sim"),
            "cargo run --profile checked --"
        );
        // A custom profile's name may hold `-` and `_`, as cargo allows.
        assert_eq!(
            at("/r/target/release-lto/reconcile-sim"),
            "cargo run --profile release-lto --"
        );
        assert_eq!(
            at("/r/target/fast_build/reconcile-sim"),
            "cargo run --profile fast_build --"
        );
    }

    #[test]
    fn printed_paths_are_absolute() {
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(absolute(Path::new("out/x.json")), cwd.join("out/x.json"));
        assert_eq!(absolute(Path::new("/a/b.json")), Path::new("/a/b.json"));
    }

    #[test]
    fn otherwise_the_name_typed_or_the_absolute_path() {
        // Found on PATH: as typed.
        assert_eq!(
            name_for(
                None,
                None,
                "reconcile-sim",
                exe("/usr/local/bin/reconcile-sim")
            ),
            "reconcile-sim"
        );
        // Started by a path: the absolute one, quoted when it needs it.
        assert_eq!(
            name_for(
                None,
                None,
                "./target/release/reconcile-sim",
                exe("/r/target/release/reconcile-sim")
            ),
            "/r/target/release/reconcile-sim"
        );
        assert_eq!(
            name_for(None, None, "./rs", exe("/my dir/reconcile-sim")),
            "'/my dir/reconcile-sim'"
        );
        assert_eq!(name_for(None, None, "./rs", None), "reconcile-sim");
    }
    /// A process may be started with an empty `argv[0]` (`execve` allows it; some
    /// launchers do it): the printed commands then name the binary by its absolute path,
    /// never by nothing (a reproduce line that started with ` run --store …`).
    #[test]
    fn an_empty_first_argument_names_the_binary_by_its_path() {
        assert_eq!(
            name_for(None, None, "", exe("/usr/local/bin/reconcile-sim")),
            "/usr/local/bin/reconcile-sim"
        );
        assert_eq!(
            name_for(None, None, "", exe("/my dir/reconcile-sim")),
            "'/my dir/reconcile-sim'"
        );
        assert_eq!(name_for(None, None, "", None), "reconcile-sim");
        // Started by cargo, the cargo form; an override still wins.
        assert_eq!(
            name_for(None, Some(None), "", exe("/r/target/checked/reconcile-sim")),
            "cargo run --profile checked --"
        );
        assert_eq!(
            name_for(Some("npx reconcile-sim"), None, "", None),
            "npx reconcile-sim"
        );
        // A profile folder cargo does not name (empty, or not a profile's name) is the path.
        assert_eq!(
            name_for(
                None,
                Some(None),
                "",
                exe("/r/target/my profile/reconcile-sim")
            ),
            "'/r/target/my profile/reconcile-sim'"
        );
        assert_eq!(
            name_for(None, Some(None), "rs", exe("/reconcile-sim")),
            "rs"
        );
    }

    /// Set in the environment of a child process of this test binary that runs
    /// [`program_in_a_child`]: `plain`, or `name_as` (a front end names the program).
    const CHILD: &str = "RECONCILE_SIM_PROGRAM_TEST_CHILD";

    /// What [`program`] says in a child process (this test binary again, running the
    /// ignored test below) started with `env` on top of an environment without cargo's
    /// variables or the override: the name is decided once per process from its
    /// environment, which this threaded process cannot change without racing other tests.
    fn program_in_a_child(scenario: &str, env: &[(&str, &str)]) -> String {
        let mut command = std::process::Command::new(std::env::current_exe().unwrap());
        command
            .args([
                "--exact",
                "util::program::tests::program_in_a_child_process",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove(INVOKED_AS_VAR)
            .env_remove("CARGO")
            .env_remove("CARGO_MANIFEST_DIR")
            .env(CHILD, scenario);
        for (k, v) in env {
            command.env(k, v);
        }
        let out = command.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
            .lines()
            .find_map(|l| l.strip_prefix("program: "))
            .unwrap_or_else(|| panic!("no program line: {stdout}"))
            .to_string()
    }

    #[test]
    #[ignore = "run by how_this_process_was_started_names_the_program"]
    fn program_in_a_child_process() {
        let Ok(scenario) = std::env::var(CHILD) else {
            return;
        };
        if scenario == "name_as" {
            name_as("npx reconcile-sim");
        }
        println!("\nprogram: {}", program());
    }

    /// [`program`] reads how this process was started: by its path (the binary's,
    /// absolute), by cargo (the manifest named only when it is an absolute path to a
    /// file), through a front end ([`name_as`]), the override above them all.
    #[test]
    fn how_this_process_was_started_names_the_program() {
        let exe = std::env::current_exe().unwrap();
        let by_path = shell_words::quote(&exe.display().to_string()).into_owned();
        assert_eq!(program_in_a_child("plain", &[]), by_path);
        assert_eq!(
            program_in_a_child("name_as", &[]),
            "npx reconcile-sim",
            "a front end's name"
        );
        assert_eq!(
            program_in_a_child("name_as", &[(INVOKED_AS_VAR, "my-wrapper")]),
            "my-wrapper",
            "the override wins over a front end's name"
        );
        let manifest_dir = env!("CARGO_MANIFEST_DIR");
        let manifest = Path::new(manifest_dir).join("Cargo.toml");
        let by_cargo = program_in_a_child(
            "plain",
            &[("CARGO", "cargo"), ("CARGO_MANIFEST_DIR", manifest_dir)],
        );
        assert!(
            by_cargo.starts_with(&format!(
                "cargo run --manifest-path {} ",
                shell_words::quote(&manifest.display().to_string())
            )),
            "{by_cargo}"
        );
        // A manifest directory that is relative, or has no Cargo.toml, is not named.
        let empty = tempfile::tempdir().unwrap();
        for dir in [".", empty.path().to_str().unwrap()] {
            let name =
                program_in_a_child("plain", &[("CARGO", "cargo"), ("CARGO_MANIFEST_DIR", dir)]);
            assert!(
                name.starts_with("cargo run ") && !name.contains("--manifest-path"),
                "CARGO_MANIFEST_DIR={dir}: {name}"
            );
        }
    }
}
