//! The sequence diagram of a walked replay ([`super::walk`]), as SVG: one lane per actor
//! (the backend, each tab, each tab's user), one row per step (main, skipped, then drain),
//! and one arrow per message from the row where it left to the row where it arrived: every
//! WebSocket event to every tab it reached, each POST and its response, each chunk fetch
//! and its response, each send and scroll from a user to its tab.
//!
//! Arrows are straight lines from where a message left to where it arrived, so one that
//! overtook another between the same two lanes (an event delivered out of broadcast order
//! within `ws_reorder_window`, a fetch response overtaking an older one) crosses it: the
//! picture shows a reordering as the crossing people look for. Such an arrow is also drawn
//! heavier and its row says "overtakes N", so the crossing reads without colour.
//!
//! Pairing is as the world queues messages (`docs/model.md`): a tab's POSTs are handled
//! and answered oldest first, so the k-th POST a tab's store asked for is its k-th
//! `handle-post` and its k-th POST response; a fetch is named by its request id.

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;

use crate::model::step::{Actor, Step};
use crate::model::wire::{ClientId, Effect, Input, RequestId};
use crate::trace::describe;
use crate::trace::timeline::Phase;

use super::page::escape;
use super::walk::Walk;

/// A lane of the diagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lane {
    /// The backend: POST handling, the agent, fetch serving.
    Backend,
    /// A tab: its store, fed by deliveries and its user.
    Tab(ClientId),
    /// A tab's user: sends and scrolls.
    User(ClientId),
}

impl Lane {
    /// Its column, from the left: the backend, then each tab with its user to its right.
    pub fn column(self) -> usize {
        match self {
            Lane::Backend => 0,
            Lane::Tab(c) => 1 + 2 * c as usize,
            Lane::User(c) => 2 + 2 * c as usize,
        }
    }

    /// Its name at the head of the lane.
    pub fn name(self) -> String {
        match self {
            Lane::Backend => "backend".to_string(),
            Lane::Tab(c) => format!("tab c{c}"),
            Lane::User(c) => format!("user of c{c}"),
        }
    }
}

/// What an arrow carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ArrowKind {
    /// A WebSocket event, backend to tab.
    Event,
    /// A POST, tab to backend.
    Post,
    /// A POST's response, backend to tab.
    PostResponse,
    /// A chunk fetch, tab to backend.
    Fetch,
    /// A fetch's response (a snapshot of the DB), backend to tab.
    FetchResponse,
    /// A user's send, user to tab.
    Send,
    /// A user's scroll, user to tab.
    Scroll,
}

impl ArrowKind {
    /// The name in the page's classes, data and legend.
    pub fn name(self) -> &'static str {
        match self {
            ArrowKind::Event => "event",
            ArrowKind::Post => "post",
            ArrowKind::PostResponse => "post-response",
            ArrowKind::Fetch => "fetch",
            ArrowKind::FetchResponse => "fetch-response",
            ArrowKind::Send => "send",
            ArrowKind::Scroll => "scroll",
        }
    }

    /// What the legend says of it (its line style is the page's, by kind).
    pub fn meaning(self) -> &'static str {
        match self {
            ArrowKind::Event => "WebSocket event (solid)",
            ArrowKind::Post => "POST (long dashes)",
            ArrowKind::PostResponse => "POST response (dash-dot)",
            ArrowKind::Fetch => "chunk fetch (dots)",
            ArrowKind::FetchResponse => "fetch response (short dashes)",
            ArrowKind::Send => "user sends (thin)",
            ArrowKind::Scroll => "user scrolls (thin, dotted)",
        }
    }

    /// Every kind, in the legend's order.
    pub const ALL: [ArrowKind; 7] = [
        ArrowKind::Event,
        ArrowKind::Post,
        ArrowKind::PostResponse,
        ArrowKind::Fetch,
        ArrowKind::FetchResponse,
        ArrowKind::Send,
        ArrowKind::Scroll,
    ];
}

