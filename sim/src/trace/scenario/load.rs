//! Reading scenario files: every problem becomes a [`ScenarioError`] with the file and,
//! wherever the problem has a place, its line and column. Nothing here panics on input.
//!
//! The file is parsed in layers so each message can be specific: JSON syntax first, then
//! the version (a file from a newer build is told so, not buried in "unknown field"
//! errors), then the top-level fields, then `config` and each step from their own slice
//! of the text (borrowed [`RawValue`]s, so their positions are known exactly), then the
//! checks that need several fields at once (a step naming a client the config lacks).

use std::path::Path;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{
    Scenario, ScenarioError, ScenarioStep, CLIENTS_MAX, FILE_BYTES_MAX, FORMAT_VERSION, STEPS_MAX,
};
use crate::model::config::WorldConfig;
use crate::model::step::{Step, StepKind};
use crate::oracle::Invariant;

/// Read and check the scenario file at `path`.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    let error = |message: String| ScenarioError {
        path: path.to_path_buf(),
        position: None,
        message,
    };
    let size = std::fs::metadata(path)
        .map_err(|e| error(format!("cannot read the file: {e}")))?
        .len();
    if size > FILE_BYTES_MAX {
        return Err(error(too_big(size)));
    }
    let bytes = std::fs::read(path).map_err(|e| error(format!("cannot read the file: {e}")))?;
    load_bytes(path, bytes)
}

fn too_big(size: u64) -> String {
    format!(
        "the file is {size} bytes; a scenario file may be at most {FILE_BYTES_MAX} bytes ({} MiB)",
        FILE_BYTES_MAX >> 20
    )
}

/// Check the bytes of a scenario file; `path` is only for messages. This is what the
/// `scenario_parser` fuzz target drives: any bytes give a scenario or an error.
pub fn load_bytes(path: &Path, bytes: Vec<u8>) -> Result<Scenario, ScenarioError> {
    if bytes.len() as u64 > FILE_BYTES_MAX {
        return Err(ScenarioError {
            path: path.to_path_buf(),
            position: None,
            message: too_big(bytes.len() as u64),
        });
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        // Position of the first invalid byte, counted over the valid prefix.
        let prefix = String::from_utf8_lossy(&bytes[..offset]);
        let p = Parser::new(path, &prefix);
        p.err(
            Some(p.line_column(prefix.len())),
            "the file is not UTF-8 text (a scenario is a UTF-8 JSON file)".to_string(),
        )
    })?;
    parse(path, &text)
}

#[derive(Deserialize)]
struct VersionProbe<'a> {
    #[serde(borrow, default)]
    version: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario<'a> {
    #[allow(dead_code)]
    version: Value,
    description: Option<String>,
    store: String,
    store_dir: Option<String>,
    store_name: Option<String>,
    seed: Option<u64>,
    strategy: Option<String>,
    #[serde(default)]
    world_pins: crate::model::pins::WorldPins,
    #[serde(default)]
    contract: crate::model::pins::WorldPins,
    #[serde(borrow, default)]
    expect: Option<&'a RawValue>,
    #[serde(borrow, default)]
    class: Option<&'a RawValue>,
    #[serde(borrow, default)]
    masked: Option<&'a RawValue>,
    #[serde(default, deserialize_with = "crate::trace::assume::deserialize_needs")]
    needs: Option<Vec<crate::trace::assume::Assumption>>,
    #[serde(default)]
    known_failure: bool,
    #[serde(borrow)]
    config: &'a RawValue,
    #[serde(borrow)]
    steps: Vec<&'a RawValue>,
}

