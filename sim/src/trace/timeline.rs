//! Readable replays: what each step did, as a text timeline with one column per actor
//! (backend, each client) or as a mermaid sequence diagram that renders in GitHub Markdown.
//!
//! Everything here is what one replay ([`crate::run::replay_observed`]) reported, step by
//! step, so the words can never disagree with the verdict.

use std::fmt::Write as _;

use crate::model::config::WorldConfig;
use crate::model::record::StepRecord;
use crate::model::step::{Actor, Step};
use crate::model::store::StoreFactory;
use crate::model::wire::{ChunkRow, ClientId};
use crate::model::world::World;
use crate::oracle::{render_line, Invariant, Violation};
use crate::run::{replay_observed, Observer, Outcome, RunReport, StepAt};
use crate::trace::class::{Class, ClassWatch};
use crate::trace::describe;

/// Which phase a timeline line belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// A step of the scenario (index into its `steps`).
    Main {
        /// Its index in the input, skipped steps counted: the timeline's step label.
        input_index: usize,
    },
    /// A step of the scenario that was not enabled when its turn came, so it was skipped.
    Skipped {
        /// Its index in the input, as [`RunReport::skipped`] lists it.
        input_index: usize,
    },
    /// A step of the deterministic drain phase (0-based).
    Drain {
        /// Its index in [`RunReport::drain`] (labelled `d<N>`).
        drain_index: usize,
    },
}

/// One line of a timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Main, skipped or drain, with the step's index there.
    pub phase: Phase,
    /// The step: the one applied, or, when skipped, the one the input named.
    pub step: Step,
    /// What the step did, in words (empty for a skipped step).
    pub note: String,
    /// The violation this step caused, if it is the breaking step (or a masked one).
    pub breaks: Option<Invariant>,
    /// The violation it caused was of a masked class: its tab was excused, the run went
    /// on (a scenario saved with `masked` classes).
    pub masked: bool,
}

/// A replay and its narration.
pub struct Narration {
    /// The replay's report: the verdict the lines lead up to.
    pub report: RunReport,
    /// One line per input step (skipped ones too), then one per drain step.
    pub lines: Vec<Line>,
    /// The backend DB and the breaking client's render right after the breaking step.
    pub at_break: Option<(Vec<ChunkRow>, Vec<String>)>,
}

/// Replay `steps` on `stores` and narrate every step, skipped ones included.
pub fn narrate(stores: &dyn StoreFactory, config: WorldConfig, steps: &[Step]) -> Narration {
    narrate_masked(stores, config, steps, &[]).0
}

/// [`narrate`], going on past violations of the classes in `mask` (they are marked
/// masked), and the class of what broke.
pub fn narrate_masked(
    stores: &dyn StoreFactory,
    config: WorldConfig,
    steps: &[Step],
    mask: &[Class],
) -> (Narration, Option<Class>) {
    narrate_observed(stores, config, steps, mask, &mut ())
}

/// [`narrate_masked`], telling `also` about every step as well: what an HTML report
/// ([`crate::trace::html`]) records beside the words (each tab's render after each step),
/// from the same one replay, so the picture cannot disagree with the narration.
pub fn narrate_observed(
    stores: &dyn StoreFactory,
    config: WorldConfig,
    steps: &[Step],
    mask: &[Class],
    also: &mut dyn Observer,
) -> (Narration, Option<Class>) {
    let mut narrator = Narrator {
        input: steps,
        lines: Vec::new(),
        applied: Vec::new(),
        skipped: 0,
        at_break: None,
        last_violation: None,
    };
    let mut watch = ClassWatch::new(mask);
    let report = replay_observed(
        stores,
        config,
        steps,
        &mut ((&mut narrator, &mut watch), also),
    );
    let classified = watch.finish(report);
    let final_index = match &classified.report.outcome {
        Outcome::Fail(v) => Some(v.step_index),
        Outcome::Pass => None,
    };
    let mut lines = narrator.lines;
    for (line, applied) in lines.iter_mut().zip(&narrator.applied) {
        line.masked = line.breaks.is_some() && *applied != final_index;
    }
    (
        Narration {
            report: classified.report,
            lines,
            at_break: narrator.at_break,
        },
        classified.class,
    )
}

