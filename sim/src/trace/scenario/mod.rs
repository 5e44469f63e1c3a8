//! Scenario files: a failing (or passing) interleaving a person can read, commit, edit and
//! replay. See `docs/scenario-format.md`; the JSON Schema in `docs/scenario.schema.json` is
//! generated from these types ([`json_schema`]) and a test keeps it in sync.
//!
//! The steps are the truth, not the seed: a scenario replays the same way after any change
//! to the RNG or the step generator (proptest stores only seeds, and users pay for it:
//! proptest#564). A step that is no longer enabled on replay is skipped and reported, so an
//! edited or truncated file still replays.
//!
//! Files are pretty-printed JSON with one step per line, written atomically (temp file in
//! the same directory, then rename). Loading never panics: every problem is a
//! [`ScenarioError`] naming the file, and the line and column where it can.

use std::fmt;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;

use crate::model::config::WorldConfig;
use crate::model::pins::WorldPins;
use crate::model::record::StepRecord;
use crate::model::step::Step;
use crate::model::store::StoreFactory;
use crate::model::world::World;
use crate::oracle::Invariant;
use crate::oracle::Violation;
use crate::run::{replay_observed, Observer, StepAt};
use crate::trace::assume::Assumption;
use crate::trace::class::{Class, ClassWatch};
use crate::trace::describe;
use crate::util::fs::write_atomically;

mod load;

pub use load::{load, load_bytes, parse};

/// The format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// The most clients a scenario may declare (the model uses 2–3; shrinking may go to 1).
pub const CLIENTS_MAX: u8 = 16;

/// The largest scenario file read, in bytes (32 MiB: a thousand times the longest run's
/// file). Larger files are refused before they are read, naming the file and the limit.
pub const FILE_BYTES_MAX: u64 = 32 << 20;

/// The most steps a scenario may hold (a fuzzed run has a few hundred at most; this
/// leaves room for hand-written and generated files, and bounds a replay's work).
pub const STEPS_MAX: usize = 200_000;

