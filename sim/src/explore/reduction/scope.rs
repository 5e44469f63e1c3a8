//! What one search judges: the whole world, or **one tab at a time** with every other tab
//! reduced to what the backend sees of it (its POSTs), and which tabs need a search of
//! their own when some are interchangeable (symmetry).
//!
//! # The per-tab abstraction, and why it is exact for the oracle
//!
//! The oracle judges a tab from that tab's own state (its render, what its user sent, what
//! reached it) and the backend's ground truth (the DB, the message texts); a step is judged
//! only on the tab it touched, and convergence tab by tab. What a tab sees depends on the
//! other tabs only through the backend, and the backend hears from a tab only through its
//! POSTs (a fetch reads the DB and answers that tab alone). So to judge tab `c`, the search
//! [`Scope::Tab`] runs the world with:
//!
//! - tab `c` as it is (its store, network and user);
//! - every other tab `o` as a **POST source**: its user still sends (the world records the
//!   send as ever: message ids are global, in send order) and its store is [`PostOnly`],
//!   which answers a send with exactly one POST of that message and nothing else; none of
//!   `o`'s deliveries, scrolls or fetches is ever taken ([`Scope::takes`]);
//! - only `c` judged ([`Scope::judges`]), and at the end only `c`'s convergence.
//!
//! **Every violation is found, at its shortest length.** Take any schedule `σ` of the real
//! world whose first violation is on tab `c`. Drop from it every step of another tab except
//! its sends (deliveries, scrolls, POST and fetch responses to `o`) and `o`'s fetch
//! serving: what is left, `σ'`, is a schedule of the abstract world, and along it the
//! backend and tab `c` go through the same states. A dropped step only changes `o`'s own
//! state and queues, which no kept step reads: the backend reads `o` only through `o`'s
//! POST queue, which only `o`'s sends fill. That last point rests on one fact about `o`'s
//! store, **H**: *in answer to a send it POSTs exactly that message with that text, and it
//! POSTs nothing in answer to anything else*. Given H, `o`'s POST queue holds the same
//! messages in both worlds at every point, so every kept step is enabled and does the same
//! thing. So the abstract search meets the same violation on `c`, after `|σ'| ≤ |σ|`
//! steps. Conversely, every abstract schedule is a real one (its steps are real steps, and
//! with H they do the same in the real world; the real world is merely not judged on the
//! other tabs along it), so an abstract counterexample replays as a real one, and no
//! violation is reported that the real world does not have. The shortest real
//! counterexample therefore has the length of the shortest abstract one over all tabs.
//! Convergence: an abstract schedule ends when nothing the abstraction takes is enabled,
//! i.e. the backend is idle with nothing queued or posted, and `c` has nothing left; the
//! real world can then only finish the other tabs' own work, which never touches the
//! backend or `c` (H: their sends are spent, so no more POSTs), so `c`'s render at the real
//! end is the one judged.
//!
//! **H is checked, not assumed.** The search watches every input given to the judged tab's
//! store and the effects it answers ([`PostCheck`]). If the tabs run the same store, H for
//! every tab follows: a first real step where a tab `o` breaks H would be reached, by the
//! argument above (every tab before it kept H), in `o`'s own abstract search, with `o`'s
//! store in the same state, and there it is caught. When it is caught the abstraction is
//! refused and the caller searches the whole world instead. The shipped stores all keep H.
//!
//! # Inert POST responses
//!
//! With [`PostResponses::Inert`] the judged tab's own POST responses are never delivered:
//! premise **H2**, *its store ignores them* (no effect, the same state and render), is
//! checked at each state with one queued ([`InertCheck`]), and the oracle's verdict after
//! a delivery is judged where one could be taken ([`Scope::after_post_response`]), so a
//! violation at a delivery is still met, at its length. The argument is in
//! `docs/model.md`, "Inert POST responses". A breach makes the caller search again with
//! the responses delivered.
//!
//! # Symmetry
//!
//! Two tabs are **interchangeable** when they play the same role (both send, or both only
//! watch) and their stores start in the same full state ([`Store::hash_state`] feeds equal
//! bytes: by that method's contract they then answer every input alike forever). The world
//! treats tabs alike up to their index, so swapping two interchangeable tabs maps the
//! world's schedules onto schedules with the same verdicts, swapped. The abstract search
//! judging one of them therefore decides the other too, and only one tab per class is
//! searched ([`tabs_to_search`]).

