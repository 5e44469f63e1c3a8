//! CPU pinning of a harness thread and the adapter processes it talks to, so that each
//! request/answer round trip stays on one CPU (see "Co-located ping-pong" in the module
//! docs). Linux only; elsewhere it does nothing. Only speed depends on it.
//!
//! A starting adapter is never put on a busy CPU: a process inherits the CPU set of the
//! thread that starts it, so [`spawn_unpinned`] lets the thread use every CPU it could
//! before pinning while it starts a process, and the process is pinned only once its
//! start-up is over (its handshake and first `reset` answered: node's start-up and its
//! compilation threads run wherever the OS puts them).

#[cfg(target_os = "linux")]
pub(super) use linux::{pin_with_current_thread, spawn_unpinned};

/// Pinning is not available here: nothing to do.
#[cfg(not(target_os = "linux"))]
pub(super) fn pin_with_current_thread(_pid: u32) {}

/// Pinning is not available here: just `spawn`.
#[cfg(not(target_os = "linux"))]
pub(super) fn spawn_unpinned<T>(spawn: impl FnOnce() -> T) -> T {
    spawn()
}

/// The Linux implementation (`sched_setaffinity`).
#[cfg(target_os = "linux")]
mod linux {
    use std::cell::Cell;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use rustix::process::Pid;
    use rustix::thread::{sched_getaffinity, sched_setaffinity, CpuSet};

    thread_local! {
        /// The CPU this thread pinned itself to (`Some(None)`: pinning not possible).
        static CPU: Cell<Option<Option<usize>>> = const { Cell::new(None) };
        /// The CPUs this thread could use before it pinned itself.
        static BEFORE: Cell<Option<CpuSet>> = const { Cell::new(None) };
    }
    /// Threads are spread round robin over the CPUs the process may use.
    static NEXT_THREAD: AtomicUsize = AtomicUsize::new(0);

    /// Pin the calling thread to the next CPU in turn; `None` when there is only one CPU
    /// or the system refuses.
    fn pin_current_thread() -> Option<usize> {
        let allowed = sched_getaffinity(None).ok()?;
        let cpus: Vec<usize> = (0..CpuSet::MAX_CPU)
            .filter(|&c| allowed.is_set(c))
            .collect();
        if cpus.len() < 2 {
            return None; // one CPU: already together
        }
        let cpu = cpus[NEXT_THREAD.fetch_add(1, Ordering::Relaxed) % cpus.len()];
        let mut set = CpuSet::new();
        set.set(cpu);
        sched_setaffinity(None, &set).ok()?;
        BEFORE.with(|b| b.set(Some(allowed)));
        Some(cpu)
    }

    /// Pin the calling thread (once) and the process `pid`'s main thread to one CPU.
    /// Failures are ignored: pinning only changes speed.
    pub fn pin_with_current_thread(pid: u32) {
        let cpu = CPU.with(|c| {
            if c.get().is_none() {
                c.set(Some(pin_current_thread()));
            }
            c.get().flatten()
        });
        if let (Some(cpu), Some(pid)) = (cpu, Pid::from_raw(pid as i32)) {
            let mut set = CpuSet::new();
            set.set(cpu);
            let _ = sched_setaffinity(Some(pid), &set);
        }
    }

    /// Run `spawn` (which starts a process) with this thread's CPU set widened back to
    /// what it was before the thread pinned itself, so that the new process (and every
    /// thread it starts) may run on any of those CPUs; then pin the thread again.
    pub fn spawn_unpinned<T>(spawn: impl FnOnce() -> T) -> T {
        let before = BEFORE.with(Cell::get);
        let cpu = CPU.with(Cell::get).flatten();
        let (Some(before), Some(cpu)) = (before, cpu) else {
            return spawn(); // not pinned
        };
        let _ = sched_setaffinity(None, &before);
        let spawned = spawn();
        let mut set = CpuSet::new();
        set.set(cpu);
        let _ = sched_setaffinity(None, &set);
        spawned
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// A process started by a pinned thread may run on every CPU the thread could use
        /// before it pinned itself; the thread stays pinned.
        #[test]
        fn a_process_started_by_a_pinned_thread_is_not_pinned() {
            std::thread::spawn(|| {
                let before = sched_getaffinity(None).unwrap();
                let cpus = (0..CpuSet::MAX_CPU).filter(|&c| before.is_set(c)).count();
                // Pin this thread (with a throwaway process).
                let mut first = std::process::Command::new("sleep")
                    .arg("30")
                    .spawn()
                    .unwrap();
                pin_with_current_thread(first.id());
                let _ = first.kill();
                let _ = first.wait();
                let child = spawn_unpinned(|| {
                    std::process::Command::new("sleep")
                        .arg("30")
                        .spawn()
                        .unwrap()
                });
                let pid = Pid::from_raw(child.id() as i32).unwrap();
                let theirs = sched_getaffinity(Some(pid)).unwrap();
                let mine = sched_getaffinity(None).unwrap();
                let count = |s: &CpuSet| (0..CpuSet::MAX_CPU).filter(|&c| s.is_set(c)).count();
                let mut child = child;
                let _ = child.kill();
                let _ = child.wait();
                assert_eq!(count(&theirs), cpus, "the child may use every CPU");
                if cpus >= 2 {
                    assert_eq!(count(&mine), 1, "the thread is still pinned");
                }
            })
            .join()
            .unwrap();
        }
    }
}
