//! The backend paths real backends have beyond the note (world options, `docs/model.md`,
//! "Beyond the note"), each as a hand-built interleaving on which a store that ignores the
//! path fails and one that handles it passes.
//!
//! - **Continuation drains** (`continuation_drains`): a message queued while a turn
//!   finishes is drained into the *next* turn. The note's `current` binds every consumed
//!   row to `liveTurnId`, the turn that was streaming, and a reconcile of an older turn
//!   applied after the continuation turn started drops it: the message is lost. `durable`
//!   drops a row only when a snapshot holds its id, and passes. With `consume_reasons` the
//!   event says `continuation`, the one signal that the message is not the streaming
//!   turn's; `current` ignores it. Committed as `scenarios/paths/continuation.json`.
//! - **Server-minted ids** (every world: a POST without an id gets one, as real backends
//!   give it): a store that POSTs without an id must learn the id the backend minted from
//!   the POST response; one that does not keeps its row beside the sealed one
//!   ([`IdlessPosts`]).
//! - **Deltas without a turn id** (`deltas_without_turn_ids`): a store that ignores such a
//!   delta loses streamed text ([`DropsDeltasWithoutTurn`]).
//! - **Queued texts** (`queued_texts`): a store may show another tab's pending message
//!   from the text; one that does but never drops it when it is consumed keeps it beside
//!   the sealed row ([`ShowsOthersQueued`]). Ignoring the text is always safe (it is more
//!   information, nothing more), so the store that fails is the one that shows it
//!   without following it to its end.
//!
//! The test stores are `durable` seen through one wrapper each, as the render-shape bugs
//! of `sim/tests/it/buggy.rs` are: the path's handling, or its absence, and nothing else.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::config::WorldConfig;
use crate::model::step::Step;
use crate::model::store::{Answer, Store, StoreFactory};
use crate::model::wire::{
    ChunkRow, ClientId, Effect, Event, Input, MessageId, Origin, RenderRow, Role,
};
use crate::oracle::Invariant;
use crate::store::{durable, StoreKind};
use crate::testing::bugs::RegressionSeed;
use crate::testing::script::{scripted_config, Script};

/// The scripted world with `continuation_drains` (and `consume_reasons`, so the event says
/// why).
pub fn continuation_config() -> WorldConfig {
    let mut config = scripted_config();
    config.continuation_drains = true;
    config.consume_reasons = true;
    config
}

/// c0 is scrolled up when c1's t1 seals (its reconcile deferred). c1's t2 finishes; c0's
/// message, sent meanwhile, is queued for a continuation. t2 is written, c0 scrolls down
/// and its deferred fetch is served (t2's rows, not yet the continuation's). t2 seals:
/// `message-consumed` (continuation), then `turn-start t3`. c0 takes them all, then the
/// old fetch's response arrives.
pub fn continuation_script(kind: &StoreKind) -> Script<'_> {
    let mut s = Script::new(continuation_config(), kind);
    s.deliver_all(0).deliver_all(1); // status idle on connect
    s.send(1).post(1).deliver_all(0).deliver_all(1); // t1 by c1
    s.delta().finish_turn();
    s.scroll_up(0).deliver_all(0); // c0 defers t1's reconcile
    s.deliver_all(1).fetch(1);
    s.send(1).post(1); // t2 by c1
    s.delta().end(); // t2 finishing: status idle
    s.send(0).post(0); // queued while t2 finishes: for a continuation
    s.write(); // t2 written
    s.scroll_down(0); // c0's deferred fetch
    s.step(Step::ServeFetch { client: 0 }); // t2's rows, not the continuation's
    let request = s.world().client(0).fetch_responses()[0].request;
    s.seal(); // turn-sealed t2, message-consumed (continuation), turn-start t3
    s.deliver_all(0);
    s.step(Step::DeliverFetchResponse { client: 0, request });
    s
}

/// The continuation path as a committed scenario (`scenarios/paths/continuation.json`).
pub const PATH_SEEDS: [RegressionSeed; 1] = [RegressionSeed {
    name: "paths/continuation",
    description: "Beyond the note (continuation_drains): a message queued while a turn finishes is drained into the next turn. current binds the consumed row to the turn that was streaming, so an older turn's reconcile applied after the continuation turn started drops it. Fails inv1-no-loss on current; durable (drop a row only when a snapshot holds its id) passes.",
    before: "current",
    invariant: Invariant::NoLoss,
    after: "durable",
    must_pass: &["durable"],
    must_include: |s| *s == Step::AgentSeal,
    must_keep: |c| c.continuation_drains,
    script: continuation_script,
}];

