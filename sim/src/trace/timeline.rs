//! Readable replays: what each step did, as a text timeline with one column per actor
//! (backend, each client) or as a mermaid sequence diagram that renders in GitHub Markdown.
//!
//! Everything here is derived from a replay ([`crate::run::replay`]) and a second walk of
//! the world over the steps it applied, so the words can never disagree with the verdict.

use std::fmt::Write as _;

use crate::model::config::WorldConfig;
use crate::model::step::{Actor, Step};
use crate::model::store::StoreFactory;
use crate::model::wire::ChunkRow;
use crate::model::world::{describe_event, World};
use crate::oracle::{render_line, Invariant, Violation};
use crate::run::{replay, Outcome, RunReport};

/// Which phase a timeline line belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// A step of the scenario (index into its `steps`).
    Main { input_index: usize },
    /// A step of the scenario that was not enabled when its turn came, so it was skipped.
    Skipped { input_index: usize },
    /// A step of the deterministic drain phase (0-based).
    Drain { drain_index: usize },
}

/// One line of a timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub phase: Phase,
    pub step: Step,
    /// What the step did, in words (empty for a skipped step).
    pub note: String,
    /// The violation this step caused, if it is the breaking step.
    pub breaks: Option<Invariant>,
}

/// A replay and its narration.
pub struct Narration {
    pub report: RunReport,
    pub lines: Vec<Line>,
    /// The backend DB and the breaking client's render right after the breaking step.
    pub at_break: Option<(Vec<ChunkRow>, Vec<String>)>,
}

/// What `step` does in `world` (before it is applied), in words: the world's own
/// description, then the events it broadcasts and the requests the store makes, which are
/// found by applying it. Returns the note; `world` has advanced by the step. `Err` when
/// the store crashed.
pub fn apply_and_describe(world: &mut World, step: Step) -> Result<String, String> {
    let mut note = world.describe(&step);
    let event_max = world
        .clients
        .iter()
        .flat_map(|c| c.inbox.iter().map(|(id, _)| *id))
        .max()
        .unwrap_or(0);
    let client = match step.actor() {
        Actor::Client(c) => Some(c as usize),
        Actor::Backend => None,
    };
    let before = client.map(|c| {
        let c = &world.clients[c];
        (c.posts.len(), c.fetch_requests.len())
    });
    let applied = world.apply(step);
    let mut extra: Vec<String> = Vec::new();
    if let Some(c0) = world.clients.first() {
        // A broadcast reaches every inbox, so client 0's shows every new event.
        let new: Vec<String> = c0
            .inbox
            .iter()
            .filter(|(id, _)| *id > event_max)
            .map(|(id, e)| format!("e{id} {}", describe_event(e)))
            .collect();
        if !new.is_empty() {
            extra.push(format!("→ {}", new.join(", ")));
        }
    }
    if let (Some(c), Some((posts, fetches))) = (client, before) {
        let c = &world.clients[c];
        for (m, _) in c.posts.iter().skip(posts) {
            extra.push(format!("asks POST {m}"));
        }
        for r in c.fetch_requests.iter().skip(fetches) {
            extra.push(format!("asks fetch {r}"));
        }
    }
    if let Err(crash) = applied {
        return Err(format!("store panicked: {}", crash.message));
    }
    for e in extra {
        if !note.is_empty() {
            note.push_str(if e.starts_with('→') { " " } else { " · " });
        }
        note.push_str(&e);
    }
    Ok(note)
}

/// Replay `steps` on `stores` and narrate every step, skipped ones included.
pub fn narrate(stores: &dyn StoreFactory, config: WorldConfig, steps: &[Step]) -> Narration {
    let report = replay(stores, config.clone(), steps);
    let violation = match &report.outcome {
        Outcome::Fail(v) => Some(v.clone()),
        Outcome::Pass => None,
    };
    let mut world = World::new(config, stores);
    let mut lines = Vec::new();
    let mut at_break = None;
    let mut applied_index = 0usize;
    let mut applied_main = report.steps.iter();
    let mut skipped = report.skipped.iter().peekable();
    let mut apply = |world: &mut World, step: Step, phase: Phase, applied_index: usize| {
        let note = apply_and_describe(world, step).unwrap_or_else(|crash| crash);
        let breaks = violation
            .as_ref()
            .filter(|v| v.step_index == applied_index)
            .map(|v| v.invariant);
        if let (Some(_), Some(v)) = (breaks, violation.as_ref()) {
            at_break = Some(break_state(world, v));
        }
        Line {
            phase,
            step,
            note,
            breaks,
        }
    };
    for (input_index, &input_step) in steps.iter().enumerate() {
        if skipped.peek() == Some(&&input_index) {
            skipped.next();
            lines.push(Line {
                phase: Phase::Skipped { input_index },
                step: input_step,
                note: String::new(),
                breaks: None,
            });
            continue;
        }
        let Some(&step) = applied_main.next() else {
            break;
        };
        debug_assert_eq!(step, input_step);
        lines.push(apply(
            &mut world,
            step,
            Phase::Main { input_index },
            applied_index,
        ));
        applied_index += 1;
    }
    for (drain_index, &step) in report.drain.iter().enumerate() {
        lines.push(apply(
            &mut world,
            step,
            Phase::Drain { drain_index },
            applied_index,
        ));
        applied_index += 1;
    }
    if at_break.is_none() {
        if let Some(v) = &violation {
            // A convergence failure is judged after the last step.
            at_break = Some(break_state(&world, v));
        }
    }
    Narration {
        report,
        lines,
        at_break,
    }
}

fn break_state(world: &World, v: &Violation) -> (Vec<ChunkRow>, Vec<String>) {
    let db = world.backend.db.as_ref().clone();
    let seen = match v.client {
        Some(c) => world
            .clients
            .get(c as usize)
            .map(|c| c.store.render().iter().map(render_line).collect())
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
        if let Some(inv) = l.breaks {
            let _ = write!(line, "   ◀ {inv} broken here");
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
                .find(|l| l.breaks.is_some())
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
        if let Some(inv) = l.breaks {
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
        if !n.lines.iter().any(|l| l.breaks.is_some()) {
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
