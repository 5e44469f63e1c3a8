//! A tab's render set beside the backend DB, row by row, each line marked with how they
//! differ: what the step panel of a scenario page shows for every tab after every step.
//!
//! The marks are symbols with a word in the legend, never colour alone: `=` the tab shows
//! the DB row as it is; `+` a live row, not in the DB (yet); `×` a live row whose content
//! the DB already holds (shown twice: the linger of invariant 2); `−` a DB row the tab does
//! not show; `≠` a sealed row the DB does not hold as shown; `∅` content the broken
//! invariant expected that neither shows (added by the page, at the break). A line holding
//! a content token the violation names is flagged `!`.

use crate::model::content::for_each_token;
use crate::model::wire::{ChunkRow, Origin, RenderRow, Role};
use crate::oracle::render_line;

/// How a line of the comparison differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    /// Shown as the DB holds it.
    Same,
    /// A live row, not in the DB.
    LiveOnly,
    /// A live row whose content the DB already holds: shown twice.
    AlsoSealed,
    /// In the DB, not shown.
    NotShown,
    /// Shown as sealed, but not as the DB holds it.
    Differs,
    /// Content the broken invariant expected, shown nowhere and not in the DB: a message
    /// lost before it was sealed, streamed text wiped before it was written.
    Lost,
}

impl Mark {
    /// The symbol in the mark column.
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Same => "=",
            Mark::LiveOnly => "+",
            Mark::AlsoSealed => "×",
            Mark::NotShown => "−",
            Mark::Differs => "≠",
            Mark::Lost => "∅",
        }
    }

    /// The class of the line, for the style (and the tests).
    pub fn class(self) -> &'static str {
        match self {
            Mark::Same => "same",
            Mark::LiveOnly => "live",
            Mark::AlsoSealed => "twice",
            Mark::NotShown => "missing",
            Mark::Differs => "differs",
            Mark::Lost => "lost",
        }
    }

    /// What the mark means, for the legend and each mark's tooltip.
    pub fn meaning(self) -> &'static str {
        match self {
            Mark::Same => "shown as the DB holds it",
            Mark::LiveOnly => "live row, not in the DB yet",
            Mark::AlsoSealed => "live row whose content the DB already holds: shown twice",
            Mark::NotShown => "in the DB, not shown by the tab",
            Mark::Differs => "shown as sealed, but not as the DB holds it",
            Mark::Lost => "expected by the broken invariant, shown nowhere (and not in the DB)",
        }
    }

    /// Every mark, in the legend's order.
    pub const ALL: [Mark; 6] = [
        Mark::Same,
        Mark::LiveOnly,
        Mark::AlsoSealed,
        Mark::NotShown,
        Mark::Differs,
        Mark::Lost,
    ];

    /// Whether the line is a difference between the tab and the DB.
    pub fn differs(self) -> bool {
        self != Mark::Same
    }
}

/// One line of a comparison: the DB row (the truth) and the tab's row, either may be
/// absent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compared {
    /// How they differ.
    pub mark: Mark,
    /// The DB row, as `seq turn role text`.
    pub db: Option<String>,
    /// The tab's row, as the oracle prints it ([`render_line`]).
    pub shown: Option<String>,
    /// It holds a content token the violation involves.
    pub involved: bool,
}

/// A DB row as the comparison shows it: `3 t1 tool-result tool-result:t1.1 …`.
pub fn db_line(row: &ChunkRow) -> String {
    format!(
        "{} {} {} {}",
        row.seq,
        row.turn_id,
        role_name(row.role),
        row.text
    )
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::ToolCall => "tool-call",
        Role::ToolResult => "tool-result",
    }
}

