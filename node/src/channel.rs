//! The stores of the JavaScript side, as [`Channel`]s: each exchange suspends the engine's
//! coroutine with the request lines and resumes with the answers JavaScript computed.
//!
//! The engine runs as a coroutine on the JavaScript thread ([`crate::Engine`]); a channel
//! reaches the coroutine it runs in through [`CURRENT`], which the coroutine sets when it
//! starts and again whenever it is resumed (several engines may take turns on one thread).

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use corosensei::Yielder;
use reconcile_sim::exec::{Channel, ChannelOpener};

/// What the engine hands JavaScript: request lines for one of its adapters.
pub struct Want {
    /// The adapter (one per live store, as `exec:` has one process per live store).
    pub adapter: u32,
    /// One or more request lines, each ending with a newline.
    pub requests: String,
}

/// What JavaScript hands back: the answer lines, or why the adapter could not answer.
pub type Reply = Result<String, String>;

/// The yielder of the coroutine running on this thread now.
type Current = *const Yielder<Reply, Want>;

thread_local! {
    static CURRENT: Cell<Current> = const { Cell::new(std::ptr::null()) };
}

/// Make `yielder` the one channels on this thread suspend (called by the coroutine when
/// it starts; [`JsChannel::exchange`] restores it after every suspension).
pub fn enter(yielder: &Yielder<Reply, Want>) {
    CURRENT.with(|c| c.set(yielder as Current));
}

/// One adapter on the JavaScript side.
struct JsChannel {
    id: u32,
    closed: Arc<Mutex<Vec<u32>>>,
}

impl Channel for JsChannel {
    fn exchange(&mut self, requests: &[u8]) -> Result<Vec<u8>, String> {
        let current = CURRENT.with(Cell::get);
        if current.is_null() {
            return Err(
                "a store inside Node is called only from its engine's coroutine (one job per engine)"
                    .to_string(),
            );
        }
        // SAFETY: `current` was set by the coroutine running on this thread now (it is
        // set when the coroutine starts and again after each suspension), and a yielder
        // lives as long as its coroutine runs.
        let yielder = unsafe { &*current };
        let reply = yielder.suspend(Want {
            adapter: self.id,
            requests: String::from_utf8_lossy(requests).into_owned(),
        });
        enter(yielder);
        reply.map(String::into_bytes)
    }
}

impl Drop for JsChannel {
    fn drop(&mut self) {
        self.closed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(self.id);
    }
}

/// Opens [`JsChannel`]s, numbered from 1, and keeps the numbers of those dropped since
/// JavaScript last asked ([`JsOpener::take_closed`]), so it can let their adapters go.
#[derive(Default)]
pub struct JsOpener {
    next: AtomicU32,
    closed: Arc<Mutex<Vec<u32>>>,
}

impl JsOpener {
    /// The adapters dropped since the last call, in the order they were dropped.
    pub fn take_closed(&self) -> Vec<u32> {
        std::mem::take(&mut *self.closed.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl ChannelOpener for JsOpener {
    fn open(&self) -> Result<Box<dyn Channel>, String> {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        Ok(Box::new(JsChannel {
            id,
            closed: Arc::clone(&self.closed),
        }))
    }
}
