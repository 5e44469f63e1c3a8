//! Invariant 5, what the user sees between reconciles: the render's order and shape.
//!
//! The note defines the render as `groupRowsToMessages(chunks) ++ live` ("`tab.renderGroups`
//! — DERIVED"); invariants 1–4 judge which content is shown, not where or in what shape.
//! This invariant judges the rest, after every step that touches a tab, and flags only
//! what no defensible store shows. Where stores may choose (which order the live rows
//! take, where a streaming row ends), it accepts every choice a correct store makes:
//!
//! - **Chunks first.** No sealed row below a live row; after a fetch response is applied,
//!   the sealed rows come in increasing `seq`, each exactly the DB's row (role and text).
//!   (The note: the render is `chunks ++ live`, and `chunks` is "SEALED, durable history
//!   (real DB `seq`)".)
//! - **Live rows in some defensible order.** Two orders are defensible: *arrival* (each
//!   row where the tab learned its first content: the user's send for the user's own
//!   message, its first delta's delivery for an assistant row, its tool event's for a tool
//!   row), and *the DB's order as the tab was told it* (content as it arrived; the user's
//!   own message where the tab learned the DB holds it: the `message-consumed` naming it,
//!   or the first event of the turn it started; until then below all content). A store
//!   may mix them, row by row: a pair of live rows is out of order only when the lower
//!   one came first in **both**. The DB order is the tab's, not the backend's: a store
//!   knows only the events it received, in the order it received them. A message folded
//!   into a tool result (an interrupt) is held in the result's row: its place is the
//!   result's once the tab has both. Consecutive live rows of one turn's content are one
//!   message with parts, which began with its earliest row and grows in place, as a
//!   streaming row may (a store that renders a turn as a message with tool batches and
//!   text keeps a message sent while it streams below all of it).
//! - **The user's own messages in send order**, and **a turn's content below the message
//!   that started it** (the DB's first row of the turn; also another tab's message, whose
//!   arrival the tab cannot know). Both orders agree on these, so every store must.
//! - **Each live row the shape of its role.** A user row holds no streamed text and no
//!   tool marker; an assistant row holds only deltas, of one turn and of one **segment**
//!   (no tool event of the turn between them: the backend's row); a tool-call row is its
//!   marker alone; a tool result starts with its marker and never receives streamed text.
//! - **A run** (deltas the tab received with nothing between them) stays in one row, or
//!   is split only around a user row: continued in place (`durable`), in a new row after
//!   the user's own row (`durable-arrival`), or split where a consumed message will be
//!   written (`durable-db-order`). A run split with no user row between is a store that
//!   lost track of its streaming row (`currentAssistantId`).
//!
//! The argument (docs/model.md, "Invariant 5"): a rule belongs here only if every store
//! that loses, duplicates and mislabels nothing obeys it whatever it chose where the note
//! is silent. The earlier rule required arrival order and unsplit runs, and failed a
//! production store that renders in DB order (issue 30).
//!
//! A row whose start the tab cannot know (another tab's message) is ordered only by the
//! initiator rule. With colliding message texts, a user row's send is the earliest
//! matching one in send order (preferring one whose message no sealed row shown holds,
//! then any), and when both of those readings break a rule, every other reading of the
//! rows as the sends of their texts is tried: a violation is reported only when no
//! reading keeps every rule.

use crate::model::client::Client;
use crate::model::content::{MessageTexts, TokenKey};
use crate::model::wire::{ClientId, MessageId, Origin, RenderRow, Role, TurnId};
use crate::model::world::World;
use crate::oracle::invariant::Invariant;
use crate::oracle::read::{RenderRead, RowTokens};
use crate::oracle::seen::ids_of_row;
use crate::oracle::violation::{violation, Violation};

/// Invariant 5 for `client`, whose render is `rows`; `fetched` when the step applied a
/// fetch response (the sealed rows are compared with the DB then).
pub fn check(
    world: &World,
    client: ClientId,
    (rows, read): (&[RenderRow], &RenderRead),
    scratch: &mut Scratch,
    fetched: bool,
    step_index: usize,
) -> Option<Violation> {
    let fail = |messages: Vec<String>, expected: String| {
        Some(violation(
            Invariant::RenderShape,
            client,
            step_index,
            messages,
            expected,
            rows,
        ))
    };
    let live_start = rows
        .iter()
        .position(RenderRow::is_live)
        .unwrap_or(rows.len());
    if let Some(seq) = rows[live_start..].iter().find_map(sealed_seq) {
        return fail(
            vec![format!("sealed {seq}")],
            format!(
                "every sealed row above the live rows (chunks ++ live); sealed {seq} is below one"
            ),
        );
    }
    if fetched {
        if let Err(why) = sealed_rows_are_the_db(world, &rows[..live_start]) {
            return fail(Vec::new(), why);
        }
    }
    if live_start == rows.len() {
        return None;
    }
    let (sealed, rows) = rows.split_at(live_start);
    let live = Live {
        rows,
        read,
        start: live_start,
    };
    match check_live(world.client(client), world, sealed, live, scratch) {
        Ok(()) => None,
        Err((messages, why)) => fail(messages, why),
    }
}

fn sealed_seq(row: &RenderRow) -> Option<u32> {
    match row.origin {
        Origin::Sealed { seq } => Some(seq),
        Origin::Live { .. } => None,
    }
}