/// `durable` behind a wrapper: a test store for one path.
struct Wrapped<W> {
    inner: Box<dyn Store>,
    wrapper: W,
    rows: Vec<RenderRow>,
}

/// What a wrapper does around `durable`.
trait Wrapper: Send + 'static {
    /// The inputs `durable` is given for `input` (none: it never sees it).
    fn inputs(&mut self, input: &Input) -> Vec<Input>;
    /// The effects the store asks for, from `durable`'s.
    fn effects(&mut self, effects: Vec<Effect>) -> Vec<Effect> {
        effects
    }
    /// The render, from `durable`'s.
    fn render(&self, inner: &[RenderRow]) -> Vec<RenderRow> {
        inner.to_vec()
    }
}

impl<W: Wrapper> Store for Wrapped<W> {
    fn handle(&mut self, input: &Input) -> Answer {
        let mut effects = Vec::new();
        for input in self.wrapper.inputs(input) {
            effects.extend(self.inner.handle(&input)?);
        }
        let effects = self.wrapper.effects(effects);
        self.rows = self.wrapper.render(self.inner.render());
        Ok(effects)
    }
    fn render(&self) -> &[RenderRow] {
        &self.rows
    }
}

/// A factory of wrapped `durable` stores.
struct WrappedKind<W> {
    name: &'static str,
    make: fn() -> W,
}

impl<W: Wrapper> StoreFactory for WrappedKind<W> {
    fn name(&self) -> String {
        self.name.to_string()
    }
    fn make(&self, client: ClientId) -> Box<dyn Store> {
        Box::new(Wrapped {
            inner: durable::KIND.make(client),
            wrapper: (self.make)(),
            rows: Vec::new(),
        })
    }
}

/// `durable` POSTing without a message id (as a frontend that lets the server mint ids
/// does). With `learns`, it learns the minted id from the POST response and reads events
/// and chunk rows through it, holding a snapshot that names an id it cannot place while
/// one of its POSTs is unanswered (that id may be its own message's: applying the
/// snapshot would keep the message's live row beside its sealed one); without, it reads
/// them as they come, and never recognises its own message in the chunks.
pub struct IdlessPosts {
    learns: bool,
    /// POSTs sent, oldest first, not yet answered: the tab's own id of each.
    unanswered: Vec<MessageId>,
    /// Minted id → the tab's own.
    own: BTreeMap<MessageId, MessageId>,
    /// Messages the tab sent.
    sent: Vec<MessageId>,
    /// A fetch response held until the unanswered POSTs are answered.
    held: Option<Input>,
}

impl IdlessPosts {
    fn own_id(&self, id: MessageId) -> MessageId {
        self.own.get(&id).copied().unwrap_or(id)
    }

    fn translate(&self, input: &Input) -> Input {
        match input {
            Input::Event { event } => Input::Event {
                event: match event {
                    Event::MessageQueued { message_id, text } => Event::MessageQueued {
                        message_id: self.own_id(*message_id),
                        text: text.clone(),
                    },
                    Event::MessageConsumed {
                        message_ids,
                        reason,
                    } => Event::MessageConsumed {
                        message_ids: message_ids.iter().map(|m| self.own_id(*m)).collect(),
                        reason: *reason,
                    },
                    other => other.clone(),
                },
            },
            Input::FetchResponse {
                request_id,
                snapshot_seq,
                chunks,
                written_turns,
            } => Input::FetchResponse {
                request_id: *request_id,
                snapshot_seq: *snapshot_seq,
                chunks: Arc::new(
                    chunks
                        .iter()
                        .map(|r| ChunkRow {
                            message_ids: r.message_ids.iter().map(|m| self.own_id(*m)).collect(),
                            ..r.clone()
                        })
                        .collect(),
                ),
                written_turns: Arc::clone(written_turns),
            },
            other => other.clone(),
        }
    }

    /// Whether `input` is a snapshot naming an id the tab cannot place.
    fn ambiguous(&self, input: &Input) -> bool {
        let Input::FetchResponse { chunks, .. } = input else {
            return false;
        };
        chunks
            .iter()
            .flat_map(|r| &r.message_ids)
            .any(|m| !self.own.contains_key(m) && !self.sent.contains(m))
    }
}

