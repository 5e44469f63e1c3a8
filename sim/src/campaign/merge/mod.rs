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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::fuzz::CHUNK_SEEDS;
    use crate::campaign::merge::fuzz::tests::result_from;
    use crate::campaign::shard::Shard;
    use crate::store::by_name;

    /// Shard `i` of `n` of a small `naive` campaign (two chunks), as a result file's text.
    fn part(i: u64, n: u64) -> String {
        let naive = by_name("naive").unwrap();
        result_from(
            &[&naive],
            11,
            2 * CHUNK_SEEDS,
            true,
            Shard::new(i, n).unwrap(),
        )
        .to_json()
    }

    fn named(texts: &[String]) -> Vec<(PathBuf, String)> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| (PathBuf::from(format!("p{}.result.json", i + 1)), t.clone()))
            .collect()
    }

    /// The error of merging `texts` (named p1…), as the user reads it.
    fn refusal(texts: &[String], allow_partial: bool) -> String {
        match merge_texts(&named(texts), allow_partial) {
            Ok(m) => panic!("merged: {m:?}"),
            Err(e) => e.to_string(),
        }
    }

    /// `text` with `edit` applied to its JSON.
    fn edited(text: &str, edit: impl FnOnce(&mut serde_json::Value)) -> String {
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        edit(&mut v);
        serde_json::to_string_pretty(&v).unwrap()
    }

    fn fuzz_of(m: Merged) -> ResultFile<FuzzResult> {
        match m {
            Merged::Fuzz(r) => r,
            other => panic!("not a fuzz result: {other:?}"),
        }
    }

    /// The shards of one campaign merge in any order; the merged file says which shards it
    /// holds and is a result of this tool.
    #[test]
    fn the_shards_of_one_campaign_merge_in_any_order() {
        let (one, two) = (part(1, 2), part(2, 2));
        let a = fuzz_of(merge_texts(&named(&[one.clone(), two.clone()]), false).unwrap());
        let b = fuzz_of(merge_texts(&named(&[two, one]), false).unwrap());
        assert_eq!(a, b);
        assert_eq!(
            a.shards,
            ShardSet {
                count: 2,
                done: vec![1, 2]
            }
        );
        assert_eq!(
            (
                a.format.as_str(),
                a.format_version,
                a.tool.clone(),
                a.kind.as_str()
            ),
            (FORMAT, FORMAT_VERSION, tool(), fuzz::KIND)
        );
        assert_eq!(a.result.report.seeds, 2 * CHUNK_SEEDS);
        // The last shard of N is in range.
        assert!(a.shards.complete());
    }

    /// What is not a result of this very tool is refused, naming the file and why.
    #[test]
    fn what_is_not_a_result_of_this_tool_is_refused_naming_the_file() {
        let good = part(1, 1);
        assert_eq!(
            refusal(&[], false),
            "nothing to merge: name result files or directories holding them"
        );
        assert!(refusal(&["not json".to_string()], false)
            .starts_with("p1.result.json: not a result file (line 1 column"));
        assert!(refusal(&["{}".to_string()], false).starts_with(
            "p1.result.json: not a result file (no `\"format\": \"reconcile-sim-result\"`"
        ));
        let other_version = edited(&good, |v| v["format_version"] = (FORMAT_VERSION + 1).into());
        assert_eq!(
            refusal(&[other_version], false),
            format!(
                "p1.result.json: result format version {} is not the one {} reads ({FORMAT_VERSION})",
                FORMAT_VERSION + 1,
                tool()
            )
        );
        let no_version = edited(&good, |v| {
            v.as_object_mut().unwrap().remove("format_version");
        });
        assert!(refusal(&[no_version], false).contains("result format version (none) is not"));
        let old_tool = edited(&good, |v| v["tool"] = "reconcile-sim 0.0.0".into());
        assert!(refusal(&[good.clone(), old_tool], false).starts_with(&format!(
            "p2.result.json: written by reconcile-sim 0.0.0, not by this {}: results merge only with the tool version that made them",
            tool()
        )));
        let no_tool = edited(&good, |v| {
            v.as_object_mut().unwrap().remove("tool");
        });
        assert!(
            refusal(&[no_tool], false).starts_with("p1.result.json: written by an unnamed tool")
        );
        let no_kind = edited(&good, |v| {
            v.as_object_mut().unwrap().remove("kind");
        });
        assert_eq!(
            refusal(&[no_kind], false),
            "p1.result.json: a result file without a `kind`"
        );
        let odd_kind = edited(&good, |v| v["kind"] = "xyzzy".into());
        assert_eq!(
            refusal(&[odd_kind], false),
            format!("p1.result.json: results of kind `xyzzy` cannot be merged by {} (it merges fuzz, check, nightly and explore results)", tool())
        );
        let empty_kind = edited(&good, |v| v["kind"] = "".into());
        assert!(refusal(&[empty_kind], false).contains("results of kind `` cannot be merged"));
        // A result whose data is not its kind's: the file, line and column, and the kind.
        let bad_data = edited(&good, |v| v["result"]["covered"] = "x".into());
        let e = refusal(&[bad_data], false);
        assert!(
            e.starts_with("p1.result.json:") && e.contains(": not a valid `fuzz` result: "),
            "{e}"
        );
    }

    /// Results of different kinds of run do not merge.
    #[test]
    fn results_of_different_kinds_are_refused() {
        let one = part(1, 2);
        let two_as_check = edited(&part(2, 2), |v| v["kind"] = "check".into());
        assert_eq!(
            refusal(&[one, two_as_check], false),
            "p1.result.json is a `fuzz` result and p2.result.json a `check` result: only results of one kind of run merge"
        );
    }

    /// Parts of different campaigns are refused: another shard count, another config (the
    /// first field that differs is named), a shard out of range or given twice.
    #[test]
    fn parts_of_different_campaigns_are_refused_naming_what_differs() {
        let (one, two) = (part(1, 2), part(2, 2));
        assert_eq!(
            refusal(&[one.clone(), part(2, 3)], false),
            "p1.result.json holds shards of 2 and p2.result.json shards of 3: the parts of one campaign share N in --shard I/N"
        );
        let none = edited(&one, |v| {
            v["shards"] = serde_json::json!({"count": 0, "done": []});
        });
        assert!(refusal(&[none], true).contains("holds shards of 0 and p1.result.json shards of 0"));
        let budget = edited(&two, |v| {
            v["result"]["config"]["budget"]["seeds"] = 129.into()
        });
        assert_eq!(
            refusal(&[one.clone(), budget], false),
            "p1.result.json and p2.result.json ran different configurations (`config.budget.seeds` is 128 in one and 129 in the other): only shards of one campaign merge"
        );
        // A part whose report is not of its config's stores, or without the coverage its
        // config asks for, does not hold together.
        let not_its_stores = "p2.result.json: the report's stores are not the config's";
        let stores = edited(&two, |v| {
            v["result"]["config"]["stores"] = serde_json::json!(["canary"])
        });
        assert_eq!(refusal(&[one.clone(), stores], false), not_its_stores);
        let more = edited(&two, |v| {
            v["result"]["config"]["stores"] = serde_json::json!(["naive", "canary"])
        });
        assert_eq!(refusal(&[one.clone(), more], false), not_its_stores);
        let uncovered = edited(&two, |v| v["result"]["coverage"] = serde_json::json!([]));
        assert_eq!(
            refusal(&[one.clone(), uncovered], false),
            "p2.result.json: coverage is not given for every store"
        );
        let no_coverage = |t: &str| {
            edited(t, |v| {
                v["result"]["config"]["coverage"] = false.into();
                v["result"]["coverage"] = serde_json::json!([]);
            })
        };
        let merged =
            fuzz_of(merge_texts(&named(&[no_coverage(&one), no_coverage(&two)]), false).unwrap());
        assert!(merged.result.coverage.is_empty());
        // Long values are cut at 80 characters; 80 are not cut.
        let long = "x".repeat(100);
        let cut = edited(&two, |v| {
            v["result"]["config"]["max_shrink_time"] = long.clone().into()
        });
        assert!(refusal(&[one.clone(), cut], false)
            .contains(&format!("in one and \"{}…", "x".repeat(79))));
        let eighty = "y".repeat(78); // with its quotes, 80 characters
        let whole = edited(&two, |v| {
            v["result"]["config"]["max_shrink_time"] = eighty.clone().into()
        });
        assert!(refusal(&[one.clone(), whole], false)
            .contains(&format!("in one and \"{eighty}\" in the other")));
        for bad in [0, 3] {
            let out = edited(&two, |v| v["shards"]["done"] = serde_json::json!([bad]));
            assert_eq!(
                refusal(&[one.clone(), out], false),
                format!("p2.result.json: shard {bad} of 2 is out of range")
            );
        }
        assert_eq!(
            refusal(&[one.clone(), two.clone(), one.clone()], false),
            "shard 1/2 is given twice: in p1.result.json and in p3.result.json"
        );
    }

    /// A campaign with shards missing merges only when asked to, and the merge says which.
    #[test]
    fn missing_shards_are_refused_unless_allowed() {
        assert_eq!(
            refusal(&[part(1, 2)], false),
            "shard 2/2 missing: the merge of an incomplete campaign is not the campaign's result (pass --allow-partial to merge what is here)"
        );
        assert!(refusal(&[part(2, 3)], false).starts_with("shards 1/3, 3/3 missing: "));
        let partial = fuzz_of(merge_texts(&named(&[part(2, 3)]), true).unwrap());
        assert_eq!(partial.shards.missing(), vec![1, 3]);
        assert!(!partial.shards.complete());
    }

    /// `first_difference` names the first key or index that differs.
    #[test]
    fn the_first_difference_is_named_by_its_path() {
        use serde_json::json;
        let a = json!({"a": 1, "b": {"c": [1, 2, 3]}});
        let b = json!({"a": 1, "b": {"c": [1, 5, 3]}});
        assert_eq!(
            first_difference(&a, &b, "x"),
            "`x.b.c[1]` is 2 in one and 5 in the other"
        );
        let c = json!({"a": 1, "b": {"c": [1, 2]}});
        assert_eq!(
            first_difference(&a, &c, "x"),
            "`x.b.c` is [1,2,3] in one and [1,2] in the other"
        );
        assert_eq!(first_difference(&a, &a, "x"), "x differs");
        assert_eq!(first_difference(&json!([1]), &json!([1]), "y"), "y differs");
        let d = json!({"a": 1});
        assert_eq!(
            first_difference(&a, &d, "x"),
            "`x.b` is {\"c\":[1,2,3]} in one and null in the other"
        );
    }

    /// Directories are searched for result files, recursively; a file is taken as given;
    /// a path that is not there, or a directory without results, is an error.
    #[test]
    fn result_files_are_found_in_directories_and_taken_as_given() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("a/b")).unwrap();
        for f in [
            "result.json",
            "a/one.result.json",
            "a/b/result.json",
            "a/results.json",
            "a/result.json.bak",
            "a/b/xresult.json",
        ] {
            std::fs::write(d.join(f), "{}").unwrap();
        }
        let found = result_files(&[d.to_path_buf()]).unwrap();
        assert_eq!(
            found,
            vec![
                d.join("a/b/result.json"),
                d.join("a/one.result.json"),
                d.join("result.json")
            ]
        );
        let given = result_files(&[
            d.join("a/results.json"),
            d.join("a/results.json"),
            d.join("a"),
        ])
        .unwrap();
        assert_eq!(
            given,
            vec![
                d.join("a/b/result.json"),
                d.join("a/one.result.json"),
                d.join("a/results.json")
            ]
        );
        std::fs::create_dir_all(d.join("empty/sub")).unwrap();
        let e = result_files(&[d.join("empty")]).unwrap_err().to_string();
        assert_eq!(e, format!("{}: no result file in this directory (files named result.json or *.result.json, as `--result` writes them)", d.join("empty").display()));
        let e = result_files(&[d.join("nothing")]).unwrap_err().to_string();
        assert_eq!(
            e,
            format!("{}: no such file or directory", d.join("nothing").display())
        );
        assert!(is_result_name("result.json") && is_result_name("x.result.json"));
        assert!(!is_result_name("results.json") && !is_result_name("xresult.json"));
    }

    /// `merge_paths` reads the files a directory holds and merges them as their texts merge.
    #[test]
    fn merge_paths_reads_the_result_files_and_merges_them() {
        let dir = tempfile::tempdir().unwrap();
        let (one, two) = (part(1, 2), part(2, 2));
        std::fs::create_dir_all(dir.path().join("s2")).unwrap();
        std::fs::write(dir.path().join("s1.result.json"), &one).unwrap();
        std::fs::write(dir.path().join("s2/result.json"), &two).unwrap();
        let read = fuzz_of(merge_paths(&[dir.path().to_path_buf()], false).unwrap());
        let texts = fuzz_of(merge_texts(&named(&[one, two]), false).unwrap());
        assert_eq!(read, texts);
        assert!(merge_paths(&[dir.path().join("s2")], false)
            .unwrap_err()
            .to_string()
            .starts_with("shard 1/2 missing"));
    }

    /// Explore results merge only whole, and a file that is not one is named.
    #[test]
    fn explore_results_are_refused_partial_or_malformed() {
        let header = |extra: &str| {
            format!(
                "{{\"format\": \"{FORMAT}\", \"format_version\": {FORMAT_VERSION}, \"tool\": \"{}\", \"kind\": \"{}\"{extra}}}",
                tool(),
                crate::explore::KIND
            )
        };
        let e = refusal(&[header("")], true);
        assert!(
            e.starts_with("--allow-partial: explore results merge only with every shard there"),
            "{e}"
        );
        let e = refusal(&[header("")], false);
        assert!(
            e.starts_with("p1.result.json: not an explore result (line "),
            "{e}"
        );
    }
}