/// The sealed rows come in increasing `seq`, each exactly the DB's row.
fn sealed_rows_are_the_db(world: &World, sealed: &[RenderRow]) -> Result<(), String> {
    let db = world.backend().db();
    let mut last = 0;
    for row in sealed {
        let seq = sealed_seq(row).expect("a sealed row");
        if seq <= last {
            return Err(format!(
                "sealed rows in increasing seq (chunks in DB order); seq {seq} follows seq {last}"
            ));
        }
        last = seq;
        let Ok(i) = db.binary_search_by_key(&seq, |d| d.seq) else {
            return Err(format!(
                "sealed row {seq} is a DB row; the DB has no seq {seq}"
            ));
        };
        if db[i].role != row.role || db[i].text != row.text {
            return Err(format!(
                "sealed row {seq} shows the DB's row ({:?} {:?})",
                db[i].role, db[i].text
            ));
        }
    }
    Ok(())
}

/// The live rows of a render, with their reading.
#[derive(Clone, Copy)]
struct Live<'a> {
    rows: &'a [RenderRow],
    read: &'a RenderRead,
    /// The index of the first live row in the render (and its reading).
    start: usize,
}

impl<'a> Live<'a> {
    /// The tokens of live row `i`.
    fn tokens(self, i: usize) -> RowTokens<'a> {
        self.read.row(self.start + i)
    }
}

/// Buffers the live rows' judgement reuses from one check to the next, so that a check
/// allocates nothing (see [`crate::oracle::read`]).
#[derive(Default)]
pub struct Scratch {
    live: LiveScratch,
    own: OwnScratch,
}

/// The order checks' buffers.
#[derive(Default)]
struct LiveScratch {
    /// Each live row as the order checks see it.
    judged: Vec<Judged>,
    /// (run, index of the live row holding it)
    runs: Vec<(u32, usize)>,
    /// The runs of the row being judged.
    row_runs: Vec<u32>,
    /// (turn, index of the first live row of it)
    turns_above: Vec<(u32, usize)>,
}

/// [`OwnMessages`]' buffers (colliding texts).
#[derive(Default)]
struct OwnScratch {
    /// Per send (by index), whether a row above took it.
    taken: Vec<bool>,
    /// The messages the sealed rows shown hold.
    sealed: Vec<MessageId>,
}

type Finding = (Vec<String>, String);

/// When a live row's content reached the tab, in two orders a store may defend (see the
/// module doc), as half-ticks of the tab's clock: content learned at tick `k` is `2k`; a
/// decision the tab was told between ticks `k` and `k + 1` is `2k + 1`; a message whose
/// place nothing has decided yet is [`UNDECIDED`].
#[derive(Clone, Copy)]
struct RowKeys {
    /// Arrival: the user's send, the first delta's or the tool event's delivery.
    arrival: u64,
    /// The DB's order as the tab was told it: content as it arrived; a message when the
    /// tab learned where the DB holds it (`message-consumed`, its turn's start).
    db: u64,
}

/// A message whose place in the DB nothing the tab received has decided: below all
/// content shown.
const UNDECIDED: u64 = u64::MAX;

fn content_key(tick: u32) -> u64 {
    2 * u64::from(tick)
}

fn decision_key(clock: u32) -> u64 {
    2 * u64::from(clock) + 1
}

/// One live row, as the order checks see it.
struct Judged {
    /// Ordered in time (the tab's own message, or content it learned), if it is.
    keys: Option<RowKeys>,
    /// Its keys as a row above another sees them: for a row of a turn's content right
    /// below another of the same turn, the earliest of that message's rows (see
    /// [`message_starts`]); else `keys`.
    above: Option<RowKeys>,
    /// The tab's own message it shows (by send index), for a user row.
    send: Option<usize>,
    /// The turn of its streamed content, for an assistant or tool row.
    turn: Option<u32>,
}

impl Judged {
    /// A row of streamed content of `turn` that reached the tab at tick `start`: in both
    /// orders, where it arrived.
    fn content(start: Option<u32>, turn: Option<u32>) -> Judged {
        let keys = start.map(|t| RowKeys {
            arrival: content_key(t),
            db: content_key(t),
        });
        Judged {
            keys,
            above: keys,
            send: None,
            turn,
        }
    }
}

/// The live rows' order and shapes (see the module doc).
fn check_live(
    c: &Client,
    world: &World,
    sealed: &[RenderRow],
    live: Live<'_>,
    scratch: &mut Scratch,
) -> Result<(), Finding> {
    let Scratch { live: bufs, own } = scratch;
    let first = check_live_as(
        c,
        world,
        OwnMessages::new(c, world, sealed, true, own),
        live,
        bufs,
    );
    if first.is_err() && world.config().message_texts == MessageTexts::Colliding {
        // The other reading of equal texts: a live row may also stand for a send whose
        // message a sealed row holds (a lingering duplicate, invariant 2's business).
        let greedy = OwnMessages::new(c, world, sealed, false, own);
        if check_live_as(c, world, greedy, live, bufs).is_ok() {
            return Ok(());
        }
        // Neither greedy reading keeps the order: try every other. The greedy match takes
        // each row's earliest open send, which is the best choice for the send order and
        // for content above the row, but the worst for content below it: a lingering
        // duplicate "ok" below a delta that reached the tab after the first "ok" was sent
        // and before the second was, read as the first, looks out of order, though as the
        // second (whose message the DB holds too) it is in arrival order (the nightly's
        // first night, issue 48).
        for given in readings(c, live) {
            let reading = OwnMessages::given(c, world, &given, own);
            if check_live_as(c, world, reading, live, bufs).is_ok() {
                return Ok(());
            }
        }
    }
    first
}

/// The most readings [`readings`] lists: every world the fuzzer draws has at most three
/// sends per tab, so at most a few dozen readings exist; past this many (a pinned world
/// with many repeated texts) the greedy readings' verdict stands.
const READINGS_MAX: usize = 1024;