/// Parse and check scenario `text`; `path` is only for messages.
pub fn parse(path: &Path, text: &str) -> Result<Scenario, ScenarioError> {
    let p = Parser::new(path, text);
    p.shape()?;
    p.version()?;
    // The top-level fields, then `expect`, `config` and each step from its own slice.
    let raw: RawScenario = serde_json::from_str(text).map_err(|e| p.at_json(e, None))?;
    if raw.store.trim().is_empty() {
        return Err(p.err(
            None,
            "`store` is empty; name the store the scenario was recorded against (see `reconcile-sim stores`)".to_string(),
        ));
    }
    if raw.steps.len() > STEPS_MAX {
        return Err(p.err(
            None,
            format!(
                "the file holds {} steps; a scenario may hold at most {STEPS_MAX}",
                raw.steps.len()
            ),
        ));
    }
    let expect = p.expect(raw.expect)?;
    let config = p.config(raw.config)?;
    let steps = p.steps(&raw.steps, &config)?;
    Ok(Scenario {
        version: FORMAT_VERSION,
        description: raw.description,
        store: raw.store,
        store_dir: raw.store_dir,
        store_name: raw.store_name,
        seed: raw.seed,
        strategy: raw.strategy,
        world_pins: raw.world_pins,
        contract: raw.contract,
        expect,
        class: p.class(raw.class, "class")?,
        masked: p.class(raw.masked, "masked")?.unwrap_or_default(),
        needs: raw.needs,
        known_failure: raw.known_failure,
        config,
        steps,
    })
}

/// The text being parsed, with what it takes to name a place in it.
struct Parser<'a> {
    path: &'a Path,
    text: &'a str,
    /// Byte offsets where each line starts (so a position is a binary search, and loading
    /// stays linear in the file's size).
    line_starts: Vec<usize>,
}

impl<'a> Parser<'a> {
    fn new(path: &'a Path, text: &'a str) -> Parser<'a> {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Parser {
            path,
            text,
            line_starts,
        }
    }

    fn err(&self, position: Option<(usize, usize)>, message: String) -> ScenarioError {
        ScenarioError {
            path: self.path.to_path_buf(),
            position,
            message,
        }
    }

    /// 1-based line and column (in characters) of byte `offset`.
    fn line_column(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset);
        let start = self.line_starts[line - 1];
        (line, self.text[start..offset].chars().count() + 1)
    }

    /// Where `slice` (a subslice of the text) starts.
    fn at(&self, slice: &str) -> Option<(usize, usize)> {
        Some(self.line_column(offset_in(self.text, slice)))
    }

    /// A serde error, placed in the file (relative to `base`, the slice it parsed).
    fn at_json(&self, e: serde_json::Error, base: Option<&str>) -> ScenarioError {
        let position = if e.line() == 0 {
            base.and_then(|b| self.at(b))
        } else {
            let (line, column) = (e.line(), e.column());
            Some(match base.and_then(|b| self.at(b)) {
                Some((bl, bc)) if line == 1 => (bl, bc + column - 1),
                Some((bl, _)) => (bl + line - 1, column),
                None => (line, column),
            })
        };
        self.err(position, strip_position(&e))
    }

    /// JSON syntax, and the overall shape.
    fn shape(&self) -> Result<(), ScenarioError> {
        if self.text.starts_with('\u{feff}') {
            return Err(self.err(
                Some((1, 1)),
                "the file starts with a byte-order mark; save it as UTF-8 without one".to_string(),
            ));
        }
        if self.text.trim().is_empty() {
            return Err(self.err(
                None,
                "the file is empty; a scenario is a JSON object".to_string(),
            ));
        }
        let value: Value = serde_json::from_str(self.text).map_err(|e| {
            let mut e2 = self.at_json(e, None);
            e2.message = format!("invalid JSON: {}", e2.message);
            e2
        })?;
        if !value.is_object() {
            return Err(self.err(
                Some((1, 1)),
                format!(
                    "a scenario is a JSON object with the keys version, store, config, steps and expect; this file holds {}",
                    kind_of(&value)
                ),
            ));
        }
        Ok(())
    }

    /// The version, before anything else a newer format might have changed.
    fn version(&self) -> Result<(), ScenarioError> {
        let probe: VersionProbe =
            serde_json::from_str(self.text).map_err(|e| self.at_json(e, None))?;
        let Some(version) = probe.version else {
            return Err(self.err(
                Some((1, 1)),
                format!("missing field `version` (this build reads version {FORMAT_VERSION})"),
            ));
        };
        let message = match version.get().parse::<u64>() {
            Ok(v) if v == FORMAT_VERSION as u64 => return Ok(()),
            Ok(v) => format!(
                "unsupported scenario version {v}; this build of reconcile-sim reads version {FORMAT_VERSION}"
            ),
            Err(_) => format!(
                "`version` must be the number {FORMAT_VERSION}, not {}",
                version.get()
            ),
        };
        Err(self.err(self.at(version.get()), message))
    }

    /// A class (or list of classes) field, parsed where it stands in the file.
    fn class<T: serde::de::DeserializeOwned>(
        &self,
        raw: Option<&RawValue>,
        field: &str,
    ) -> Result<Option<T>, ScenarioError> {
        let Some(raw) = raw else { return Ok(None) };
        serde_json::from_str(raw.get()).map(Some).map_err(|e| {
            let mut err = self.at_json(e, Some(raw.get()));
            let what = if field == "masked" {
                "a list of classes"
            } else {
                "a class"
            };
            err.message = format!(
                "field `{field}`: {} ({what} as `reconcile-sim` writes it: effect, subject, trigger; see docs/model.md, \"Root-cause classes\")",
                err.message
            );
            err
        })
    }

    fn expect(&self, raw: Option<&RawValue>) -> Result<Option<Invariant>, ScenarioError> {
        let Some(e) = raw else {
            return Ok(None);
        };
        serde_json::from_str(e.get()).map_err(|_| {
            self.err(
                self.at(e.get()),
                format!(
                    "`expect` must be null or an invariant name ({}), not {}",
                    Invariant::ALL.map(|i| i.name()).join(", "),
                    e.get()
                ),
            )
        })
    }

    fn config(&self, raw: &RawValue) -> Result<WorldConfig, ScenarioError> {
        let config_at = self.at(raw.get());
        if !raw.get().starts_with('{') {
            return Err(self.err(
                config_at,
                "`config` must be an object of world options (see docs/scenario-format.md)"
                    .to_string(),
            ));
        }
        let config: WorldConfig = serde_json::from_str(raw.get()).map_err(|e| {
            let mut e = self.at_json(e, Some(raw.get()));
            e.message = format!("in `config`: {}", e.message);
            e
        })?;
        if config.clients == 0 || config.clients > CLIENTS_MAX {
            return Err(self.err(
                config_at,
                format!(
                    "`config.clients` is {}; a scenario has 1 to {CLIENTS_MAX} clients",
                    config.clients
                ),
            ));
        }
        if let Some(why) = config.incoherence() {
            return Err(self.err(config_at, format!("in `config`: {why}")));
        }
        Ok(config)
    }

    fn steps(
        &self,
        raw: &[&RawValue],
        config: &WorldConfig,
    ) -> Result<Vec<ScenarioStep>, ScenarioError> {
        let mut steps = Vec::with_capacity(raw.len());
        for (i, raw_step) in raw.iter().enumerate() {
            // Placed only on an error: counting the column of every step would make a
            // file on one line quadratic to load.
            let at = || self.at(raw_step.get());
            let step = parse_step(raw_step.get())
                .map_err(|m| self.err(at(), format!("steps[{i}]: {m}")))?;
            if let Some(c) = step.step.client().filter(|&c| c >= config.clients) {
                return Err(self.err(
                    at(),
                    format!(
                        "steps[{i}]: the step names client {c}, but config.clients is {} (clients are numbered 0 to {})",
                        config.clients,
                        config.clients - 1
                    ),
                ));
            }
            steps.push(step);
        }
        Ok(steps)
    }
}

