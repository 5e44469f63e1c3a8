//! Results that can be merged: what a `fuzz`, `check` or `nightly` run (sharded or not,
//! [`crate::campaign::shard`]) writes with `--result FILE`, and `reconcile-sim merge`, which
//! adds the results of the shards of one campaign back up into the result of the whole
//! campaign: the same counts, the same first failing seed and the same shrunk scenario per
//! signature, hence the same table, JSON and JUnit as the unsharded run.
//!
//! **The file.** One JSON object: `format` ([`FORMAT`]) and `format_version`, the `tool`
//! that wrote it (`reconcile-sim X.Y.Z`), the `kind` of run (`fuzz`, `check`, `nightly`;
//! a new kind plugs in as one more [`ShardResult`] and one more arm in [`merge_files`]),
//! the `shards` it holds (`count` and the indices `done`: a shard's own result holds one,
//! a merged one several) and the kind's `result`: its `config` (everything that decides
//! what the run computes: two results merge only when their configs are equal) and its
//! data, with every shrunk scenario embedded, so one file is the whole result.
//!
//! **Merging** is order-independent (parts are sorted by shard first) and refuses, with a
//! clear error (exit 2): files that are not results, different kinds, tool versions or
//! format versions (including this binary's own), different configurations (naming the
//! field), different shard counts, a shard given twice and, unless asked to allow it, a
//! shard missing. Each kind says how its data adds up: counts are added, the first
//! failing seed of a signature is the lowest, and the shrunk scenario of a signature is
//! the one its lowest seed's shard saved, which is what the unsharded run saves too
//! (shrinking is deterministic under the replay limit).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::campaign::error::CampaignError;

pub mod check;
pub mod file;
pub mod fuzz;
pub mod nightly;

pub use check::CheckResult;
pub use file::{tool, ResultFile, SavedScenario, ShardResult, ShardSet, FORMAT, FORMAT_VERSION};
pub use fuzz::FuzzResult;
pub use nightly::NightlyResult;

/// The header of any result file, kind not yet known.
#[derive(Deserialize)]
struct Header {
    format: Option<String>,
    format_version: Option<u32>,
    tool: Option<String>,
    kind: Option<String>,
}

/// Merged results of one kind.
#[derive(Clone, Debug)]
pub enum Merged {
    /// `fuzz` results.
    Fuzz(ResultFile<FuzzResult>),
    /// `check` results.
    Check(ResultFile<CheckResult>),
    /// `nightly` results.
    Nightly(ResultFile<NightlyResult>),
    /// `explore --json` results (the shards of one search): merged by
    /// [`crate::explore::merge_explore_results`], which needs every shard.
    Explore(Box<crate::explore::ExploreResult>),
}

/// The result files `paths` name: a file is taken as given; a directory is searched,
/// recursively, for files named `result.json` or `*.result.json` (a directory with none is
/// an error). Sorted, without duplicates.
pub fn result_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, CampaignError> {
    let mut out = BTreeSet::new();
    for p in paths {
        if p.is_dir() {
            let found = find_results(p)?;
            if found.is_empty() {
                return Err(CampaignError::BadInput(format!(
                    "{}: no result file in this directory (files named result.json or *.result.json, as `--result` writes them)",
                    p.display()
                )));
            }
            out.extend(found);
        } else if p.exists() {
            out.insert(p.clone());
        } else {
            return Err(CampaignError::BadInput(format!(
                "{}: no such file or directory",
                p.display()
            )));
        }
    }
    Ok(out.into_iter().collect())
}

/// Whether `name` is the name of a result file.
pub fn is_result_name(name: &str) -> bool {
    name == "result.json" || name.ends_with(".result.json")
}

fn find_results(dir: &Path) -> Result<Vec<PathBuf>, CampaignError> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(CampaignError::io("read", &d))?;
        for entry in entries {
            let p = entry.map_err(CampaignError::io("read", &d))?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .file_name()
                .is_some_and(|n| is_result_name(&n.to_string_lossy()))
            {
                found.push(p);
            }
        }
    }
    Ok(found)
}

/// Read and merge the result files `paths` names (see [`result_files`]). With
/// `allow_partial`, missing shards are allowed (the merged result says which are missing).
pub fn merge_paths(paths: &[PathBuf], allow_partial: bool) -> Result<Merged, CampaignError> {
    let files = result_files(paths)?;
    let mut texts = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(CampaignError::io("read", &f))?;
        texts.push((f, text));
    }
    merge_texts(&texts, allow_partial)
}