use crate::model::config::WorldConfig;
use crate::model::record::Record;
use crate::model::step::{Actor, Step};
use crate::model::store::{Answer, Store, StoreFactory};
use crate::model::wire::{ClientId, Effect, Input, RenderRow};
use crate::model::world::World;
use crate::oracle::{check_converged, check_step, converged, Violation};

use crate::explore::bound::{Engine, ExploreBound};
use crate::explore::report::{Counterexample, ExploreReport};
use crate::explore::state::fingerprint::{store_digest, FixedWidth};
use crate::explore::state::key::KeyWriter;
use crate::explore::state::view::KeyView;

/// What a search judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every tab, in the real world.
    Whole,
    /// Tab `c` only, every other tab reduced to its POSTs (see the module doc), and what
    /// the search does with `c`'s own POST responses.
    Tab(ClientId, PostResponses),
}

/// What the per-tab search does with the judged tab's POST responses (see the module
/// doc, "Inert POST responses").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PostResponses {
    /// Delivered as in the real world: a step of their own.
    Delivered,
    /// Never delivered, the store's ignoring them checked (H2) and the oracle's verdict
    /// after a delivery judged at every state where one could be taken.
    Inert,
}

/// A store that only POSTs: in answer to a send, exactly that message, and nothing else.
/// What the backend sees of a tab (see the module doc); it shows nothing and has no state.
#[derive(Clone, Copy, Debug, Default)]
pub struct PostOnly;

impl Store for PostOnly {
    fn handle(&mut self, input: &Input) -> Answer {
        Ok(match input {
            Input::UserSend { message_id, text } => vec![Effect::Post {
                message_id: Some(*message_id),
                text: text.clone(),
            }],
            _ => Vec::new(),
        })
    }
    fn render(&self) -> &[RenderRow] {
        &[]
    }
    fn hash_state(&self, _state: &mut dyn std::hash::Hasher) -> bool {
        true
    }
    fn clone_box(&self) -> Option<Box<dyn Store>> {
        Some(Box::new(PostOnly))
    }
}

/// The judged tab's store broke a premise of the per-tab search (see the module doc):
/// which one, and what it did, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unfaithful {
    /// H: it POSTed something other than exactly the sent message in answer to a send
    /// (or a counterexample did not replay). The whole world is searched instead.
    Posts(String),
    /// H2: it did not ignore a POST response. The per-tab search runs again with the
    /// responses delivered.
    ReadsPostResponses(String),
}

impl ExploreReport {
    /// A store broke a premise of the per-tab search: the search stops, and
    /// [`crate::explore::explore`] searches again without the premise. Here rather than
    /// with the report, so that the report need not know the scope.
    pub(crate) fn refuse(&mut self, breach: Unfaithful) {
        match breach {
            Unfaithful::Posts(why) => self.per_tab_refused = Some(why),
            Unfaithful::ReadsPostResponses(why) => self.post_responses_refused = Some(why),
        }
    }
}

/// The check of H2 ("the judged tab's store ignores POST responses": no effect, the same
/// state and render after one), remembered by the store's state and the responses queued
/// for it, so that each pair is tried once (a search holds one per thread). The store's
/// state is remembered by its 128-bit digest (`state/fingerprint.rs`, `store_digest`, which
/// the fingerprint computes anyway); a check itself compares exact states.
#[derive(Default)]
pub struct InertCheck {
    /// Store states (their digests, with the queued responses after them) known to ignore
    /// those responses.
    ignoring: rustc_hash::FxHashSet<Box<[u8]>>,
    key: KeyWriter,
    before: FixedWidth,
    after: FixedWidth,
}