/// One message from the row it left to the row it arrived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrow {
    /// What it carries.
    pub kind: ArrowKind,
    /// Where it left.
    pub from: Lane,
    /// Where it arrived.
    pub to: Lane,
    /// The line it left at; `None` before the first step (an event broadcast when the
    /// tabs connected).
    pub from_line: Option<usize>,
    /// The line it arrived at.
    pub to_line: usize,
    /// Its id: `e5`, `m1`, `f2`.
    pub id: String,
    /// What it carried, in words (the tooltip).
    pub what: String,
    /// How many older messages of its queue it overtook (its position when delivered).
    pub overtakes: usize,
    /// It never arrived: the run ended (at the violation, or with the world quiescent)
    /// while it was in flight. Drawn to the diagram's last row, the end of the run.
    pub in_flight: bool,
}

/// Every arrow of `walk`, in the order their messages arrived (line by line).
pub fn arrows(walk: &Walk) -> Vec<Arrow> {
    let mut out = Vec::new();
    // Where each event left, by id; each tab's POSTs asked, handled, and fetches asked
    // and served, queued as the world queues them.
    let mut events: BTreeMap<u32, usize> = BTreeMap::new();
    let mut posts: BTreeMap<ClientId, VecDeque<(usize, String)>> = BTreeMap::new();
    let mut answered: BTreeMap<ClientId, VecDeque<(usize, String)>> = BTreeMap::new();
    let mut fetches: BTreeMap<(ClientId, RequestId), VecDeque<usize>> = BTreeMap::new();
    let mut served: BTreeMap<(ClientId, RequestId), VecDeque<usize>> = BTreeMap::new();
    let mut delivered: std::collections::BTreeSet<(ClientId, u32)> = Default::default();
    for (line, record) in walk.records.iter().enumerate() {
        let Some(record) = record else { continue };
        for (id, _) in &record.broadcast {
            events.insert(*id, line);
        }
        let overtakes = record.position.unwrap_or(0);
        let what = describe::what_happened(record);
        if let Step::DeliverEvent { client, event } = record.step {
            delivered.insert((client, event));
        }
        match record.step {
            Step::DeliverEvent { client, event } => out.push(Arrow {
                kind: ArrowKind::Event,
                from: Lane::Backend,
                to: Lane::Tab(client),
                from_line: events.get(&event).copied(),
                to_line: line,
                id: format!("e{event}"),
                what: format!("e{event} {what}"),
                overtakes,
                in_flight: false,
            }),
            Step::HandlePost { client } => {
                let message = record
                    .posted
                    .map_or_else(|| "(no id)".to_string(), |(m, _)| m.to_string());
                if let Some((asked, id)) = posts.entry(client).or_default().pop_front() {
                    out.push(Arrow {
                        kind: ArrowKind::Post,
                        from: Lane::Tab(client),
                        to: Lane::Backend,
                        from_line: Some(asked),
                        to_line: line,
                        id,
                        what: what.clone(),
                        overtakes: 0,
                        in_flight: false,
                    });
                }
                answered
                    .entry(client)
                    .or_default()
                    .push_back((line, message));
            }
            Step::DeliverPostResponse { client } => {
                if let Some((left, id)) = answered.entry(client).or_default().pop_front() {
                    out.push(Arrow {
                        kind: ArrowKind::PostResponse,
                        from: Lane::Backend,
                        to: Lane::Tab(client),
                        from_line: Some(left),
                        to_line: line,
                        id,
                        what: what.clone(),
                        overtakes,
                        in_flight: false,
                    });
                }
            }
            Step::ServeFetch { client } => {
                if let Some((request, _)) = record.served {
                    if let Some(asked) = fetches
                        .get_mut(&(client, request))
                        .and_then(VecDeque::pop_front)
                    {
                        out.push(Arrow {
                            kind: ArrowKind::Fetch,
                            from: Lane::Tab(client),
                            to: Lane::Backend,
                            from_line: Some(asked),
                            to_line: line,
                            id: request.to_string(),
                            what: what.clone(),
                            overtakes: 0,
                            in_flight: false,
                        });
                    }
                    served.entry((client, request)).or_default().push_back(line);
                }
            }
            Step::DeliverFetchResponse { client, request } => {
                if let Some(left) = served
                    .get_mut(&(client, request))
                    .and_then(VecDeque::pop_front)
                {
                    out.push(Arrow {
                        kind: ArrowKind::FetchResponse,
                        from: Lane::Backend,
                        to: Lane::Tab(client),
                        from_line: Some(left),
                        to_line: line,
                        id: request.to_string(),
                        what: what.clone(),
                        overtakes,
                        in_flight: false,
                    });
                }
            }
            Step::Send { client } => {
                let id = match &record.input {
                    Some(Input::UserSend { message_id, .. }) => message_id.to_string(),
                    _ => String::new(),
                };
                out.push(Arrow {
                    kind: ArrowKind::Send,
                    from: Lane::User(client),
                    to: Lane::Tab(client),
                    from_line: Some(line),
                    to_line: line,
                    id,
                    what: what.clone(),
                    overtakes: 0,
                    in_flight: false,
                });
            }
            Step::ScrollUp { client } | Step::ScrollDown { client } => out.push(Arrow {
                kind: ArrowKind::Scroll,
                from: Lane::User(client),
                to: Lane::Tab(client),
                from_line: Some(line),
                to_line: line,
                id: String::new(),
                what: if matches!(record.step, Step::ScrollUp { .. }) {
                    "scrolls up".to_string()
                } else {
                    "scrolls down".to_string()
                },
                overtakes: 0,
                in_flight: false,
            }),
            _ => {}
        }
        // What the tab's store asked for in answer leaves from this row.
        if let Actor::Client(c) = record.step.actor() {
            for effect in &record.effects {
                match effect {
                    Effect::Post { message_id, .. } => posts.entry(c).or_default().push_back((
                        line,
                        message_id.map_or_else(|| "(no id)".to_string(), |m| m.to_string()),
                    )),
                    Effect::Fetch { request_id } => {
                        fetches.entry((c, *request_id)).or_default().push_back(line)
                    }
                }
            }
        }
    }
    // What was still in flight when the run ended, to the end row.
    let end = walk.records.len();
    let in_flight = |kind, from, to, from_line, id: String, what: String| Arrow {
        kind,
        from,
        to,
        from_line: Some(from_line),
        to_line: end,
        id,
        what: format!("{what} (still in flight when the run ended)"),
        overtakes: 0,
        in_flight: true,
    };
    let clients = walk.narration.report.config.clients;
    for (&id, &line) in &events {
        for c in (0..clients).filter(|c| !delivered.contains(&(*c, id))) {
            out.push(in_flight(
                ArrowKind::Event,
                Lane::Backend,
                Lane::Tab(c),
                line,
                format!("e{id}"),
                format!("e{id} to c{c}"),
            ));
        }
    }
    for (c, queue) in posts {
        for (line, id) in queue {
            let what = format!("POST {id} from c{c}");
            out.push(in_flight(
                ArrowKind::Post,
                Lane::Tab(c),
                Lane::Backend,
                line,
                id,
                what,
            ));
        }
    }
    for (c, queue) in answered {
        for (line, id) in queue {
            let what = format!("POST {id} response to c{c}");
            out.push(in_flight(
                ArrowKind::PostResponse,
                Lane::Backend,
                Lane::Tab(c),
                line,
                id,
                what,
            ));
        }
    }
    for ((c, request), queue) in fetches {
        for line in queue {
            let what = format!("fetch {request} from c{c}");
            out.push(in_flight(
                ArrowKind::Fetch,
                Lane::Tab(c),
                Lane::Backend,
                line,
                request.to_string(),
                what,
            ));
        }
    }
    for ((c, request), queue) in served {
        for line in queue {
            let what = format!("fetch {request} response to c{c}");
            out.push(in_flight(
                ArrowKind::FetchResponse,
                Lane::Backend,
                Lane::Tab(c),
                line,
                request.to_string(),
                what,
            ));
        }
    }
    out
}

