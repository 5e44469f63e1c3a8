//! Work spread over threads with results in input order: what each item gives depends
//! on the item alone, never on which thread took it or when, so the caller's output is
//! the same for any number of threads.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Run `worker` on `jobs` threads at once (scoped), or, for one job, on the caller's
/// thread: a store that must be called from the caller's thread (one inside Node, driven
/// from a coroutine on the JavaScript thread) can then be run.
pub fn on_threads(jobs: usize, worker: impl Fn() + Sync) {
    if jobs <= 1 {
        return worker();
    }
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(&worker);
        }
    });
}

/// `f` applied to every item of `items` on up to `jobs` threads (at least one; never more
/// than there are items), the results in the order of `items`. Each thread takes the next
/// item not yet taken, so a slow item holds up one thread, not the others. `f` also gets
/// the item's index.
pub fn map_in_order<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    f: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    let threads = jobs.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter().enumerate().map(|(i, t)| f(i, t)).collect();
    }
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    on_threads(threads, || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else { break };
        let r = f(i, item);
        *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    });
    slots
        .into_iter()
        .map(|s| {
            s.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every item was taken by a thread (a panic in f propagates from scope)")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_input_order_for_any_number_of_threads() {
        let items: Vec<u64> = (0..100).collect();
        let serial = map_in_order(&items, 1, |i, x| (i, x * x));
        for jobs in [0, 2, 3, 8, 200] {
            assert_eq!(
                map_in_order(&items, jobs, |i, x| (i, x * x)),
                serial,
                "jobs {jobs}"
            );
        }
        assert_eq!(serial[7], (7, 49));
        assert!(map_in_order(&Vec::<u8>::new(), 4, |_, x| *x).is_empty());
    }

    #[test]
    fn work_is_shared_between_threads() {
        // Two threads, two items, each item waiting for the other to have started: only
        // finishes if the items run at once.
        let started = std::sync::Barrier::new(2);
        let r = map_in_order(&[1, 2], 2, |_, x| {
            started.wait();
            x + 1
        });
        assert_eq!(r, [2, 3]);
    }
}