impl Wrapper for IdlessPosts {
    fn inputs(&mut self, input: &Input) -> Vec<Input> {
        if !self.learns {
            return vec![input.clone()];
        }
        match input {
            Input::UserSend { message_id, .. } => {
                self.sent.push(*message_id);
                self.unanswered.push(*message_id);
                vec![input.clone()]
            }
            Input::PostResponse { server_id, .. } => {
                // Answers come in the order the POSTs went out.
                let own = self.unanswered.remove(0);
                if let Some(server) = server_id {
                    self.own.insert(*server, own);
                }
                match self.held.take() {
                    Some(held) if self.unanswered.is_empty() => vec![self.translate(&held)],
                    held => {
                        self.held = held;
                        Vec::new()
                    }
                }
            }
            Input::FetchResponse { .. } if !self.unanswered.is_empty() && self.ambiguous(input) => {
                self.held = Some(input.clone());
                Vec::new()
            }
            other => vec![self.translate(other)],
        }
    }

    fn effects(&mut self, effects: Vec<Effect>) -> Vec<Effect> {
        effects
            .into_iter()
            .map(|e| match e {
                Effect::Post { text, .. } => Effect::Post {
                    message_id: None,
                    text,
                },
                other => other,
            })
            .collect()
    }
}

/// [`IdlessPosts`] as a store: `learns` or not.
pub fn idless_posts(learns: bool) -> Box<dyn StoreFactory> {
    fn make(learns: bool) -> IdlessPosts {
        IdlessPosts {
            learns,
            unanswered: Vec::new(),
            own: BTreeMap::new(),
            sent: Vec::new(),
            held: None,
        }
    }
    if learns {
        Box::new(WrappedKind {
            name: "durable-idless-posts",
            make: || make(true),
        })
    } else {
        Box::new(WrappedKind {
            name: "durable-idless-posts-ignoring-minted-ids",
            make: || make(false),
        })
    }
}

/// `durable` never told a delta that carries no turn id.
pub struct DropsDeltasWithoutTurn;

impl Wrapper for DropsDeltasWithoutTurn {
    fn inputs(&mut self, input: &Input) -> Vec<Input> {
        match input {
            Input::Event {
                event: Event::TextDelta { turn_id: None, .. },
            } => Vec::new(),
            other => vec![other.clone()],
        }
    }
}

/// [`DropsDeltasWithoutTurn`] as a store.
pub fn drops_deltas_without_turn() -> Box<dyn StoreFactory> {
    Box::new(WrappedKind {
        name: "durable-dropping-deltas-without-turn",
        make: || DropsDeltasWithoutTurn,
    })
}

/// `durable` that also shows another tab's pending message, from `message-queued`'s text,
/// as a live user row at the end; with `follows`, until `message-consumed` names it (the
/// message is then in a turn, whose rows the next snapshots show), without, for good.
pub struct ShowsOthersQueued {
    follows: bool,
    sent: Vec<MessageId>,
    others: Vec<(MessageId, String)>,
}

impl Wrapper for ShowsOthersQueued {
    fn inputs(&mut self, input: &Input) -> Vec<Input> {
        match input {
            Input::UserSend { message_id, .. } => self.sent.push(*message_id),
            Input::Event {
                event:
                    Event::MessageQueued {
                        message_id,
                        text: Some(text),
                    },
            } if !self.sent.contains(message_id) => {
                self.others.push((*message_id, text.clone()));
            }
            Input::Event {
                event: Event::MessageConsumed { message_ids, .. },
            } if self.follows => self.others.retain(|(m, _)| !message_ids.contains(m)),
            _ => {}
        }
        vec![input.clone()]
    }

    fn render(&self, inner: &[RenderRow]) -> Vec<RenderRow> {
        let mut rows = inner.to_vec();
        rows.extend(self.others.iter().map(|(m, text)| RenderRow {
            origin: Origin::Live {
                id: format!("other-{m}"),
            },
            role: Role::User,
            turn_id: None,
            text: text.clone(),
        }));
        rows
    }
}

/// [`ShowsOthersQueued`] as a store: `follows` the message to its consumption, or not.
pub fn shows_others_queued(follows: bool) -> Box<dyn StoreFactory> {
    fn make(follows: bool) -> ShowsOthersQueued {
        ShowsOthersQueued {
            follows,
            sent: Vec::new(),
            others: Vec::new(),
        }
    }
    if follows {
        Box::new(WrappedKind {
            name: "durable-showing-others-queued",
            make: || make(true),
        })
    } else {
        Box::new(WrappedKind {
            name: "durable-showing-others-queued-forever",
            make: || make(false),
        })
    }
}

