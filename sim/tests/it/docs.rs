//! The docs name only what exists: every file or folder path and every module path that
//! `README.md` and the pages of `docs/` name in backticks resolves in the repository.
//! A moved module fails this test until the docs follow it.
//!
//! What counts as a name (in an inline code span, outside fenced blocks, which hold
//! commands and their made-up file names):
//! - a path under one of [`ROOTS`] (`sim/src/run/mod.rs`, `docs/model.md`, `scripts/`),
//!   or under `src/`, read as `sim/src/`; a `:LINE` suffix is dropped; a path with a
//!   wildcard or placeholder (`*`, `…`, `<target>`, `{a,b}`, `$VAR`) is not a name;
//! - a module path `crate::a::b::Item` or `reconcile_sim::a::b::Item`: the longest
//!   prefix that is a module file (`sim/src/a/b.rs` or `sim/src/a/b/mod.rs`) must exist,
//!   and each segment after it must appear as a word in that file.

use std::path::Path;

use crate::support::repo;

/// The folders a repository path may start with.
const ROOTS: &[&str] = &[
    "sim/",
    "docs/",
    "scripts/",
    "scenarios/",
    "adapters/",
    "fuzz/",
    "corpus/",
    "examples/",
    ".ci/",
    ".github/",
    ".clusterfuzzlite/",
    "report-tests/",
];

/// Paths named on purpose that a fresh clone lacks.
const SCRATCH: &[&str] = &[
    // cargo-fuzz's own corpus: git-ignored scratch, made by `mkdir -p` (README).
    "fuzz/corpus/",
];

/// Pages that are dated records, naming paths as they were that day.
const DATED: &[&str] = &["docs/benchmarks.md", "docs/benchmarks-journal.md"];

/// A name a document gives, and the line it is on.
#[derive(Debug, PartialEq, Eq)]
enum Named {
    /// A path relative to the repository root.
    Path(String),
    /// A module path's segments after `crate::` / `reconcile_sim::`.
    Module(Vec<String>),
}

/// Every name in the inline code spans of `text`, with its line number (1-based).
fn names(text: &str) -> Vec<(usize, Named)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Odd pieces between backticks are code spans.
        for span in line.split('`').skip(1).step_by(2) {
            for token in span.split(|c: char| c.is_whitespace() || "(),;\"'".contains(c)) {
                if let Some(named) = name_of(token) {
                    out.push((i + 1, named));
                }
            }
        }
    }
    out
}

/// The name `token` gives, if it is one.
fn name_of(token: &str) -> Option<Named> {
    for prefix in ["crate::", "reconcile_sim::"] {
        if let Some(rest) = token.strip_prefix(prefix) {
            let segments: Vec<String> = rest
                .split("::")
                .take_while(|s| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_'))
                .map(str::to_string)
                .collect();
            return (!segments.is_empty()).then_some(Named::Module(segments));
        }
    }
    let token = token.trim_end_matches(['.', ',', ':']);
    // Drop a `:LINE` or `:LINE-LINE` suffix.
    let token = match token.rsplit_once(':') {
        Some((path, line)) if line.chars().all(|c| c.is_ascii_digit() || c == '-') => path,
        _ => token,
    };
    if token.contains(['*', '…', '<', '>', '{', '}', '$', '|']) {
        return None;
    }
    let path = match token.strip_prefix("src/") {
        Some(rest) => format!("sim/src/{rest}"),
        None if ROOTS.iter().any(|r| token.starts_with(r)) => token.to_string(),
        None => return None,
    };
    Some(Named::Path(path))
}

/// Whether `word` occurs in `text` as a whole identifier.
fn has_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// Why `named` does not resolve under `root`, or `None` when it does.
fn missing(root: &Path, named: &Named) -> Option<String> {
    match named {
        Named::Path(p) if SCRATCH.contains(&p.as_str()) => None,
        Named::Path(p) => (!root.join(p).exists()).then(|| format!("no file or folder {p}")),
        Named::Module(segments) => {
            let mut dir = root.join("sim/src");
            let mut file = None;
            let mut rest = segments.as_slice();
            while let Some((first, tail)) = rest.split_first() {
                let as_file = dir.join(format!("{first}.rs"));
                let as_dir = dir.join(first).join("mod.rs");
                let found = [as_file, as_dir].into_iter().find(|f| f.is_file());
                let Some(found) = found else { break };
                file = Some(found);
                dir = dir.join(first);
                rest = tail;
            }
            let module = format!("crate::{}", segments.join("::"));
            let Some(file) = file else {
                return Some(format!("{module}: no module sim/src/{}", segments[0]));
            };
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let absent: Vec<&String> = rest.iter().filter(|s| !has_word(&text, s)).collect();
            (!absent.is_empty()).then(|| {
                let file = file
                    .strip_prefix(root)
                    .unwrap_or(&file)
                    .display()
                    .to_string();
                format!("{module}: no {absent:?} in {file}")
            })
        }
    }
}

/// Every name in `text` that does not resolve under `root`, as `page:line: why`.
fn unresolved(root: &Path, page: &str, text: &str) -> Vec<String> {
    names(text)
        .iter()
        .filter_map(|(line, named)| missing(root, named).map(|why| format!("{page}:{line}: {why}")))
        .collect()
}

#[test]
fn every_path_and_module_the_readme_and_docs_name_exists() {
    let root = repo();
    let mut pages = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| format!("docs/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|p| p.ends_with(".md") && !DATED.contains(&p.as_str()))
        .collect();
    docs.sort();
    pages.extend(docs);
    assert!(pages.contains(&"docs/architecture.md".to_string()));
    let mut problems = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(root.join(page)).unwrap();
        problems.extend(unresolved(&root, page, &text));
    }
    assert!(
        problems.is_empty(),
        "names in the docs that do not exist (move the doc with the code):\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_architecture_page_names_enough_to_be_checked() {
    let text = std::fs::read_to_string(repo().join("docs/architecture.md")).unwrap();
    let named = names(&text);
    assert!(named.len() >= 40, "only {} names found", named.len());
    assert!(named.iter().any(|(_, n)| matches!(n, Named::Module(_))));
}

#[test]
fn a_made_up_path_or_module_is_reported_and_real_ones_are_not() {
    let page = "\
`sim/src/run/mod.rs`, `src/oracle/` and `crate::model::store::Store` exist.\n\
`sim/src/no/such.rs:12`, `docs/nothing.md` and `reconcile_sim::model::nowhere` do not;\n\
nor does an item `crate::oracle::NoSuchInvariant`, or the module in `crate::nosuch::x`.\n\
```sh\n\
cat `sim/src/in/a/fence.rs`   # commands are not checked\n\
```\n\
Placeholders are not names: `scenarios/<store>/`, `fuzz/corpus/`, `corpus/*.json`.\n";
    let problems = unresolved(&repo(), "made-up.md", page);
    assert_eq!(
        problems,
        [
            "made-up.md:2: no file or folder sim/src/no/such.rs",
            "made-up.md:2: no file or folder docs/nothing.md",
            "made-up.md:2: crate::model::nowhere: no [\"nowhere\"] in sim/src/model/mod.rs",
            "made-up.md:3: crate::oracle::NoSuchInvariant: no [\"NoSuchInvariant\"] in sim/src/oracle/mod.rs",
            "made-up.md:3: crate::nosuch::x: no module sim/src/nosuch",
        ]
    );
}

#[test]
fn a_word_is_a_whole_identifier() {
    assert!(has_word("pub fn check_step(", "check_step"));
    assert!(!has_word("pub fn check_steps(", "check_step"));
    assert!(!has_word("fn precheck_step(", "check_step"));
}
