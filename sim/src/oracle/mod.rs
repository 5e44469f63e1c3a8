//! The oracle: judges what each client's user sees against the backend's ground truth.
//!
//! It is a black box test of the store. It reads only the render (and, for sealed rows,
//! the DB row with the same `seq`) and the facts the world recorded (what each user sent,
//! which deltas and seals reached which client). It knows nothing of strategies or of how
//! a store works inside.
//!
//! The note's invariants, made checkable:
//! 1. **No loss** (after every step that touches a client): every message that client's
//!    user sent is visible in its render, as a user row or folded into a tool result.
//! 2. **No duplicate / no linger** (after an applied fetch response, once the client has
//!    no other fetch outstanding and is not scrolled up, so every seal it received has
//!    been reconciled): no content token shown in a sealed row of a turn whose
//!    `turn-sealed` the client received also appears in a live row.
//! 3. **Newer turn preserved** (after every step that touches a client): every streamed
//!    delta that reached the client stays visible (an older turn's reconcile must not wipe
//!    a newer turn's text).
//! 4. **Converges** (after the drain phase): with every send processed, the agent idle,
//!    everything delivered and every client at the bottom, each render is exactly the DB,
//!    row for row, with no live rows left.
//! 5. **What the user sees** (after every step that touches a client): the render is
//!    `chunks ++ live` (sealed rows first, in `seq` order, each the DB's row), live rows in
//!    an order some correct store defends (arrival, or the DB's order as the tab was told
//!    it), and each live row the shape of its role. Beyond the note; see [`render`] and
//!    `docs/model.md`.
//!
//! One file per invariant. Content is found by the grammar of [`crate::model::content`];
//! in a world of colliding message texts (the same text twice, texts inside one another)
//! messages are judged by multisets of texts instead of unique tokens (see [`seen`]).

use std::cell::RefCell;

use crate::model::step::{Actor, Step};
use crate::model::wire::{ClientId, RenderRow};
use crate::model::world::World;
use crate::oracle::judged::JudgedExt;

mod clauses;
mod converge;
mod duplicate;
mod invariant;
pub mod judged;
pub mod read;
pub mod render;
pub mod seen;
mod violation;

pub use converge::{check_converged, converged};
pub use invariant::Invariant;
pub use violation::{render_line, Violation};

/// The oracle's readings of each tab's render on this thread (see [`read`]), and the
/// buffers its render check reuses.
#[derive(Default)]
struct Readings {
    tabs: Vec<read::RenderRead>,
    scratch: render::Scratch,
}

thread_local! {
    /// One set of readings per thread: a campaign's worker judges its runs one after
    /// another, and a reading depends on the rows alone (see [`read`]), so keeping it here
    /// rather than in each run loop and each search engine (which copy worlds) changes no
    /// verdict and saves threading a value through all of them.
    static READINGS: RefCell<Readings> = RefCell::new(Readings::default());
}

/// Call `f` with tab `client`'s reading brought up to `rows`, and the render check's
/// buffers.
fn with_reading<R>(
    client: ClientId,
    rows: &[RenderRow],
    f: impl FnOnce(&read::RenderRead, &mut render::Scratch) -> R,
) -> R {
    READINGS.with(|r| {
        let Readings { tabs, scratch } = &mut *r.borrow_mut();
        let client = client as usize;
        if tabs.len() <= client {
            tabs.resize_with(client + 1, read::RenderRead::default);
        }
        let tab = &mut tabs[client];
        tab.read(rows);
        f(tab, scratch)
    })
}

/// Check the client `step` touched: invariants 1 and 3, then 2 when the step applied a
/// fetch response and the client is settled, then 5. `step_index` is the step's index in
/// the run.
pub fn check_step(world: &World, step: &Step, step_index: usize) -> Option<Violation> {
    let Actor::Client(client) = step.actor() else {
        return None;
    };
    let fetched = matches!(step, Step::DeliverFetchResponse { .. });
    judge_render(
        world,
        client,
        world.client(client).render(),
        fetched,
        step_index,
    )
}