/// Builds the timeline's lines as the replay goes.
struct Narrator<'a> {
    input: &'a [Step],
    lines: Vec<Line>,
    /// For each line, its step's index among the applied steps (none when skipped).
    applied: Vec<Option<usize>>,
    skipped: usize,
    at_break: Option<(Vec<ChunkRow>, Vec<String>)>,
    /// The last violation a step caused (masked ones included), as (client, run index).
    last_violation: Option<(Option<ClientId>, usize)>,
}

impl Observer for Narrator<'_> {
    fn on_step(
        &mut self,
        world: &World,
        record: &StepRecord,
        at: StepAt,
        violation: Option<&Violation>,
    ) {
        let phase = match at {
            StepAt::Main(n) => Phase::Main {
                input_index: n + self.skipped,
            },
            StepAt::Drain(drain_index) => Phase::Drain { drain_index },
        };
        if let Some(v) = violation {
            self.at_break = Some(break_state(world, v));
            self.last_violation = Some((v.client, v.step_index));
        }
        self.applied
            .push(Some(self.applied.iter().flatten().count()));
        self.lines.push(Line {
            phase,
            step: record.step,
            note: describe::note(record),
            breaks: violation.map(|v| v.invariant),
            masked: false,
        });
    }

    fn on_skip(&mut self, input_index: usize) {
        self.skipped += 1;
        self.applied.push(None);
        self.lines.push(Line {
            phase: Phase::Skipped { input_index },
            step: self.input[input_index],
            note: String::new(),
            breaks: None,
            masked: false,
        });
    }

    fn on_end(&mut self, world: &World, outcome: &Outcome) {
        let Outcome::Fail(v) = outcome else {
            return;
        };
        if self.last_violation != Some((v.client, v.step_index)) {
            // A convergence failure is judged after the last step, which it marks.
            self.at_break = Some(break_state(world, v));
            let last = self.applied.iter().position(|a| *a == Some(v.step_index));
            if let Some(line) = last.map(|i| &mut self.lines[i]) {
                line.breaks = Some(v.invariant);
            }
        }
    }
}

/// The trace of a run as it goes: one line per applied step, `#3    c0 send: user sends
/// m1` (what the step did, without its broadcasts and requests), drain steps marked
/// `(drain)`.
#[derive(Default)]
pub struct TraceLines {
    main: usize,
    /// The lines so far.
    pub lines: Vec<String>,
}

impl Observer for TraceLines {
    fn on_step(&mut self, _: &World, record: &StepRecord, at: StepAt, _: Option<&Violation>) {
        let (i, phase) = match at {
            StepAt::Main(n) => {
                self.main = n + 1;
                (n, "")
            }
            StepAt::Drain(n) => (self.main + n, " (drain)"),
        };
        let step = record.step;
        let what = describe::what_happened(record);
        self.lines.push(if what.is_empty() {
            format!("#{i:<4} {step}{phase}")
        } else {
            format!("#{i:<4} {step}{phase}: {what}")
        });
    }
}

/// The trace lines of a replay of `steps` (see [`TraceLines`]).
pub fn trace_lines(stores: &dyn StoreFactory, config: WorldConfig, steps: &[Step]) -> Vec<String> {
    let mut lines = TraceLines::default();
    replay_observed(stores, config, steps, &mut lines);
    lines.lines
}

fn break_state(world: &World, v: &Violation) -> (Vec<ChunkRow>, Vec<String>) {
    let db = world.backend().db().to_vec();
    let seen = match v.client {
        Some(c) => world
            .clients()
            .get(c as usize)
            .map(|c| c.render().iter().map(render_line).collect())
            .unwrap_or_default(),
        None => Vec::new(),
    };
    (db, seen)
}

/// The step as the timeline names it, without its actor: `deliver-event e5`.
fn step_name(step: &Step) -> String {
    let full = step.to_string();
    match full.split_once(' ') {
        Some((_, rest)) => rest.to_string(),
        None => full,
    }
}

fn label(phase: Phase) -> String {
    match phase {
        Phase::Main { input_index } | Phase::Skipped { input_index } => input_index.to_string(),
        Phase::Drain { drain_index } => format!("d{drain_index}"),
    }
}

fn column(step: &Step) -> usize {
    match step.actor() {
        Actor::Backend => 0,
        Actor::Client(c) => c as usize + 1,
    }
}