/// Row height, lane width and the other measures of the drawing, in pixels.
const ROW_H: i64 = 22;
const TOP: i64 = 46;
const LABEL_W: i64 = 56;
const LANE_W: i64 = 88;
const DESC_CHARS: usize = 110;
const CHAR_W: i64 = 7;

/// Where things go in the drawing of `walk`.
struct Layout {
    lanes: usize,
    drain_start: Option<usize>,
    lines: usize,
}

impl Layout {
    fn of(walk: &Walk) -> Layout {
        Layout {
            lanes: 1 + 2 * walk.narration.report.config.clients as usize,
            drain_start: walk
                .narration
                .lines
                .iter()
                .position(|l| matches!(l.phase, Phase::Drain { .. })),
            lines: walk.narration.lines.len(),
        }
    }

    fn lane_x(&self, lane: Lane) -> i64 {
        LABEL_W + lane.column() as i64 * LANE_W + LANE_W / 2
    }

    /// The top of line `line`'s row (the drain's heading takes a row of its own).
    fn row_top(&self, line: usize) -> i64 {
        let gap = i64::from(self.drain_start.is_some_and(|d| line >= d));
        TOP + (line as i64 + gap) * ROW_H
    }

    fn row_mid(&self, line: usize) -> i64 {
        self.row_top(line) + ROW_H / 2
    }