/// c0 sends (the store POSTs no id, so the backend mints one) and its message starts t1;
/// t1 streams and seals; c0 reconciles before the POST response arrives (`early`) or after.
pub fn server_ids_script(stores: &dyn StoreFactory, early: bool) -> Script<'_> {
    let mut s = Script::new(scripted_config(), stores);
    s.deliver_all(0).deliver_all(1);
    s.send(0).post(0);
    if !early {
        s.post_responses(0);
    }
    s.delta().finish_turn();
    s.deliver_all(0).fetch(0);
    s.post_responses(0);
    s
}

/// With `deltas_without_turn_ids`: c0's message starts t1, whose delta reaches c0.
pub fn deltas_without_turn_script(stores: &dyn StoreFactory) -> Script<'_> {
    let mut config = scripted_config();
    config.deltas_without_turn_ids = true;
    let mut s = Script::new(config, stores);
    s.deliver_all(0).deliver_all(1);
    s.send(0).post(0).delta().deliver_all(0);
    s
}

/// With `queued_texts`: c1's message is queued while c0's t1 streams (c0 is told its
/// text), consumed as trailing history, sealed; c0 reconciles.
pub fn queued_texts_script(stores: &dyn StoreFactory) -> Script<'_> {
    let mut config = scripted_config();
    config.queued_texts = true;
    let mut s = Script::new(config, stores);
    s.deliver_all(0).deliver_all(1);
    s.send(0).post(0).delta();
    s.send(1).post(1); // queued: message-queued with its text
    s.end().finish_turn(); // trailing drain, then the turn ends
    s.deliver_all(0).fetch(0);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::fuzz::run_one_observed;
    use crate::run::strategy::StrategySpec;
    use crate::run::{replay, Outcome, RunReport};
    use crate::store::by_name;
    use crate::trace::coverage::CoverageObserver;

    fn verdict(r: &RunReport) -> Option<Invariant> {
        assert!(r.skipped.is_empty(), "skipped: {:?}", r.skipped);
        r.outcome.invariant()
    }

    #[test]
    fn continuation_current_loses_the_message_and_durable_keeps_it() {
        let current = by_name("current").unwrap();
        let s = continuation_script(&current);
        assert_eq!(verdict(&s.judge(&current)), Some(Invariant::NoLoss));
        assert_eq!(s.judge(&durable::KIND).outcome, Outcome::Pass);
        // Without continuation drains the same steps are not a world (the POST waits):
        // the path is what breaks `current`.
        let mut note = continuation_config();
        note.continuation_drains = false;
        let r = replay(&current, note, s.steps());
        assert!(!r.skipped.is_empty());
    }

    #[test]
    fn server_ids_a_store_ignoring_the_minted_id_keeps_its_row_and_one_learning_it_does_not() {
        for early in [false, true] {
            let ignoring = idless_posts(false);
            let s = server_ids_script(ignoring.as_ref(), early);
            assert_eq!(
                verdict(&s.judge(ignoring.as_ref())),
                Some(Invariant::NoDuplicate),
                "early {early}"
            );
            let learning = idless_posts(true);
            assert_eq!(
                s.judge(learning.as_ref()).outcome,
                Outcome::Pass,
                "early {early}"
            );
        }
        // In every world (once only those with `server_ids`) the backend takes a POST
        // without an id: no store fault, in the note's own scripted world too.
        let learning = idless_posts(true);
        for seed in 0..64 {
            let r = replay(
                learning.as_ref(),
                WorldConfig::from_seed(seed),
                &[Step::Send { client: 0 }, Step::HandlePost { client: 0 }],
            );
            assert_eq!(r.outcome, Outcome::Pass, "seed {seed}");
        }
    }

    #[test]
    fn server_ids_the_learning_store_passes_many_seeds_and_meets_the_race() {
        let learning = idless_posts(true);
        let mut raced = 0;
        for seed in 0..600 {
            let config = WorldConfig::from_seed(seed);
            let mut strategy = StrategySpec::Random.build(seed);
            let mut coverage = CoverageObserver::default();
            let r = crate::run::execute_observed(
                learning.as_ref(),
                config,
                |_, enabled, i| {
                    if i >= 200 || enabled.is_empty() {
                        crate::run::Next::Stop
                    } else {
                        crate::run::Next::Apply(enabled[strategy.choose(enabled)])
                    }
                },
                &mut coverage,
            );
            assert_eq!(r.outcome, Outcome::Pass, "seed {seed}");
            raced += coverage
                .coverage
                .counts
                .get("server-id-before-post-response")
                .copied()
                .unwrap_or(0);
        }
        assert!(
            raced > 10,
            "only {raced} events overtook their POST response"
        );
        // `run_one_observed` is the campaign's: durable itself posts ids, so it never
        // meets a minted one.
        let mut coverage = CoverageObserver::default();
        run_one_observed(&durable::KIND, StrategySpec::Random, 1, &mut coverage);
        assert!(!coverage
            .coverage
            .counts
            .contains_key("server-id-before-post-response"));
    }

    #[test]
    fn deltas_without_turn_a_store_dropping_them_loses_text_and_durable_shows_it() {
        let dropping = drops_deltas_without_turn();
        let s = deltas_without_turn_script(dropping.as_ref());
        assert_eq!(
            verdict(&s.judge(dropping.as_ref())),
            Some(Invariant::NewerTurnPreserved)
        );
        assert_eq!(s.judge(&durable::KIND).outcome, Outcome::Pass);
    }

    #[test]
    fn queued_texts_showing_another_tab_s_message_forever_duplicates_it() {
        let forever = shows_others_queued(false);
        let s = queued_texts_script(forever.as_ref());
        assert_eq!(
            verdict(&s.judge(forever.as_ref())),
            Some(Invariant::NoDuplicate)
        );
        let following = shows_others_queued(true);
        assert_eq!(s.judge(following.as_ref()).outcome, Outcome::Pass);
        // The row was shown: the following store showed c1's message before it was
        // consumed.
        let mut shown = Script::new(s.world().config().clone(), following.as_ref());
        shown.deliver_all(0).deliver_all(1);
        shown.send(0).post(0).delta().send(1).post(1).deliver_all(0);
        let texts: Vec<&str> = shown
            .world()
            .client(0)
            .render()
            .iter()
            .map(|r| r.text.as_str())
            .collect();
        assert!(texts.contains(&"msg:m10"), "{texts:?}");
    }

    /// `durable` asking for what a backend accepts but a careful store would not: its
    /// effects rewritten by `rewrite`.
    struct Odd(fn(Vec<Effect>) -> Vec<Effect>);

    /// A named way of sending a store's requests differently.
    type OddCase = (&'static str, fn() -> Odd);

    impl Wrapper for Odd {
        fn inputs(&mut self, input: &Input) -> Vec<Input> {
            vec![input.clone()]
        }
        fn effects(&mut self, effects: Vec<Effect>) -> Vec<Effect> {
            (self.0)(effects)
        }
    }

    /// Each row of `docs/protocol.md`'s "What every world accepts": a store doing it meets
    /// no protocol fault in any world (the oracle still judges what its user sees).
    #[test]
    fn what_every_world_accepts_is_never_a_crash() {
        let cases: [OddCase; 5] = [
            ("durable-posting-without-ids", || {
                Odd(|effects| {
                    effects
                        .into_iter()
                        .map(|e| match e {
                            Effect::Post { text, .. } => Effect::Post {
                                message_id: None,
                                text,
                            },
                            other => other,
                        })
                        .collect()
                })
            }),
            ("durable-posting-an-extra-id-less-post", || {
                Odd(|mut effects| {
                    if effects.iter().any(|e| matches!(e, Effect::Post { .. })) {
                        effects.push(Effect::Post {
                            message_id: None,
                            text: "again".into(),
                        });
                    }
                    effects
                })
            }),
            ("durable-posting-twice", || {
                Odd(|effects| {
                    effects
                        .into_iter()
                        .flat_map(|e| match e {
                            Effect::Post { .. } => vec![e.clone(), e],
                            other => vec![other],
                        })
                        .collect()
                })
            }),
            ("durable-fetching-twice-with-one-id", || {
                Odd(|effects| {
                    effects
                        .into_iter()
                        .flat_map(|e| match e {
                            Effect::Fetch { .. } => vec![e.clone(), e],
                            other => vec![other],
                        })
                        .collect()
                })
            }),
            ("durable-asking-for-nothing", || Odd(|_| Vec::new())),
        ];
        for (name, make) in cases {
            let store = WrappedKind { name, make };
            for seed in 0..150 {
                let r = crate::campaign::fuzz::run_one(&store, StrategySpec::Random, seed);
                assert_ne!(
                    r.outcome.invariant(),
                    Some(Invariant::Crash),
                    "{name} seed {seed}: {:?}",
                    r.outcome
                );
            }
        }
    }
}
