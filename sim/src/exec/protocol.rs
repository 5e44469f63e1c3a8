//! The exec protocol's messages (`docs/protocol.md`) as pure functions over strings and
//! bytes: building a request line, and checking that an answer line is the one expected
//! (its id, its type, the handshake's version). Nothing here does I/O, so every rule of
//! the protocol is tested without a process.

use serde::{Deserialize, Serialize};

use super::fault::Fault;
use crate::model::wire::{Effect, Input, RenderRow};

/// The protocol version this harness speaks (the `protocol` field of `hello`).
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest answer line accepted before it counts as a fault.
pub const ANSWER_BYTES_MAX: usize = 16 << 20;

/// A request line, harness to adapter: a message and its sequence number.
#[derive(Serialize)]
pub(super) struct Request<'a> {
    #[serde(flatten)]
    message: Message<'a>,
    id: u64,
}

/// What a request asks for (its `type` and fields).
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub(super) enum Message<'a> {
    Hello { protocol: u32 },
    Reset,
    Input { input: &'a Input },
    State,
    Coverage,
}

/// The optional parts of the protocol an adapter says it speaks (the `features` of its
/// `hello` answer; unknown names are ignored).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Features {
    /// `boot`: the `reset` answer carries the new store's `effects` (and `render`), and
    /// the harness reads it when the world boots its stores.
    pub boot: bool,
    /// `state`: the adapter answers `state` requests with a digest of its store's state.
    pub state: bool,
    /// `coverage`: the adapter answers `coverage` requests with the lines of the app's own
    /// source files run since the previous one (asked only when localizing).
    pub coverage: bool,
}

/// What a `coverage` answer carries: the lines run, by file relative to `root`.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct CoverageAnswer {
    pub root: String,
    pub files: std::collections::BTreeMap<String, Vec<u32>>,
}

/// What a `reset` answer carries: nothing (the plain answer), or, from an adapter that
/// boots, the new store's effects and render.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct ResetAnswer {
    pub effects: Vec<Effect>,
    pub render: Option<Vec<RenderRow>>,
}

/// An answer line, adapter to harness. One flat struct rather than a tagged enum so that a
/// wrong `type` is reported as such, and unknown fields are ignored (additive changes).
#[derive(Deserialize)]
pub(super) struct Answer {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    id: Option<u64>,
    #[serde(default)]
    protocol: Option<u32>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    effects: Option<Vec<Effect>>,
    #[serde(default)]
    render: Option<Vec<RenderRow>>,
    #[serde(default)]
    features: Option<Vec<String>>,
    #[serde(default)]
    digest: Option<String>,
    /// In a `coverage` answer: the directory its files are relative to.
    #[serde(default)]
    root: Option<String>,
    /// In a `coverage` answer: the lines run, by file.
    #[serde(default)]
    files: Option<std::collections::BTreeMap<String, Vec<u32>>>,
    /// In a `hello` answer: the adapter's virtual-clock setting, in words (reports state it).
    #[serde(default)]
    clock: Option<String>,
    /// In a `hello` answer: the name the adapter gives its store.
    #[serde(default)]
    name: Option<String>,
    /// In a `hello` answer: the contract of the store's backend and transport, as
    /// `--world` settings and profiles (`["ordered-socket", "consume_reasons=true"]`),
    /// which every command applies ([`crate::model::store::StoreFactory::contract`]).
    #[serde(default)]
    world: Option<Vec<String>>,
}

/// The ids of one process's conversation: requests are numbered from 1, and the answers
/// must carry the same ids in the same order, so an extra or a missing answer line shows.
pub(super) struct Ids {
    next_request: u64,
    next_answer: u64,
}

impl Ids {
    /// A conversation with nothing sent yet.
    pub fn new() -> Ids {
        Ids {
            next_request: 1,
            next_answer: 1,
        }
    }