impl InertCheck {
    /// Whether tab `c`'s store, as it is in `world`, ignores every POST response queued
    /// for it: fed to a copy of the store, one after the other, each must answer no
    /// effect and leave the state and the render as they were. Every queued one, not
    /// only the first: in a real schedule the earlier ones may have been delivered.
    fn check(&mut self, world: &World, c: ClientId) -> Result<(), Unfaithful> {
        use std::hash::{Hash, Hasher};
        let tab = world.client(c);
        let store = tab.store();
        let breach = |why: String| {
            Err(Unfaithful::ReadsPostResponses(format!(
                "{why}: the per-tab search skips POST responses only for a store that ignores them"
            )))
        };
        // When the digest is computed here, `before` is left holding the exact state.
        let mut fed = false;
        let Some(digest) = tab.store_digest(|store| {
            fed = true;
            store_digest(store, &mut self.before)
        }) else {
            return breach("the store cannot expose its state".into());
        };
        self.key.bytes.clear();
        self.key.write_u128(digest);
        for response in tab.post_responses() {
            response.hash(&mut self.key);
        }
        if self.ignoring.contains(&self.key.bytes[..]) {
            return Ok(());
        }
        let Some(mut copy) = store.clone_box() else {
            return breach("the store cannot copy itself".into());
        };
        if !fed {
            self.before.clear();
            if !store.hash_state(&mut self.before) {
                return breach("the store cannot expose its state".into());
            }
        }
        for answer in tab.post_responses() {
            let input = answer.input();
            let answer =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| copy.handle(&input)));
            match answer {
                Ok(Ok(effects)) if effects.is_empty() => {}
                Ok(Ok(effects)) => {
                    return breach(format!(
                        "in answer to {input:?} the store asked for {effects:?}"
                    ))
                }
                Ok(Err(fault)) => return breach(format!("{input:?} failed: {fault:?}")),
                Err(_) => return breach(format!("the store panicked on {input:?}")),
            }
            self.after.clear();
            let exposed = copy.hash_state(&mut self.after);
            if !exposed || self.after.bytes() != self.before.bytes() {
                return breach(format!("{input:?} changed the store's state"));
            }
            if copy.render() != store.render() {
                return breach(format!("{input:?} changed what the tab shows"));
            }
        }
        self.ignoring.insert(self.key.bytes[..].into());
        Ok(())
    }
}

/// A [`Record`] that checks H on the inputs a step feeds the judged tab's store.
#[derive(Default)]
pub struct PostCheck {
    /// The first breach of H seen.
    pub breach: Option<String>,
}

impl Record for PostCheck {
    fn fed(&mut self, input: &Input, effects: Option<&[Effect]>) {
        let Some(effects) = effects else { return };
        let mut posts = effects.iter().filter_map(|e| match e {
            Effect::Post { message_id, text } => Some((message_id, text)),
            Effect::Fetch { .. } => None,
        });
        let ok = match input {
            // A POST without an id stands for the message sent (`Client::route`).
            Input::UserSend { message_id, text } => {
                posts
                    .next()
                    .is_some_and(|(m, t)| m.is_none_or(|m| m == *message_id) && t == text)
                    && posts.next().is_none()
            }
            _ => posts.next().is_none(),
        };
        if !ok && self.breach.is_none() {
            self.breach = Some(format!(
                "in answer to {input:?} the store asked for {effects:?}: the per-tab search needs \
                 exactly one POST of the sent message in answer to a send, and no other POST"
            ));
        }
    }
}

/// A key holds in full the tabs a scope judges; the others are POST sources.
impl KeyView for Scope {
    fn in_full(self, client: ClientId) -> bool {
        self.judges(client)
    }
}

impl Scope {
    /// The initial world this scope searches.
    pub fn world(self, config: &WorldConfig, stores: &dyn StoreFactory) -> World {
        match self {
            Scope::Whole => World::new(config.clone(), stores),
            Scope::Tab(c, _) => World::with_stores(config.clone(), |i| {
                if i == c {
                    stores.make(i)
                } else {
                    Box::new(PostOnly)
                }
            }),
        }
    }