/// One step: its annotation fields are checked for type and set aside, the rest must be
/// exactly one [`Step`] (its `kind` and that kind's fields, no others).
fn parse_step(text: &str) -> Result<ScenarioStep, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| strip_position(&e))?;
    let Value::Object(mut map) = value else {
        return Err(format!(
            "a step is an object like {{\"kind\": \"send\", \"client\": 0}}, not {}",
            kind_of(&value)
        ));
    };
    let mut note = None;
    for field in ["actor", "note"] {
        match map.remove(field) {
            None => {}
            Some(Value::String(s)) if field == "note" => note = Some(s),
            Some(Value::String(_)) => {}
            Some(other) => {
                return Err(format!(
                    "`{field}` must be a string, not {}",
                    kind_of(&other)
                ))
            }
        }
    }
    if map.get("kind").is_some_and(|k| !k.is_string()) {
        return Err(format!(
            "`kind` must be a string naming the step (one of: {})",
            kind_names().join(", ")
        ));
    }
    if !map.contains_key("kind") {
        return Err(format!(
            "missing field `kind` (one of: {})",
            kind_names().join(", ")
        ));
    }
    let given: Vec<String> = map.keys().cloned().collect();
    let step = Step::deserialize(Value::Object(map)).map_err(|e| {
        let m = strip_position(&e);
        if m.starts_with("unknown variant") {
            format!(
                "unknown step kind: {}",
                m.trim_start_matches("unknown variant ")
            )
        } else {
            m
        }
    })?;
    // serde accepts extra fields on a field-less kind; a file should not.
    let Value::Object(canonical) = serde_json::to_value(step).expect("a step serialises") else {
        unreachable!("a step serialises to an object")
    };
    if let Some(extra) = given.iter().find(|k| !canonical.contains_key(*k)) {
        return Err(format!(
            "field `{extra}` does not apply to a step of kind `{}` (it takes {})",
            step.kind().name(),
            fields_of(&canonical)
        ));
    }
    Ok(ScenarioStep { step, note })
}

