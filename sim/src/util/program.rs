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
}