/// [`merge_paths`] over file contents already read: `(path, text)`.
pub fn merge_texts(
    texts: &[(PathBuf, String)],
    allow_partial: bool,
) -> Result<Merged, CampaignError> {
    let Some((first_path, _)) = texts.first() else {
        return Err(CampaignError::BadInput(
            "nothing to merge: name result files or directories holding them".to_string(),
        ));
    };
    let mut kind: Option<(String, &Path)> = None;
    for (path, text) in texts {
        let h = header(path, text)?;
        match &kind {
            None => kind = Some((h, path)),
            Some((k, p)) if *k != h => {
                return Err(CampaignError::BadInput(format!(
                "{} is a `{k}` result and {} a `{h}` result: only results of one kind of run merge",
                p.display(),
                path.display()
            )))
            }
            Some(_) => {}
        }
    }
    let kind = kind.map(|k| k.0).unwrap_or_default();
    match kind.as_str() {
        fuzz::KIND => Ok(Merged::Fuzz(merge_files(texts, allow_partial)?)),
        check::KIND => Ok(Merged::Check(merge_files(texts, allow_partial)?)),
        nightly::KIND => Ok(Merged::Nightly(merge_files(texts, allow_partial)?)),
        crate::explore::KIND => merge_explore(texts, allow_partial),
        other => Err(CampaignError::BadInput(format!(
            "{}: results of kind `{other}` cannot be merged by {} (it merges fuzz, check, nightly and explore results)",
            first_path.display(),
            tool()
        ))),
    }
}

/// The explore results `texts` merged (every shard must be there: a search with a shard
/// missing has a gap, so `allow_partial` is refused with a message saying why).
fn merge_explore(
    texts: &[(PathBuf, String)],
    allow_partial: bool,
) -> Result<Merged, CampaignError> {
    if allow_partial {
        return Err(CampaignError::BadInput(
            "--allow-partial: explore results merge only with every shard there (a search with a shard missing verifies nothing); drop the flag".to_string(),
        ));
    }
    let mut parts = Vec::new();
    for (path, text) in texts {
        let r: crate::explore::ExploreResult = serde_json::from_str(text).map_err(|e| {
            CampaignError::BadInput(format!(
                "{}: not an explore result (line {} column {}: {e})",
                path.display(),
                e.line(),
                e.column()
            ))
        })?;
        parts.push(r);
    }
    let merged = crate::explore::merge_explore_results(parts).map_err(|e| {
        let names: Vec<String> = texts.iter().map(|(p, _)| p.display().to_string()).collect();
        CampaignError::BadInput(format!("{e} (results, in order: {})", names.join(", ")))
    })?;
    Ok(Merged::Explore(Box::new(merged)))
}

/// The kind of the result in `text`, once its header is checked: a result file, of this
/// format version and of this very tool.
fn header(path: &Path, text: &str) -> Result<String, CampaignError> {
    let bad = |why: String| CampaignError::BadInput(format!("{}: {why}", path.display()));
    let h: Header = serde_json::from_str(text).map_err(|e| {
        bad(format!(
            "not a result file (line {} column {}: {e})",
            e.line(),
            e.column()
        ))
    })?;
    if h.format.as_deref() != Some(FORMAT) {
        return Err(bad(format!(
            "not a result file (no `\"format\": \"{FORMAT}\"`; results are what fuzz, check and nightly write with --result)"
        )));
    }
    if h.format_version != Some(FORMAT_VERSION) {
        return Err(bad(format!(
            "result format version {} is not the one {} reads ({FORMAT_VERSION})",
            h.format_version
                .map_or("(none)".to_string(), |v| v.to_string()),
            tool()
        )));
    }
    let tool_here = tool();
    match h.tool {
        Some(t) if t == tool_here => {}
        t => {
            return Err(bad(format!(
                "written by {}, not by this {tool_here}: results merge only with the tool version that made them (rerun the shards, or merge with that version)",
                t.as_deref().unwrap_or("an unnamed tool")
            )))
        }
    }
    h.kind
        .ok_or_else(|| bad("a result file without a `kind`".to_string()))
}