fn fields_of(canonical: &Map<String, Value>) -> String {
    let fields: Vec<String> = canonical
        .keys()
        .filter(|k| *k != "kind")
        .map(|k| format!("`{k}`"))
        .collect();
    if fields.is_empty() {
        "no fields besides `kind`".to_string()
    } else {
        fields.join(", ")
    }
}

fn kind_names() -> Vec<&'static str> {
    StepKind::ALL.iter().map(|k| k.name()).collect()
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// serde_json's message without its " at line L column C" suffix (we say where ourselves).
fn strip_position(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&suffix).unwrap_or(&full).to_string()
}

/// The byte offset of `slice` inside `text` (it must be a subslice of it).
fn offset_in(text: &str, slice: &str) -> usize {
    (slice.as_ptr() as usize)
        .saturating_sub(text.as_ptr() as usize)
        .min(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small valid scenario with `clients` tabs and the given steps (JSON texts).
    fn scenario_text(version: &str, clients: u8, steps: &[&str]) -> String {
        let mut config = serde_json::to_value(crate::testing::script::scripted_config()).unwrap();
        config["clients"] = clients.into();
        format!(
            "{{\"version\": {version}, \"store\": \"current\", \"expect\": null, \"config\": {config}, \"steps\": [{}]}}",
            steps.join(", ")
        )
    }

    fn message(r: Result<Scenario, ScenarioError>) -> String {
        match r {
            Ok(_) => "loaded".to_string(),
            Err(e) => e.to_string(),
        }
    }

    /// The size limit is exact: a file of exactly `FILE_BYTES_MAX` bytes is read (and
    /// judged by its content), one byte more is refused before it is read, naming the
    /// file and the limit; the same for bytes handed in directly.
    #[test]
    fn a_file_of_exactly_the_size_limit_is_read_and_one_byte_more_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let at_limit = tmp.path().join("at-limit.json");
        // Sparse files of NUL bytes: nothing written, valid UTF-8, not JSON.
        std::fs::File::create(&at_limit)
            .unwrap()
            .set_len(FILE_BYTES_MAX)
            .unwrap();
        let m = message(load(&at_limit));
        assert!(m.contains("at-limit.json:1:1: invalid JSON"), "{m}");
        let over = tmp.path().join("over.json");
        std::fs::File::create(&over)
            .unwrap()
            .set_len(FILE_BYTES_MAX + 1)
            .unwrap();
        let m = message(load(&over));
        assert!(
            m.ends_with("over.json: the file is 33554433 bytes; a scenario file may be at most 33554432 bytes (32 MiB)"),
            "{m}"
        );
        let path = Path::new("mem.json");
        let m = message(load_bytes(path, vec![b' '; FILE_BYTES_MAX as usize]));
        assert_eq!(
            m,
            "mem.json: the file is empty; a scenario is a JSON object"
        );
        let m = message(load_bytes(path, vec![b' '; FILE_BYTES_MAX as usize + 1]));
        assert_eq!(
            m,
            "mem.json: the file is 33554433 bytes; a scenario file may be at most 33554432 bytes (32 MiB)"
        );
        let m = message(load(&tmp.path().join("absent.json")));
        assert!(m.contains("absent.json: cannot read the file: "), "{m}");
    }

    /// The step limit is exact: `STEPS_MAX` steps pass the count (each is then checked:
    /// here the first is not an object), one more is refused by the count.
    #[test]
    fn a_scenario_of_exactly_the_step_limit_is_read_and_one_more_is_refused() {
        let path = Path::new("many.json");
        let zeros = |n: usize| vec!["0"; n];
        let m = message(parse(path, &scenario_text("1", 2, &zeros(STEPS_MAX))));
        assert!(
            m.contains(": steps[0]: a step is an object like {\"kind\": \"send\", \"client\": 0}, not a number"),
            "{m}"
        );
        let m = message(parse(path, &scenario_text("1", 2, &zeros(STEPS_MAX + 1))));
        assert_eq!(
            m,
            "many.json: the file holds 200001 steps; a scenario may hold at most 200000"
        );
    }

    /// This build reads version 1 only: a newer version is told so, a version that is not
    /// a number is refused as such, each at the version's place in the file.
    #[test]
    fn only_version_one_is_read_and_another_is_refused_at_its_place() {
        let path = Path::new("v.json");
        let send = r#"{"kind": "send", "client": 0}"#;
        assert_eq!(
            message(parse(path, &scenario_text("1", 2, &[send]))),
            "loaded"
        );
        assert_eq!(
            message(parse(path, &scenario_text("2", 2, &[send]))),
            "v.json:1:13: unsupported scenario version 2; this build of reconcile-sim reads version 1"
        );
        assert_eq!(
            message(parse(path, &scenario_text("\"1\"", 2, &[send]))),
            "v.json:1:13: `version` must be the number 1, not \"1\""
        );
    }

    /// A scenario has 1 to `CLIENTS_MAX` tabs, both ends included; a step may name tabs 0
    /// to clients − 1.
    #[test]
    fn a_scenario_has_one_to_clients_max_tabs() {
        let path = Path::new("c.json");
        let last = format!(r#"{{"kind": "send", "client": {}}}"#, CLIENTS_MAX - 1);
        assert_eq!(
            message(parse(path, &scenario_text("1", CLIENTS_MAX, &[&last]))),
            "loaded"
        );
        let text = scenario_text("1", 1, &[r#"{"kind": "send", "client": 0}"#]);
        assert_eq!(message(parse(path, &text)), "loaded");
        let m = message(parse(path, &scenario_text("1", CLIENTS_MAX + 1, &[])));
        assert!(
            m.ends_with("`config.clients` is 17; a scenario has 1 to 16 clients"),
            "{m}"
        );
    }

    /// A problem inside `config` or a step is placed where it is: on a one-line file at
    /// its column (counted in characters), on a file of several lines at its line.
    #[test]
    fn a_problem_in_config_or_a_step_is_placed_at_its_line_and_column() {
        let path = Path::new("p.json");
        let mut config = serde_json::to_value(crate::testing::script::scripted_config()).unwrap();
        config["turn_failures"] = "no".into();
        let one_line = format!(
            "{{\"version\": 1, \"description\": \"é\", \"store\": \"current\", \"config\": {config}, \"steps\": []}}"
        );
        let at = one_line.find("\"no\"").unwrap();
        let column = one_line[..at].chars().count() + "\"no\"".len();
        assert_eq!(
            message(parse(path, &one_line)),
            format!(
                "p.json:1:{column}: in `config`: invalid type: string \"no\", expected a boolean"
            )
        );
        let pretty = format!(
            "{{\n  \"version\": 1,\n  \"store\": \"current\",\n  \"config\": {},\n  \"steps\": []\n}}",
            serde_json::to_string_pretty(&config).unwrap()
        );
        let at = pretty.find("\"no\"").unwrap();
        let line = pretty[..at].matches('\n').count() + 1;
        let line_start = pretty[..at].rfind('\n').unwrap() + 1;
        let column = at - line_start + "\"no\"".len();
        assert_eq!(
            message(parse(path, &pretty)),
            format!(
                "p.json:{line}:{column}: in `config`: invalid type: string \"no\", expected a boolean"
            )
        );
        // A step on the third line, after a character of two bytes on that line.
        let text = "{\"version\": 1, \"store\": \"current\",\n\"config\": CONFIG,\n\"description\": \"é\", \"steps\": [{\"kind\": \"send\", \"client\": 5}]}"
            .replace("CONFIG", &serde_json::to_string(&crate::testing::script::scripted_config()).unwrap());
        assert_eq!(
            message(parse(path, &text)),
            "p.json:3:31: steps[0]: the step names client 5, but config.clients is 2 (clients are numbered 0 to 1)"
        );
    }
}