    /// Whether the search takes `step` (enabled in the world): every step in the whole
    /// world; for tab `c`, every step but another tab's deliveries, scrolls and fetches.
    pub fn takes(self, step: &Step) -> bool {
        match self {
            Scope::Whole => true,
            Scope::Tab(c, responses) => match step {
                Step::Send { .. } | Step::HandlePost { .. } => true,
                Step::ServeFetch { client } => *client == c,
                Step::DeliverPostResponse { client } if *client == c => {
                    responses == PostResponses::Delivered
                }
                _ => step.client().is_none_or(|o| o == c),
            },
        }
    }

    /// Whether the oracle judges `client` in this scope.
    pub fn judges(self, client: ClientId) -> bool {
        match self {
            Scope::Whole => true,
            Scope::Tab(c, _) => c == client,
        }
    }

    /// The enabled steps this scope takes, into `out` (sorted, as `enabled_steps`).
    pub fn enabled_steps(self, world: &World, out: &mut Vec<Step>) {
        world.enabled_steps(out);
        if self != Scope::Whole {
            out.retain(|s| self.takes(s));
        }
    }

    /// Applies `step` (the `index`-th of its schedule) and judges it: the violation it
    /// causes on a judged tab (a crash included), or a breach of H by the judged tab's
    /// store (only checked in [`Scope::Tab`]). [`Scope::apply_step`], then
    /// [`Scope::verdict`].
    pub fn judge_step(
        self,
        world: &mut World,
        step: Step,
        index: usize,
    ) -> Result<Option<Violation>, Unfaithful> {
        Ok(match self.apply_step(world, step, index)? {
            Some(crash) => Some(crash),
            None => self.verdict(world, &step, index),
        })
    }

    /// Applies `step` (the `index`-th of its schedule): the crash it causes (a violation),
    /// or a breach of H by the judged tab's store (only checked in [`Scope::Tab`]). The
    /// oracle's verdict on the state it leads to is [`Scope::verdict`]'s.
    pub fn apply_step(
        self,
        world: &mut World,
        step: Step,
        index: usize,
    ) -> Result<Option<Violation>, Unfaithful> {
        let applied = if self.judges_step(&step) && self != Scope::Whole {
            let mut check = PostCheck::default();
            let applied = world.apply_into(step, &mut check);
            if let Some(breach) = check.breach {
                return Err(Unfaithful::Posts(breach));
            }
            applied
        } else {
            world.apply_into(step, &mut ())
        };
        if let Scope::Tab(c, _) = self {
            if step.actor() == Actor::Backend {
                // Broadcasts reach the POST sources too, whose deliveries the search never
                // takes and whose key leaves their inbox out: dropped, not copied along.
                for o in (0..world.clients().len() as ClientId).filter(|&o| o != c) {
                    world.clear_inbox(o);
                }
            }
        }
        Ok(applied
            .err()
            // A PostOnly store never fails, so a crash is the judged tab's (or, in the
            // whole world, any tab's).
            .map(|crash| crate::run::crash_violation(crash, index)))
    }

    /// The oracle's verdict after `step` (the `index`-th of its schedule, just applied
    /// without a crash): on the tab it touched, when this scope judges that tab.
    pub fn verdict(self, world: &World, step: &Step, index: usize) -> Option<Violation> {
        if self.judges_step(step) {
            check_step(world, step, index)
        } else {
            None
        }
    }

    /// Whether the oracle judges the state `step` leads to: a step of a judged tab.
    fn judges_step(self, step: &Step) -> bool {
        match step.actor() {
            Actor::Client(o) => self.judges(o),
            Actor::Backend => false,
        }
    }

