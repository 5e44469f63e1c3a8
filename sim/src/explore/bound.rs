//! What one `explore` searches, in four named parts: the world (and how deep and for what),
//! the reductions the search may assume, the limits that stop it early, and how its work
//! is spread (engine, threads, shard). Callers (the CLI, `bench`, tests) state a bound
//! once; [`ExploreBound::validate`] names the combinations the engines do not search, and
//! the report names the bound ([`ExploreBound::describe`]).

use serde::{Deserialize, Serialize};

use crate::model::config::WorldConfig;
use crate::util::shard::Shard;

use super::limits::Limits;

/// What to search: the world, the schedules' length and the goal, then the parts that
/// change how (not what) the search searches.
#[derive(Clone, Debug)]
pub struct ExploreBound {
    /// The world searched. `steps_max` and `drain_steps_max` are ignored: schedules run to
    /// quiescence, bounded by `depth_max`.
    pub world: WorldConfig,
    /// The longest schedule explored; longer ones are cut and counted as truncated.
    pub depth_max: usize,
    /// Keep searching after a violation for a shorter one (only shorter schedules are
    /// explored from then on). Off: stop at the first.
    pub shortest: bool,
    /// What the search may assume to search less ([`Reductions`]).
    pub reductions: Reductions,
    /// When the search stops early, inconclusive ([`Limits`]).
    pub limits: Limits,
    /// Which engine, on how many threads, over which shard ([`Parallelism`]).
    pub parallelism: Parallelism,
}

/// The reductions: each searches fewer schedules or states with the same verdict (the
/// arguments are in `docs/model.md`, "Explore: reductions and their soundness"). Kept as
/// the caller asked even where one is moot (`symmetry` without `per_tab`), because the
/// result file names them all ([`ExploreBound::describe_search`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reductions {
    /// Sleep-set reduction (off: plain enumeration of every interleaving).
    pub sleep_sets: bool,
    /// Merge equal full states (see the module doc of `explore`), when every store
    /// supports it. Off in [`ExploreBound::small`], so that schedule counts keep meaning
    /// "schedules of the stateless search"; the CLI turns it on.
    pub state_cache: bool,
    /// Name states in the cache by their exact keys (hash-consed, some 130 bytes a state)
    /// instead of 64-bit fingerprints (no collision bound to argue; depth-first only).
    pub exact_keys: bool,
    /// Judge one tab at a time, the other tabs reduced to their POSTs (see
    /// [`crate::explore::reduction::scope`]); with `symmetry`, one tab per class of
    /// interchangeable tabs. Off in [`ExploreBound::small`]; the CLI turns it on.
    pub per_tab: bool,
    /// With `per_tab`: search one tab of each class of interchangeable tabs only.
    pub symmetry: bool,
    /// With `per_tab`: take only the judged tab's steps where they form a persistent set
    /// ([`crate::explore::reduction::scope::Scope::persistent_set`]).
    pub persistent: bool,
    /// With `persistent`: where the judged tab's steps form no persistent set, take only
    /// the backend's agent steps and the other tabs' sends when they form one. It may meet
    /// a violation later than its shortest length, so `explore` searches again without it
    /// when it meets one.
    pub backend_first: bool,
    /// With `per_tab`, depth-first: never deliver the judged tab's POST responses when
    /// its store ignores them (checked), judging instead at every state the verdict after
    /// one ([`crate::explore::reduction::scope::PostResponses::Inert`]).
    pub inert_post_responses: bool,
}

/// How the search's work is spread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parallelism {
    /// Which search: depth-first with sleep sets (and the cache when `state_cache`), or
    /// breadth-first over fingerprints on its own number of threads.
    pub engine: Engine,
    /// Threads of the depth-first search (at least 1): more than one share one state
    /// cache and split the tree into units (`engine/dfs.rs`, `search_on_threads`); the
    /// verdict and the counterexample do not depend on it, the counts do.
    pub jobs: usize,
    /// Search only this shard of the search tree ([`crate::explore::shard`]).
    pub shard: Option<Shard>,
}

/// The most threads a search takes.
pub const JOBS_MAX: usize = 1024;

/// The search algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// Depth-first, one thread, sleep sets; with the state cache, Godefroid's sleep-set
    /// aware cache over exact keys (see the module doc). Works for every store.
    #[default]
    DepthFirst,
    /// Breadth-first over 64-bit fingerprints of the full state, on `jobs` threads (see
    /// [`crate::explore::engine::bfs`]). Needs stores that expose and copy their state; otherwise the depth-first
    /// search runs instead.
    BreadthFirst {
        /// Worker threads (at least 1). The result does not depend on it.
        jobs: usize,
    },
}

