//! Recorded logs: what one browser tab went through, in order, as the recorder of
//! `reconcile-sim-adapter/record` writes it (`docs/record.md`), and as
//! [`record_tab`] writes it from a replay (the reference the adapter's recorder is
//! tested against). `reconcile-sim import` ([`crate::trace::import`]) turns a log into a
//! scenario.
//!
//! A log holds only what a tab can see: the socket frames it received (decoded by the
//! app's codec into the world's events), the requests it made, the responses it got, and
//! what its user did. Ids are the app's own (opaque strings: a real backend's UUIDs), so
//! the import binds them to the world's ids as it explains the log; texts may be
//! placeholders (`<text#3>`), which the import never reads except to compare them.
//!
//! The JSON Schema in `docs/log.schema.json` is generated from these types
//! ([`json_schema`]) and a test keeps it in sync. Reading never panics: every problem is a
//! [`LogError`], one line naming the file (and the line and column, or the entry).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::config::WorldConfig;
use crate::model::step::{Actor, Step};
use crate::model::store::StoreFactory;
use crate::model::wire::{
    AgentStatus, ClientId, ConsumeReason, Effect, Event, Input, PostOutcome, Role,
};
use crate::model::world::World;
use crate::oracle::Violation;
use crate::run::{replay_observed, Observer, StepAt};

/// `format`'s value: what tells a log from any other JSON file.
pub const FORMAT: &str = "reconcile-sim-log";
/// The log format version this build reads and writes.
pub const LOG_VERSION: u32 = 1;
/// The largest log read, in bytes (32 MiB, as a scenario file): larger ones are refused
/// before they are read.
pub const LOG_BYTES_MAX: u64 = 32 << 20;
/// The most entries a log may hold (a recorder's ring buffer holds 5 000 by default).
pub const ENTRIES_MAX: usize = 100_000;

/// An id as the app spells it: a string (a UUID, `"m1"`, `"17"`) or a number, kept as
/// text. Opaque: the import binds it to a world id, one to one.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Id(pub String);

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Id, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Text(String),
            Number(serde_json::Number),
        }
        match Raw::deserialize(d) {
            Ok(Raw::Text(s)) => Ok(Id(s)),
            Ok(Raw::Number(n)) => Ok(Id(n.to_string())),
            Err(_) => Err(serde::de::Error::custom("an id is a string or a number")),
        }
    }
}

impl JsonSchema for Id {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Id".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "An id as the app spells it (a string or a number); opaque to the import, which binds it one to one to a world id.",
            "type": ["string", "integer"]
        })
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

/// One recorded log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "reconcile-sim log")]
pub struct Log {
    /// Always `reconcile-sim-log`.
    pub format: String,
    /// The format version: 1.
    #[schemars(range(min = 1, max = 1))]
    pub version: u32,
    /// What wrote the log (`reconcile-sim-adapter/record 0.2.0`, `reconcile-sim replay`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorder: Option<String>,
    /// The name of the mapping the recorder ran under (its `name`), if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_name: Option<String>,
    /// Whether texts were replaced by placeholders (`<text#N>`, the same text the same
    /// placeholder within one log). The default of the recorder.
    #[serde(default)]
    pub private: bool,
    /// The ring buffer's size, in entries, when the recorder had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// Entries dropped from the front of the ring buffer (oldest first); the first kept
    /// entry is entry number `dropped` of the tab's life. The import refuses a log with
    /// dropped entries: it explains a tab from its first moment.
    #[serde(default)]
    pub dropped: u64,
    /// Everything the tab went through, in the order it happened.
    pub entries: Vec<Entry>,
}

/// One thing that happened to the tab, with when (informational: the order is the truth).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Entry {
    /// Milliseconds since the recorder started. Informational.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_ms: Option<f64>,
    /// What happened.
    #[serde(flatten)]
    pub what: What,
}