/// The text timeline: a header, one line per step with its text in its actor's column,
/// the breaking step marked, then expected vs seen side by side.
pub fn format_text(n: &Narration, expect: Option<Invariant>) -> String {
    let clients = n.report.config.clients as usize;
    let cell = |l: &Line| -> String {
        match l.phase {
            Phase::Skipped { .. } => format!("({} skipped: not enabled)", step_name(&l.step)),
            _ if l.note.is_empty() => step_name(&l.step),
            _ => format!("{}: {}", step_name(&l.step), l.note),
        }
    };
    // Each column is as wide as its texts, up to a cap; a longer text runs on into the
    // columns to its right, which are empty on its line.
    const CAP: usize = 44;
    let mut widths = vec![7usize; clients + 1];
    for l in &n.lines {
        let c = column(&l.step).min(clients);
        widths[c] = widths[c].max(cell(l).chars().count().min(CAP));
    }
    let mut out = String::new();
    let mut header = format!("{:>6}  ", "step");
    for (i, w) in widths.iter().enumerate() {
        let name = if i == 0 {
            "backend".to_string()
        } else {
            format!("c{}", i - 1)
        };
        let _ = write!(header, "{name:<w$}  ");
    }
    out.push_str(header.trim_end());
    out.push('\n');
    let mut drain_started = false;
    for l in &n.lines {
        if matches!(l.phase, Phase::Drain { .. }) && !drain_started {
            drain_started = true;
            out.push_str(
                "  ---- drain: finish what was started, every client scrolled down ----\n",
            );
        }
        let mark = if l.breaks.is_some() { "✗" } else { " " };
        let mut line = format!("{mark}{:>5}  ", label(l.phase));
        let col = column(&l.step).min(clients);
        for w in &widths[..col] {
            line.push_str(&" ".repeat(w + 2));
        }
        line.push_str(&cell(l));
        match l.breaks {
            Some(inv) if l.masked => {
                let _ = write!(
                    line,
                    "   ◀ {inv} (masked class: its tab is excused, the run goes on)"
                );
            }
            Some(inv) => {
                let _ = write!(line, "   ◀ {inv} broken here");
            }
            None => {}
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str(&format_verdict(n, expect));
    out
}

/// The verdict lines: the violation with expected vs seen side by side, and whether it is
/// the one the scenario expects.
pub fn format_verdict(n: &Narration, expect: Option<Invariant>) -> String {
    let mut out = String::new();
    if !n.report.skipped.is_empty() {
        let _ = writeln!(
            out,
            "skipped {} step(s) that were not enabled when their turn came: {}",
            n.report.skipped.len(),
            n.report
                .skipped
                .iter()
                .map(|i| format!("#{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    match &n.report.outcome {
        Outcome::Pass => {
            let _ = writeln!(
                out,
                "verdict: PASS ({} steps, {} drain steps)",
                n.report.steps.len(),
                n.report.drain.len()
            );
        }
        Outcome::Fail(v) => {
            let _ = write!(out, "verdict: FAIL {} violated", v.invariant);
            if let Some(c) = v.client {
                let _ = write!(out, " on c{c}");
            }
            let at = n
                .lines
                .iter()
                .find(|l| l.breaks.is_some() && !l.masked)
                .map(|l| label(l.phase))
                .unwrap_or_else(|| "the end of the drain".to_string());
            let _ = writeln!(out, " at step {at}");
            if !v.messages.is_empty() {
                let _ = writeln!(out, "  involving: {}", v.messages.join(", "));
            }
            let _ = writeln!(out, "  expected:  {}", v.expected);
            if let Some((db, seen)) = &n.at_break {
                out.push_str(&side_by_side(db, seen, v));
            } else {
                for s in &v.seen {
                    let _ = writeln!(out, "    {s}");
                }
            }
        }
    }
    let got = n.report.outcome.invariant();
    match (expect, got) {
        (None, None) => {}
        (Some(e), Some(g)) if e == g => {
            let _ = writeln!(out, "expected {e}: reproduced");
        }
        (Some(e), _) => {
            let _ = writeln!(
                out,
                "expected {e}: NOT reproduced (got {})",
                got.map_or("a pass".to_string(), |g| g.to_string())
            );
        }
        (None, Some(g)) => {
            let _ = writeln!(out, "expected no violation, got {g}");
        }
    }
    out
}

/// The backend DB (the truth) beside the breaking client's render (what the user saw).
/// Rows holding an involved token are marked `!`.
fn side_by_side(db: &[ChunkRow], seen: &[String], v: &Violation) -> String {
    let left: Vec<String> = db
        .iter()
        .map(|r| {
            let role = serde_json::to_value(r.role)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            format!("{} {} {role} {}", r.seq, r.turn_id, r.text)
        })
        .collect();
    let involved = |s: &str| {
        v.messages
            .iter()
            .any(|m| s.split_ascii_whitespace().any(|t| t == m))
    };
    let w = left
        .iter()
        .map(|s| s.chars().count() + 2)
        .max()
        .unwrap_or(0)
        .max(24);
    let who = v
        .client
        .map_or("render".to_string(), |c| format!("c{c} render"));
    let mut out = format!("    {:<w$} | {who} (seen)\n", "backend DB (the truth)");
    for i in 0..left.len().max(seen.len()) {
        let l = left.get(i).map_or("", String::as_str);
        let lm = if involved(l) { "!" } else { " " };
        let (r, rm) = match seen.get(i) {
            Some(s) => (s.as_str(), if involved(s) { "!" } else { " " }),
            None => ("", " "),
        };
        let _ = writeln!(out, "   {lm}{l:<w$} |{rm}{r}");
    }
    out
}

/// A mermaid sequence diagram (fenced, ready to paste into GitHub Markdown): one
/// participant per actor, an arrow per message between them, a note per local step, the
/// breaking step highlighted.
pub fn format_mermaid(n: &Narration, expect: Option<Invariant>) -> String {
    let clients = n.report.config.clients;
    let mut out = String::from("```mermaid\nsequenceDiagram\n");
    out.push_str("    participant B as backend\n");
    for c in 0..clients {
        let _ = writeln!(out, "    participant C{c} as c{c}");
    }
    let clean = |s: &str| s.replace([';', '#'], " ").replace("-->", "→");
    for l in &n.lines {
        if matches!(l.phase, Phase::Drain { drain_index: 0 }) {
            out.push_str("    Note over B: drain phase\n");
        }
        let text = match l.phase {
            Phase::Skipped { .. } => format!("{} skipped (not enabled)", step_name(&l.step)),
            _ if l.note.is_empty() => step_name(&l.step),
            _ => format!("{}: {}", step_name(&l.step), l.note),
        };
        let text = clean(&format!("[{}] {text}", label(l.phase)));
        if l.breaks.is_some() {
            out.push_str("    rect rgb(255, 215, 215)\n");
        }
        let line = match l.step {
            Step::HandlePost { client } | Step::ServeFetch { client } => {
                format!("C{client}->>B: {text}")
            }
            Step::DeliverEvent { client, .. }
            | Step::DeliverPostResponse { client }
            | Step::DeliverFetchResponse { client, .. } => format!("B->>C{client}: {text}"),
            Step::Send { client } | Step::ScrollUp { client } | Step::ScrollDown { client } => {
                format!("Note over C{client}: {text}")
            }
            _ => format!("Note over B: {text}"),
        };
        let _ = writeln!(out, "    {line}");
        if let (Some(inv), true) = (l.breaks, l.masked) {
            let _ = writeln!(
                out,
                "    Note over B: ✗ {inv} (masked class, the run goes on)"
            );
            out.push_str("    end\n");
        } else if let Some(inv) = l.breaks {
            let who = match n.report.outcome {
                Outcome::Fail(Violation {
                    client: Some(c), ..
                }) => format!("C{c}"),
                _ => "B".to_string(),
            };
            let _ = writeln!(out, "    Note over {who}: ✗ {inv} broken here");
            out.push_str("    end\n");
        }
    }
    if let Outcome::Fail(v) = &n.report.outcome {
        if !n.lines.iter().any(|l| l.breaks.is_some() && !l.masked) {
            let _ = writeln!(out, "    Note over B: ✗ {} after the drain", v.invariant);
        }
    }
    let verdict = match (&n.report.outcome, expect) {
        (Outcome::Pass, _) => "verdict PASS".to_string(),
        (Outcome::Fail(v), Some(e)) if e == v.invariant => {
            format!("verdict FAIL {} (expected)", v.invariant)
        }
        (Outcome::Fail(v), _) => format!("verdict FAIL {}", v.invariant),
    };
    let _ = writeln!(out, "    Note over B: {verdict}");
    out.push_str("```\n");
    out
}