    /// With [`PostResponses::Inert`], at a state reached by `step` after `depth` steps (none
    /// at the start) with a POST response queued for the judged tab `c`: H2 there (`inert`
    /// remembers the stores that passed), then the verdict after delivering the next
    /// response, the step the search does not take: the violation met there and that
    /// step, which ends the counterexample. Both are functions of the state, so a search
    /// with a state cache asks once per state (see the module doc).
    pub fn after_post_response(
        self,
        world: &World,
        step: Option<Step>,
        depth: usize,
        inert: &mut InertCheck,
    ) -> Result<Option<(Violation, Step)>, Unfaithful> {
        let Scope::Tab(c, PostResponses::Inert) = self else {
            return Ok(None);
        };
        if world.client(c).post_responses().len() == 0 {
            return Ok(None);
        }
        inert.check(world, c)?;
        // After a step of `c` other than a fetch response, the oracle judged what it judges
        // after a delivery: the same render and facts (a delivery changes neither), and
        // `fetched` false.
        if step.is_some_and(|s| {
            s.actor() == Actor::Client(c) && !matches!(s, Step::DeliverFetchResponse { .. })
        }) {
            return Ok(None);
        }
        let delivery = Step::DeliverPostResponse { client: c };
        Ok(check_step(world, &delivery, depth).map(|v| (v, delivery)))
    }

    /// Convergence at the end of a schedule (`index`: the last step's index): every tab's
    /// in the whole world, the judged tab's for [`Scope::Tab`].
    pub fn converged(self, world: &World, index: usize) -> Option<Violation> {
        match self {
            Scope::Whole => check_converged(world, index),
            Scope::Tab(c, _) => converged(world, c, world.client(c).render(), index),
        }
    }
}

/// How the per-tab search of tab `c` treats `c`'s POST responses: inert when the bound
/// asks for it, the search is depth-first, and `c`'s store can copy itself and expose its
/// state (what H2's check needs); otherwise delivered.
pub fn post_responses(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    c: ClientId,
) -> PostResponses {
    if !bound.reductions.inert_post_responses || bound.parallelism.engine != Engine::DepthFirst {
        return PostResponses::Delivered;
    }
    let store = stores.make(c);
    let exposed = store.hash_state(&mut KeyWriter::default());
    if exposed && store.clone_box().is_some() {
        PostResponses::Inert
    } else {
        PostResponses::Delivered
    }
}

/// The tabs whose abstract searches decide the whole world: one per class of
/// interchangeable tabs (see the module doc), the lowest index of each. `None` when a
/// store cannot expose its initial state: then every tab is searched.
pub fn tabs_to_search(config: &WorldConfig, stores: &dyn StoreFactory) -> Vec<ClientId> {
    let initial: Vec<Option<Vec<u8>>> = (0..config.clients)
        .map(|i| {
            let mut key = KeyWriter::default();
            stores.make(i).hash_state(&mut key).then_some(key.bytes)
        })
        .collect();
    let mut reps: Vec<ClientId> = Vec::new();
    for i in 0..config.clients {
        let alike = |j: ClientId| {
            config.is_active(i) == config.is_active(j)
                && initial[i as usize].is_some()
                && initial[i as usize] == initial[j as usize]
        };
        if !reps.iter().any(|&j| alike(j)) {
            reps.push(i);
        }
    }
    reps
}