/// `text` with every control character (escape sequences, carriage returns, newlines…)
/// written as its escape (`\u{1b}`), so that text from a file cannot move the cursor,
/// recolour or clear a terminal it is printed to. Printable text is unchanged. Applied
/// where file-borne text is printed, not when it is read: a scenario keeps its bytes
/// through a load and a save.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.chars()
            .map(|c| {
                if c.is_control() {
                    c.escape_unicode().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

/// One scenario file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "reconcile-sim scenario")]
pub struct Scenario {
    /// The format version: 1.
    #[schemars(range(min = 1, max = 1))]
    pub version: u32,
    /// What this scenario shows, for a person. Ignored by replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The store it was recorded against (a name `--store` takes). `replay` and `shrink`
    /// use it unless `--store` says otherwise.
    #[schemars(length(min = 1))]
    pub store: String,
    /// For an `exec:` store: the directory its command ran in, relative to this file's
    /// directory (or absolute). Replay runs the command there (with `--allow-exec`), so its
    /// relative paths mean what they meant when it was recorded, from any working
    /// directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_dir: Option<String>,
    /// For an `exec:` store whose adapter states a name (its `hello` answer's, followed by
    /// the command's words after `--`): that name. A `check --store` baseline file is a
    /// known failure of every `exec:` store stating the same name, whatever command line
    /// runs it (`reconcile-sim-adapter adapter.ts` from `npm run`, the engine inside Node,
    /// or `node_modules/.bin/reconcile-sim-adapter adapter.ts`), and files are named by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_name: Option<String>,
    /// The seed of the run it came from, if any. Informational: the steps are the truth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The strategy of the run it came from, if any. Informational.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// What `--world` pinned in the run it came from (`["ws_reorder_window=1"]`), so its
    /// reproduce command repeats them. Informational: `config` is the concrete world.
    #[serde(default, skip_serializing_if = "WorldPins::is_empty")]
    pub world_pins: WorldPins,
    /// The contract the store declared of its backend and transport (an adapter's `hello`
    /// `world`), which the run's worlds were drawn under (`world_pins` includes it, with
    /// any `--world` override on top). Informational, like `world_pins`.
    #[serde(default, skip_serializing_if = "WorldPins::is_empty")]
    pub contract: WorldPins,
    /// The invariant expected to break when the steps are replayed on `store`, or null when
    /// the scenario is expected to pass.
    #[serde(default)]
    pub expect: Option<Invariant>,
    /// The root-cause class the scenario witnesses on `store` ([`crate::trace::class`]),
    /// when it was saved by a class-aware campaign: `check --known` reads it as the class
    /// this file stands for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<Class>,
    /// Classes excused on replay before `class` shows (a run goes on past a violation of
    /// one of these on the tab it happened in). Empty for most files: shrinking usually
    /// removes whatever made the masked class happen.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub masked: Vec<Class>,
    /// The features of the world this witness needs ([`crate::trace::assume`]): each one
    /// without which the same steps no longer show the failure. Absent in files written
    /// before it was recorded, and in files nobody judged (hand-written ones).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::trace::assume::deserialize_needs"
    )]
    pub needs: Option<Vec<Assumption>>,
    /// A known failure of `store`: `check --store` replaying it on that store accepts it
    /// failing with its `class` (and counts the class as known) instead of requiring a
    /// pass. `check --known DIR` treats every file in DIR this way.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub known_failure: bool,
    /// Every option of the simulated world.
    pub config: WorldConfig,
    /// The main-phase steps, in order. The deterministic drain phase follows on replay and
    /// is not recorded.
    pub steps: Vec<ScenarioStep>,
}

/// One step, plus a note saying what it did when the file was written. The note (and the
/// `actor` written beside it) is for people: replay reads only the step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioStep {
    /// What replay applies.
    pub step: Step,
    /// What the step did on the replay that wrote the file ([`Scenario::annotate`]);
    /// `None` when nobody wrote one.
    pub note: Option<String>,
}

impl From<Step> for ScenarioStep {
    fn from(step: Step) -> Self {
        ScenarioStep { step, note: None }
    }
}

/// Why a scenario file could not be read. Displays as `file:line:column: message`, the
/// form editors and CI annotations jump to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file, as the caller named it, so the message points where the user looks.
    pub path: PathBuf,
    /// 1-based line and column, when the problem has a place in the file.
    pub position: Option<(usize, usize)>,
    /// What is wrong and, where there is a fixed set, what is allowed (every bad-input
    /// file under `sim/tests/bad_input/` pins one).
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((line, column)) => write!(
                f,
                "{}:{line}:{column}: {}",
                self.path.display(),
                self.message
            ),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for ScenarioError {}

impl Scenario {
    /// A scenario of `steps` on `config`, recorded against `store`, with a note on every
    /// step saying what it did there (see [`Scenario::annotate`]).
    pub fn record(
        stores: &dyn StoreFactory,
        config: WorldConfig,
        steps: &[Step],
        expect: Option<Invariant>,
    ) -> Scenario {
        let mut s = Scenario::unannotated(stores.name(), config, steps, expect);
        s.record_store(stores);
        s.annotate(stores);
        s
    }

    /// Record where `stores`' command runs (`store_dir`), for a store that runs one, so that
    /// the file replays the same from any working directory; and the name the store states
    /// (`store_name`), so that a baseline made through one command line gates the same
    /// store through another.
    pub fn record_store(&mut self, stores: &dyn StoreFactory) {
        self.store_dir = stores
            .command_dir()
            .map(|d| d.to_string_lossy().into_owned());
        self.store_name = stores.stated_name();
        self.contract = stores.contract().unwrap_or_default();
    }