/// What one entry records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum What {
    /// The user sent a message (the store's `send`).
    Send {
        /// The text, or its placeholder.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// The user scrolled (`at_bottom: false`: scrolled up, a reconcile is deferred).
    Scroll {
        /// Whether the user is at the bottom now.
        at_bottom: bool,
    },
    /// The tab made a request on one of the mapping's routes.
    Request {
        /// The recorder's number for the request, which its response names.
        id: u64,
        /// Which route: the history fetch or the message POST.
        route: Route,
        /// The HTTP method. Informational.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        method: Option<String>,
        /// The path (without the query string). Informational.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        path: Option<String>,
        /// For a POST: the message id it carried (absent: the backend mints one).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<Id>,
        /// For a POST: the text it carried, or its placeholder.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// A response reached the tab.
    Response {
        /// The request it answers (its `id`).
        request: u64,
        /// A POST's answer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        post: Option<PostBody>,
        /// A history fetch's answer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fetch: Option<FetchBody>,
    },
    /// A socket frame reached the tab, decoded by the mapping's codec.
    Frame {
        /// The event it carries.
        event: LogEvent,
        /// The frame as received (texts replaced in a private log). Informational.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wire: Option<serde_json::Value>,
    },
}

/// The two routes a store's requests take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Route {
    /// The history GET (`fetch` in the mapping's routes).
    Fetch,
    /// The message POST (`post` in the mapping's routes).
    Post,
}

/// A POST's answer, decoded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PostBody {
    /// `started` (the message started a turn) or `queued`.
    pub outcome: PostOutcomeName,
    /// The turn it started, when the answer names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<Id>,
}

/// [`PostBody::outcome`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PostOutcomeName {
    /// The agent was idle: the message started a turn.
    Started,
    /// The agent was busy: the message was queued.
    Queued,
}

/// A history fetch's answer, decoded: the rows, oldest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FetchBody {
    /// The chunk rows of the page, in `seq` order.
    pub rows: Vec<LogRow>,
}

/// One chunk row of a history page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogRow {
    /// The backend's sequence number (only its order is read).
    pub seq: i64,
    /// The turn the row belongs to.
    pub turn: Id,
    /// Who wrote it.
    #[schemars(with = "String")]
    pub role: Role,
    /// The client message ids whose text the row holds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<Id>,
    /// The text, or its placeholder. Informational.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// A socket event, decoded: the world's event types and fields with the app's ids.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum LogEvent {
    /// `turn-start`.
    TurnStart {
        /// The turn.
        turn: Id,
    },
    /// `text-delta`.
    TextDelta {
        /// The turn (absent when the backend leaves it out).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turn: Option<Id>,
        /// The delta, or its placeholder. Not read.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// `tool-call`.
    ToolCall {
        /// The turn.
        turn: Id,
        /// The call's number within its turn.
        call: u32,
        /// Not read.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// `tool-result`.
    ToolResult {
        /// The turn.
        turn: Id,
        /// The call it answers.
        call: u32,
        /// Not read.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// `message-queued`.
    MessageQueued {
        /// The queued message.
        message: Id,
        /// Its text, when the backend sends it. Not read.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
    },
    /// `message-consumed`.
    MessageConsumed {
        /// The messages drained, in queue order.
        messages: Vec<Id>,
        /// Why, when the backend says.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(with = "Option<String>")]
        reason: Option<ConsumeReason>,
    },
    /// `status`.
    Status {
        /// `idle`, `running` or `error`.
        #[schemars(with = "String")]
        status: AgentStatus,
    },
    /// `turn-sealed`.
    TurnSealed {
        /// The turn.
        turn: Id,
    },
}

impl fmt::Display for LogEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LogEvent::TurnStart { turn } => write!(f, "turn-start {turn}"),
            LogEvent::TextDelta { turn: Some(t), .. } => write!(f, "text-delta {t}"),
            LogEvent::TextDelta { turn: None, .. } => write!(f, "text-delta"),
            LogEvent::ToolCall { turn, call, .. } => write!(f, "tool-call {turn}.{call}"),
            LogEvent::ToolResult { turn, call, .. } => write!(f, "tool-result {turn}.{call}"),
            LogEvent::MessageQueued { message, .. } => write!(f, "message-queued {message}"),
            LogEvent::MessageConsumed { messages, .. } => {
                let ids: Vec<String> = messages.iter().map(Id::to_string).collect();
                write!(f, "message-consumed {}", ids.join(" "))
            }
            LogEvent::Status { status } => write!(
                f,
                "status {}",
                serde_json::to_value(status)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            ),
            LogEvent::TurnSealed { turn } => write!(f, "turn-sealed {turn}"),
        }
    }
}