impl Scope {
    /// The real counterexample for a violation the search met after `steps` (a schedule of
    /// this scope): in the whole world, itself. For [`Scope::Tab`], `steps` are replayed in
    /// the real world, every tab judged, up to the first violation (a step violation on the
    /// judged tab is met at the same step, or an earlier one on another tab); a convergence
    /// violation is met after the other tabs finish their own work (deliveries, fetches:
    /// the first enabled step each time, at most `depth_max` steps in all), when every
    /// tab's convergence is judged.
    ///
    /// `Err` when the replay does not end in a violation (the schedule is not a real one,
    /// or not within `depth_max`): by the argument of the module doc that happens only if
    /// another tab's store broke H on the way, which its own search had not reached yet.
    /// The caller then drops the abstraction and searches the whole world.
    pub fn concretize(
        self,
        stores: &dyn StoreFactory,
        config: &WorldConfig,
        depth_max: usize,
        steps: Vec<Step>,
        violation: Violation,
    ) -> Result<Counterexample, Unfaithful> {
        if self == Scope::Whole {
            return Ok(Counterexample { steps, violation });
        }
        let abstract_len = steps.len();
        let mut world = Scope::Whole.world(config, stores);
        let mut real = Vec::with_capacity(steps.len());
        let mut enabled = Vec::new();
        let mut pending = steps.into_iter();
        let not_real = |why: String| {
            Err(Unfaithful::Posts(format!(
                "a per-tab counterexample ({abstract_len} steps, {}) does not replay in the real world: {why}",
                violation.invariant
            )))
        };
        loop {
            let step = match pending.next() {
                Some(step) => {
                    if !world.is_enabled(&step, &mut enabled) {
                        return not_real(format!(
                            "step {} ({step}) is not enabled there",
                            real.len()
                        ));
                    }
                    step
                }
                None => {
                    world.enabled_steps(&mut enabled);
                    match enabled.first() {
                        Some(&step) if real.len() < depth_max => step,
                        Some(_) => {
                            return not_real(format!(
                                "it does not end within depth_max {depth_max}"
                            ))
                        }
                        None => {
                            return match check_converged(&world, real.len().saturating_sub(1)) {
                                Some(v) => Ok(Counterexample {
                                    steps: real,
                                    violation: v,
                                }),
                                None => not_real("every tab converges".to_string()),
                            };
                        }
                    }
                }
            };
            real.push(step);
            let judged = Scope::Whole
                .judge_step(&mut world, step, real.len() - 1)
                .expect("the whole world checks no premise");
            if let Some(v) = judged {
                return Ok(Counterexample {
                    steps: real,
                    violation: v,
                });
            }
        }
    }
}

impl Scope {
    /// The **persistent set** of a state ([`crate::explore::Reductions::persistent`]): in
    /// [`Scope::Tab`]`(c)`, the judged tab's steps when they form one
    /// ([`tab_first_set`]), otherwise, with `backend_first`
    /// ([`crate::explore::Reductions::backend_first`]), the backend's agent steps and the other
    /// tabs' sends when they form one ([`backend_first_set`]); otherwise every enabled
    /// step. `enabled` is narrowed in place.
    ///
    /// A set `T` of steps enabled in a state `s` is persistent (Godefroid 1996, def. 4.1)
    /// when every step of every path from `s` that takes no step of `T` is independent
    /// ([`crate::explore::reduction::independence::independent`]) of every step of `T`. Both sets below are functions of
    /// the state alone, so the state cache stays sound with them, and the state graph has
    /// no cycle (every step consumes a budget or a queue item: a send, a scroll, a
    /// delivery, an agent step of a bounded turn). Every quiescent state stays reachable
    /// (persistent sets preserve deadlocks, Godefroid 1996, thm. 4.3), so convergence is
    /// judged on all of them; what each set does to the shortest violation is said with
    /// it.
    pub fn persistent_set(self, world: &World, enabled: &mut Vec<Step>, backend_first: bool) {
        let Scope::Tab(c, _) = self else { return };
        if !tab_first_set(world, c, enabled) && backend_first {
            backend_first_set(world, c, enabled);
        }
    }
}

