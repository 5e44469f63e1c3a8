//! reconcile-sim's engine inside Node (a Node-API module built with napi-rs): the
//! library's commands run in the JavaScript process, the store being the team's own
//! object in that process instead of an `exec:` adapter process.
//!
//! **How a store is called.** The engine runs as a stackful coroutine on the JavaScript
//! thread. `new Engine(command)` makes it; each `engine.next(answers)` resumes it until
//! it needs a store again, when it suspends with the request lines for that store's
//! adapter (the exec protocol's lines, so in process and `exec:` exchange the same
//! messages and give the same results), or until the command is done. JavaScript answers
//! them, awaiting the store's promises as long as it needs, and calls `next` again: no
//! thread hand-off, no pipe, and the test runner's event loop keeps running between
//! steps. JavaScript never runs on the coroutine's stack.

#![deny(missing_docs)]

mod channel;
mod command;
mod meeting;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use napi::{Error, Result};
use napi_derive::napi;

use channel::{JsOpener, Reply, Want};
use command::Command;

/// The coroutine's stack: the engine's deepest recursion (shrinking, the oracle) is far
/// from it; it is reserved, not committed, so an engine costs little until it is used.
const STACK_BYTES: usize = 16 << 20;

/// What `next` returns: requests for an adapter, or the command's result.
#[napi(object)]
pub struct Step {
    /// The adapter the requests are for (numbered from 1; a new number is a new adapter,
    /// as a new process would be).
    pub adapter: Option<u32>,
    /// Request lines (JSON, one per line, each ending with a newline) to answer in order.
    pub requests: Option<String>,
    /// Adapters the engine is done with: let them go.
    pub closed: Vec<u32>,
    /// When the command is over: its result, as JSON.
    pub done: Option<String>,
}

/// The results of the parts of one `fuzz` or `check` (each worker's `resultFile`), merged
/// into what the whole command gives; the saved scenarios are written again under `out`.
/// `program` names the CLI in printed commands (as the command's `program`).
#[napi]
pub fn merge(parts: Vec<String>, out: String, program: Option<String>) -> Result<String> {
    reconcile_sim::util::program::name_as(program.as_deref().unwrap_or("npx reconcile-sim"));
    command::merge(&parts, std::path::Path::new(&out)).map_err(Error::from_reason)
}

/// A meeting for the `shards` workers of one parallel `fuzz` (each given its number as
/// the command's `meeting`): after their campaigns they settle the failures between them,
/// each once. Its number.
#[napi]
pub fn open_meeting(shards: u32) -> u32 {
    meeting::open(shards as usize)
}

/// Stop every worker waiting at meeting `id` with `why` (a worker failed or its thread
/// died): call it as soon as one worker of a parallel command fails.
#[napi]
pub fn abandon_meeting(id: u32, why: String) {
    if let Some(m) = meeting::find(id) {
        m.abandon(why);
    }
}

/// Forget meeting `id`: the command is over.
#[napi]
pub fn close_meeting(id: u32) {
    meeting::close(id);
}

/// One command of the engine, run as a coroutine driven by [`Engine::next`].
#[napi]
pub struct Engine {
    coroutine: Option<Coroutine<Reply, Want, std::result::Result<String, String>, DefaultStack>>,
    opener: Arc<JsOpener>,
    started: bool,
}

#[napi]
impl Engine {
    /// An engine for `command` (JSON: `{"command": "fuzz", "store": "exec:…", "seeds":
    /// N, …}`), not started yet. A bad command is an error now.
    #[napi(constructor)]
    pub fn new(command: String) -> Result<Engine> {
        let command = Command::parse(&command).map_err(Error::from_reason)?;
        let opener = Arc::new(JsOpener::default());
        let channels = Arc::clone(&opener);
        let stack = DefaultStack::new(STACK_BYTES)
            .map_err(|e| Error::from_reason(format!("cannot reserve the engine's stack: {e}")))?;
        let coroutine = Coroutine::with_stack(stack, move |yielder: &Yielder<Reply, Want>, _| {
            channel::enter(yielder);
            command.run(channels)
        });
        Ok(Engine {
            coroutine: Some(coroutine),
            opener,
            started: false,
        })
    }

    /// Resume the engine with the answers to the requests it gave last (`answers`: the
    /// answer lines, in order; or `error`: why the adapter could not answer, a crash of
    /// the run, as an adapter process's exit is). The first call gives neither.
    #[napi]
    pub fn next(&mut self, answers: Option<String>, error: Option<String>) -> Result<Step> {
        let Some(coroutine) = self.coroutine.as_mut() else {
            return Err(Error::from_reason("the engine's command is over"));
        };
        let reply = match (self.started, answers, error) {
            (false, _, _) => Ok(String::new()),
            (true, _, Some(error)) => Err(error),
            (true, Some(answers), None) => Ok(answers),
            (true, None, None) => {
                return Err(Error::from_reason(
                    "next() needs the answers to the requests it gave (or an error)",
                ))
            }
        };
        self.started = true;
        let resumed = catch_unwind(AssertUnwindSafe(|| coroutine.resume(reply)));
        let closed = self.opener.take_closed();
        match resumed {
            Ok(CoroutineResult::Yield(want)) => Ok(Step {
                adapter: Some(want.adapter),
                requests: Some(want.requests),
                closed,
                done: None,
            }),
            Ok(CoroutineResult::Return(outcome)) => {
                self.coroutine = None;
                outcome.map_err(Error::from_reason).map(|json| Step {
                    adapter: None,
                    requests: None,
                    closed,
                    done: Some(json),
                })
            }
            Err(panic) => {
                self.coroutine = None;
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Err(Error::from_reason(format!(
                    "internal error in the engine: {what}"
                )))
            }
        }
    }
}