    /// Put `message` into `line` as the next request line (its contents are replaced).
    pub fn request(&mut self, line: &mut Vec<u8>, message: Message<'_>) {
        request_line(line, message, self.next_request);
        self.next_request += 1;
    }

    /// Parse `line` as the next answer, checking its id.
    pub fn answer(&mut self, line: &str) -> Result<Answer, Fault> {
        let expected = self.next_answer;
        self.next_answer += 1;
        parse_answer(line, expected)
    }
}

/// Put the request line of `message` with `id` into `line` (replacing its contents): one
/// JSON object and a newline.
pub(super) fn request_line(line: &mut Vec<u8>, message: Message<'_>, id: u64) {
    line.clear();
    serde_json::to_writer(&mut *line, &Request { message, id }).expect("requests serialise");
    line.push(b'\n');
}

/// Parse an answer line that must answer request `expected`. Bad JSON, JSON of the wrong
/// shape and an answer with another id are all [`Fault::BadLine`], each saying which.
pub(super) fn parse_answer(line: &str, expected: u64) -> Result<Answer, Fault> {
    match serde_json::from_str::<Answer>(line) {
        Ok(a) if a.id == Some(expected) => Ok(a),
        Ok(a) => Err(bad_line(
            line,
            match a.id {
                None => format!("an answer without an id; expected id {expected}"),
                Some(id) => format!(
                    "the answer has id {id} where {expected} was expected (an extra or a missing answer line)"
                ),
            },
        )),
        Err(e) if e.classify() == serde_json::error::Category::Data => {
            Err(bad_line(line, e.to_string()))
        }
        Err(e) => Err(bad_line(line, format!("not JSON: {e}"))),
    }
}

