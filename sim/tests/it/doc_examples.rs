//! The command examples of the README and `docs/` that show their output are run, and
//! their output compared (`snapbox`), so that a page cannot drift from the binary (issue
//! 48: the README showed file names and counts of an older build).
//!
//! An example is a ` ```console ` block, in trycmd's syntax: `$ reconcile-sim ARGS` (a `> `
//! line continues it), an optional `? N` line when it exits with N (0 otherwise), then
//! what it prints on stdout: `...` alone on a line stands for any lines, `[..]` for the rest
//! of a line's part, `[CWD]` for the directory it ran in (printed commands name files by
//! their absolute paths). Each page's examples run in order, in a scratch directory of
//! their own holding a copy of `scenarios/` (what the examples read and may write beside)
//! and the repository's `adapters/`, with `reconcile-sim` on `PATH`. Other blocks (` ```sh `)
//! are not run: they show commands whose output the page does not show.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{repo, tmp, INVOKED_AS};

/// One example: where it is, the command, the exit code and the output it shows.
#[derive(Debug)]
struct Example {
    page: String,
    line: usize,
    command: String,
    status: i32,
    output: String,
}

/// The examples of one page.
fn examples(page: &str, text: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut in_console = false;
    let mut current: Option<Example> = None;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start();
        if fence.starts_with("```") {
            if in_console {
                out.extend(current.take());
                in_console = false;
            } else {
                in_console = fence.trim_start_matches('`').trim() == "console";
            }
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            out.extend(current.take());
            current = Some(Example {
                page: page.to_string(),
                line: i + 1,
                command: command.to_string(),
                status: 0,
                output: String::new(),
            });
        } else if let Some(example) = current.as_mut() {
            if let Some(more) = line.strip_prefix("> ") {
                example.command.push(' ');
                example.command.push_str(more);
            } else if let Some(status) = line
                .strip_prefix("? ")
                .filter(|_| example.output.is_empty())
            {
                example.status = status.trim().parse().unwrap_or_else(|_| {
                    panic!("{page}:{}: `? {status}` is not an exit code", i + 1)
                });
            } else {
                example.output.push_str(line);
                example.output.push('\n');
            }
        }
    }
    out
}

/// The pages whose examples run: the README and every page of `docs/`.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![repo().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// A scratch directory for one page's examples, and the directory holding `reconcile-sim`.
fn sandbox() -> (crate::support::Scratch, crate::support::Scratch) {
    let dir = tmp("doc-examples");
    let copy = |from: &Path, to: &Path| {
        for entry in walk(from) {
            let rel = entry.strip_prefix(from).unwrap();
            let target = to.join(rel);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::copy(&entry, &target).unwrap();
        }
    };
    copy(&repo().join("scenarios"), &dir.join("scenarios"));
    std::os::unix::fs::symlink(repo().join("adapters"), dir.join("adapters")).unwrap();
    let bin = tmp("doc-examples-bin");
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_reconcile-sim"),
        bin.join("reconcile-sim"),
    )
    .unwrap();
    (dir, bin)
}

/// Every file below `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// Run `example` in `dir` with `bin` first on `PATH`: its exit code and stdout.
fn run(example: &Example, dir: &Path, bin: &Path) -> (i32, String) {
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = Command::new("sh")
        .arg("-c")
        .arg(&example.command)
        .current_dir(dir)
        .env("PATH", path)
        .env(INVOKED_AS.0, INVOKED_AS.1)
        .env_remove("CARGO")
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

#[test]
fn the_pages_command_examples_print_what_they_show() {
    let mut ran = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = page.strip_prefix(repo()).unwrap().display().to_string();
        let examples = examples(&name, &text);
        if examples.is_empty() {
            continue;
        }
        let (dir, bin) = sandbox();
        let mut redactions = snapbox::Redactions::new();
        redactions
            .insert("[CWD]", dir.path().display().to_string())
            .unwrap();
        let assert = snapbox::Assert::new().redact_with(redactions);
        for example in &examples {
            assert!(
                example.command.starts_with("reconcile-sim "),
                "{}:{}: an example runs reconcile-sim, not `{}`",
                example.page,
                example.line,
                example.command
            );
            let (status, stdout) = run(example, &dir, &bin);
            assert_eq!(
                status, example.status,
                "{}:{}: `{}` exited {status}, the page says {}; it printed:\n{stdout}",
                example.page, example.line, example.command, example.status
            );
            eprintln!("{}:{}: {}", example.page, example.line, example.command);
            assert.eq(stdout, example.output.as_str());
            ran += 1;
        }
    }
    assert!(ran >= 4, "only {ran} examples ran");
}

/// The parser reads commands, continuations, exit codes and output, and nothing outside
/// ` ```console ` blocks.
#[test]
fn an_example_is_a_command_its_exit_code_and_its_output() {
    let page = "text\n```sh\nreconcile-sim not-run\n```\n```console\n$ reconcile-sim a\n> --b\n? 1\nline one\n[..]\n$ reconcile-sim c\n...\n```\n";
    let got = examples("p.md", page);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].command, "reconcile-sim a --b");
    assert_eq!((got[0].status, got[0].line), (1, 6));
    assert_eq!(got[0].output, "line one\n[..]\n");
    assert_eq!(
        (got[1].command.as_str(), got[1].status),
        ("reconcile-sim c", 0)
    );
    assert_eq!(got[1].output, "...\n");
}

/// `docs/benchmarks.md` holds the current tables, each with its command, and nothing
/// else: history goes to `docs/benchmarks-journal.md` (issue 48: the page had grown back
/// to 622 lines after being cut to 299).
#[test]
fn the_benchmarks_page_stays_a_page_of_current_tables() {
    let page = std::fs::read_to_string(repo().join("docs/benchmarks.md")).unwrap();
    let lines = page.lines().count();
    assert!(
        lines <= 300,
        "docs/benchmarks.md has {lines} lines: move history to docs/benchmarks-journal.md"
    );
}