    /// Whether this file was recorded against `stores`: the same stated name when both
    /// state one (an `exec:` store's, whatever command line runs it), else the same
    /// `--store` value.
    pub fn is_of(&self, stores: &dyn StoreFactory) -> bool {
        match (&self.store_name, stores.stated_name()) {
            (Some(mine), Some(theirs)) => *mine == theirs,
            _ => self.store == stores.name(),
        }
    }

    /// A scenario of `steps` on the store named `store`, without notes: nothing is
    /// replayed (for a failure saved when there is no time left to replay it).
    pub fn unannotated(
        store: String,
        config: WorldConfig,
        steps: &[Step],
        expect: Option<Invariant>,
    ) -> Scenario {
        Scenario {
            version: FORMAT_VERSION,
            description: None,
            store,
            store_dir: None,
            store_name: None,
            seed: None,
            strategy: None,
            expect,
            class: None,
            masked: Vec::new(),
            needs: None,
            known_failure: false,
            world_pins: WorldPins::default(),
            contract: WorldPins::default(),
            config,
            steps: steps.iter().copied().map(ScenarioStep::from).collect(),
        }
    }

    /// The steps alone.
    pub fn steps(&self) -> Vec<Step> {
        self.steps.iter().map(|s| s.step).collect()
    }

    /// Rewrite every step's note from a replay on `stores`: what the step did, the events
    /// it broadcast (`→ e5 turn-start t1`) and the requests the store made (`asks fetch
    /// f1`). A step not enabled at its point is noted as skipped; steps after the replay
    /// ended (at a crash or a violation) as not reached.
    pub fn annotate(&mut self, stores: &dyn StoreFactory) {
        struct Notes {
            notes: Vec<Option<Option<String>>>,
            skipped: usize,
            crashed: bool,
        }
        impl Observer for Notes {
            fn on_step(
                &mut self,
                _: &World,
                record: &StepRecord,
                at: StepAt,
                _: Option<&Violation>,
            ) {
                if let StepAt::Main(n) = at {
                    let note = describe::note(record);
                    self.notes[n + self.skipped] = Some((!note.is_empty()).then_some(note));
                    self.crashed |= record.crash.is_some();
                }
            }
            fn on_skip(&mut self, input_index: usize) {
                self.skipped += 1;
                self.notes[input_index] = Some(Some("not enabled here: skipped on replay".into()));
            }
        }
        let mut notes = Notes {
            notes: vec![None; self.steps.len()],
            skipped: 0,
            crashed: false,
        };
        let mut watch = ClassWatch::new(&self.masked);
        replay_observed(
            stores,
            self.config.clone(),
            &self.steps(),
            &mut (&mut notes, &mut watch),
        );
        let not_reached = if notes.crashed {
            "not reached: the store crashed earlier"
        } else {
            "not reached: the run stopped at its violation"
        };
        for (s, note) in self.steps.iter_mut().zip(notes.notes) {
            s.note = note.unwrap_or_else(|| Some(not_reached.to_string()));
        }
    }

    /// The file's bytes: pretty JSON, one step per line, a final newline. Deterministic.
    pub fn to_json(&self) -> String {
        let mut buf = Vec::new();
        let mut ser = serde_json::Serializer::with_formatter(&mut buf, StepPerLine::default());
        self.serialize(&mut ser).expect("a scenario serialises");
        let mut text = String::from_utf8(buf).expect("serde_json writes UTF-8");
        text.push('\n');
        text
    }

    /// Write the file atomically: a temp file in the same directory, then a rename, so a
    /// reader (or a crash) never sees half a scenario. Creates the directory if needed. An
    /// absolute `store_dir` is written relative to the file's directory, so that a
    /// repository's scenario replays from any checkout.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let absolute = self
            .store_dir
            .as_deref()
            .filter(|d| Path::new(d).is_absolute());
        let Some(dir) = absolute else {
            return write_atomically(path, self.to_json().as_bytes());
        };
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        // The directory may not exist yet (write_atomically makes it): then it is taken
        // as written, made absolute.
        let base = parent.canonicalize().ok().or_else(|| {
            let cwd = std::env::current_dir().ok()?;
            Some(normalize(&cwd.join(&parent)))
        });
        let mut copy = self.clone();
        if let Some(base) = base {
            copy.store_dir = Some(relative_path(&base, Path::new(dir)));
        }
        write_atomically(path, copy.to_json().as_bytes())
    }
}

