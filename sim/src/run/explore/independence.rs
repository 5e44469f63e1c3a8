//! The independence relation the sleep sets rest on.

use crate::model::step::{Actor, Step};

/// The declared independence relation: `a` and `b` commute (applying them in either order
/// from any state where both are enabled gives the same state, neither disables the
/// other) **and** the oracle's verdict after each depends only on state the other does not
/// touch. Sleep sets are sound for any relation with that property; everything not listed
/// here is treated as dependent. Public so that a test or a tool can ask which steps the
/// search treats as commuting.
///
/// - Steps of two different clients commute, except two `Send`s (message ids are global
///   and assigned in send order, so swapping two sends renames the messages). A client
///   step touches only that client's store, inbox, queues and user facts, and the oracle
///   judges only the client the step touched.
/// - A backend step and a step of client `c` commute unless the backend step is
///   `HandlePost {c}` (reads `c`'s POST queue, writes its POST responses) or
///   `ServeFetch {c}` (reads `c`'s fetch requests, writes its responses). Broadcasts only
///   append to inboxes: a delivery takes an event already within the reordering window,
///   which an append never pushes out. A fetch response carries a snapshot taken when it
///   was served, so later backend steps do not change it; and the DB rows the oracle
///   looks up by `seq` never change once written.
/// - Two backend steps commute only when one is `ServeFetch` and the other neither writes
///   the DB (`AgentWrite`, `HandlePost`) nor serves the same client: serving reads the DB
///   and a client queue; agent streaming, `status`, `turn-sealed` and consumption touch
///   neither.
pub fn independent(a: &Step, b: &Step) -> bool {
    match (a.actor(), b.actor()) {
        (Actor::Client(x), Actor::Client(y)) => {
            x != y && !(matches!(a, Step::Send { .. }) && matches!(b, Step::Send { .. }))
        }
        (Actor::Backend, Actor::Client(c)) => !backend_touches_client(a, c),
        (Actor::Client(c), Actor::Backend) => !backend_touches_client(b, c),
        (Actor::Backend, Actor::Backend) => match (a, b) {
            (Step::ServeFetch { client: x }, other) | (other, Step::ServeFetch { client: x }) => {
                match other {
                    Step::ServeFetch { client: y } => x != y,
                    Step::AgentWrite | Step::HandlePost { .. } => false,
                    _ => true,
                }
            }
            _ => false,
        },
    }
}

fn backend_touches_client(step: &Step, c: u8) -> bool {
    matches!(step, Step::HandlePost { client } | Step::ServeFetch { client } if *client == c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::wire::RequestId;

    /// The relation is symmetric (sleep sets assume it: a step sleeps past another exactly
    /// when the other sleeps past it) and irreflexive (no step commutes with itself).
    #[test]
    fn independence_is_symmetric_and_irreflexive() {
        let mut steps = vec![
            Step::AgentDelta,
            Step::AgentToolCall,
            Step::AgentToolResult { interrupt: false },
            Step::AgentToolResult { interrupt: true },
            Step::AgentEnd,
            Step::AgentFail,
            Step::AgentWrite,
            Step::AgentSeal,
        ];
        for client in 0..3 {
            steps.extend([
                Step::HandlePost { client },
                Step::ServeFetch { client },
                Step::DeliverEvent { client, event: 0 },
                Step::DeliverEvent { client, event: 1 },
                Step::DeliverPostResponse { client },
                Step::DeliverFetchResponse {
                    client,
                    request: RequestId(0),
                },
                Step::Send { client },
                Step::ScrollUp { client },
                Step::ScrollDown { client },
            ]);
        }
        for a in &steps {
            assert!(!independent(a, a), "{a:?}");
            for b in &steps {
                assert_eq!(independent(a, b), independent(b, a), "{a:?} {b:?}");
            }
        }
    }
}
