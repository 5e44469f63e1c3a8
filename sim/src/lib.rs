//! reconcile-sim: a deterministic interleaving simulator and fuzz harness for the frontend
//! code that decides which transient ("live") chat rows to keep or drop when a turn's
//! durable chunks arrive.
//!
//! The modules follow the pipeline, and imports point one way only (a test checks it):
//!
//! - [`model`]: the simulated world (backend, clients, network), its steps and options,
//!   the wire types a store sees, and the [`model::store::Store`] interface it drives.
//! - [`exec`]: the transport to a store in another process (`exec:'COMMAND'`): the line
//!   protocol, its processes, faults and timeouts.
//! - [`store`]: the stores under test, by kind: the note's tab store and its policies
//!   (`store::note`), `durable` (`store::durable`), and the registry that resolves a
//!   `--store` spec, `exec:` through [`exec`].
//! - [`oracle`]: judges what each tab shows against the backend's ground truth.
//! - [`run`]: one run: the run loop (a step source, the world, the oracle, an observer)
//!   and the strategies that choose steps.
//! - [`explore`]: the bounded exhaustive search of every schedule of a small world (a
//!   model checker over [`run`]'s pieces), its reductions, shards and result files.
//! - [`trace`]: what runs leave behind: scenario files, shrinking, timelines, coverage.
//! - [`campaign`]: many runs: fuzz, the CI gate, the nightly run, benchmarks, and the one
//!   place failures are shrunk and saved.
//! - [`testing`]: hand-built interleavings (bugs A–D), differential testing, proptest
//!   strategies.
//!
//! - [`util`]: the bottom layer every other may use: atomic writes, the `I/N` shard.
//!
//! See `docs/model.md` for every modelling choice.

#![deny(missing_docs)]

pub mod campaign;
pub mod exec;
pub mod explore;
pub mod model;
pub mod oracle;
pub mod run;
pub mod store;
pub mod testing;
pub mod trace;
pub mod util;

/// The direction of imports, checked on the source: each layer may use only the layers
/// below it (tests inside a module, after its `#[cfg(test)]`, may use anything).
#[cfg(test)]
mod layering {
    use std::collections::BTreeSet;
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
}