/// `path` without `.` and `..` components (lexically).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `target` relative to `base` (both absolute): `..`, `../tools`, `.` when equal.
fn relative_path(base: &Path, target: &Path) -> String {
    let b: Vec<_> = base.components().collect();
    let t: Vec<_> = target.components().collect();
    let common = b.iter().zip(&t).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); b.len() - common];
    parts.extend(
        t[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

impl Serialize for ScenarioStep {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("actor", &self.step.actor().to_string())?;
        map.serialize_entry("kind", self.step.kind().name())?;
        match self.step {
            Step::HandlePost { client }
            | Step::ServeFetch { client }
            | Step::DeliverPostResponse { client }
            | Step::Send { client }
            | Step::ScrollUp { client }
            | Step::ScrollDown { client } => map.serialize_entry("client", &client)?,
            Step::DeliverEvent { client, event } => {
                map.serialize_entry("client", &client)?;
                map.serialize_entry("event", &event)?;
            }
            Step::DeliverFetchResponse { client, request } => {
                map.serialize_entry("client", &client)?;
                map.serialize_entry("request", &request)?;
            }
            Step::AgentToolResult { interrupt } => map.serialize_entry("interrupt", &interrupt)?,
            Step::AgentDelta
            | Step::AgentToolCall
            | Step::AgentEnd
            | Step::AgentFail
            | Step::AgentWrite
            | Step::AgentSeal => {}
        }
        if let Some(note) = &self.note {
            map.serialize_entry("note", note)?;
        }
        map.end()
    }
}

impl JsonSchema for ScenarioStep {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ScenarioStep".into()
    }

    /// A [`Step`] (one object per kind, exactly its fields) that may also carry the two
    /// annotation fields `actor` and `note`, which replay ignores.
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = Step::json_schema(generator);
        let annotations = [
            (
                "actor",
                "Who acts: `backend` or `c<N>`. Written for people; replay ignores it.",
            ),
            (
                "note",
                "What the step did when the file was written. Replay ignores it.",
            ),
        ];
        if let Some(variants) = schema.get_mut("oneOf").and_then(|v| v.as_array_mut()) {
            for variant in variants {
                if let Some(props) = variant
                    .get_mut("properties")
                    .and_then(|p| p.as_object_mut())
                {
                    for (name, doc) in annotations {
                        props.insert(
                            name.to_string(),
                            serde_json::json!({"type": "string", "description": doc}),
                        );
                    }
                }
            }
        }
        schema
    }
}

/// The JSON Schema of scenario files, as checked in at `docs/scenario.schema.json`.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Scenario);
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema serialises");
    text.push('\n');
    text
}

/// serde_json's pretty printer, except that an object directly inside an array is written
/// on one line (`{"actor": "c0", "kind": "send", "client": 0}`): one step per line.
#[derive(Default)]
struct StepPerLine {
    pretty: serde_json::ser::PrettyFormatter<'static>,
    /// For each open container, whether it is an array.
    open: Vec<bool>,
    /// The depth at which one-line mode started, if in it.
    one_line_from: Option<usize>,
}