/// What [`check_step`] says of `rows` as `client`'s render in `world` (its store's own
/// render there, or any other, as the oracle's tests judge them), `fetched` when the step
/// applied a fetch response.
pub fn judge_render(
    world: &World,
    client: ClientId,
    rows: &[RenderRow],
    fetched: bool,
    step_index: usize,
) -> Option<Violation> {
    with_reading(client, rows, |read, scratch| {
        let c = world.client(client);
        let judged = world.config().judged;
        let rows = (rows, read);
        seen::check(world, client, rows, step_index)
            .or_else(|| {
                let settled = judged.judges(Invariant::NoDuplicate)
                    && fetched
                    && !c.scrolled_up()
                    && c.no_fetch_outstanding();
                settled
                    .then(|| duplicate::check(world, client, rows, step_index))
                    .flatten()
            })
            .or_else(|| {
                judged
                    .judges(Invariant::RenderShape)
                    .then(|| render::check(world, client, rows, scratch, fetched, step_index))
                    .flatten()
            })
    })
}

#[cfg(test)]
mod tests {
    use super::violation::violation;
    use super::*;
    use crate::model::wire::{Origin, Role};

    /// A live user row of `text` (id "x"): the oracle's tests' row when only the text counts.
    pub(super) fn live(text: &str) -> RenderRow {
        RenderRow {
            origin: Origin::Live { id: "x".into() },
            role: Role::User,
            turn_id: None,
            text: text.into(),
        }
    }

    /// A violation prints what broke, where, the tokens involved (when there are any),
    /// what was expected and the render, one line per row.
    #[test]
    fn a_violation_reads_as_documented() {
        let rows = [live("msg:m2"), live("txt:t1.1")];
        let v = violation(
            Invariant::NoLoss,
            1,
            7,
            vec!["msg:m1".into()],
            "own message(s) msg:m1 visible".into(),
            &rows,
        );
        assert_eq!(v.seen, ["live x - user msg:m2", "live x - user txt:t1.1"]);
        assert_eq!(
            v.to_string(),
            "inv1-no-loss violated on c1 after step #7\n  involving: msg:m1\n  expected:  own message(s) msg:m1 visible\n  seen (2 rows):\n    live x - user msg:m2\n    live x - user txt:t1.1\n"
        );
        let quiet = violation(Invariant::Converges, 0, 2, Vec::new(), "x".into(), &[]);
        assert_eq!(
            quiet.to_string(),
            "inv4-converges violated on c0 after step #2\n  expected:  x\n  seen (0 rows):\n"
        );
    }

    /// `render_line` writes what the plain `format!` would.
    #[test]
    fn render_lines_read_as_documented() {
        let sealed = RenderRow {
            origin: Origin::Sealed { seq: 31 },
            role: Role::ToolResult,
            turn_id: Some(crate::model::wire::TurnId(12)),
            text: "tool-result:t12.1 [USER INTERRUPT] msg:m3".into(),
        };
        assert_eq!(
            render_line(&sealed),
            "sealed 31 t12 tool-result tool-result:t12.1 [USER INTERRUPT] msg:m3"
        );
        let mut queued = live("msg:m2");
        queued.origin = Origin::Live {
            id: "queued-m2".into(),
        };
        assert_eq!(render_line(&queued), "live queued-m2 - user msg:m2");
    }

    /// The bitmaps and the overflow list answer like a string search over the tokens.
    #[test]
    fn shown_keys_match_a_plain_token_search() {
        let rows = [
            live("msg:m1 msg:m127 msg:m128 msg:m900"),
            live("txt:t0.0 txt:t15.63 txt:t16.1 txt:t2.64 [USER INTERRUPT] msg:m02"),
        ];
        let mut read = read::RenderRead::default();
        read.read(&rows);
        let shown = read.shown_keys();
        let mut tokens: Vec<&str> = Vec::new();
        for r in &rows {
            crate::model::content::for_each_token(&r.text, |t, _| tokens.push(t));
        }
        for probe in [
            "msg:m1",
            "msg:m2",
            "msg:m127",
            "msg:m128",
            "msg:m900",
            "msg:m901",
            "txt:t0.0",
            "txt:t0.1",
            "txt:t15.63",
            "txt:t15.62",
            "txt:t16.1",
            "txt:t16.2",
            "txt:t2.64",
            "txt:t2.63",
        ] {
            let key = crate::model::content::token_key(probe).expect("canonical");
            assert_eq!(shown.contains(key), tokens.contains(&probe), "{probe}");
        }
    }
}
