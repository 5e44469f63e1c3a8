//! `--max-states`, `--max-memory`, `--time` and Ctrl-C: a search that hits one stops, and
//! its report says which, naming the flag, next to the counts of what it covered. A stopped
//! search is **inconclusive**: it never counts as a verification
//! ([`super::report::ExploreReport::verified`]). The wall clock and the resident set decide
//! only *when* a search stops, never a verdict it reports as conclusive. `--max-states` is
//! a count, so the depth-first search checks it after every step: on one thread it stops at
//! the same state on every run and machine, and reports the same counts (on several
//! threads, which states come first varies with timing anyway). The other limits are
//! checked about five times a second.

/// The limits of one search: each stops it early, inconclusive. None by default.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Stop once more distinct states than this were reached.
    pub max_states: Option<u64>,
    /// Stop once the process's resident memory exceeds this many bytes.
    pub max_memory: Option<u64>,
    /// Stop at this deadline.
    pub time: Option<TimeLimit>,
}

/// A search's watch over its [`Limits`]: asked after steps, it says which one was hit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LimitCheck {
    max_states: Option<u64>,
    max_memory: Option<u64>,
    time: Option<TimeLimit>,
}

/// `--time`: the budget as given, and the instant it runs out (one deadline for every tab's
/// search of one `explore`).
#[derive(Clone, Copy, Debug)]
pub struct TimeLimit {
    /// The budget, for the message.
    pub budget: std::time::Duration,
    /// When the search stops.
    pub deadline: std::time::Instant,
}

impl TimeLimit {
    /// A budget starting now.
    pub fn from_now(budget: std::time::Duration) -> TimeLimit {
        TimeLimit {
            budget,
            deadline: std::time::Instant::now() + budget,
        }
    }
}

impl LimitCheck {
    /// The watch over `limits`.
    pub(crate) fn new(limits: &Limits) -> LimitCheck {
        LimitCheck {
            max_states: limits.max_states,
            max_memory: limits.max_memory,
            time: limits.time,
        }
    }

    /// The time limit, if it ran out, in words naming its flag (cheap: checked often).
    pub(crate) fn out_of_time(&self, states: u64) -> Option<String> {
        let t = self.time?;
        (std::time::Instant::now() >= t.deadline).then(|| {
            format!(
                "--time {} reached ({states} distinct states): search stopped, inconclusive",
                humantime::format_duration(t.budget)
            )
        })
    }

    /// `--max-states`, if `states` distinct states are more than it allows, in words naming
    /// the flag. Cheap, and a function of the count alone, so that a search that checks it
    /// after every step stops at the same state on every machine: the one-thread
    /// depth-first search does, and its counts when stopped are reproducible.
    pub(crate) fn over_states(&self, states: u64) -> Option<String> {
        let max = self.max_states.filter(|&m| states > m)?;
        Some(format!(
            "--max-states {max} reached ({states} distinct states): search stopped, inconclusive"
        ))
    }

    /// The limit hit with `states` distinct states reached, in words naming its flag; the
    /// memory limit is checked against the process's resident set now.
    pub(crate) fn hit(&self, states: u64) -> Option<String> {
        if crate::run::interrupt::requested() {
            return Some(format!(
                "interrupted (by a signal) at {states} distinct states: search stopped, inconclusive"
            ));
        }
        if let Some(out) = self.out_of_time(states) {
            return Some(out);
        }
        if let Some(out) = self.over_states(states) {
            return Some(out);
        }
        if let Some(max) = self.max_memory {
            if let Some(rss) = resident_bytes().filter(|&r| r > max) {
                return Some(format!(
                    "--max-memory {} reached ({} resident, {states} distinct states): search stopped, inconclusive",
                    mib(max),
                    mib(rss)
                ));
            }
        }
        None
    }
}

fn mib(bytes: u64) -> String {
    format!("{}MiB", bytes / (1024 * 1024))
}

/// The process's resident set in bytes (`VmRSS` of `/proc/self/status`), where the system
/// says it.
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
