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

use super::{Scenario, ScenarioError, ScenarioStep, CLIENTS_MAX, FORMAT_VERSION};
use crate::model::config::WorldConfig;
use crate::model::step::{Step, StepKind};
use crate::oracle::Invariant;

/// Read and check the scenario file at `path`.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    let bytes = std::fs::read(path).map_err(|e| ScenarioError {
        path: path.to_path_buf(),
        position: None,
        message: format!("cannot read the file: {e}"),
    })?;
    load_bytes(path, bytes)
}

/// Check the bytes of a scenario file; `path` is only for messages. This is what the
/// `scenario_parser` fuzz target drives: any bytes give a scenario or an error.
pub fn load_bytes(path: &Path, bytes: Vec<u8>) -> Result<Scenario, ScenarioError> {
    let text = String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        // Position of the first invalid byte, counted over the valid prefix.
        let prefix = String::from_utf8_lossy(&bytes[..offset]);
        ScenarioError {
            path: path.to_path_buf(),
            position: Some(line_column(&prefix, prefix.len())),
            message: "the file is not UTF-8 text (a scenario is a UTF-8 JSON file)".to_string(),
        }
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
    seed: Option<u64>,
    strategy: Option<String>,
    #[serde(borrow, default)]
    expect: Option<&'a RawValue>,
    #[serde(borrow)]
    config: &'a RawValue,
    #[serde(borrow)]
    steps: Vec<&'a RawValue>,
}

/// Parse and check scenario `text`; `path` is only for messages.
pub fn parse(path: &Path, text: &str) -> Result<Scenario, ScenarioError> {
    let err = |position: Option<(usize, usize)>, message: String| ScenarioError {
        path: path.to_path_buf(),
        position,
        message,
    };
    let at_json = |e: serde_json::Error, base: Option<&str>| {
        let position = if e.line() == 0 {
            base.map(|b| line_column(text, offset_in(text, b)))
        } else {
            let (line, column) = (e.line(), e.column());
            Some(match base {
                Some(b) => {
                    let (bl, bc) = line_column(text, offset_in(text, b));
                    if line == 1 {
                        (bl, bc + column - 1)
                    } else {
                        (bl + line - 1, column)
                    }
                }
                None => (line, column),
            })
        };
        err(position, strip_position(&e))
    };

    // 1. JSON syntax, and the overall shape.
    if text.starts_with('\u{feff}') {
        return Err(err(
            Some((1, 1)),
            "the file starts with a byte-order mark; save it as UTF-8 without one".to_string(),
        ));
    }
    if text.trim().is_empty() {
        return Err(err(
            None,
            "the file is empty; a scenario is a JSON object".to_string(),
        ));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        let mut e2 = at_json(e, None);
        e2.message = format!("invalid JSON: {}", e2.message);
        e2
    })?;
    if !value.is_object() {
        return Err(err(
            Some((1, 1)),
            format!(
                "a scenario is a JSON object with the keys version, store, config, steps and expect; this file holds {}",
                kind_of(&value)
            ),
        ));
    }

    // 2. The version, before anything else a newer format might have changed.
    let probe: VersionProbe = serde_json::from_str(text).map_err(|e| at_json(e, None))?;
    let Some(version) = probe.version else {
        return Err(err(
            Some((1, 1)),
            format!("missing field `version` (this build reads version {FORMAT_VERSION})"),
        ));
    };
    let version_at = Some(line_column(text, offset_in(text, version.get())));
    match version.get().parse::<u64>() {
        Ok(v) if v == FORMAT_VERSION as u64 => {}
        Ok(v) => {
            return Err(err(
                version_at,
                format!(
                    "unsupported scenario version {v}; this build of reconcile-sim reads version {FORMAT_VERSION}"
                ),
            ))
        }
        Err(_) => {
            return Err(err(
                version_at,
                format!(
                    "`version` must be the number {FORMAT_VERSION}, not {}",
                    version.get()
                ),
            ))
        }
    }

    // 3. The top-level fields.
    let raw: RawScenario = serde_json::from_str(text).map_err(|e| at_json(e, None))?;
    if raw.store.trim().is_empty() {
        return Err(err(
            None,
            "`store` is empty; name the store the scenario was recorded against (see `reconcile-sim stores`)".to_string(),
        ));
    }

    let expect: Option<Invariant> = match raw.expect {
        None => None,
        Some(e) => {
            let at = Some(line_column(text, offset_in(text, e.get())));
            serde_json::from_str(e.get()).map_err(|_| {
                err(
                    at,
                    format!(
                        "`expect` must be null or an invariant name ({}), not {}",
                        Invariant::ALL.map(|i| i.name()).join(", "),
                        e.get()
                    ),
                )
            })?
        }
    };

    // 4. The config, from its own slice.
    let config_at = Some(line_column(text, offset_in(text, raw.config.get())));
    if !raw.config.get().starts_with('{') {
        return Err(err(
            config_at,
            "`config` must be an object of world options (see docs/scenario-format.md)".to_string(),
        ));
    }
    let config: WorldConfig = serde_json::from_str(raw.config.get())
        .map_err(|e| at_json(e, Some(raw.config.get())))
        .map_err(|mut e| {
            e.message = format!("in `config`: {}", e.message);
            e
        })?;
    if config.clients == 0 || config.clients > CLIENTS_MAX {
        return Err(err(
            config_at,
            format!(
                "`config.clients` is {}; a scenario has 1 to {CLIENTS_MAX} clients",
                config.clients
            ),
        ));
    }

    // 5. Each step, from its own slice.
    let mut steps = Vec::with_capacity(raw.steps.len());
    for (i, raw_step) in raw.steps.iter().enumerate() {
        let at = Some(line_column(text, offset_in(text, raw_step.get())));
        let step = parse_step(raw_step.get()).map_err(|m| err(at, format!("steps[{i}]: {m}")))?;
        let client = match step.step.actor() {
            crate::model::step::Actor::Client(c) => Some(c),
            crate::model::step::Actor::Backend => match step.step {
                Step::HandlePost { client } | Step::ServeFetch { client } => Some(client),
                _ => None,
            },
        };
        if let Some(c) = client.filter(|&c| c >= config.clients) {
            return Err(err(
                at,
                format!(
                    "steps[{i}]: the step names client {c}, but config.clients is {} (clients are numbered 0 to {})",
                    config.clients,
                    config.clients - 1
                ),
            ));
        }
        steps.push(step);
    }

    Ok(Scenario {
        version: FORMAT_VERSION,
        description: raw.description,
        store: raw.store,
        seed: raw.seed,
        strategy: raw.strategy,
        expect,
        config,
        steps,
    })
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

/// 1-based line and column (in characters) of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit_once('\n')
        .map_or(before, |(_, rest)| rest)
        .chars()
        .count()
        + 1;
    (line, column)
}
