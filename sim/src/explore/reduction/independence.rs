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
///   `HandlePost {c}` (reads `c`'s POST queue, writes its POST responses). Broadcasts only
///   append to inboxes: a delivery takes an event already within the reordering window,
///   which an append never pushes out (under a bound on overtaking, the appended event
///   has been overtaken by none, and a delivery counts only the events before it). A
///   fetch response carries a snapshot taken when it was served, so later backend steps
///   do not change it; and the DB rows the oracle looks up by `seq` never change once
///   written. `ServeFetch {c}` moves the oldest of `c`'s fetch requests to its
///   responses: a step of `c` only appends requests (its store's fetches) or takes a
///   response already served, by its request id, so the two commute whenever both are
///   enabled; and the one thing the oracle reads of `c`'s fetches, whether any is
///   outstanding, is true before and after a serve.
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
    matches!(step, Step::HandlePost { client } if *client == c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::reduction::scope::Scope;
    use crate::explore::{state_key, ExploreBound, KeyWriter};
    use crate::model::config::WorldConfig;
    use crate::model::wire::RequestId;
    use crate::model::world::World;
    use rand::{RngExt, SeedableRng};

    /// The relation against the model itself: along random schedules of worlds with
    /// every kind of step (two tabs sending, scrolls, reordering, tool calls, failures),
    /// every pair of enabled steps declared independent is taken in both orders from a
    /// copy of the state: neither disables the other, both orders end in the same state
    /// (the exact key, stores included), and each step's verdict is the same whether or
    /// not the other ran first. What the sleep sets and both persistent sets rest on.
    #[test]
    fn independent_steps_commute_in_the_model() {
        let mut pairs = 0;
        for name in ["durable", "current", "naive", "membership"] {
            let stores = crate::store::by_name(name).unwrap();
            let worlds = [
                (2, 1, 2, 1, None),
                (1, 2, 3, 2, None),
                (2, 0, 1, 0, None),
                (2, 1, 3, 1, Some(1)),
            ];
            for (sends, scrolls, window, tools, overtakes) in worlds {
                let mut config: WorldConfig = ExploreBound::small(2, sends).world;
                config.scrolls_per_client = scrolls;
                config.ws_reorder_window = window;
                config.ws_overtakes_max = overtakes;
                config.tool_calls_per_turn_max = tools;
                config.turn_failures = tools > 0;
                let mut rng =
                    rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(window * 10 + tools));
                for _ in 0..25 {
                    let mut world = World::new(config.clone(), &stores);
                    let mut enabled = Vec::new();
                    for depth in 0..200 {
                        world.enabled_steps(&mut enabled);
                        if enabled.is_empty() {
                            break;
                        }
                        for (i, a) in enabled.iter().enumerate() {
                            for b in &enabled[i + 1..] {
                                if independent(a, b) {
                                    pairs += 1;
                                    commute(&world, *a, *b, depth);
                                }
                            }
                        }
                        let step = enabled[rng.random_range(0..enabled.len())];
                        match Scope::Whole.judge_step(&mut world, step, depth) {
                            Ok(None) => {}
                            _ => break,
                        }
                    }
                }
            }
        }
        assert!(pairs > 10_000, "only {pairs} independent pairs met");
    }

    /// `a` then `b`, and `b` then `a`, from `world`: see the test above.
    fn commute(world: &World, a: Step, b: Step, depth: usize) {
        let mut scratch = Vec::new();
        let order = |first: Step, second: Step| {
            let mut w = world.try_clone().expect("the stores copy themselves");
            let v1 = Scope::Whole.judge_step(&mut w, first, depth).unwrap();
            let mut scratch = Vec::new();
            assert!(
                w.is_enabled(&second, &mut scratch),
                "{first} disables {second}"
            );
            let v2 = Scope::Whole.judge_step(&mut w, second, depth + 1).unwrap();
            let (mut key, mut part) = (KeyWriter::default(), KeyWriter::default());
            assert!(state_key(&w, &mut key, &mut part));
            let invariant = |v: Option<crate::oracle::Violation>| v.map(|v| v.invariant);
            (key.bytes, invariant(v1), invariant(v2))
        };
        let (ab, a_first, b_second) = order(a, b);
        let (ba, b_first, a_second) = order(b, a);
        assert!(world.is_enabled(&a, &mut scratch));
        assert!(
            ab == ba,
            "{a} and {b} end in different states in the two orders"
        );
        assert_eq!(
            a_first, a_second,
            "{a}'s verdict depends on {b} running first"
        );
        assert_eq!(
            b_first, b_second,
            "{b}'s verdict depends on {a} running first"
        );
    }

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