impl serde_json::ser::Formatter for StepPerLine {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open.push(true);
        if self.one_line_from.is_some() {
            w.write_all(b"[")
        } else {
            self.pretty.begin_array(w)
        }
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open.pop();
        if self.one_line_from.is_some() {
            w.write_all(b"]")
        } else {
            self.pretty.end_array(w)
        }
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if self.one_line_from.is_some() {
            if first {
                Ok(())
            } else {
                w.write_all(b", ")
            }
        } else {
            self.pretty.begin_array_value(w, first)
        }
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        if self.one_line_from.is_some() {
            Ok(())
        } else {
            self.pretty.end_array_value(w)
        }
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        if self.one_line_from.is_none() && self.open.last() == Some(&true) {
            self.one_line_from = Some(self.open.len());
        }
        self.open.push(false);
        if self.one_line_from.is_some() {
            w.write_all(b"{")
        } else {
            self.pretty.begin_object(w)
        }
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open.pop();
        match self.one_line_from {
            Some(depth) => {
                if depth == self.open.len() {
                    self.one_line_from = None;
                }
                w.write_all(b"}")
            }
            None => self.pretty.end_object(w),
        }
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if self.one_line_from.is_some() {
            if first {
                Ok(())
            } else {
                w.write_all(b", ")
            }
        } else {
            self.pretty.begin_object_key(w, first)
        }
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        if self.one_line_from.is_some() {
            w.write_all(b": ")
        } else {
            self.pretty.begin_object_value(w)
        }
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        if self.one_line_from.is_some() {
            Ok(())
        } else {
            self.pretty.end_object_value(w)
        }
    }
}

