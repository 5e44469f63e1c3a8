//! The search stack: one [`Frame`] per state on the current path, holding the steps still
//! to search from that state and its sleep set, and how the search comes back to a frame's
//! state after a backtrack ([`come_back`]).
//!
//! Sleep sets (Godefroid 1996, ch. 5) are kept as step lists on the frames and handed to
//! the cache as bit masks over the state's enabled steps (`slot.rs`).

use crate::model::config::WorldConfig;
use crate::model::step::Step;
use crate::model::store::StoreFactory;
use crate::model::world::World;

use super::slot::CacheSlot;
use crate::explore::reduction::independence::independent;
use crate::explore::reduction::scope::Scope;

/// One state on the current path.
pub(crate) struct Frame {
    /// Steps taken to reach this state.
    pub(crate) depth: usize,
    /// The steps to search from here, in enabled order.
    todo: Vec<Step>,
    /// The current sleep set (grows by each step searched, with reduction on).
    sleep: Vec<Step>,
    /// Next index into `todo` to try.
    next: usize,
    /// The step taken from this frame (valid once `next > 0`).
    taken: Option<Step>,
    /// Nothing below this state was cut at `depth_max` or ended in a violation, and no
    /// pruned revisit below it relied on a cut search.
    pub(crate) complete: bool,
    /// Where to write back what the search from here covered, when the state is cached.
    pub(crate) cache: Option<CacheSlot>,
    /// A copy of the world in this state (when the stores can copy themselves), to come
    /// back to instead of replaying the path.
    pub(crate) snapshot: Option<World>,
}

impl Frame {
    /// A state reached `depth` steps from the start, to be searched by the steps `todo`,
    /// with sleep set `sleep`.
    pub(crate) fn new(
        depth: usize,
        todo: Vec<Step>,
        sleep: Vec<Step>,
        cache: Option<CacheSlot>,
    ) -> Frame {
        Frame {
            depth,
            todo,
            sleep,
            next: 0,
            taken: None,
            complete: true,
            cache,
            snapshot: None,
        }
    }

    /// Takes the next step to search from here, with the sleep set it passes on: the steps
    /// asleep here that commute with it (a schedule starting with one of them and then
    /// this step is equivalent to one already searched, or to be searched from a
    /// sibling). With reduction on, the step itself then falls asleep here, for the
    /// siblings after it. `None` when every step is searched, or when this state is at
    /// `depth_max` (after a counterexample, a step from here could only lead to a longer
    /// one).
    pub(crate) fn take_next(
        &mut self,
        depth_max: usize,
        reduction: bool,
    ) -> Option<(Step, Vec<Step>)> {
        let step = *self
            .todo
            .get(self.next)
            .filter(|_| self.depth < depth_max)?;
        self.next += 1;
        self.taken = Some(step);
        let child_sleep = if reduction {
            let commuting = self.sleep.iter().filter(|u| independent(u, &step));
            commuting.copied().collect()
        } else {
            Vec::new()
        };
        if reduction {
            self.sleep.push(step);
        }
        Some((step, child_sleep))
    }

    /// Every step to search from here was searched, and nothing below was cut short.
    pub(crate) fn searched_in_full(&self) -> bool {
        self.complete && self.next >= self.todo.len()
    }
}

/// The sleep set of a state with steps `enabled` (sorted), given the one passed on from
/// its parent. Sleeping steps that are not enabled here can never be taken from here:
/// dropping them only shrinks the sleep set (more search, never less) and keeps it a
/// subset of the enabled steps, as the cache's bit masks need.
pub(crate) fn sleep_here(passed_on: Vec<Step>, enabled: &[Step]) -> Vec<Step> {
    passed_on
        .into_iter()
        .filter(|s| enabled.binary_search(s).is_ok())
        .collect()
}

/// The steps taken along the current path.
pub(crate) fn path(frames: &[Frame]) -> Vec<Step> {
    frames.iter().map(|f| f.taken.expect("taken")).collect()
}

/// The world in the state of the top frame, after a backtrack left it, and the number of
/// steps replayed to get there. From the frame's copy when the stores can copy
/// themselves (taken when the step just taken is the frame's last, since it is not needed
/// again; copied otherwise), else by replaying the path from the initial world. Either
/// way the same state is reached.
pub(crate) fn come_back(
    frames: &mut [Frame],
    stores: &dyn StoreFactory,
    config: &WorldConfig,
    scope: Scope,
) -> (World, u64) {
    let (top, path) = frames.split_last_mut().expect("non-empty");
    let last_use = top.next >= top.todo.len();
    match top.snapshot.as_ref() {
        Some(_) if last_use => (top.snapshot.take().expect("checked"), 0),
        Some(copy) => (copy.try_clone().expect("copied once already"), 0),
        None => {
            let mut world = scope.world(config, stores);
            for f in path.iter() {
                let _ = world.apply_into(f.taken.expect("taken"), &mut ());
            }
            (world, path.len() as u64)
        }
    }
}

/// The share of the tree already searched, assuming equal subtrees per choice.
pub(crate) fn fraction_done(frames: &[Frame]) -> f64 {
    let mut done = 0.0;
    let mut weight = 1.0;
    for f in frames {
        let n = f.todo.len().max(1) as f64;
        done += weight * (f.next.saturating_sub(1)) as f64 / n;
        weight /= n;
    }
    done.min(1.0)
}

#[cfg(test)]
mod tests {
    use std::hash::Hasher;

    use crate::explore::{explore, ExploreBound, ExploreReport};
    use crate::model::store::StoreFactory;
    use crate::store::by_name;

    /// A store that says its state but cannot copy itself: the search replays paths.
    struct NoCopy(Box<dyn crate::model::store::Store>);
    impl crate::model::store::Store for NoCopy {
        fn handle(&mut self, input: &crate::model::wire::Input) -> crate::model::store::Answer {
            self.0.handle(input)
        }
        fn render(&self) -> &[crate::model::wire::RenderRow] {
            self.0.render()
        }
        fn hash_state(&self, state: &mut dyn Hasher) -> bool {
            self.0.hash_state(state)
        }
    }
    struct NoCopyDurable;
    impl StoreFactory for NoCopyDurable {
        fn name(&self) -> String {
            "durable-no-copy".into()
        }
        fn make(&self, c: crate::model::wire::ClientId) -> Box<dyn crate::model::store::Store> {
            Box::new(NoCopy(by_name("durable").unwrap().make(c)))
        }
    }

    #[test]
    fn coming_back_by_copy_and_by_replay_search_the_same() {
        for (scrolls, window, cache) in [(1, 1, true), (0, 2, true), (0, 1, false)] {
            let mut b = ExploreBound::small(2, 1);
            b.world.passive_observer = true;
            b.world.scrolls_per_client = scrolls;
            b.world.ws_reorder_window = window;
            b.world.deltas_per_segment_max = 0;
            b.reductions.state_cache = cache;
            let copied = explore(&by_name("durable").unwrap(), &b, &mut |_| {});
            let replayed = explore(&NoCopyDurable, &b, &mut |_| {});
            assert!(copied.steps_applied < replayed.steps_applied);
            assert_eq!(
                ExploreReport {
                    steps_applied: 0,
                    ..copied
                },
                ExploreReport {
                    steps_applied: 0,
                    ..replayed
                }
            );
        }
    }
}