    fn desc_x(&self) -> i64 {
        LABEL_W + self.lanes as i64 * LANE_W + 10
    }

    fn width(&self) -> i64 {
        self.desc_x() + DESC_CHARS as i64 * CHAR_W + 10
    }

    /// Below the last step, the end row: where what was still in flight arrives.
    fn height(&self) -> i64 {
        self.row_top(self.lines) + ROW_H + 8
    }
}

/// The description of line `i` of `walk`, as its row says it: the step, what it did, and
/// what overtook what.
pub fn line_text(walk: &Walk, i: usize) -> String {
    let l = &walk.narration.lines[i];
    let mut text = match (l.phase, l.note.is_empty()) {
        (Phase::Skipped { .. }, _) => format!("{} (skipped: not enabled)", l.step),
        (_, true) => l.step.to_string(),
        (_, false) => format!("{}: {}", l.step, l.note),
    };
    if let Some(Some(r)) = walk.records.get(i) {
        let overtakes = r.position.unwrap_or(0);
        if overtakes > 0
            && matches!(
                r.step,
                Step::DeliverEvent { .. } | Step::DeliverFetchResponse { .. }
            )
        {
            let _ = write!(text, " (overtakes {overtakes} older)");
        }
    }
    text
}

/// The label of line `i`: the input index, or `d<N>` in the drain.
pub fn line_label(walk: &Walk, i: usize) -> String {
    match walk.narration.lines[i].phase {
        Phase::Main { input_index } | Phase::Skipped { input_index } => input_index.to_string(),
        Phase::Drain { drain_index } => format!("d{drain_index}"),
    }
}

/// Cut `text` to `max` characters, with `…` when cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut t: String = text.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}