impl What {
    /// The entry in a few words, for messages naming it.
    pub fn describe(&self) -> String {
        match self {
            What::Send { .. } => "the user sends a message".into(),
            What::Scroll { at_bottom: true } => "the user scrolls to the bottom".into(),
            What::Scroll { at_bottom: false } => "the user scrolls up".into(),
            What::Request { id, route, .. } => format!(
                "request {id} ({})",
                match route {
                    Route::Fetch => "history fetch",
                    Route::Post => "POST",
                }
            ),
            What::Response { request, .. } => format!("the response to request {request}"),
            What::Frame { event, .. } => format!("frame {event}"),
        }
    }
}

/// Why a log could not be read: one line, `file:line:column: message` where the problem
/// has a place, `file: entry N: message` where it is one entry's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogError {
    /// The file, as the caller named it.
    pub path: PathBuf,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `file:line:column: …` when the message starts with the place (as a scenario's).
        let place = self
            .message
            .split_once(": ")
            .filter(|(p, _)| p.split(':').all(|n| n.parse::<usize>().is_ok()));
        match place {
            Some((p, rest)) => write!(f, "{}:{p}: {rest}", self.path.display()),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for LogError {}

/// Read and check the log at `path`.
pub fn load(path: &Path) -> Result<Log, LogError> {
    let error = |message: String| LogError {
        path: path.to_path_buf(),
        message,
    };
    let size = std::fs::metadata(path)
        .map_err(|e| error(format!("cannot read the log: {e}")))?
        .len();
    if size > LOG_BYTES_MAX {
        return Err(error(format!(
            "the log is {size} bytes; a log may be at most {LOG_BYTES_MAX} bytes"
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| error(format!("cannot read the log: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| error("the log is not UTF-8 text (a log is a UTF-8 JSON file)".into()))?;
    parse(path, &text)
}

/// Parse and check log `text`; `path` is only for messages.
pub fn parse(path: &Path, text: &str) -> Result<Log, LogError> {
    let error = |message: String| LogError {
        path: path.to_path_buf(),
        message,
    };
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        let what = if e.is_eof() {
            "the log ends early (truncated?)".to_string()
        } else {
            format!("not JSON: {e}")
        };
        error(format!("{}:{}: {what}", e.line(), e.column()))
    })?;
    let Some(object) = value.as_object() else {
        return Err(error(
            "not a reconcile-sim log (a JSON object with \"format\": \"reconcile-sim-log\")".into(),
        ));
    };
    if object.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
        return Err(error(format!(
            "not a reconcile-sim log: field `format` must be \"{FORMAT}\" (a scenario file is replayed with `replay`, not imported)"
        )));
    }
    match object.get("version").and_then(|v| v.as_u64()) {
        Some(v) if v == u64::from(LOG_VERSION) => {}
        Some(v) => {
            return Err(error(format!(
                "log format version {v}; this build reads version {LOG_VERSION} (a newer recorder? upgrade reconcile-sim)"
            )))
        }
        None => return Err(error("field `version` is missing or not a number".into())),
    }
    // Each entry on its own, so the message names the entry that is wrong.
    if let Some(entries) = object.get("entries").and_then(|e| e.as_array()) {
        if entries.len() > ENTRIES_MAX {
            return Err(error(format!(
                "{} entries; a log may hold at most {ENTRIES_MAX}",
                entries.len()
            )));
        }
        for (i, entry) in entries.iter().enumerate() {
            if let Err(e) = Entry::deserialize(entry) {
                return Err(error(format!("entry {i}: {e}")));
            }
        }
    }
    let log: Log = serde_json::from_value(value).map_err(|e| error(e.to_string()))?;
    check(&log).map_err(error)?;
    Ok(log)
}

/// What the types cannot say: every response names a request made before it, once, on
/// the route its body answers.
fn check(log: &Log) -> Result<(), String> {
    let mut requests: BTreeMap<u64, (Route, bool)> = BTreeMap::new();
    for (i, entry) in log.entries.iter().enumerate() {
        match &entry.what {
            What::Request { id, route, .. } if requests.insert(*id, (*route, false)).is_some() => {
                return Err(format!(
                    "entry {i}: request {id} was already made (request ids are unique within a log)"
                ));
            }
            What::Response {
                request,
                post,
                fetch,
            } => {
                let Some((route, answered)) = requests.get_mut(request) else {
                    return Err(format!(
                        "entry {i}: a response to request {request}, which the tab never made (in this log)"
                    ));
                };
                if *answered {
                    return Err(format!("entry {i}: a second response to request {request}"));
                }
                *answered = true;
                let route = *route;
                match (route, post.is_some(), fetch.is_some()) {
                    (Route::Post, true, false) | (Route::Fetch, false, true) => {}
                    _ => {
                        return Err(format!(
                        "entry {i}: request {request} is a {} and its response must hold exactly `{}`",
                        match route { Route::Post => "POST", Route::Fetch => "history fetch" },
                        match route { Route::Post => "post", Route::Fetch => "fetch" },
                    ))
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The JSON Schema of logs, as checked in at `docs/log.schema.json`.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Log);
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema serialises");
    text.push('\n');
    text
}

impl Log {
    /// The log's bytes: pretty JSON with one entry a line, a final newline.
    pub fn to_json(&self) -> String {
        let mut head = serde_json::to_value(self).expect("a log serialises");
        let entries = head
            .as_object_mut()
            .and_then(|o| o.remove("entries"))
            .and_then(|e| e.as_array().cloned())
            .unwrap_or_default();
        let head = serde_json::to_string_pretty(&head).expect("a log serialises");
        let head = head.trim_end().trim_end_matches('}').trim_end();
        let mut out = String::from(head);
        out.push_str(",\n  \"entries\": [");
        for (i, e) in entries.iter().enumerate() {
            out.push_str(if i == 0 { "\n    " } else { ",\n    " });
            out.push_str(&serde_json::to_string(e).expect("an entry serialises"));
        }
        out.push_str(if entries.is_empty() {
            "]\n}\n"
        } else {
            "\n  ]\n}\n"
        });
        out
    }
}

/// The world's ids written as a tab's app would see them: `t3`, `m10`. The import reads
/// them as opaque ids, so a log written here is as hard to explain as a real one.
fn turn_id(t: crate::model::wire::TurnId) -> Id {
    Id(t.to_string())
}

fn message(m: crate::model::wire::MessageId) -> Id {
    Id(m.to_string())
}

/// An event as a log holds it.
pub fn log_event(event: &Event) -> LogEvent {
    match event {
        Event::TurnStart { turn_id: t } => LogEvent::TurnStart { turn: turn_id(*t) },
        Event::TextDelta { turn_id: t, text } => LogEvent::TextDelta {
            turn: t.map(turn_id),
            text: Some(text.clone()),
        },
        Event::ToolCall {
            turn_id: t,
            call,
            text,
        } => LogEvent::ToolCall {
            turn: turn_id(*t),
            call: *call,
            text: Some(text.clone()),
        },
        Event::ToolResult {
            turn_id: t,
            call,
            text,
        } => LogEvent::ToolResult {
            turn: turn_id(*t),
            call: *call,
            text: Some(text.clone()),
        },
        Event::MessageQueued { message_id, text } => LogEvent::MessageQueued {
            message: message(*message_id),
            text: text.clone(),
        },
        Event::MessageConsumed {
            message_ids,
            reason,
        } => LogEvent::MessageConsumed {
            messages: message_ids.iter().copied().map(message).collect(),
            reason: *reason,
        },
        Event::Status { status } => LogEvent::Status { status: *status },
        Event::TurnSealed { turn_id: t } => LogEvent::TurnSealed { turn: turn_id(*t) },
    }
}

/// What one tab saw while a schedule replayed, as the log's entries (`record_tab`).
struct Tab {
    tab: ClientId,
    entries: Vec<Entry>,
    next_request: u64,
    /// The world's fetch request id → the log's request id.
    fetches: BTreeMap<u32, u64>,
    /// The log's ids of POSTs not yet answered, oldest first.
    posts: std::collections::VecDeque<u64>,
    boot: Vec<Entry>,
}
impl Tab {
    fn push(&mut self, what: What) {
        self.entries.push(Entry { at_ms: None, what });
    }
    fn request(&mut self, effect: &Effect) {
        let id = self.next_request;
        self.next_request += 1;
        match effect {
            Effect::Post { message_id, text } => {
                self.posts.push_back(id);
                self.push(What::Request {
                    id,
                    route: Route::Post,
                    method: Some("POST".into()),
                    path: None,
                    message: message_id.map(message),
                    text: Some(text.clone()),
                });
            }
            Effect::Fetch { request_id } => {
                self.fetches.insert(request_id.0, id);
                self.push(What::Request {
                    id,
                    route: Route::Fetch,
                    method: Some("GET".into()),
                    path: None,
                    message: None,
                    text: None,
                });
            }
        }
    }
}
impl Observer for Tab {
    fn on_step(
        &mut self,
        _: &World,
        record: &crate::model::record::StepRecord,
        at: StepAt,
        _: Option<&Violation>,
    ) {
        // The drain's steps too: the tab sees them as it sees any other.
        let _ = at;
        if record.step.actor() != Actor::Client(self.tab) {
            return;
        }
        let Some(input) = &record.input else { return };
        match input {
            Input::UserSend { text, .. } => self.push(What::Send {
                text: Some(text.clone()),
            }),
            Input::Scroll { at_bottom } => self.push(What::Scroll {
                at_bottom: *at_bottom,
            }),
            Input::Event { event } => self.push(What::Frame {
                event: log_event(event),
                wire: None,
            }),
            Input::PostResponse { response, .. } => {
                let request = self.posts.pop_front().unwrap_or(u64::MAX);
                self.push(What::Response {
                    request,
                    post: Some(PostBody {
                        outcome: match response {
                            PostOutcome::Started { .. } => PostOutcomeName::Started,
                            PostOutcome::Queued => PostOutcomeName::Queued,
                        },
                        turn: match response {
                            PostOutcome::Started { turn_id: t } => Some(turn_id(*t)),
                            PostOutcome::Queued => None,
                        },
                    }),
                    fetch: None,
                })
            }
            Input::FetchResponse {
                request_id, chunks, ..
            } => {
                let request = match self.fetches.get(&request_id.0) {
                    Some(r) => *r,
                    None => {
                        // Asked at boot, before any step: its request goes first.
                        let id = self.next_request;
                        self.next_request += 1;
                        self.fetches.insert(request_id.0, id);
                        self.boot.push(Entry {
                            at_ms: None,
                            what: What::Request {
                                id,
                                route: Route::Fetch,
                                method: Some("GET".into()),
                                path: None,
                                message: None,
                                text: None,
                            },
                        });
                        id
                    }
                };
                let rows = chunks
                    .iter()
                    .map(|c| LogRow {
                        seq: i64::from(c.seq),
                        turn: turn_id(c.turn_id),
                        role: c.role,
                        messages: c.message_ids.iter().copied().map(message).collect(),
                        text: Some(c.text.clone()),
                    })
                    .collect();
                self.push(What::Response {
                    request,
                    post: None,
                    fetch: Some(FetchBody { rows }),
                })
            }
        }
        for effect in &record.effects {
            self.request(effect);
        }
    }
}

/// What tab `tab` went through when `steps` are replayed on `stores` in `config`, as a
/// log (not private): the reference recorder, which needs no app. Requests the store made
/// at its boot (before any step) are inferred from the responses that answer them.
pub fn record_tab(
    stores: &dyn StoreFactory,
    config: WorldConfig,
    steps: &[Step],
    tab: ClientId,
) -> Log {
    let mut obs = Tab {
        tab,
        entries: Vec::new(),
        next_request: 1,
        fetches: BTreeMap::new(),
        posts: Default::default(),
        boot: Vec::new(),
    };
    // What the store asked for at its boot, before any step: a world made only to see it.
    let boot = World::new(config.clone(), stores);
    let booted: Vec<Effect> = boot
        .client(tab)
        .fetch_requests()
        .map(|r| Effect::Fetch { request_id: *r })
        .collect();
    drop(boot);
    for effect in &booted {
        obs.request(effect);
    }
    replay_observed(stores, config, steps, &mut obs);
    let mut entries = obs.boot;
    entries.extend(obs.entries);
    Log {
        format: FORMAT.into(),
        version: LOG_VERSION,
        recorder: Some("reconcile-sim replay".into()),
        store_name: stores.stated_name(),
        private: false,
        limit: None,
        dropped: 0,
        entries,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<Log, String> {
        parse(Path::new("t.json"), text).map_err(|e| e.to_string())
    }

    #[test]
    fn a_truncated_log_is_one_line_naming_the_place() {
        let e = p(r#"{"format": "reconcile-sim-log", "version": 1, "entries": [{"kind": "send""#)
            .unwrap_err();
        assert!(e.starts_with("t.json:1:"), "{e}");
        assert!(e.contains("ends early"), "{e}");
        assert!(!e.contains('\n'));
    }

    #[test]
    fn a_scenario_or_a_newer_log_is_told_what_it_is() {
        let e = p(r#"{"version": 1, "steps": []}"#).unwrap_err();
        assert!(e.contains("not a reconcile-sim log"), "{e}");
        let e = p(r#"{"format": "reconcile-sim-log", "version": 2, "entries": []}"#).unwrap_err();
        assert!(e.contains("version 2"), "{e}");
    }

    #[test]
    fn a_bad_entry_is_named_by_its_index() {
        let e = p(
            r#"{"format": "reconcile-sim-log", "version": 1, "entries": [
            {"kind": "send"}, {"kind": "frame", "event": {"type": "turn-start"}}]}"#,
        )
        .unwrap_err();
        assert!(e.starts_with("t.json: entry 1: "), "{e}");
    }

    #[test]
    fn a_response_to_a_request_never_made_is_refused() {
        let e = p(
            r#"{"format": "reconcile-sim-log", "version": 1, "entries": [
            {"kind": "response", "request": 4, "fetch": {"rows": []}}]}"#,
        )
        .unwrap_err();
        assert!(
            e.contains("entry 0: a response to request 4, which the tab never made"),
            "{e}"
        );
    }

    #[test]
    fn ids_may_be_numbers_or_strings_and_a_log_reads_back_as_written() {
        let log = p(r#"{"format": "reconcile-sim-log", "version": 1, "private": true, "entries": [
            {"kind": "request", "id": 1, "route": "fetch"},
            {"kind": "response", "request": 1, "fetch": {"rows": [{"seq": 5, "turn": 7, "role": "user", "messages": ["a-1"]}]}},
            {"kind": "frame", "event": {"type": "turn-start", "turn": "7"}, "at_ms": 3.5}]}"#)
        .unwrap();
        assert_eq!(
            log.entries[2].what,
            What::Frame {
                event: LogEvent::TurnStart {
                    turn: Id("7".into())
                },
                wire: None
            }
        );
        assert_eq!(p(&log.to_json()).unwrap(), log);
    }
}
