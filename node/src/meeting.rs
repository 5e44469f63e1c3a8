//! The meetings of parallel commands' workers (`workers` in index.js: worker threads of
//! this process, each an engine running one shard of a `fuzz`): after its campaign each
//! shard hands over its first failures and waits for the others', then they settle the
//! whole campaign's failures between them, each once
//! ([`reconcile_sim::campaign::pipeline::partners`]).
//!
//! Meetings live in this registry, so engines on different JavaScript threads (each a
//! Node-API environment of its own, sharing this library) find the same one by number.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use reconcile_sim::campaign::pipeline::partners::Meeting;

static NEXT: AtomicU32 = AtomicU32::new(1);
static MEETINGS: Mutex<BTreeMap<u32, Arc<Meeting>>> = Mutex::new(BTreeMap::new());

fn meetings() -> MutexGuard<'static, BTreeMap<u32, Arc<Meeting>>> {
    MEETINGS.lock().unwrap_or_else(|e| e.into_inner())
}

/// A new meeting of `shards` shards; its number.
pub fn open(shards: usize) -> u32 {
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    meetings().insert(id, Arc::new(Meeting::new(shards)));
    id
}

/// Meeting `id`, if it is open.
pub fn find(id: u32) -> Option<Arc<Meeting>> {
    meetings().get(&id).cloned()
}

/// Forget meeting `id` (the command is over); shards still holding it keep it alive.
pub fn close(id: u32) {
    meetings().remove(&id);
}