impl Answer {
    /// The `name` a `hello` answer gives the store, unless empty (read before
    /// [`Answer::into_hello`]).
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref().filter(|n| !n.trim().is_empty())
    }

    /// The `clock` a `hello` answer states (read before [`Answer::into_hello`]).
    pub fn clock(&self) -> Option<&str> {
        self.clock.as_deref()
    }

    /// The `world` (the declared contract) a `hello` answer states, as given (read
    /// before [`Answer::into_hello`]); empty when it states none.
    pub fn world(&self) -> &[String] {
        self.world.as_deref().unwrap_or_default()
    }

    /// The answer to `hello`: the same protocol version back (and the features the adapter
    /// speaks), or a bad handshake.
    pub fn into_hello(self) -> Result<Features, Fault> {
        let why = match self.kind.as_str() {
            "hello" if self.protocol == Some(PROTOCOL_VERSION) => {
                let mut features = Features::default();
                for f in self.features.iter().flatten() {
                    match f.as_str() {
                        "boot" => features.boot = true,
                        "state" => features.state = true,
                        "coverage" => features.coverage = true,
                        _ => {} // a feature this harness does not know: ignored
                    }
                }
                return Ok(features);
            }
            "hello" => format!(
                "bad handshake: the harness speaks protocol {PROTOCOL_VERSION}, the adapter answered {}",
                self.protocol
                    .map_or("no protocol field".to_string(), |p| format!("protocol {p}"))
            ),
            "error" => format!(
                "bad handshake: the adapter refused hello: {}",
                self.message.unwrap_or_default()
            ),
            other => format!("bad handshake: expected a hello answer, got type '{other}'"),
        };
        Err(Fault::Protocol { why })
    }

    /// The answer to `reset`: a `reset` (with the new store's effects and render from an
    /// adapter with the `boot` feature), or the adapter is out of protocol (even an
    /// `error`: an adapter that cannot make a fresh store cannot serve a run). An adapter
    /// without `boot` gets its answer's `effects` and `render` ignored, as harnesses
    /// before the extension did (unknown fields are ignored): its answer is read with the
    /// first input's, too late to route them.
    pub fn into_reset(self, line: &str, features: Features) -> Result<ResetAnswer, Fault> {
        match self.kind.as_str() {
            "reset" if features.boot => Ok(ResetAnswer {
                effects: self.effects.unwrap_or_default(),
                render: self.render,
            }),
            "reset" => Ok(ResetAnswer::default()),
            "error" => Err(Fault::Protocol {
                why: format!(
                    "the adapter refused reset: {}",
                    self.message.unwrap_or_default()
                ),
            }),
            other => Err(bad_line(
                line,
                format!("expected the answer to reset, got type '{other}'"),
            )),
        }
    }

    /// The answer to `state`: the digest, the store's `error`, or out of protocol.
    pub fn into_state(self, line: &str) -> Result<String, Fault> {
        match (self.kind.as_str(), self.digest) {
            ("state", Some(digest)) => Ok(digest),
            ("state", None) => Err(bad_line(line, "a state answer without 'digest'".into())),
            ("error", _) => Err(Fault::StoreError {
                message: self.message.unwrap_or_default(),
            }),
            (other, _) => Err(bad_line(
                line,
                format!("expected the answer to state, got type '{other}'"),
            )),
        }
    }

    /// The answer to `coverage`: the lines run, the adapter's `error`, or out of protocol.
    pub fn into_coverage(self, line: &str) -> Result<CoverageAnswer, Fault> {
        match (self.kind.as_str(), self.files) {
            ("coverage", Some(files)) => Ok(CoverageAnswer {
                root: self.root.unwrap_or_default(),
                files,
            }),
            ("coverage", None) => Err(bad_line(line, "a coverage answer without 'files'".into())),
            ("error", _) => Err(Fault::StoreError {
                message: self.message.unwrap_or_default(),
            }),
            (other, _) => Err(bad_line(
                line,
                format!("expected the answer to coverage, got type '{other}'"),
            )),
        }
    }

    /// The answer to an `input`: the effects and the render, or the store's `error`
    /// ([`Fault::StoreError`], after which the process is still in protocol).
    pub fn into_output(self, line: &str) -> Result<(Vec<Effect>, Vec<RenderRow>), Fault> {
        match self.kind.as_str() {
            "output" => match (self.effects, self.render) {
                (Some(effects), Some(render)) => Ok((effects, render)),
                (None, _) => Err(bad_line(line, "an output without 'effects'".into())),
                (_, None) => Err(bad_line(line, "an output without 'render'".into())),
            },
            "error" => Err(Fault::StoreError {
                message: self.message.unwrap_or_default(),
            }),
            other => Err(bad_line(
                line,
                format!("expected an output, got type '{other}'"),
            )),
        }
    }
}