/// Parse every text as a `T` result, check they are parts of one campaign, and merge.
pub fn merge_files<T: ShardResult>(
    texts: &[(PathBuf, String)],
    allow_partial: bool,
) -> Result<ResultFile<T>, CampaignError> {
    let parts = parse_parts::<T>(texts)?;
    let shards = shards_of_one_campaign(&parts)?;
    require_complete(&shards, allow_partial)?;
    let count = shards.count;
    let mut parts: Vec<(ShardSet, T)> = parts
        .into_iter()
        .map(|(_, f)| (f.shards, f.result))
        .collect();
    parts.sort_by_key(|(s, _)| s.done.first().copied().unwrap_or(0));
    let merged = T::merge(parts, count)?;
    Ok(ResultFile::new(shards, merged))
}

/// Each text parsed as a `T` result file and validated, with its path; an error names
/// the file, line and column.
fn parse_parts<T: ShardResult>(
    texts: &[(PathBuf, String)],
) -> Result<Vec<(PathBuf, ResultFile<T>)>, CampaignError> {
    let mut parts: Vec<(PathBuf, ResultFile<T>)> = Vec::new();
    for (path, text) in texts {
        let file: ResultFile<T> = serde_json::from_str(text).map_err(|e| {
            CampaignError::BadInput(format!(
                "{}:{}:{}: not a valid `{}` result: {e}",
                path.display(),
                e.line(),
                e.column(),
                T::KIND
            ))
        })?;
        file.result.validate(path)?;
        parts.push((path.clone(), file));
    }
    Ok(parts)
}

/// The shards the `parts` hold together, when they are parts of one campaign: the same
/// shard count and configuration as the first, each shard in range and given once.
fn shards_of_one_campaign<T: ShardResult>(
    parts: &[(PathBuf, ResultFile<T>)],
) -> Result<ShardSet, CampaignError> {
    let (first_path, first) = &parts[0];
    let count = first.shards.count;
    let first_config = serde_json::to_value(first.result.config()).expect("a config serialises");
    let mut seen: Vec<(u64, &Path)> = Vec::new();
    for (path, f) in parts {
        if f.shards.count != count || f.shards.count == 0 {
            return Err(CampaignError::BadInput(format!(
                "{} holds shards of {} and {} shards of {}: the parts of one campaign share N in --shard I/N",
                first_path.display(),
                count,
                path.display(),
                f.shards.count
            )));
        }
        if f.result.config() != first.result.config() {
            let other = serde_json::to_value(f.result.config()).expect("a config serialises");
            return Err(CampaignError::BadInput(format!(
                "{} and {} ran different configurations ({}): only shards of one campaign merge",
                first_path.display(),
                path.display(),
                first_difference(&first_config, &other, "config")
            )));
        }
        for &i in &f.shards.done {
            if i == 0 || i > count {
                return Err(CampaignError::BadInput(format!(
                    "{}: shard {i} of {count} is out of range",
                    path.display()
                )));
            }
            if let Some((_, p)) = seen.iter().find(|(j, _)| *j == i) {
                return Err(CampaignError::BadInput(format!(
                    "shard {i}/{count} is given twice: in {} and in {}",
                    p.display(),
                    path.display()
                )));
            }
            seen.push((i, path));
        }
    }
    let mut done: Vec<u64> = seen.iter().map(|(i, _)| *i).collect();
    done.sort_unstable();
    Ok(ShardSet { count, done })
}

/// An error naming the missing shards, unless every shard is there or `allow_partial`:
/// the merge of an incomplete campaign is not the campaign's result.
fn require_complete(shards: &ShardSet, allow_partial: bool) -> Result<(), CampaignError> {
    if shards.complete() || allow_partial {
        return Ok(());
    }
    let count = shards.count;
    let missing: Vec<String> = shards
        .missing()
        .iter()
        .map(|i| format!("{i}/{count}"))
        .collect();
    Err(CampaignError::BadInput(format!(
        "shard{} {} missing: the merge of an incomplete campaign is not the campaign's result (pass --allow-partial to merge what is here)",
        if missing.len() == 1 { "" } else { "s" },
        missing.join(", ")
    )))
}

/// Where two JSON values first differ, as `path: a vs b`.
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> String {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let (va, vb) = (
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                );
                if va != vb {
                    return first_difference(va, vb, &format!("{at}.{k}"));
                }
            }
            format!("{at} differs")
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                if va != vb {
                    return first_difference(va, vb, &format!("{at}[{i}]"));
                }
            }
            format!("{at} differs")
        }
        _ => format!(
            "`{at}` is {} in one and {} in the other",
            short(a),
            short(b)
        ),
    }
}

fn short(v: &serde_json::Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s
    }
}