/// Every reading of the live user rows as the tab's own sends, in a world of colliding
/// texts: row `k` (counting the live user rows from the top) shows send `given[k]`, a send
/// of its text no row above took, or `None` when every send of its text is taken (or the
/// user sent no such text): the assignments [`OwnMessages::send`] can make, not only the
/// greedy one. Empty when there are more than [`READINGS_MAX`].
fn readings(c: &Client, live: Live<'_>) -> Vec<Vec<Option<usize>>> {
    let texts = c.sent_texts();
    let rows: Vec<&str> = live
        .rows
        .iter()
        .filter(|r| r.role == Role::User)
        .map(|r| r.text.as_str())
        .collect();
    let mut out = Vec::new();
    let mut given = Vec::with_capacity(rows.len());
    if !extend_readings(texts, &rows, &mut given, &mut out) {
        out.clear();
    }
    out
}

/// [`readings`]' search: every completion of `given` (the choices for the rows above);
/// false once there are more than [`READINGS_MAX`].
fn extend_readings(
    texts: &[String],
    rows: &[&str],
    given: &mut Vec<Option<usize>>,
    out: &mut Vec<Vec<Option<usize>>>,
) -> bool {
    let Some(text) = rows.get(given.len()) else {
        out.push(given.clone());
        return out.len() <= READINGS_MAX;
    };
    let open: Vec<usize> = (0..texts.len())
        .filter(|s| texts[*s] == *text && !given.contains(&Some(*s)))
        .collect();
    if open.is_empty() {
        given.push(None);
        let more = extend_readings(texts, rows, given, out);
        given.pop();
        return more;
    }
    for s in open {
        given.push(Some(s));
        let more = extend_readings(texts, rows, given, out);
        given.pop();
        if !more {
            return false;
        }
    }
    true
}

/// [`check_live`], with the user rows read as the sends `own` assigns.
fn check_live_as(
    c: &Client,
    world: &World,
    mut own: OwnMessages<'_>,
    live: Live<'_>,
    scratch: &mut LiveScratch,
) -> Result<(), Finding> {
    let LiveScratch {
        judged,
        runs,
        row_runs,
        turns_above,
    } = scratch;
    judged.clear();
    runs.clear();
    // The send index and row of the last own user row, for the send order.
    let mut last_own: Option<(u32, usize)> = None;

    for (i, row) in live.rows.iter().enumerate() {
        let tokens = live.tokens(i);
        shape(row, tokens)?;
        let j = judge_row(c, world, &mut own, (row, tokens), last_own, row_runs)?;
        for &r in row_runs.iter() {
            if let Some((_, k)) = runs.iter().find(|(run, k)| *run == r && *k != i) {
                let k = *k;
                if !live.rows[k + 1..i]
                    .iter()
                    .any(|between| between.role == Role::User)
                {
                    return Err((
                        tokens.iter().map(|(t, _)| t.to_string()).collect(),
                        format!(
                            "a run of deltas received with nothing between them in one row, or split only around a user row; it is split between live rows {k} and {i}, with no user row between"
                        ),
                    ));
                }
            }
            runs.push((r, i));
        }
        if let Some(send) = j.send {
            if let Some((before, k)) = last_own {
                if (send as u32) < before {
                    return Err((
                        vec![row.text.clone(), live.rows[k].text.clone()],
                        format!(
                            "the user's own messages in the order they were sent; {:?} is below {:?}, sent after it",
                            row.text, live.rows[k].text
                        ),
                    ));
                }
            }
            last_own = Some((send as u32, i));
        }
        judged.push(j);
    }
    message_starts(judged);
    in_some_defensible_order(live.rows, judged)?;
    initiators_above_their_turns(c, world, live, judged, turns_above)
}