/// In the per-tab search of `c`: narrows `enabled` to `c`'s steps and answers true when
/// they form a persistent set (see [`Scope::persistent_set`]); false, `enabled` untouched,
/// otherwise.
///
/// The conditions, each making sure that no step outside the set that could run before
/// one of `c`'s depends on them (every step of `c` depends on every other step of `c`, and
/// a backend step depends on a step of `c` only when it is `HandlePost {c}`):
///
/// 1. `c` has no POST and no fetch waiting to be handled or served (only a step of `c`
///    can then enable `HandlePost {c}`, or a delivery of a fetch response to `c`: a
///    `ServeFetch {c}` outside the set would enable one, a step of `c` depending on the
///    set's; the test below finds exactly that when this condition is dropped);
/// 2. no broadcast can make another delivery to `c` deliverable
///    ([`World::deliveries_closed`]): `c`'s inbox holds at least `ws_reorder_window`
///    events, or, under a bound on overtaking, an event that can arrive was overtaken as
///    often as the bound allows;
/// 3. if `c` can send, no other tab can (two sends depend on each other);
/// 4. `c` has a step enabled.
///
/// Why the shortest violation survives, at its length: take a shortest path `w` from here
/// to a violation; it ends with a step of `c` (only `c` is judged), so it holds a step of
/// the set (a step of `c` outside the set would have run before any step of the set,
/// which persistence rules out). Let `a` be its first such step: every step before `a` is
/// independent of `a`, so `a` moved to the front gives a path of the same length with the
/// same verdicts, whose first step the reduced search takes. Induction on the length does
/// the rest.
fn tab_first_set(world: &World, c: ClientId, enabled: &mut Vec<Step>) -> bool {
    let tab = world.client(c);
    let quiet = tab.posts().len() == 0 && tab.fetch_requests().len() == 0;
    if !quiet || !world.deliveries_closed(c) {
        return false;
    }
    let mine = |s: &Step| s.actor() == Actor::Client(c);
    let others_send = world
        .clients()
        .iter()
        .enumerate()
        .any(|(i, o)| i != c as usize && o.can_send());
    if (tab.can_send() && others_send) || !enabled.iter().any(mine) {
        return false;
    }
    enabled.retain(mine);
    true
}