/// The diagram as an SVG element (no XML prolog: it sits in the page). Each row is a
/// `<g class="row" data-i="…">` the page's script selects; each arrow a `<g class="arrow
/// KIND">` whose `<line>` runs from where its message left to where it arrived, with
/// `data-` attributes saying what it carried between which rows.
pub fn svg(walk: &Walk, arrows: &[Arrow]) -> String {
    let layout = Layout::of(walk);
    let clients = walk.narration.report.config.clients;
    let (w, h) = (layout.width(), layout.height());
    let mut out = String::with_capacity(256 * layout.lines + 256 * arrows.len());
    let _ = writeln!(
        out,
        "<svg class=\"diagram\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-labelledby=\"diagram-title\">"
    );
    let _ = writeln!(
        out,
        "<title id=\"diagram-title\">Sequence diagram: {} steps, {} arrows; the steps as text follow it</title>",
        layout.lines,
        arrows.len()
    );
    out.push_str(
        "<defs><marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" class=\"head\"/></marker>\
<pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" class=\"hatch\"/></pattern></defs>\n",
    );
    // Lane heads.
    let mut lanes = vec![Lane::Backend];
    for c in 0..clients {
        lanes.push(Lane::Tab(c));
        lanes.push(Lane::User(c));
    }
    out.push_str("<g class=\"heads\">");
    for lane in &lanes {
        let _ = write!(
            out,
            "<text class=\"head {}\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            lane_class(*lane),
            layout.lane_x(*lane),
            TOP - 14,
            escape(&lane.name())
        );
    }
    let _ = writeln!(
        out,
        "<text class=\"head\" x=\"4\" y=\"{}\">step</text><text class=\"head\" x=\"{}\" y=\"{}\">what happened</text></g>",
        TOP - 14,
        layout.desc_x(),
        TOP - 14
    );
    // Rows: background, label, text.
    out.push_str("<g class=\"rows\">\n");
    for i in 0..layout.lines {
        if layout.drain_start == Some(i) {
            let y = layout.row_top(i) - ROW_H;
            let _ = writeln!(
                out,
                "<g class=\"drain-head\"><line x1=\"0\" y1=\"{}\" x2=\"{w}\" y2=\"{}\"/><text x=\"4\" y=\"{}\">drain: finish what was started, every tab scrolled down</text></g>",
                y + ROW_H / 2,
                y + ROW_H / 2,
                y + ROW_H / 2 - 3
            );
        }
        let line = &walk.narration.lines[i];
        let mut class = String::from("row");
        match line.phase {
            Phase::Skipped { .. } => class.push_str(" skipped"),
            Phase::Drain { .. } => class.push_str(" drain"),
            Phase::Main { .. } => {}
        }
        let breaks = walk.break_line == Some(i);
        if breaks {
            class.push_str(" break");
        } else if line.breaks.is_some() {
            class.push_str(" masked");
        }
        let top = layout.row_top(i);
        let label = line_label(walk, i);
        let mut text = line_text(walk, i);
        match (line.breaks, breaks) {
            (Some(inv), true) => text = format!("✗ {text} ◀ {inv} broken here"),
            (Some(inv), false) => text = format!("{text} ◀ {inv} (masked class)"),
            _ => {}
        }
        let _ = writeln!(
            out,
            "<g class=\"{class}\" id=\"row-{i}\" data-i=\"{i}\" data-step=\"{}\"><title>{}</title><rect class=\"bg\" x=\"0\" y=\"{top}\" width=\"{w}\" height=\"{ROW_H}\"/><text class=\"label\" x=\"4\" y=\"{}\">{}{}</text><text class=\"desc\" x=\"{}\" y=\"{}\">{}</text></g>",
            escape(&label),
            escape(&format!("{label}: {text}")),
            top + ROW_H - 7,
            if breaks { "✗ " } else { "" },
            escape(&label),
            layout.desc_x(),
            top + ROW_H - 7,
            escape(&cut(&text, DESC_CHARS))
        );
    }
    let end = layout.row_top(layout.lines);
    let _ = writeln!(
        out,
        "<g class=\"end\"><line x1=\"0\" y1=\"{end}\" x2=\"{w}\" y2=\"{end}\"/><text x=\"{}\" y=\"{}\">end of the run: an arrow that stops here was still in flight</text></g>",
        layout.desc_x(),
        end + ROW_H - 7
    );
    out.push_str("</g>\n");
    lanes_svg(&mut out, walk, &layout, &lanes);
    marks_svg(&mut out, walk, &layout);
    arrows_svg(&mut out, arrows, &layout);
    out.push_str("</svg>\n");
    out
}

fn lane_class(lane: Lane) -> &'static str {
    match lane {
        Lane::Backend => "backend",
        Lane::Tab(_) => "tab",
        Lane::User(_) => "user",
    }
}

/// The lanes: a line down from each head; a tab's lane dashed while its user is scrolled
/// up (its reconciles deferred).
fn lanes_svg(out: &mut String, walk: &Walk, layout: &Layout, lanes: &[Lane]) {
    out.push_str("<g class=\"lanes\">\n");
    let bottom = layout.height() - 8;
    for lane in lanes {
        let x = layout.lane_x(*lane);
        let Lane::Tab(c) = *lane else {
            let _ = writeln!(
                out,
                "<line class=\"lane {}\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{bottom}\"/>",
                lane_class(*lane),
                TOP - 8
            );
            continue;
        };
        // Runs of rows with the same scroll state (after each row's step), one segment
        // each.
        let up = |i: usize| {
            walk.after
                .get(i)
                .and_then(|s| s.scrolled_up.get(c as usize))
                .copied()
                .unwrap_or(false)
        };
        let mut y0 = TOP - 8;
        for i in 1..=layout.lines.max(1) {
            if i < layout.lines && up(i) == up(i - 1) {
                continue;
            }
            let y1 = if i < layout.lines {
                layout.row_top(i)
            } else {
                bottom
            };
            let (class, title) = if up(i - 1) {
                (
                    "lane tab scrolled-up",
                    "<title>scrolled up: reconcile deferred</title>",
                )
            } else {
                ("lane tab", "")
            };
            let _ = writeln!(
                out,
                "<line class=\"{class}\" x1=\"{x}\" y1=\"{y0}\" x2=\"{x}\" y2=\"{y1}\">{title}</line>"
            );
            y0 = y1;
        }
    }
    out.push_str("</g>\n");
}