/// One live row as the order checks see it (its keys in time, the send it shows, its
/// turn), and the runs of deltas it holds (into `row_runs`); a user row is read as the
/// send `own` assigns it, after `last_own` (the send index and row of the last own user
/// row above it).
fn judge_row(
    c: &Client,
    world: &World,
    own: &mut OwnMessages<'_>,
    (row, tokens): (&RenderRow, RowTokens<'_>),
    last_own: Option<(u32, usize)>,
    row_runs: &mut Vec<u32>,
) -> Result<Judged, Finding> {
    row_runs.clear();
    Ok(match row.role {
        Role::User => {
            let send = own.send((row, tokens), last_own.map(|(s, _)| s as usize));
            let keys = send.map(|s| {
                let at = c.learned().sent_at[s];
                RowKeys {
                    arrival: content_key(at),
                    db: decided(c, world, c.sent()[s]),
                }
            });
            Judged {
                keys,
                above: keys,
                send,
                turn: None,
            }
        }
        Role::Assistant => {
            let (start, turn) = deltas_seen(c, tokens, row_runs)?;
            Judged::content(start, turn)
        }
        Role::ToolCall | Role::ToolResult => {
            let start = marker_start(c, tokens);
            let turn = match tokens.leading() {
                Some(TokenKey::Call(t, _) | TokenKey::Result(t, _)) => Some(t),
                _ => None,
            };
            Judged::content(start, turn)
        }
    })
}

/// Consecutive live rows of one turn's content (nothing between them) are one message
/// of the turn, as a store that renders a turn as a message with parts (tool calls,
/// results, text segments) shows it: the message began with its earliest row, and grows
/// in place below it, as a streaming row may grow above a message sent while it streams.
/// Each row's `above` is the earliest keys of its message so far.
fn message_starts(judged: &mut [Judged]) {
    let mut message: Option<(u32, Option<RowKeys>)> = None;
    for j in judged.iter_mut() {
        j.above = match (j.turn, message) {
            (Some(t), Some((u, Some(start)))) if t == u => Some(match j.keys {
                Some(k) => RowKeys {
                    arrival: start.arrival.min(k.arrival),
                    db: start.db.min(k.db),
                },
                None => start,
            }),
            _ => j.keys,
        };
        message = j.turn.map(|t| (t, j.above));
    }
}

/// No row below one whose content came after it in every order a store may defend: a
/// pair is out of order only when the lower row's content reached the tab first AND the
/// tab was told the DB holds it first. A row above is taken as its message's start (see
/// [`message_starts`]).
fn in_some_defensible_order(live: &[RenderRow], judged: &[Judged]) -> Result<(), Finding> {
    let mut arrival_max: Option<u64> = None;
    for (i, lower) in judged.iter().enumerate() {
        let Some(low) = lower.keys else { continue };
        if arrival_max.is_some_and(|m| m > low.arrival) {
            for (k, upper) in judged[..i].iter().enumerate() {
                let Some(up) = upper.above else { continue };
                if low.arrival < up.arrival && low.db < up.db {
                    return Err((
                        vec![live[i].text.clone(), live[k].text.clone()],
                        format!(
                            "live rows in arrival order or in the DB's order as the tab was told it; {:?} is below {:?}, and came before it in both",
                            live[i].text, live[k].text
                        ),
                    ));
                }
            }
        }
        let up = lower.above.map_or(low.arrival, |a| a.arrival);
        arrival_max = Some(arrival_max.map_or(up, |m| m.max(up)));
    }
    Ok(())
}

/// No row of a turn's streamed content above the row of the message that started the
/// turn (the DB holds the initiator first, and the tab sent or was shown it first).
fn initiators_above_their_turns(
    c: &Client,
    world: &World,
    live: Live<'_>,
    judged: &[Judged],
    turns_above: &mut Vec<(u32, usize)>,
) -> Result<(), Finding> {
    turns_above.clear();
    for (i, (row, j)) in live.rows.iter().zip(judged).enumerate() {
        if let Some(t) = j.turn {
            if !turns_above.iter().any(|(u, _)| *u == t) {
                turns_above.push((t, i));
            }
            continue;
        }
        if row.role != Role::User || turns_above.is_empty() {
            continue;
        }
        let shown = live.tokens(i).keys().filter_map(|key| match key {
            TokenKey::Msg(m) => Some(MessageId(m)),
            _ => None,
        });
        for m in shown.chain(j.send.map(|s| c.sent()[s])) {
            let Some(turn) = initiated(world, m) else {
                continue;
            };
            if let Some((_, k)) = turns_above.iter().find(|(t, _)| *t == turn.0) {
                return Err((
                    vec![row.text.clone(), live.rows[*k].text.clone()],
                    format!(
                        "a turn's content below the message that started it; {:?} of {turn} is above {:?}",
                        live.rows[*k].text, row.text
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The turn message `m` started (the DB's first row of that turn holds it), if any: the
/// first user row holding `m`, when no row above it is of its turn (the DB is in `seq`
/// order, so the first row of a turn is the one no earlier row shares the turn with).
fn initiated(world: &World, m: MessageId) -> Option<TurnId> {
    let db = world.backend().db();
    let i = db
        .iter()
        .position(|r| r.role == Role::User && r.message_ids.contains(&m))?;
    let turn = db[i].turn_id;
    (!db[..i].iter().any(|r| r.turn_id == turn)).then_some(turn)
}

/// When the tab was told where the DB holds message `m` (see [`RowKeys::db`]). A message
/// folded into a tool result as an interrupt is held inside that result's row: once the
/// tab has both its `message-consumed` and the result, the message's place is the later
/// of the two, so when the result came second (in order, the backend sends it right
/// after) a store may show the message's row just above the result (arrival) or just
/// below it (the DB's order, where a store that keeps a tool call and its result together
/// puts it), not below what came after.
fn decided(c: &Client, world: &World, m: MessageId) -> u64 {
    let learned = c.learned();
    if let Some((_, at)) = learned.consumed.iter().find(|(id, _)| *id == m) {
        let told = decision_key(*at);
        let Some((turn, call)) = world.backend().result_folding(m) else {
            return told;
        };
        let result = TokenKey::Result(turn.0, call);
        return match learned.markers.iter().find(|(k, _)| *k == result) {
            Some((_, at)) => told.max(content_key(*at)),
            None => told,
        };
    }
    initiated(world, m)
        .and_then(|t| learned.turns_seen.iter().find(|(u, _)| *u == t))
        .map_or(UNDECIDED, |(_, at)| decision_key(*at))
}

/// The shape a live row of its role must have.
fn shape(row: &RenderRow, tokens: RowTokens<'_>) -> Result<(), Finding> {
    let bad = |what: &str, token: &str| {
        Err((
            vec![token.to_string()],
            format!("{what}; {:?} holds {token:?}", row.text),
        ))
    };
    match row.role {
        Role::User => {
            if let Some(t) = tokens.any(|k| !matches!(k, TokenKey::Msg(_))) {
                return bad("a user row holds no streamed text and no tool marker", t);
            }
        }
        Role::Assistant => {
            if let Some(t) = tokens.any(|k| !matches!(k, TokenKey::Txt(..))) {
                return bad("an assistant row holds only streamed text", t);
            }
            if tokens.other_bytes > 0 {
                return bad("an assistant row holds only streamed text", &row.text);
            }
            let mut turns = tokens.keys().filter_map(|k| match k {
                TokenKey::Txt(t, _) => Some(t),
                _ => None,
            });
            if let Some(first) = turns.next() {
                if turns.any(|t| t != first) {
                    return bad("an assistant row holds one turn's text", &row.text);
                }
            }
        }
        Role::ToolCall => {
            let alone =
                tokens.other_bytes == 0 && matches!(tokens.only(), Some(TokenKey::Call(..)));
            if !alone {
                return bad("a tool-call row is its marker alone", &row.text);
            }
        }
        Role::ToolResult => {
            if !matches!(tokens.leading(), Some(TokenKey::Result(..))) {
                return bad("a tool result starts with its marker", &row.text);
            }
            if let Some(t) = tokens.any(|k| matches!(k, TokenKey::Txt(..) | TokenKey::Call(..))) {
                return bad("a tool result never receives streamed text", t);
            }
        }
    }
    Ok(())
}

/// When an assistant row started (its earliest delta's delivery, a tick) and its turn,
/// with the runs of its deltas pushed onto `runs`; its deltas must all be of one segment.
fn deltas_seen(
    c: &Client,
    tokens: RowTokens<'_>,
    runs: &mut Vec<u32>,
) -> Result<(Option<u32>, Option<u32>), Finding> {
    let learned = c.learned();
    let mut start: Option<u32> = None;
    let mut segment = None;
    for (text, key) in tokens.iter() {
        let Some(pos) = c.keys().delta_position(key) else {
            continue; // not delivered to this tab: invariant 3's business, not this one's
        };
        let seen = learned.deltas[pos];
        start = Some(start.map_or(seen.at, |s| s.min(seen.at)));
        match segment {
            Some(s) if s != seen.segment => {
                return Err((
                    vec![text.to_string()],
                    "an assistant row holds one segment of a turn (no tool event of the turn between its deltas)".to_string(),
                ))
            }
            _ => segment = Some(seen.segment),
        }
        if !runs.contains(&seen.run) {
            runs.push(seen.run);
        }
    }
    Ok((start, segment.map(|(t, _): (TurnId, u32)| t.0)))
}

/// When the tab learned the tool marker a tool row starts with.
fn marker_start(c: &Client, tokens: RowTokens<'_>) -> Option<u32> {
    let key = tokens.leading()?;
    c.learned()
        .markers
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, at)| *at)
}

/// The tab's own messages, for the start of the live user rows that show them: by token
/// in a world of unique tokens; by text in a world of colliding texts, where a row with a
/// text the user sent several times could stand for any of those sends. Then each row
/// takes the earliest send of its text not taken yet that keeps the order (no earlier
/// than the row above), which is the assignment most likely to succeed; when it fails,
/// [`check_live`] tries every other ([`readings`]): an order violation is reported only
/// when no assignment of sends to rows keeps the order.
struct OwnMessages<'a> {
    c: &'a Client,
    texts: MessageTexts,
    /// Colliding texts: per send, whether a row took it, and the messages the sealed rows
    /// shown hold.
    bufs: &'a mut OwnScratch,
    /// Colliding texts, one reading of [`readings`]: the send of each live user row, from
    /// the top, and how many rows have been read; `None`: the greedy match.
    given: Option<(&'a [Option<usize>], usize)>,
}

impl<'a> OwnMessages<'a> {
    fn new(
        c: &'a Client,
        world: &World,
        sealed: &[RenderRow],
        avoid_sealed: bool,
        bufs: &'a mut OwnScratch,
    ) -> OwnMessages<'a> {
        let texts = world.config().message_texts;
        bufs.taken.clear();
        bufs.sealed.clear();
        if texts == MessageTexts::Colliding {
            if avoid_sealed {
                let held = sealed.iter().flat_map(|r| ids_of_row(world, r, false));
                bufs.sealed.extend(held);
            }
            bufs.taken.resize(c.sent().len(), false);
        }
        OwnMessages {
            c,
            texts,
            bufs,
            given: None,
        }
    }

    /// The reading `given` of [`readings`] (colliding texts).
    fn given(
        c: &'a Client,
        world: &World,
        given: &'a [Option<usize>],
        bufs: &'a mut OwnScratch,
    ) -> OwnMessages<'a> {
        let mut own = OwnMessages::new(c, world, &[], false, bufs);
        own.given = Some((given, 0));
        own
    }

    /// Which of the user's sends (its index) `row` shows, if it is the tab's own;
    /// `after_send` is the send shown by the own row above. With colliding texts: the
    /// earliest send of the row's text not taken yet, from `after_send` on, preferring
    /// one whose message no sealed row shown holds (the greedy match, which finds an
    /// assignment in send order whenever one exists).
    fn send(
        &mut self,
        (row, tokens): (&RenderRow, RowTokens<'_>),
        after_send: Option<usize>,
    ) -> Option<usize> {
        match self.texts {
            MessageTexts::Tokens => {
                let key = tokens.keys().next()?;
                self.c.keys().sent.iter().position(|k| *k == Some(key))
            }
            MessageTexts::Colliding if self.given.is_some() => {
                let (given, read) = self.given.as_mut()?;
                let send = given.get(*read).copied().flatten();
                *read += 1;
                send
            }
            MessageTexts::Colliding => {
                let texts = self.c.sent_texts();
                let sent = self.c.sent();
                let OwnScratch { taken, sealed } = &mut *self.bufs;
                // The sends of the row's text not taken yet, in send order.
                let mut open = (0..texts.len()).filter(|&s| !taken[s] && texts[s] == row.text);
                let last = open.clone().next_back()?; // none: more rows than sends of this text
                let floor = after_send.unwrap_or(0);
                let i = open
                    .clone()
                    .find(|&s| s >= floor && !sealed.contains(&sent[s]))
                    .or_else(|| open.find(|&s| s >= floor))
                    .unwrap_or(last);
                taken[i] = true;
                Some(i)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! Each shape a policy may choose is accepted, in the world where the three correct
    //! stores of `durable`'s family show it; each shape no policy allows is rejected. (The
    //! shapes of a role, chunks first and DB-exact sealed rows are in `clauses.rs`.)
    use crate::model::step::Step;
    use crate::model::store::StoreFactory;
    use crate::model::wire::{Event, Origin, RenderRow, Role};
    use crate::oracle::invariant::Invariant;
    use crate::oracle::judge_render;
    use crate::store::durable::{self, arrival as durable_arrival, db_order as durable_db_order};
    use crate::testing::script::{scripted_config, Script};

    const FAMILY: [&crate::store::StoreKind; 3] = [
        &durable::KIND,
        &durable_arrival::KIND,
        &durable_db_order::KIND,
    ];

    /// c0 sends its first message (which starts t1); two deltas reach c0; c0 sends its
    /// second message while they stream (queued); a third delta reaches c0; the turn's
    /// reply ends and drains the second message as trailing history; a fourth delta
    /// follows (a new row in the DB) and reaches c0.
    fn trailing(kind: &dyn StoreFactory) -> Script<'_> {
        let mut s = Script::new(scripted_config(), kind);
        s.deliver_all(0).deliver_all(1);
        s.send(0).post(0).deliver_all(0);
        s.delta().delta().deliver_all(0);
        s.send(0).post(0).deliver_all(0);
        s.delta().deliver_all(0);
        s.end().delta().deliver_all(0);
        s
    }

    /// c0 sends its first message (which starts t1); a delta reaches c0; c0 sends its
    /// second message (queued) before the tool call reaches it; the tool result folds the
    /// second message in as an interrupt; a delta follows; all of it reaches c0.
    fn interrupt(kind: &dyn StoreFactory) -> Script<'_> {
        let mut s = Script::new(scripted_config(), kind);
        s.deliver_all(0).deliver_all(1);
        s.send(0).post(0).deliver_all(0);
        s.delta().deliver_all(0);
        s.send(0).post(0).deliver_all(0);
        s.tool_call().tool_result(true).delta().deliver_all(0);
        s
    }

    fn rows(s: &Script<'_>) -> Vec<RenderRow> {
        s.world().client(0).render().to_vec()
    }

    fn judge(s: &Script<'_>, rows: &[RenderRow]) -> Option<(Invariant, String)> {
        judge_render(s.world(), 0, rows, false, 0).map(|v| (v.invariant, v.expected))
    }

    /// The live rows as `role text` lines.
    fn shape(rows: &[RenderRow]) -> Vec<String> {
        rows.iter()
            .filter(|r| r.is_live())
            .map(|r| format!("{:?} {}", r.role, r.text))
            .collect()
    }

    /// `rows` rearranged: the live rows in the order `order` gives (indices into them).
    fn reorder(rows: &[RenderRow], order: &[usize]) -> Vec<RenderRow> {
        let live: Vec<&RenderRow> = rows.iter().filter(|r| r.is_live()).collect();
        let mut out: Vec<RenderRow> = rows.iter().filter(|r| !r.is_live()).cloned().collect();
        out.extend(order.iter().map(|i| live[*i].clone()));
        out
    }

    fn rejected_by(s: &Script<'_>, r: &[RenderRow], clause: &str) {
        match judge(s, r) {
            Some((Invariant::RenderShape, why)) => {
                assert!(why.starts_with(clause), "{why:?} for {:?}", shape(r))
            }
            other => panic!("{:?} judged {other:?}, not {clause:?}", shape(r)),
        }
    }

    /// The render each store of the family shows at the end of `script`, each accepted.
    fn accepted_shapes(script: fn(&dyn StoreFactory) -> Script<'_>) -> Vec<Vec<String>> {
        FAMILY
            .iter()
            .map(|k| {
                let s = script(*k);
                assert_eq!(
                    judge(&s, &rows(&s)),
                    None,
                    "{}: {:?}",
                    k.name,
                    shape(&rows(&s))
                );
                shape(&rows(&s))
            })
            .collect()
    }

    #[test]
    fn each_policy_shows_its_own_shape_of_a_trailing_drain_and_each_is_accepted() {
        let shapes = accepted_shapes(trailing);
        let [m1, m2] = ["User msg:m1", "User msg:m10"];
        // In place: the streaming row grows above the second message.
        assert_eq!(
            shapes[0],
            [m1, "Assistant txt:t1.1 txt:t1.2 txt:t1.3 txt:t1.4", m2]
        );
        // Arrival: the send ends the streaming row; a new one opens below the message.
        assert_eq!(
            shapes[1],
            [
                m1,
                "Assistant txt:t1.1 txt:t1.2",
                m2,
                "Assistant txt:t1.3 txt:t1.4"
            ]
        );
        // DB order: the message stays below until consumed, then the row is split there.
        assert_eq!(
            shapes[2],
            [
                m1,
                "Assistant txt:t1.1 txt:t1.2 txt:t1.3",
                m2,
                "Assistant txt:t1.4"
            ]
        );
    }

    #[test]
    fn each_policy_shows_its_own_shape_of_an_interrupt_and_each_is_accepted() {
        let shapes = accepted_shapes(interrupt);
        let call = "ToolCall tool-call:t1.1";
        let result = "ToolResult tool-result:t1.1 [USER INTERRUPT] msg:m10";
        let [m1, m2, d1, d2] = [
            "User msg:m1",
            "User msg:m10",
            "Assistant txt:t1.1",
            "Assistant txt:t1.2",
        ];
        assert_eq!(shapes[0], [m1, d1, m2, call, result, d2]);
        assert_eq!(shapes[1], shapes[0]);
        // DB order: the message below the call, where the result will hold it.
        assert_eq!(shapes[2], [m1, d1, call, m2, result, d2]);
    }

    #[test]
    fn a_run_split_with_no_user_row_between_is_rejected() {
        let s = trailing(&durable_arrival::KIND);
        let r = rows(&s);
        // [m1][d1 d2][m2][d3 d4] -> [m1][d1 d2][d3 d4][m2]: the run d2|d3 split bare.
        rejected_by(&s, &reorder(&r, &[0, 1, 3, 2]), "a run of deltas");
        // In place, then a bare split after the consume: [m1][d1 d2 d3][d4][m2].
        let s = trailing(&durable_db_order::KIND);
        let r = rows(&s);
        rejected_by(&s, &reorder(&r, &[0, 1, 3, 2]), "a run of deltas");
    }

    #[test]
    fn a_message_above_content_that_reached_the_tab_before_its_send_is_rejected() {
        let s = trailing(&durable::KIND);
        let r = rows(&s);
        // m2 above the reply whose first deltas reached c0 before m2 was sent.
        rejected_by(&s, &reorder(&r, &[0, 2, 1]), "live rows in arrival order");
    }

    #[test]
    fn a_message_above_a_turns_content_that_reached_the_tab_before_it_is_rejected() {
        let s = interrupt(&durable_db_order::KIND);
        let r = rows(&s);
        // [m1][d1][call][m2][result][d2] -> [m1][m2][d1][call][result][d2]: m2 above the
        // text that reached the tab before m2 was sent (and before the result that holds
        // m2), in both orders.
        rejected_by(
            &s,
            &reorder(&r, &[0, 3, 1, 2, 4, 5]),
            "live rows in arrival order",
        );
    }

    /// A store that renders a turn as one message with parts (text, tool call, result,
    /// text) keeps the message together and shows a message sent while it streams below
    /// it: the message grows in place, as a streaming row may. Its rows after the send
    /// (the call, the result, the text that followed) sit above the user's row, yet the
    /// message began before the send. (Before this rule it was reported as "live rows in
    /// arrival order or in the DB's order": the production example's message-with-parts
    /// render.)
    #[test]
    fn a_turns_message_with_parts_may_grow_in_place_above_a_message_sent_while_it_streams() {
        let s = interrupt(&durable_db_order::KIND);
        let r = rows(&s);
        // [m1][d1][call][m2][result][d2] -> [m1][d1][call][result][d2][m2].
        let parts = reorder(&r, &[0, 1, 2, 4, 5, 3]);
        assert_eq!(judge(&s, &parts), None, "{:?}", shape(&parts));
        // -> [m1][d1][call][result][m2][d2]: the tool batch kept together.
        let batch = reorder(&r, &[0, 1, 2, 4, 3, 5]);
        assert_eq!(judge(&s, &batch), None, "{:?}", shape(&batch));
        // Text that reached the tab before the send may not go below the user's row.
        rejected_by(
            &s,
            &reorder(&r, &[0, 2, 4, 5, 3, 1]),
            "live rows in arrival order",
        );
    }

    /// A message folded into a tool result is held inside the result's row, so the tab
    /// learns its place in the DB when it has both the `message-consumed` naming it and
    /// the result. Here the `message-consumed` overtakes the tool call (a reordering
    /// socket): taken alone, it would place m2 above the call, and a store that keeps the
    /// call and its result together, with m2 just below the result (the production
    /// example's tool batches), would be out of order in both orders. With the result's
    /// place, that render is the DB's order.
    #[test]
    fn a_message_folded_into_a_tool_result_may_sit_just_below_it() {
        let mut config = scripted_config();
        config.ws_reorder_window = 3;
        let mut s = Script::new(config, &durable_db_order::KIND);
        s.deliver_all(0).deliver_all(1);
        s.send(0).post(0).deliver_all(0);
        s.send(0).post(0).tool_call().tool_result(true).delta();
        let consumed = s
            .world()
            .client(0)
            .inbox()
            .find(|(_, e)| matches!(e, Event::MessageConsumed { .. }))
            .map(|(id, _)| id)
            .expect("the interrupt consumed m2");
        // message-queued, then message-consumed ahead of the tool call, then the rest.
        s.deliver_next(0);
        s.step(Step::DeliverEvent {
            client: 0,
            event: consumed,
        });
        s.deliver_all(0);
        let r = rows(&s);
        let call = "ToolCall tool-call:t1.1";
        let result = "ToolResult tool-result:t1.1 [USER INTERRUPT] msg:m10";
        assert_eq!(
            shape(&r),
            [
                "User msg:m1",
                "User msg:m10",
                call,
                result,
                "Assistant txt:t1.1"
            ]
        );
        // [m1][m2][call][result][d1] -> [m1][call][result][m2][d1].
        let batch = reorder(&r, &[0, 2, 3, 1, 4]);
        assert_eq!(judge(&s, &batch), None, "{:?}", shape(&batch));
    }

    #[test]
    fn the_users_own_messages_out_of_send_order_are_rejected() {
        let mut s = Script::new(scripted_config(), &durable::KIND);
        s.deliver_all(0).deliver_all(1);
        s.send(0).send(0);
        let r = rows(&s);
        assert_eq!(judge(&s, &r), None);
        rejected_by(&s, &reorder(&r, &[1, 0]), "the user's own messages");
    }

    #[test]
    fn a_turn_above_the_message_that_started_it_is_rejected_also_another_tabs() {
        let s = trailing(&durable::KIND);
        let r = rows(&s);
        rejected_by(&s, &reorder(&r, &[1, 0, 2]), "live rows in arrival order");
        // c1's message starts t1, whose delta reaches c0; c0 shows c1's message (its
        // arrival unknown to c0) below the text: only the initiator rule says no.
        let mut s = Script::new(scripted_config(), &durable::KIND);
        s.deliver_all(0).deliver_all(1);
        s.send(1).post(1).delta().deliver_all(0);
        let mut r = rows(&s);
        let text = s.world().client(1).sent_texts()[0].clone();
        let other = RenderRow {
            origin: Origin::Live { id: "other".into() },
            role: Role::User,
            turn_id: None,
            text,
        };
        r.insert(0, other.clone());
        assert_eq!(judge(&s, &r), None, "above its turn");
        r.remove(0);
        r.push(other);
        rejected_by(&s, &r, "a turn's content below the message that started it");
    }
    /// Delivers to c0, in this order, the first event of each kind `kinds` names (by
    /// `Event` variant), each overtaking what is still waiting before it (the world's
    /// window must allow it), then reports c0's live rows.
    fn deliver_kinds(s: &mut Script<'_>, kinds: &[&str]) -> Vec<RenderRow> {
        for kind in kinds {
            let id = s
                .world()
                .client(0)
                .inbox()
                .find(|(_, e)| format!("{e:?}").starts_with(kind))
                .map(|(id, _)| id)
                .unwrap_or_else(|| panic!("no {kind} waiting for c0"));
            s.step(Step::DeliverEvent {
                client: 0,
                event: id,
            });
        }
        rows(s)
    }

    /// A turn's message of three rows (text, a tool call, text after it) with the user's
    /// message m2 below it, the result that will hold m2 not yet delivered. The socket
    /// reorders (window 3), so `message-consumed` overtakes the call and the second text
    /// overtakes the result: c0 learns the text, then the send of m2, its consumption, the
    /// call, the second text. `m2_first`: m2 is sent (and consumed) before the first text
    /// reaches c0, so the whole message came after it.
    fn three_row_message(m2_first: bool) -> (Script<'static>, Vec<RenderRow>) {
        let mut config = scripted_config();
        config.ws_reorder_window = 3;
        let mut s = Script::new(config, &durable_db_order::KIND);
        s.deliver_all(0).deliver_all(1);
        s.send(0).post(0).deliver_all(0);
        let r = if m2_first {
            s.send(0)
                .post(0)
                .delta()
                .tool_call()
                .tool_result(true)
                .delta();
            deliver_kinds(
                &mut s,
                &[
                    "MessageQueued",
                    "MessageConsumed",
                    "TextDelta",
                    "ToolCall",
                    "TextDelta",
                ],
            )
        } else {
            s.delta().deliver_all(0);
            s.send(0).post(0).tool_call().tool_result(true).delta();
            deliver_kinds(
                &mut s,
                &["MessageQueued", "MessageConsumed", "ToolCall", "TextDelta"],
            )
        };
        (s, r)
    }

    /// The rule of a message of three or more rows: each row of it is taken at the
    /// message's start (its earliest row), not at the row above it. m2 was sent after the
    /// first text reached the tab, so [text][call][text][m2] is the message grown in place
    /// above a message sent while it streams: accepted, though the last two rows came
    /// after m2 in both orders (read from the row above, the third row starts at the call,
    /// and m2 is "out of order"). When m2 came before the whole message, the same render
    /// is out of order.
    #[test]
    fn a_message_of_three_rows_starts_at_its_first_row_for_every_row_of_it() {
        let (s, r) = three_row_message(false);
        let (m1, m2, d1, call, d2) = (
            "User msg:m1",
            "User msg:m10",
            "Assistant txt:t1.1",
            "ToolCall tool-call:t1.1",
            "Assistant txt:t1.2",
        );
        let live = shape(&r);
        let at = |row: &str| {
            live.iter()
                .position(|l| l == row)
                .unwrap_or_else(|| panic!("{row} in {live:?}"))
        };
        let grown = reorder(&r, &[at(m1), at(d1), at(call), at(d2), at(m2)]);
        assert_eq!(shape(&grown), [m1, d1, call, d2, m2]);
        assert_eq!(judge(&s, &grown), None, "{:?}", shape(&grown));
        // Two rows of the message above m2 are fine either way; the third is the rule.
        let two = reorder(&r, &[at(m1), at(d1), at(call), at(m2), at(d2)]);
        assert_eq!(judge(&s, &two), None, "{:?}", shape(&two));

        let (s, r) = three_row_message(true);
        let live = shape(&r);
        let at = |row: &str| {
            live.iter()
                .position(|l| l == row)
                .unwrap_or_else(|| panic!("{row} in {live:?}"))
        };
        let grown = reorder(&r, &[at(m1), at(d1), at(call), at(d2), at(m2)]);
        rejected_by(&s, &grown, "live rows in arrival order");
        // m2 above the message, where it came: accepted.
        let above = reorder(&r, &[at(m1), at(m2), at(d1), at(call), at(d2)]);
        assert_eq!(judge(&s, &above), None, "{:?}", shape(&above));
    }
}
