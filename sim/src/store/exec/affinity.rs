//! CPU pinning of a harness thread and the adapter processes it talks to, so that each
//! request/answer round trip stays on one CPU (see "Co-located ping-pong" in the module
//! docs). Linux only; elsewhere it does nothing. Only speed depends on it.

#[cfg(target_os = "linux")]
pub(super) use linux::pin_with_current_thread;

/// Pinning is not available here: nothing to do.
#[cfg(not(target_os = "linux"))]
pub(super) fn pin_with_current_thread(_pid: u32) {}

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
}