/// In the per-tab search of `c`: narrows `enabled` to the **backend's agent steps and the
/// other tabs' sends** and answers true when they form a persistent set; false, `enabled`
/// untouched, otherwise. Where the judged tab cannot go first ([`tab_first_set`]), this
/// lets the backend run ahead of it instead of interleaving with it.
///
/// Two cases, the agent steps' dependence on everything else read off
/// [`crate::explore::reduction::independence::independent`] (an agent step depends on no
/// client's step, on `ServeFetch` only when it writes the DB, and on every other backend
/// step):
///
/// - **The turn is written** (`Written`): the set is `{AgentSeal}`, its only agent step.
///   No step but `AgentSeal` ends that phase, `HandlePost` is disabled during it, and
///   every other step that can run (a client's, another tab's send, `ServeFetch`, which
///   `AgentSeal` does not write the DB for) is independent of it.
/// - **Nothing can reach the backend but the other tabs' sends**: `c` has no send left,
///   no tab has a POST waiting, and the turn, if any, is not `Finishing` (so no enabled
///   agent step writes the DB). The set is the enabled agent steps and the other tabs'
///   sends. Outside it run only `c`'s steps (independent of both: `c` cannot send) and
///   `ServeFetch {c}`, now or once `c` asks, which is independent of agent steps that
///   do not write the DB and of sends. `HandlePost` stays disabled until a send in the
///   set queues a POST (premise H: `c`'s store POSTs only in answer to a send, which it
///   has none left of; a breach of H is met at the step that breaks it, before any step
///   depends on it, and drops the abstraction).
///
/// **What it does to violations.** Every violation is still met: a path `w` to one
/// either holds a step of the set, which moves to its front as in [`tab_first_set`], or
/// holds none, and then every step of `w` is independent of every step of the set (that
/// is persistence), so a step `t` of the set followed by `w` is a path with the same
/// verdicts (the oracle reads nothing `t` writes) from a state of lower height (the
/// longest path from it is shorter): induction on the height. But the second path is one
/// step longer, so the violation may be met later than its shortest length. So
/// [`crate::explore::explore`] searches again without this set whenever it met a violation, and
/// the counterexample reported is that search's: the shortest.
fn backend_first_set(world: &World, c: ClientId, enabled: &mut Vec<Step>) -> bool {
    use crate::model::backend::TurnPhase;
    let phase = world.backend().turn().map(|t| t.phase());
    let written = phase == Some(TurnPhase::Written);
    // Not written: only the other tabs' sends may still reach the backend, and the turn
    // writes nothing now.
    if !written
        && (world.client(c).can_send()
            || phase == Some(TurnPhase::Finishing)
            || world.clients().iter().any(|o| o.posts().len() > 0))
    {
        return false;
    }
    let in_set = |s: &Step| match s {
        _ if written => *s == Step::AgentSeal,
        Step::Send { client } => *client != c,
        Step::ServeFetch { .. } | Step::HandlePost { .. } => false,
        s => s.actor() == Actor::Backend,
    };
    if !enabled.iter().any(in_set) {
        return false;
    }
    enabled.retain(in_set);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{independent, ExploreBound};
    use rand::{RngExt, SeedableRng};

    /// Both sets are persistent in the states random schedules reach: along
    /// random paths from such a state that take no step of the set, every step is
    /// independent of every step of the set, and the set's steps stay enabled. The model's
    /// own dynamics against the arguments of [`tab_first_set`] and [`backend_first_set`], in worlds with
    /// scrolling, reordering, tool calls and failures, for stores that fetch at different
    /// moments.
    #[test]
    fn both_persistent_sets_are_persistent_along_random_paths() {
        let (mut backend_first_at, mut tab_first_at) = (0, 0);
        for name in ["durable", "current", "fix-ab", "membership"] {
            let stores = crate::store::by_name(name).unwrap();
            let worlds = [
                (2, 1, 2, 1, None),
                (2, 0, 1, 0, None),
                (1, 1, 3, 2, None),
                (2, 1, 3, 1, Some(1)),
            ];
            for (sends, scrolls, window, tools, overtakes) in worlds {
                let mut b = ExploreBound::small(2, sends);
                b.world.scrolls_per_client = scrolls;
                b.world.ws_reorder_window = window;
                b.world.ws_overtakes_max = overtakes;
                b.world.tool_calls_per_turn_max = tools;
                b.world.turn_failures = tools > 0;
                let scope = Scope::Tab(0, PostResponses::Delivered);
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from(sends * 7 + tools));
                for _ in 0..60 {
                    let mut world = scope.world(&b.world, &stores);
                    let mut enabled = Vec::new();
                    for depth in 0..200 {
                        scope.enabled_steps(&world, &mut enabled);
                        if enabled.is_empty() {
                            break;
                        }
                        let mut set = enabled.clone();
                        if tab_first_set(&world, 0, &mut set) {
                            tab_first_at += 1;
                            check_persistent(scope, &world, &set, &mut rng);
                        } else if backend_first_set(&world, 0, &mut set) {
                            backend_first_at += 1;
                            check_persistent(scope, &world, &set, &mut rng);
                        }
                        let step = enabled[rng.random_range(0..enabled.len())];
                        if scope.judge_step(&mut world, step, depth).is_err() {
                            break;
                        }
                    }
                }
            }
        }
        assert!(
            backend_first_at > 1000,
            "the backend-first set applied at only {backend_first_at} states"
        );
        assert!(
            tab_first_at > 1000,
            "the tab's set applied at only {tab_first_at} states"
        );
    }

    /// Random paths of at most 12 steps outside `set` from `world`.
    fn check_persistent(
        scope: Scope,
        world: &World,
        set: &[Step],
        rng: &mut rand_chacha::ChaCha8Rng,
    ) {
        let mut enabled = Vec::new();
        let mut scratch = Vec::new();
        for _ in 0..4 {
            let mut w = world.try_clone().expect("the store copies itself");
            for depth in 0..12 {
                scope.enabled_steps(&w, &mut enabled);
                enabled.retain(|s| !set.contains(s));
                if enabled.is_empty() {
                    break;
                }
                let step = enabled[rng.random_range(0..enabled.len())];
                for t in set {
                    assert!(
                        independent(&step, t),
                        "{step} (after {depth} steps outside the set) depends on {t} of the set {set:?}"
                    );
                }
                if scope.judge_step(&mut w, step, depth).is_err() {
                    break;
                }
                for t in set {
                    assert!(w.is_enabled(t, &mut scratch), "{t} disabled by {step}");
                }
            }
        }
    }
}
