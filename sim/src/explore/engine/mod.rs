//! The two search engines: depth-first with sleep sets and the state cache ([`dfs`]), and
//! breadth-first over fingerprints on several threads ([`bfs`]). Both search one
//! [`crate::explore::reduction::scope::Scope`] and return the same verdict and
//! counterexample for it.

pub mod bfs;
pub mod dfs;

use crate::model::store::StoreFactory;

use super::bound::{Engine, ExploreBound, Parallelism};
use super::reduction::scope::Scope;
use super::report::{ExploreReport, SearchProgress};

/// One search of `scope` with the engine `bound` asks for: the breadth-first one when the
/// stores support it (they expose and copy their state), else the depth-first one, whose
/// report then names the engine that ran.
pub(crate) fn search(
    stores: &dyn StoreFactory,
    bound: &ExploreBound,
    scope: Scope,
    progress: &mut dyn FnMut(SearchProgress),
) -> ExploreReport {
    match bound.parallelism.engine {
        Engine::BreadthFirst { jobs } if bfs::supported(stores, bound, scope) => {
            bfs::search(stores, bound, scope, jobs, progress)
        }
        Engine::BreadthFirst { .. } => {
            let depth_first = ExploreBound {
                parallelism: Parallelism {
                    engine: Engine::DepthFirst,
                    ..bound.parallelism
                },
                ..bound.clone()
            };
            dfs::search(stores, &depth_first, scope, progress, None)
        }
        Engine::DepthFirst => dfs::search(stores, bound, scope, progress, None),
    }
}