/// The fault of an answer `line` that breaks the protocol's rule `why`.
fn bad_line(line: &str, why: String) -> Fault {
    Fault::BadLine {
        line: line.to_string(),
        why,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example exchange in docs/protocol.md is what this harness sends, byte for byte.
    #[test]
    fn the_protocol_page_example_requests_are_what_the_harness_sends() {
        let page = include_str!("../../../docs/protocol.md");
        let requests: Vec<&str> = page.lines().filter_map(|l| l.strip_prefix("> ")).collect();
        assert!(requests.len() >= 10, "example exchange not found");
        let mut ids = Ids::new();
        let mut buf = Vec::new();
        for (i, line) in requests.iter().enumerate() {
            let id = i as u64 + 1;
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            let input: Option<Input> = value
                .get("input")
                .map(|v| serde_json::from_value(v.clone()).unwrap());
            let message = match value["type"].as_str().unwrap() {
                "hello" => Message::Hello {
                    protocol: PROTOCOL_VERSION,
                },
                "reset" => Message::Reset,
                "input" => Message::Input {
                    input: input.as_ref().unwrap(),
                },
                other => panic!("unexpected request type {other}"),
            };
            ids.request(&mut buf, message);
            let sent = String::from_utf8(buf.clone()).unwrap();
            let ours = sent.strip_suffix('\n').expect("a request ends its line");
            assert_eq!(&ours, line, "request {id}");
        }
    }

    /// The answers in docs/protocol.md pass every check, in order.
    #[test]
    fn the_protocol_page_example_answers_pass_the_checks() {
        let page = include_str!("../../../docs/protocol.md");
        let answers: Vec<&str> = page.lines().filter_map(|l| l.strip_prefix("< ")).collect();
        assert!(answers.len() >= 10, "example exchange not found");
        let mut ids = Ids::new();
        let features = ids.answer(answers[0]).unwrap().into_hello().unwrap();
        let reset = ids
            .answer(answers[1])
            .unwrap()
            .into_reset(answers[1], features)
            .unwrap();
        assert_eq!(reset, ResetAnswer::default());
        let mut effects = 0;
        for line in &answers[2..] {
            effects += ids.answer(line).unwrap().into_output(line).unwrap().0.len();
        }
        assert_eq!(effects, 3, "two posts and a fetch");
    }

    fn why(fault: Fault) -> String {
        match fault {
            Fault::BadLine { why, .. } | Fault::Protocol { why } => why,
            other => panic!("expected a bad line or a protocol fault, got {other:?}"),
        }
    }

    #[test]
    fn answers_must_carry_the_expected_id() {
        let line = r#"{"type":"reset","id":7}"#;
        assert!(parse_answer(line, 7).is_ok());
        assert_eq!(
            why(parse_answer(line, 8).err().unwrap()),
            "the answer has id 7 where 8 was expected (an extra or a missing answer line)"
        );
        assert_eq!(
            why(parse_answer(r#"{"type":"reset"}"#, 3).err().unwrap()),
            "an answer without an id; expected id 3"
        );
        // The ids move on even past a bad answer: the next answer is checked for the next id.
        let mut ids = Ids::new();
        assert!(ids.answer("nonsense").is_err());
        assert!(ids.answer(r#"{"type":"reset","id":2}"#).is_ok());
    }

    #[test]
    fn not_json_and_wrong_shape_are_different_faults() {
        for line in ["this is not json", "", r#"{"type":"output""#] {
            match parse_answer(line, 1) {
                Err(Fault::BadLine { line: quoted, why }) => {
                    assert_eq!(quoted, line);
                    assert!(why.starts_with("not JSON: "), "{why}");
                }
                other => panic!("{line}: {:?}", other.err()),
            }
        }
        let bad_effect =
            r#"{"type":"output","effects":[{"effect":"teleport"}],"render":[],"id":1}"#;
        assert!(
            why(parse_answer(bad_effect, 1).err().unwrap()).contains("unknown variant `teleport`")
        );
        assert!(why(parse_answer(r#"{"id":1}"#, 1).err().unwrap()).contains("missing field `type`"));
    }

    #[test]
    fn handshake_answers() {
        let check = |line: &str| parse_answer(line, 1).unwrap().into_hello();
        assert_eq!(
            check(r#"{"type":"hello","protocol":1,"name":"x","id":1}"#),
            Ok(Features::default())
        );
        // The name the adapter gives its store (an empty one is none).
        let name = |line: &str| parse_answer(line, 1).unwrap().name().map(str::to_string);
        assert_eq!(
            name(r#"{"type":"hello","protocol":1,"name":"x","id":1}"#).as_deref(),
            Some("x")
        );
        assert_eq!(
            name(r#"{"type":"hello","protocol":1,"name":" ","id":1}"#),
            None
        );
        assert_eq!(name(r#"{"type":"hello","protocol":1,"id":1}"#), None);
        assert_eq!(
            check(r#"{"type":"hello","protocol":1,"features":["state","teleport"],"id":1}"#),
            Ok(Features {
                boot: false,
                state: true,
                coverage: false
            })
        );
        assert_eq!(
            check(r#"{"type":"hello","protocol":1,"features":["boot","state"],"id":1}"#),
            Ok(Features {
                boot: true,
                state: true,
                coverage: false
            })
        );
        for (line, expected) in [
            (
                r#"{"type":"hello","protocol":99,"id":1}"#,
                "bad handshake: the harness speaks protocol 1, the adapter answered protocol 99",
            ),
            (
                r#"{"type":"hello","id":1}"#,
                "bad handshake: the harness speaks protocol 1, the adapter answered no protocol field",
            ),
            (
                r#"{"type":"error","message":"too old","id":1}"#,
                "bad handshake: the adapter refused hello: too old",
            ),
            (
                r#"{"type":"output","effects":[],"render":[],"id":1}"#,
                "bad handshake: expected a hello answer, got type 'output'",
            ),
        ] {
            assert_eq!(why(check(line).unwrap_err()), expected, "{line}");
        }
    }

    #[test]
    fn reset_answers() {
        let plain = Features::default();
        let check = |line: &str| parse_answer(line, 2).unwrap().into_reset(line, plain);
        assert!(check(r#"{"type":"reset","id":2}"#).is_ok());
        // Effects only from an adapter that said it boots; ignored from others.
        let fetch =
            r#"{"type":"reset","effects":[{"effect":"fetch","request_id":1}],"render":[],"id":2}"#;
        assert_eq!(check(fetch), Ok(ResetAnswer::default()));
        let boot = Features {
            boot: true,
            state: false,
            coverage: false,
        };
        let booted = parse_answer(fetch, 2)
            .unwrap()
            .into_reset(fetch, boot)
            .unwrap();
        assert_eq!(booted.effects.len(), 1);
        assert_eq!(booted.render, Some(Vec::new()));
        assert_eq!(
            why(check(r#"{"type":"error","message":"no","id":2}"#).unwrap_err()),
            "the adapter refused reset: no"
        );
        assert_eq!(
            why(check(r#"{"type":"output","effects":[],"render":[],"id":2}"#).unwrap_err()),
            "expected the answer to reset, got type 'output'"
        );
    }

    #[test]
    fn output_answers() {
        let check = |line: &str| parse_answer(line, 3).unwrap().into_output(line);
        let (effects, render) =
            check(r#"{"type":"output","effects":[],"render":[],"id":3}"#).unwrap();
        assert!(effects.is_empty() && render.is_empty());
        for (line, expected) in [
            (
                r#"{"type":"output","render":[],"id":3}"#,
                "an output without 'effects'",
            ),
            (
                r#"{"type":"output","effects":[],"id":3}"#,
                "an output without 'render'",
            ),
            (r#"{"type":"output","id":3}"#, "an output without 'effects'"),
            (
                r#"{"type":"reset","id":3}"#,
                "expected an output, got type 'reset'",
            ),
        ] {
            assert_eq!(why(check(line).unwrap_err()), expected, "{line}");
        }
        assert_eq!(
            check(r#"{"type":"error","message":"TypeError: x","id":3}"#).unwrap_err(),
            Fault::StoreError {
                message: "TypeError: x".into()
            }
        );
        // Unknown fields are ignored (additive changes need no new version).
        assert!(check(r#"{"type":"output","effects":[],"render":[],"id":3,"new":1}"#).is_ok());
    }

    #[test]
    fn state_answers() {
        let check = |line: &str| parse_answer(line, 4).unwrap().into_state(line);
        assert_eq!(
            check(r#"{"type":"state","digest":"abc","id":4}"#),
            Ok("abc".to_string())
        );
        assert_eq!(
            why(check(r#"{"type":"state","id":4}"#).unwrap_err()),
            "a state answer without 'digest'"
        );
        assert_eq!(
            why(check(r#"{"type":"output","effects":[],"render":[],"id":4}"#).unwrap_err()),
            "expected the answer to state, got type 'output'"
        );
        assert!(matches!(
            check(r#"{"type":"error","message":"no","id":4}"#),
            Err(Fault::StoreError { .. })
        ));
        let mut line = Vec::new();
        request_line(&mut line, Message::State, 9);
        assert_eq!(line, b"{\"type\":\"state\",\"id\":9}\n");
    }
}