/// `render` beside `db`, in the tab's order: each sealed row on the line of its DB row,
/// the DB rows the tab does not show where they fall in `seq` order (before the next
/// sealed row shown, or at the end), live rows where the tab shows them. `involved`:
/// the content tokens the violation names (flagged `!`).
pub fn compare(db: &[ChunkRow], render: &[RenderRow], involved: &[String]) -> Vec<Compared> {
    let shown_seqs: Vec<u32> = render
        .iter()
        .filter_map(|r| match r.origin {
            Origin::Sealed { seq } => Some(seq),
            Origin::Live { .. } => None,
        })
        .collect();
    let mut sealed_tokens: Vec<&str> = Vec::new();
    for row in db {
        for_each_token(&row.text, |t, _| sealed_tokens.push(t));
    }
    sealed_tokens.sort_unstable();
    let holds = |text: &str, set: &dyn Fn(&str) -> bool| {
        let mut any = false;
        for_each_token(text, |t, _| any |= set(t));
        any
    };
    let is_involved = |text: &str| holds(text, &|t| involved.iter().any(|i| i == t));
    let mut out = Vec::with_capacity(render.len() + db.len());
    let mut next_db = 0;
    let missing = |row: &ChunkRow| Compared {
        mark: Mark::NotShown,
        db: Some(db_line(row)),
        shown: None,
        involved: is_involved(&row.text),
    };
    for row in render {
        match row.origin {
            Origin::Sealed { seq } => {
                while next_db < db.len() && db[next_db].seq < seq {
                    if !shown_seqs.contains(&db[next_db].seq) {
                        out.push(missing(&db[next_db]));
                    }
                    next_db += 1;
                }
                let truth = db.iter().find(|r| r.seq == seq);
                let same = truth.is_some_and(|t| {
                    t.text == row.text && t.role == row.role && Some(t.turn_id) == row.turn_id
                });
                out.push(Compared {
                    mark: if same { Mark::Same } else { Mark::Differs },
                    db: truth.map(db_line),
                    shown: Some(render_line(row)),
                    involved: is_involved(&row.text),
                });
                if next_db < db.len() && db[next_db].seq == seq {
                    next_db += 1;
                }
            }
            Origin::Live { .. } => {
                let twice = holds(&row.text, &|t| sealed_tokens.binary_search(&t).is_ok());
                out.push(Compared {
                    mark: if twice {
                        Mark::AlsoSealed
                    } else {
                        Mark::LiveOnly
                    },
                    db: None,
                    shown: Some(render_line(row)),
                    involved: is_involved(&row.text),
                });
            }
        }
    }
    for row in &db[next_db..] {
        if !shown_seqs.contains(&row.seq) {
            out.push(missing(row));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::wire::TurnId;

    fn chunk(seq: u32, role: Role, text: &str) -> ChunkRow {
        ChunkRow {
            seq,
            turn_id: TurnId(1),
            role,
            text: text.to_string(),
            message_ids: Vec::new(),
        }
    }

    fn live(id: &str, text: &str) -> RenderRow {
        RenderRow {
            origin: Origin::Live { id: id.to_string() },
            role: Role::User,
            turn_id: None,
            text: text.to_string(),
        }
    }

    /// Bug D's end state: the sealed rows are the DB's, the consumed bubble is live and
    /// also sealed (inside the tool result), and the involved token is flagged on both.
    #[test]
    fn a_lingering_bubble_is_marked_twice() {
        let db = vec![
            chunk(1, Role::User, "msg:m1"),
            chunk(2, Role::ToolCall, "tool-call:t1.1"),
            chunk(
                3,
                Role::ToolResult,
                "tool-result:t1.1 [USER INTERRUPT] msg:m10",
            ),
        ];
        let mut render: Vec<RenderRow> = db.iter().map(RenderRow::sealed).collect();
        render.push(live("m10", "msg:m10"));
        let c = compare(&db, &render, &["msg:m10".to_string()]);
        let marks: Vec<Mark> = c.iter().map(|l| l.mark).collect();
        assert_eq!(
            marks,
            [Mark::Same, Mark::Same, Mark::Same, Mark::AlsoSealed]
        );
        assert_eq!(
            c.iter().map(|l| l.involved).collect::<Vec<_>>(),
            [false, false, true, true]
        );
        // `msg:m1` is not read inside `msg:m10`.
        let only_m10 = &db[2..];
        assert_eq!(
            compare(only_m10, &[live("m1", "msg:m1")], &[])[0].mark,
            Mark::LiveOnly
        );
    }

    /// A DB row the tab does not show is a line of its own, where it falls in seq order;
    /// a live row not in the DB is `+`.
    #[test]
    fn rows_not_shown_fall_in_seq_order() {
        let db = vec![
            chunk(1, Role::User, "msg:m1"),
            chunk(2, Role::Assistant, "txt:t1.1"),
            chunk(3, Role::User, "msg:m2"),
        ];
        let render = vec![
            RenderRow::sealed(&db[0]),
            RenderRow::sealed(&db[2]),
            live("queued-m3", "msg:m3"),
        ];
        let c = compare(&db, &render, &[]);
        let marks: Vec<Mark> = c.iter().map(|l| l.mark).collect();
        assert_eq!(
            marks,
            [Mark::Same, Mark::NotShown, Mark::Same, Mark::LiveOnly]
        );
        assert_eq!(c[1].db.as_deref(), Some("2 t1 assistant txt:t1.1"));
        assert_eq!(c[1].shown, None);
        // An empty tab misses every row; an empty DB leaves only live rows.
        assert!(compare(&db, &[], &[])
            .iter()
            .all(|l| l.mark == Mark::NotShown));
        assert_eq!(compare(&[], &render[2..], &[])[0].mark, Mark::LiveOnly);
    }
}
