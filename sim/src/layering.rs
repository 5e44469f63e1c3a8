//! The shape of the crate, checked on the source: each layer imports only the layers below
//! it, and no two files inside a layer use each other, directly or round a circle (tests
//! inside a file, after its `#[cfg(test)]`, may use anything).
//!
//! HTML reports follow the same table rather than forming a layer of their own: a
//! scenario's page is `trace`'s (`trace/html/`: a replay drawn, nothing of campaigns), a
//! campaign's page `campaign`'s (`campaign/report/`, on the same frame), so that `fuzz`,
//! `check` and `nightly` can write pages from their pipelines, below the CLI.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each layer and the layers its code may import, lowest first.
const LAYERS: &[(&str, &[&str])] = &[
    ("util", &["util"]),
    ("model", &["util", "model"]),
    ("exec", &["util", "model", "exec"]),
    ("store", &["util", "model", "exec", "store"]),
    ("oracle", &["util", "model", "oracle"]),
    ("run", &["util", "model", "oracle", "run"]),
    ("explore", &["util", "model", "oracle", "run", "explore"]),
    (
        "trace",
        &["util", "model", "oracle", "run", "explore", "trace"],
    ),
    (
        "campaign",
        &[
            "util", "model", "oracle", "run", "explore", "exec", "store", "trace", "campaign",
        ],
    ),
    (
        "testing",
        &[
            "util", "model", "oracle", "run", "explore", "exec", "store", "trace", "testing",
        ],
    ),
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The top-level modules `text` (a file's code before its tests, comments aside)
/// imports through `crate::`; none for a file of tests (`#![cfg(test)]`).
fn imports(text: &str) -> BTreeSet<String> {
    if text.contains("#![cfg(test)]") {
        return BTreeSet::new();
    }
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut found = BTreeSet::new();
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for (i, _) in line.match_indices("crate::") {
            let rest = &line[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            found.insert(name);
        }
    }
    found
}

#[test]
fn each_layer_imports_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut checked = 0;
    for (layer, allowed) in LAYERS {
        let mut files = Vec::new();
        rust_files(&src.join(layer), &mut files);
        assert!(!files.is_empty(), "no files under {layer}/");
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for module in imports(&text) {
                assert!(
                    allowed.contains(&module.as_str()),
                    "{}: the {layer} layer imports crate::{module}",
                    file.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 40);
    // The check can fail: a model file naming the oracle is caught.
    assert!(imports("use crate::oracle::Violation;\n").contains("oracle"));
    assert!(imports("// crate::oracle in a comment\n#[cfg(test)]\nuse crate::run;").is_empty());
}

/// Every `.rs` file under `src/`, by its path relative to it (`campaign/check/mod.rs`).
fn sources() -> BTreeMap<String, String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// A file's code as the circle check reads it: before its tests, without comment lines;
/// empty for a file of tests.
fn code_of(text: &str) -> String {
    if text.contains("#![cfg(test)]") {
        return String::new();
    }
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module path of a file (`campaign/check/mod.rs` → `campaign::check`).
fn module_of(file: &str) -> Vec<String> {
    let mut path: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if path.last().is_some_and(|l| l == "mod") {
        path.pop();
    }
    path
}

/// The file that holds what `path` names: the longest prefix of it that is a file.
fn file_of(files: &BTreeMap<String, String>, path: &[String]) -> Option<String> {
    (1..=path.len()).rev().find_map(|i| {
        let stem = path[..i].join("/");
        [format!("{stem}.rs"), format!("{stem}/mod.rs")]
            .into_iter()
            .find(|f| files.contains_key(f))
    })
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether `word` occurs in `text` as a whole identifier.
fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// The paths `line` names from its start (just after a `crate::`, `super::`, `child::`…
/// prefix): `a::b::C`, and for a group `a::{b, c::D}` each member appended.
fn paths_after(line: &str, prefix: &[String]) -> Vec<Vec<String>> {
    let mut path = prefix.to_vec();
    let mut rest = line;
    loop {
        let ident: String = rest.chars().take_while(|&c| is_ident(c)).collect();
        if ident == "super" {
            path.pop();
        } else if !ident.is_empty() && ident != "self" {
            path.push(ident.clone());
        }
        rest = &rest[ident.len()..];
        match rest.strip_prefix("::") {
            Some(r) if r.starts_with('{') => {
                let group = &r[1..r.find('}').unwrap_or(r.len())];
                return group
                    .split(',')
                    .map(|m| {
                        let mut p = path.clone();
                        p.extend(
                            m.split("::").map(|s| s.trim().to_string()).filter(|s| {
                                !s.is_empty() && s.chars().all(is_ident) && s != "self"
                            }),
                        );
                        p
                    })
                    .collect();
            }
            Some(r) if !ident.is_empty() => rest = r,
            _ => return vec![path],
        }
    }
}

/// The files of its own layer or any other that `file`'s code uses. A parent's
/// `pub use child::X` is a re-export, not a use, unless the parent's code names `X` too.
fn uses(files: &BTreeMap<String, String>, file: &str) -> BTreeSet<String> {
    let code = code_of(&files[file]);
    let me = module_of(file);
    let children = child_modules(&code);
    let reexport = |l: &str| -> Option<(String, String)> {
        let l = l.trim();
        let rest = l
            .strip_prefix("pub use ")
            .or_else(|| l.strip_prefix("pub(crate) use "))?;
        let rest = rest.strip_prefix("self::").unwrap_or(rest);
        let (child, names) = rest.split_once("::")?;
        children
            .contains(&child.to_string())
            .then(|| (child.to_string(), names.to_string()))
    };
    let body: String = code
        .lines()
        .filter(|l| reexport(l).is_none())
        .collect::<Vec<_>>()
        .join("\n");
    let plain: String = body
        .lines()
        .filter(|l| !l.trim_start().starts_with("use ") && !l.contains("mod "))
        .collect::<Vec<_>>()
        .join("\n");
    let mut used = BTreeSet::new();
    for (child, names) in code.lines().filter_map(reexport) {
        let child_file = file_of(files, &[me.clone(), vec![child]].concat()).unwrap();
        let names: Vec<String> = if names.trim_end_matches(';').trim() == "*" {
            public_items(&files[&child_file])
        } else {
            names
                .split(|c: char| !is_ident(c))
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        };
        if names.iter().any(|n| has_word(&plain, n)) {
            used.insert(child_file);
        }
    }
    for line in body.lines() {
        for (at, base) in path_starts(line, &me, &children) {
            for path in paths_after(&line[at..], &base) {
                used.extend(file_of(files, &path));
            }
        }
    }
    used.remove(file);
    used
}

/// The modules `code` declares (`mod a;`, `pub mod b;`, `pub(crate) mod c;`).
fn child_modules(code: &str) -> Vec<String> {
    code.lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l
                .strip_prefix("pub ")
                .or_else(|| l.split_once(") ").map(|(_, r)| r))
                .unwrap_or(l);
            l.strip_prefix("mod ")?.strip_suffix(';').map(String::from)
        })
        .collect()
}

/// Where paths start in `line` of module `me` (whose child modules are `children`): the
/// offset just after `crate::`, `super::` or `self::`, or at a bare `child::`, each with
/// the module path it is relative to.
fn path_starts(line: &str, me: &[String], children: &[String]) -> Vec<(usize, Vec<String>)> {
    let mut starts = Vec::new();
    for (root, base) in [
        ("crate::", Vec::new()),
        ("super::", me[..me.len().saturating_sub(1)].to_vec()),
        ("self::", me.to_vec()),
    ] {
        for (i, _) in line.match_indices(root) {
            if !line[..i].chars().next_back().is_some_and(is_ident) {
                starts.push((i + root.len(), base.clone()));
            }
        }
    }
    for child in children {
        let root = format!("{child}::");
        for (i, _) in line.match_indices(&root) {
            let before = line[..i].chars().next_back();
            if !before.is_some_and(|c| is_ident(c) || c == ':') {
                starts.push((i, me.to_vec()));
            }
        }
    }
    starts
}

/// The names a file declares `pub` at its top level.
fn public_items(text: &str) -> Vec<String> {
    code_of(text)
        .lines()
        .filter_map(|l| {
            let l = l.strip_prefix("pub ")?;
            let l = [
                "fn ", "struct ", "enum ", "type ", "const ", "static ", "trait ",
            ]
            .iter()
            .find_map(|k| l.strip_prefix(k))?;
            Some(l.chars().take_while(|&c| is_ident(c)).collect())
        })
        .collect()
}

/// Each circle of files inside one layer (a file's layer is its top folder), as the files
/// round it: found by a depth-first walk, one circle per back edge.
fn circles(files: &BTreeMap<String, String>) -> Vec<Vec<String>> {
    let layer = |f: &str| f.split('/').next().unwrap_or("").to_string();
    let graph: BTreeMap<String, BTreeSet<String>> = files
        .keys()
        .map(|f| {
            let same: BTreeSet<String> = uses(files, f)
                .into_iter()
                .filter(|g| layer(g) == layer(f) && g.contains('/'))
                .collect();
            (f.clone(), same)
        })
        .collect();
    let mut state: BTreeMap<&str, u8> = BTreeMap::new();
    let mut found = Vec::new();
    fn walk<'a>(
        f: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, u8>,
        stack: &mut Vec<&'a str>,
        found: &mut Vec<Vec<String>>,
    ) {
        state.insert(f, 1);
        stack.push(f);
        for g in &graph[f] {
            match state.get(g.as_str()) {
                None => walk(g, graph, state, stack, found),
                Some(1) => {
                    let from = stack.iter().position(|s| s == g).unwrap();
                    found.push(stack[from..].iter().map(|s| s.to_string()).collect());
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(f, 2);
    }
    for f in graph.keys() {
        if !state.contains_key(f.as_str()) {
            walk(f, &graph, &mut state, &mut Vec::new(), &mut found);
        }
    }
    found
}

#[test]
fn no_two_files_of_a_layer_use_each_other() {
    let files = sources();
    let found: Vec<String> = circles(&files).iter().map(|c| c.join(" → ")).collect();
    assert!(
        found.is_empty(),
        "circles of files inside a layer (each uses the next, the last the first):\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn the_circle_check_can_fail() {
    let files = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(f, t)| (f.to_string(), t.to_string()))
            .collect()
    };
    // A sibling cycle through `super::`.
    let two = files(&[
        ("l/a.rs", "use super::b::B;\npub struct A;"),
        ("l/b.rs", "use super::a::A;\npub struct B;"),
        ("l/mod.rs", "pub mod a;\npub mod b;"),
    ]);
    assert_eq!(
        circles(&two),
        vec![vec!["l/a.rs".to_string(), "l/b.rs".to_string()]]
    );
    // A parent that only re-exports its child, which uses the parent: no circle; once the
    // parent's own code calls the child (by the re-exported name, or by a bare child
    // path), a circle.
    let child = ("l/c.rs", "use crate::l::Shared;\npub fn f() {}");
    let reexport = files(&[
        ("l/mod.rs", "mod c;\npub use c::f;\npub struct Shared;"),
        child,
    ]);
    assert!(circles(&reexport).is_empty());
    let called = files(&[
        (
            "l/mod.rs",
            "mod c;\npub use c::f;\npub struct Shared;\nfn g() { f() }",
        ),
        child,
    ]);
    assert_eq!(circles(&called).len(), 1);
    let bare = files(&[
        ("l/mod.rs", "mod c;\npub struct Shared;\nfn g() { c::f() }"),
        child,
    ]);
    assert_eq!(circles(&bare).len(), 1);
    // Tests and comments are not uses.
    let tests = files(&[
        ("l/a.rs", "// super::b\n#[cfg(test)]\nuse super::b::B;"),
        ("l/b.rs", "use super::a::A;"),
    ]);
    assert!(circles(&tests).is_empty());
}