/// A square on the backend lane for each of the agent's own steps, and a ring on a tab's
/// lane where its render changed.
fn marks_svg(out: &mut String, walk: &Walk, layout: &Layout) {
    out.push_str("<g class=\"marks\">\n");
    let x = layout.lane_x(Lane::Backend);
    for (i, line) in walk.narration.lines.iter().enumerate() {
        let y = layout.row_mid(i);
        if matches!(
            line.step,
            Step::AgentDelta
                | Step::AgentToolCall
                | Step::AgentToolResult { .. }
                | Step::AgentEnd
                | Step::AgentFail
                | Step::AgentWrite
                | Step::AgentSeal
        ) && !matches!(line.phase, Phase::Skipped { .. })
        {
            let _ = writeln!(
                out,
                "<rect class=\"agent\" x=\"{}\" y=\"{}\" width=\"8\" height=\"8\"><title>{}</title></rect>",
                x - 4,
                y - 4,
                escape(&line.step.to_string())
            );
        }
        let before = if i == 0 {
            &walk.before
        } else {
            &walk.after[i - 1]
        };
        let after = &walk.after[i];
        for (c, (was, now)) in before.renders.iter().zip(&after.renders).enumerate() {
            if was != now {
                let _ = writeln!(
                    out,
                    "<circle class=\"changed\" cx=\"{}\" cy=\"{y}\" r=\"4\"><title>c{c}'s render changed</title></circle>",
                    layout.lane_x(Lane::Tab(c as ClientId))
                );
            }
        }
    }
    out.push_str("</g>\n");
}

/// Every arrow as a line from where its message left to where it arrived. Messages
/// leaving one lane at one row start at different heights in the row, in the order they
/// left, so two that leave together and arrive in the other order still cross.
fn arrows_svg(out: &mut String, arrows: &[Arrow], layout: &Layout) {
    // The slots of each (row, lane) messages leave from, by message id, in order.
    let mut slots: BTreeMap<(Option<usize>, Lane), Vec<&str>> = BTreeMap::new();
    for a in arrows.iter().filter(|a| a.from_line != Some(a.to_line)) {
        let ids = slots.entry((a.from_line, a.from)).or_default();
        if !ids.contains(&a.id.as_str()) {
            ids.push(&a.id);
        }
    }
    let leave_y = |a: &Arrow| -> i64 {
        let top = match a.from_line {
            Some(l) => layout.row_top(l),
            None => TOP - ROW_H,
        };
        let ids = &slots[&(a.from_line, a.from)];
        let k = ids.iter().position(|i| *i == a.id).unwrap_or(0) as i64;
        top + (k + 1) * ROW_H / (ids.len() as i64 + 1)
    };
    out.push_str("<g class=\"arrows\">\n");
    for a in arrows {
        let (x1, x2) = (layout.lane_x(a.from), layout.lane_x(a.to));
        let (y1, y2) = if a.from_line == Some(a.to_line) {
            let y = layout.row_mid(a.to_line);
            (y, y)
        } else {
            (leave_y(a), layout.row_mid(a.to_line))
        };
        // Stop short of the lane, so the head shows beside it.
        let x2 = x2 - 4 * (x2 - x1).signum();
        let client = match (a.from, a.to) {
            (Lane::Tab(c), _) | (_, Lane::Tab(c)) => c,
            _ => 0,
        };
        let over = match (a.overtakes > 0, a.in_flight) {
            (true, _) => " overtakes",
            (false, true) => " in-flight",
            _ => "",
        };
        let title = if a.overtakes > 0 {
            format!("{} (overtook {} older)", a.what, a.overtakes)
        } else {
            a.what.clone()
        };
        let _ = writeln!(
            out,
            "<g class=\"arrow {}{over}\" data-kind=\"{}\" data-id=\"{}\" data-client=\"{client}\" data-from=\"{}\" data-to=\"{}\" data-overtakes=\"{}\"><title>{}</title><line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" marker-end=\"url(#head)\"/></g>",
            a.kind.name(),
            a.kind.name(),
            escape(&a.id),
            a.from_line.map_or("start".to_string(), |l| l.to_string()),
            if a.in_flight {
                "end".to_string()
            } else {
                a.to_line.to_string()
            },
            a.overtakes,
            escape(&title)
        );
    }
    out.push_str("</g>\n");
}