/// What only the depth-first search on one thread does, which another engine or more
/// threads cannot take (see [`Refused`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OneThreadOnly {
    /// Sleep sets off: the plain enumeration, a baseline to measure the reductions by.
    NoSleepSets,
    /// The state cache off: the stateless search, the other baseline.
    NoStateCache,
    /// Exact keys: hash-consed tables a thread owns.
    ExactKeys,
    /// A shard: its units are cut from the one-thread search's tree.
    Shard,
}

/// A bound the engines do not search, and why (the CLI words it with its flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The breadth-first engine with what only the depth-first one does.
    BreadthFirstWith(OneThreadOnly),
    /// A thread count outside `1..=JOBS_MAX`.
    Jobs(usize),
    /// Several depth-first threads with what one thread only does: the threads share one
    /// cache of fingerprints over the whole tree.
    ThreadsWith(OneThreadOnly),
}

impl Reductions {
    /// What only the depth-first search on one thread does, of these, if any (the first in
    /// [`OneThreadOnly`]'s order, `shard` last).
    fn one_thread_only(self, shard: Option<Shard>) -> Option<OneThreadOnly> {
        if !self.sleep_sets {
            Some(OneThreadOnly::NoSleepSets)
        } else if !self.state_cache {
            Some(OneThreadOnly::NoStateCache)
        } else if self.exact_keys {
            Some(OneThreadOnly::ExactKeys)
        } else {
            shard.map(|_| OneThreadOnly::Shard)
        }
    }
}

impl ExploreBound {
    /// A small world: `clients` tabs, each sending `sends_per_client`, no failures,
    /// in-order WebSocket, status sent on connect. Stateless search with sleep sets, the
    /// shortest counterexample, no limits, one thread. The starting point every caller
    /// adjusts.
    pub fn small(clients: u8, sends_per_client: u8) -> ExploreBound {
        ExploreBound {
            world: WorldConfig {
                clients,
                passive_observer: false,
                sends_per_client,
                scrolls_per_client: 0,
                deltas_per_segment_max: 1,
                tool_calls_per_turn_max: 0,
                turn_failures: false,
                ws_reorder_window: 1,
                ws_overtakes_max: None,
                status_on_connect: true,
                message_texts: crate::model::content::MessageTexts::Tokens,
                continuation_drains: false,
                consume_reasons: false,
                queued_texts: false,
                retired_server_ids: crate::model::config::Retired,
                deltas_without_turn_ids: false,
                judged: crate::model::judged::Judged::ALL,
                steps_max: 0,
                drain_steps_max: 0,
            },
            depth_max: 200,
            shortest: true,
            reductions: Reductions {
                sleep_sets: true,
                state_cache: false,
                exact_keys: false,
                per_tab: false,
                symmetry: false,
                persistent: false,
                backend_first: false,
                inert_post_responses: false,
            },
            limits: Limits::default(),
            parallelism: Parallelism {
                engine: Engine::DepthFirst,
                jobs: 1,
                shard: None,
            },
        }
    }

    /// The combinations of reductions and parallelism the engines do not search, checked
    /// in this order: the breadth-first engine with a baseline (sleep sets or the cache
    /// off), exact keys or a shard; a thread count outside `1..=JOBS_MAX`; several
    /// depth-first threads with any of those. [`crate::explore::explore`] itself never
    /// refuses: given one of these it falls back to the one-thread depth-first search.
    pub fn validate(&self) -> Result<(), Refused> {
        let p = &self.parallelism;
        let one_thread_only = self.reductions.one_thread_only(p.shard);
        let jobs = match p.engine {
            Engine::BreadthFirst { jobs } => {
                if let Some(what) = one_thread_only {
                    return Err(Refused::BreadthFirstWith(what));
                }
                jobs
            }
            Engine::DepthFirst => p.jobs,
        };
        if !(1..=JOBS_MAX).contains(&jobs) {
            return Err(Refused::Jobs(jobs));
        }
        match one_thread_only {
            Some(what) if p.engine == Engine::DepthFirst && p.jobs > 1 => {
                Err(Refused::ThreadsWith(what))
            }
            _ => Ok(()),
        }
    }

    /// This bound with other reductions: what a pass of the pipeline assumes.
    pub(crate) fn assuming(&self, reductions: Reductions) -> ExploreBound {
        ExploreBound {
            reductions,
            ..self.clone()
        }
    }

    /// One line naming the search (not the world): what results must agree on to merge.
    pub fn describe_search(&self) -> String {
        let r = &self.reductions;
        format!(
            "depth_max={} shortest={} reduction={} state_cache={} per_tab={} symmetry={} persistent={} backend_first={} inert_post_responses={} exact_keys={} engine={}",
            self.depth_max,
            self.shortest,
            r.sleep_sets,
            r.state_cache,
            r.per_tab,
            r.symmetry,
            r.persistent,
            r.backend_first,
            r.inert_post_responses,
            r.exact_keys,
            match self.parallelism.engine {
                Engine::DepthFirst => "depth-first",
                Engine::BreadthFirst { .. } => "breadth-first",
            }
        )
    }

