//! Helpers every area of the integration tests shares: where the repository is, running
//! the real binary, reading what it printed, scratch directories, and Node.js.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The repository root (the binary runs there, so `scenarios/…` and adapter paths resolve).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("sim/ has a parent")
        .to_path_buf()
}

/// How the binary names itself in the commands it prints, for every test but the one that
/// checks the default (`robust::printed_commands_name_the_binary_as_it_was_started`): the
/// tests compare output, which must not depend on where the binary was built.
pub const INVOKED_AS: (&str, &str) = ("RECONCILE_SIM_INVOKED_AS", "reconcile-sim");

/// Run the binary from the repository root. `run`, `fuzz` and `check` write failures to a
/// scratch directory (never into the repository) unless the arguments name `--out`.
pub fn sim(args: &[&str]) -> Output {
    sim_env(args, &[])
}

/// [`sim`] with environment variables set.
pub fn sim_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    static OUT: OnceLock<tempfile::TempDir> = OnceLock::new();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_reconcile-sim"));
    cmd.args(args)
        .current_dir(repo())
        .env(INVOKED_AS.0, INVOKED_AS.1);
    if matches!(args.first(), Some(&("run" | "fuzz" | "check"))) && !args.contains(&"--out") {
        let out = OUT.get_or_init(|| tempfile::tempdir().expect("temp dir"));
        cmd.arg("--out").arg(out.path());
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("binary runs")
}

/// Run the binary in `dir`, with nothing added but [`INVOKED_AS`].
pub fn sim_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_reconcile-sim"))
        .current_dir(dir)
        .env(INVOKED_AS.0, INVOKED_AS.1)
        .args(args)
        .output()
        .expect("binary runs")
}

/// The exit code.
pub fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A fresh, empty scratch directory named after `name` (and this test process), removed
/// when the test is done with it, kept when the test fails (to look at).
pub fn tmp(name: &str) -> Scratch {
    let dir = tempfile::Builder::new()
        .prefix(&format!("reconcile-sim-{name}-"))
        .tempdir()
        .expect("temp dir");
    Scratch(Some(dir))
}

/// A scratch directory ([`tmp`]): a path, removed on drop unless the test panicked.
pub struct Scratch(Option<tempfile::TempDir>);

impl Scratch {
    /// The directory's path.
    pub fn path(&self) -> &Path {
        self.0.as_ref().expect("held until dropped").path()
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.path()
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.path().as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Some(dir) = self.0.take() {
            if std::thread::panicking() {
                let kept = dir.keep();
                eprintln!("scratch directory kept: {}", kept.display());
            }
        }
    }
}

/// Fail loudly if Node.js is missing (checked once, reported by every test that needs it).
pub fn require_node() {
    static FOUND: OnceLock<bool> = OnceLock::new();
    let found = *FOUND.get_or_init(|| {
        Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    assert!(
        found,
        "`node` is not on PATH: the exec store tests drive the reference adapter \
         (adapters/node/) with Node.js >= 18. Install Node.js; these tests must not be \
         skipped, because a differential test with one side missing proves nothing."
    );
}