/// The file name a failure is saved under: `<store>-<invariant>-seed<N>.json` (or
/// without the seed part). Characters a file name should not hold become `_` (an
/// `exec:` store name holds a path).
pub fn failure_file_name(store: &str, invariant: Invariant, seed: Option<u64>) -> String {
    let safe: String = store
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    match seed {
        Some(s) => format!("{safe}-{invariant}-seed{s}.json"),
        None => format!("{safe}-{invariant}.json"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_written_one_per_line_and_config_pretty() {
        let kind = crate::store::note::current::KIND;
        let s = Scenario::record(
            &kind,
            crate::testing::script::scripted_config(),
            &[Step::Send { client: 0 }, Step::HandlePost { client: 0 }],
            None,
        );
        let text = s.to_json();
        assert!(text.contains(
            "    {\"actor\": \"c0\", \"kind\": \"send\", \"client\": 0, \"note\": \"user sends m1 · asks POST m1\"},\n"
        ), "{text}");
        assert!(
            text.contains("  \"config\": {\n    \"clients\": 2,\n"),
            "{text}"
        );
        assert!(text.contains("  \"expect\": null,\n"), "{text}");
        let back = parse(Path::new("x.json"), &text).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn failure_file_names_are_safe() {
        assert_eq!(
            failure_file_name("exec:./a b", Invariant::NoLoss, Some(3)),
            "exec_._a_b-inv1-no-loss-seed3.json"
        );
        // Letters, digits, `-`, `_` and `.` are kept as they are; the seed part is optional.
        assert_eq!(
            failure_file_name("fix-ab_2.x", Invariant::NoLoss, None),
            "fix-ab_2.x-inv1-no-loss.json"
        );
    }

    /// A store of `current` whose "command" runs in `dir`, as an `exec:` store's does.
    struct InDir(PathBuf);
    impl StoreFactory for InDir {
        fn name(&self) -> String {
            "exec:./adapter".into()
        }
        fn make(&self, c: crate::model::wire::ClientId) -> Box<dyn crate::model::store::Store> {
            crate::store::note::current::KIND.make(c)
        }
        fn command_dir(&self) -> Option<PathBuf> {
            Some(self.0.clone())
        }
    }

    /// An `exec:` store run by `command` whose adapter states `stated` (or nothing).
    struct Stating(&'static str, Option<&'static str>);
    impl StoreFactory for Stating {
        fn name(&self) -> String {
            self.0.into()
        }
        fn make(&self, c: crate::model::wire::ClientId) -> Box<dyn crate::model::store::Store> {
            crate::store::note::current::KIND.make(c)
        }
        fn stated_name(&self) -> Option<String> {
            self.1.map(str::to_string)
        }
    }

    /// A file records the name its store states, and is of every store stating that name
    /// (whatever command line runs it) and of no store stating another; without a stated
    /// name on either side (a shipped store, an adapter that states none, a file written
    /// before names were recorded) the `--store` values decide. Files are named by it.
    #[test]
    fn a_file_is_of_the_stores_stating_its_name_else_of_its_store() {
        let npm = Stating(
            "exec:reconcile-sim-adapter adapter.ts",
            Some("js:adapter.ts"),
        );
        let shell = Stating(
            "exec:node_modules/.bin/reconcile-sim-adapter adapter.ts",
            Some("js:adapter.ts"),
        );
        let other = Stating(
            "exec:reconcile-sim-adapter adapter.ts -- membership",
            Some("js:adapter.ts -- membership"),
        );
        let silent = Stating("exec:reconcile-sim-adapter adapter.ts", None);
        let record = |store: &dyn StoreFactory| {
            Scenario::record(
                store,
                crate::testing::script::scripted_config(),
                &[Step::Send { client: 0 }],
                None,
            )
        };
        let s = record(&npm);
        assert_eq!(s.store, "exec:reconcile-sim-adapter adapter.ts");
        assert_eq!(s.store_name.as_deref(), Some("js:adapter.ts"));
        let text = s.to_json();
        assert!(
            text.contains("\n  \"store_name\": \"js:adapter.ts\",\n"),
            "{text}"
        );
        assert_eq!(parse(Path::new("a.json"), &text).unwrap(), s);
        assert!(s.is_of(&npm) && s.is_of(&shell));
        assert!(!s.is_of(&other), "another variant of the mapping");
        assert!(
            s.is_of(&silent),
            "no stated name on the store: the same command"
        );
        let s = record(&shell);
        assert!(s.is_of(&npm) && !s.is_of(&silent) && !s.is_of(&other));
        // A file without a name (a shipped store's, or written before names were recorded).
        let s = record(&silent);
        assert_eq!(s.store_name, None);
        assert!(!s.to_json().contains("store_name"));
        assert!(s.is_of(&npm) && !s.is_of(&shell));
        let kind = crate::store::note::current::KIND;
        assert!(record(&kind).is_of(&kind) && !record(&kind).is_of(&npm));
        assert_eq!(npm.file_label(), "js:adapter.ts");
        assert_eq!(kind.file_label(), "current");
        assert_eq!(silent.file_label(), "exec:reconcile-sim-adapter adapter.ts");
    }

    fn saved_store_dir(file: &Path) -> String {
        let text = std::fs::read_to_string(file).unwrap();
        let back = parse(file, &text).unwrap();
        assert_eq!(
            back.to_json(),
            text,
            "a saved file loads back to its own bytes"
        );
        back.store_dir.expect("the store's directory is recorded")
    }

    /// A scenario of a store that runs a command records the command's directory, and a
    /// file saved anywhere names it relative to the file's own directory (so a repository's
    /// scenario replays from any checkout): `.` beside it, `..` above, `../tools` beside
    /// its folder, also when the file's folder does not exist yet.
    #[test]
    fn a_store_s_directory_is_saved_relative_to_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("repo/scenarios")).unwrap();
        let record = |dir: &Path| {
            Scenario::record(
                &InDir(dir.to_path_buf()),
                crate::testing::script::scripted_config(),
                &[Step::Send { client: 0 }],
                None,
            )
        };
        let s = record(&root.join("repo"));
        assert_eq!(
            s.store_dir.as_deref(),
            Some(root.join("repo").to_str().unwrap()),
            "record keeps the command's directory"
        );
        let file = root.join("repo/scenarios/a.json");
        s.save(&file).unwrap();
        assert_eq!(saved_store_dir(&file), "..");
        let file = root.join("repo/b.json");
        s.save(&file).unwrap();
        assert_eq!(saved_store_dir(&file), ".");
        let s = record(&root.join("repo/tools"));
        let file = root.join("repo/scenarios/c.json");
        s.save(&file).unwrap();
        assert_eq!(saved_store_dir(&file), "../tools");
        // A folder made by the save, named through `.` and `..`.
        let file = root.join("repo/./x/../new/deeper/d.json");
        s.save(&file).unwrap();
        assert_eq!(saved_store_dir(&file), "../../tools");
        // A store_dir already relative is written as it is.
        let mut s = s;
        s.store_dir = Some("../elsewhere".into());
        let file = root.join("repo/scenarios/e.json");
        s.save(&file).unwrap();
        assert_eq!(saved_store_dir(&file), "../elsewhere");
        // An in-process store records none.
        let kind = crate::store::note::current::KIND;
        let s = Scenario::record(
            &kind,
            crate::testing::script::scripted_config(),
            &[Step::Send { client: 0 }],
            None,
        );
        assert_eq!(s.store_dir, None);
    }

    /// Every step's note says what it did on the replay: a step not enabled at its point
    /// is noted as skipped and the steps after it keep their own notes; steps after a
    /// crash are "not reached: the store crashed earlier".
    #[test]
    fn notes_say_what_each_step_did_skipped_and_not_reached() {
        let kind = crate::store::note::current::KIND;
        let config = crate::testing::script::scripted_config();
        let s = Scenario::record(
            &kind,
            config.clone(),
            &[
                Step::Send { client: 0 },
                Step::HandlePost { client: 1 },
                Step::ScrollDown { client: 1 },
                Step::HandlePost { client: 0 },
            ],
            None,
        );
        let notes: Vec<Option<&str>> = s.steps.iter().map(|x| x.note.as_deref()).collect();
        assert_eq!(
            notes,
            vec![
                Some("user sends m1 · asks POST m1"),
                Some("not enabled here: skipped on replay"),
                Some("not enabled here: skipped on replay"),
                Some(
                    "POST m1 reaches the backend (agent idle: starts t1) → e2 turn-start t1, e3 status running"
                ),
            ],
            "{}",
            s.to_json()
        );

        use crate::testing::stores::PanicsOnSecondSend;
        let s = Scenario::record(
            &PanicsOnSecondSend,
            config.clone(),
            &[
                Step::Send { client: 0 },
                Step::Send { client: 0 },
                Step::Send { client: 1 },
            ],
            None,
        );
        assert_eq!(
            s.steps[2].note.as_deref(),
            Some("not reached: the store crashed earlier"),
            "{}",
            s.to_json()
        );
    }

    /// The schema editors validate scenario files with names a step `ScenarioStep` and
    /// lets every kind of step carry the two annotation strings, `actor` and `note`.
    #[test]
    fn the_schema_lets_every_step_carry_an_actor_and_a_note() {
        let schema: serde_json::Value = serde_json::from_str(&json_schema()).unwrap();
        let step = &schema["$defs"]["ScenarioStep"];
        let kinds = step["oneOf"]
            .as_array()
            .expect("one schema per kind of step");
        assert_eq!(kinds.len(), crate::model::step::StepKind::ALL.len());
        for kind in kinds {
            for field in ["actor", "note"] {
                assert_eq!(kind["properties"][field]["type"], "string", "{kind}");
            }
        }
        assert_eq!(
            schema["properties"]["steps"]["items"]["$ref"],
            "#/$defs/ScenarioStep"
        );
    }

    /// Text from a file is printed with its control characters escaped, other text as it is.
    #[test]
    fn printable_escapes_control_characters_only() {
        assert!(matches!(
            printable("m1 · ok"),
            std::borrow::Cow::Borrowed("m1 · ok")
        ));
        assert_eq!(printable("a\u{1b}[2Jb\n"), "a\\u{1b}[2Jb\\u{a}");
    }
}
