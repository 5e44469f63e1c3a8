//! What a broken invariant reports ([`Violation`]): which invariant, at which step, for
//! which tab, why, and the render it saw, one line per row ([`render_line`]).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::content::push_decimal;
use crate::model::store::CrashCause;
use crate::model::wire::{ClientId, Origin, RenderRow};
use crate::oracle::invariant::Invariant;

/// A broken invariant, with everything a person needs to see why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The property that broke: with the store, the failure's signature, which campaigns
    /// keep one shrunk scenario per.
    pub invariant: Invariant,
    /// The client whose render broke it (none for a whole-world failure).
    pub client: Option<ClientId>,
    /// Index of the step after which it broke, counting main-phase then drain steps.
    pub step_index: usize,
    /// The content tokens involved (`msg:m3`, `txt:t2.1`).
    pub messages: Vec<String>,
    /// What the invariant required, in words naming the tokens concerned
    /// (`own message(s) msg:m2 visible`), printed above `seen`.
    pub expected: String,
    /// The client's render at that moment, one line per row; for a `crash`, the cause in
    /// words and the stderr tail, one line each.
    pub seen: Vec<String>,
    /// For a `crash`: why the store crashed (absent otherwise, and from the JSON of a run
    /// that found none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<CrashCause>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} violated", self.invariant)?;
        if let Some(c) = self.client {
            write!(f, " on c{c}")?;
        }
        writeln!(f, " after step #{}", self.step_index)?;
        if !self.messages.is_empty() {
            writeln!(f, "  involving: {}", self.messages.join(", "))?;
        }
        writeln!(f, "  expected:  {}", self.expected)?;
        writeln!(f, "  seen ({} rows):", self.seen.len())?;
        for line in &self.seen {
            writeln!(f, "    {line}")?;
        }
        Ok(())
    }
}

/// One render row as a line: `sealed 3 t1 user msg:m1` or `live queued-m2 - user msg:m2`.
pub fn render_line(row: &RenderRow) -> String {
    let role = match row.role {
        crate::model::wire::Role::User => "user",
        crate::model::wire::Role::Assistant => "assistant",
        crate::model::wire::Role::ToolCall => "tool-call",
        crate::model::wire::Role::ToolResult => "tool-result",
    };
    // Written piece by piece (every failing run renders its client's rows).
    let mut line = String::with_capacity(32 + row.text.len());
    match &row.origin {
        Origin::Sealed { seq } => {
            line.push_str("sealed ");
            push_decimal(&mut line, *seq);
        }
        Origin::Live { id } => {
            line.push_str("live ");
            line.push_str(id);
        }
    }
    line.push(' ');
    match row.turn_id {
        Some(t) => {
            line.push('t');
            push_decimal(&mut line, t.0);
        }
        None => line.push('-'),
    }
    line.push(' ');
    line.push_str(role);
    line.push(' ');
    line.push_str(&row.text);
    line
}

/// Every row as a line, for a violation's `seen`.
pub(super) fn render_lines(rows: &[RenderRow]) -> Vec<String> {
    rows.iter().map(render_line).collect()
}

/// A violation of `invariant` on `client` after step `step_index`.
pub(super) fn violation(
    invariant: Invariant,
    client: ClientId,
    step_index: usize,
    messages: Vec<String>,
    expected: String,
    rows: &[RenderRow],
) -> Violation {
    Violation {
        invariant,
        client: Some(client),
        step_index,
        messages,
        expected,
        seen: render_lines(rows),
        cause: None,
    }
}