    /// One line naming the bound, so that a report says what it verified. A bound on
    /// overtaking and colliding message texts are named only when present.
    pub fn describe(&self) -> String {
        let c = &self.world;
        let overtakes = c
            .ws_overtakes_max
            .map(|m| format!(" overtakes={m}"))
            .unwrap_or_default();
        let texts = match c.message_texts {
            crate::model::content::MessageTexts::Tokens => "",
            crate::model::content::MessageTexts::Colliding => " message_texts=colliding",
        };
        format!(
            "clients={} passive_observer={} sends_per_client={} scrolls={} deltas={} tool_calls={} failures={} window={}{overtakes} status_on_connect={}{texts} depth_max={}",
            c.clients,
            c.passive_observer,
            c.sends_per_client,
            c.scrolls_per_client,
            c.deltas_per_segment_max,
            c.tool_calls_per_turn_max,
            c.turn_failures,
            c.ws_reorder_window,
            c.status_on_connect,
            self.depth_max
        )
    }
}

/// Why `explore` cannot search a world of `config`, if it cannot: its reductions rest on
/// premises a world option breaks. With `continuation_drains` a POST is handled while a
/// turn finishes and the seal may write the DB (the continuation turn's first row), which
/// the independence relation (`agent-seal` commutes with `serve-fetch`) and the
/// backend-first sets (`handle-post` is disabled while the turn is written) assume
/// away; searching such a world needs both revised and re-proved, so it is refused rather
/// than searched unsoundly. The fuzzers cover it.
pub fn world_refusal(config: &WorldConfig) -> Option<String> {
    config.continuation_drains.then(|| {
        "explore does not search worlds with continuation_drains = true: its reductions assume a POST waits while a turn finishes (the fuzzers cover those worlds: fuzz --world continuation_drains=true)".to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bound with every reduction the CLI turns on by default.
    fn searched(engine: Engine, jobs: usize) -> ExploreBound {
        let mut b = ExploreBound::small(2, 1);
        b.reductions = Reductions {
            sleep_sets: true,
            state_cache: true,
            exact_keys: false,
            per_tab: true,
            symmetry: true,
            persistent: true,
            backend_first: true,
            inert_post_responses: true,
        };
        b.parallelism = Parallelism {
            engine,
            jobs,
            shard: None,
        };
        b
    }

    /// Every refused combination, in the order `validate` checks them, and what passes.
    #[test]
    fn validate_names_each_combination_the_engines_do_not_search() {
        let bfs = Engine::BreadthFirst { jobs: 2 };
        assert_eq!(searched(bfs, 1).validate(), Ok(()));
        assert_eq!(searched(Engine::DepthFirst, 4).validate(), Ok(()));
        let shard = Some("1/2".parse().unwrap());
        type Set = fn(&mut ExploreBound);
        let cases: [(&str, Set, OneThreadOnly); 4] = [
            (
                "plain",
                |b| b.reductions.sleep_sets = false,
                OneThreadOnly::NoSleepSets,
            ),
            (
                "stateless",
                |b| b.reductions.state_cache = false,
                OneThreadOnly::NoStateCache,
            ),
            (
                "exact",
                |b| b.reductions.exact_keys = true,
                OneThreadOnly::ExactKeys,
            ),
            (
                "shard",
                |b| b.parallelism.shard = Some("1/2".parse().unwrap()),
                OneThreadOnly::Shard,
            ),
        ];
        for (name, set, what) in cases {
            let mut b = searched(bfs, 1);
            set(&mut b);
            assert_eq!(b.validate(), Err(Refused::BreadthFirstWith(what)), "{name}");
            let mut b = searched(Engine::DepthFirst, 2);
            set(&mut b);
            assert_eq!(b.validate(), Err(Refused::ThreadsWith(what)), "{name}");
            // One depth-first thread does all of them.
            let mut b = searched(Engine::DepthFirst, 1);
            set(&mut b);
            assert_eq!(b.validate(), Ok(()), "{name}");
        }
        let mut b = searched(Engine::DepthFirst, 0);
        assert_eq!(b.validate(), Err(Refused::Jobs(0)));
        b.parallelism.jobs = JOBS_MAX + 1;
        b.parallelism.shard = shard;
        // The thread count is checked before the combination.
        assert_eq!(b.validate(), Err(Refused::Jobs(JOBS_MAX + 1)));
        let mut b = searched(Engine::BreadthFirst { jobs: 0 }, 1);
        assert_eq!(b.validate(), Err(Refused::Jobs(0)));
        // The breadth-first combination is checked before the thread count.
        b.reductions.exact_keys = true;
        assert_eq!(
            b.validate(),
            Err(Refused::BreadthFirstWith(OneThreadOnly::ExactKeys))
        );
    }
}
