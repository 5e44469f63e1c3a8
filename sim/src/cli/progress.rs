//! The progress line of long commands, drawn by a thread of its own.
//!
//! Workers only bump an atomic counter; a drawing thread reads it five times a second and
//! is the only one that touches the terminal. So a terminal that stalls (a paused pager,
//! a full pipe, `Ctrl-S`) stalls that thread alone, never a campaign, and the line moves
//! even while nothing finishes (a slow adapter, a long shrink), and the end of the run does
//! not wait for a terminal that does not read (the results go to stdout regardless; only
//! what is printed to the stalled terminal itself waits for it). With a seed budget the bar
//! counts runs; with a time budget it fills with the time spent, and the runs done are
//! told beside it.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// What the bar measures.
pub enum Measure {
    /// This many runs in all.
    Runs(u64),
    /// This much time.
    Time(Duration),
}

struct Shared {
    runs: AtomicU64,
    message: Mutex<String>,
    /// Lines to print above the bar.
    notes: Mutex<Vec<String>>,
    done: AtomicBool,
}

/// A progress line on stderr when it is a terminal; nothing otherwise.
pub struct Progress {
    shared: Arc<Shared>,
    drawer: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// Start drawing (on a terminal).
    pub fn start(measure: Measure) -> Progress {
        let shared = Arc::new(Shared {
            runs: AtomicU64::new(0),
            message: Mutex::new(String::new()),
            notes: Mutex::new(Vec::new()),
            done: AtomicBool::new(false),
        });
        let drawer = std::io::stderr().is_terminal().then(|| {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || draw(&shared, measure))
        });
        Progress { shared, drawer }
    }

    /// Runs finished so far (from any thread; cheap: one atomic).
    pub fn runs(&self, done: u64) {
        self.shared.runs.fetch_max(done, Ordering::Relaxed);
    }

    /// Start counting runs from zero again (a new campaign).
    pub fn reset_runs(&self) {
        self.shared.runs.store(0, Ordering::Relaxed);
    }

    /// What is being done now (`shrinking 2/5: …`), shown after the bar.
    pub fn say(&self, what: String) {
        *lock(&self.shared.message) = what;
    }

    /// A line worth keeping: printed above the bar on a terminal, to stderr otherwise.
    pub fn note(&self, line: String) {
        if self.drawer.is_some() {
            lock(&self.shared.notes).push(line);
        } else {
            eprintln!("{line}");
        }
    }

    /// Stop drawing and clear the line.
    pub fn finish(mut self) {
        self.stop();
    }

    /// Tell the drawer to clear the line and end; wait for it a moment, no longer: on a
    /// stalled terminal its last write blocks, and the results must still reach stdout
    /// (the thread is then left to end with the process).
    fn stop(&mut self) {
        self.shared.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.drawer.take() {
            let start = Instant::now();
            while !t.is_finished() && start.elapsed() < Duration::from_millis(500) {
                std::thread::sleep(Duration::from_millis(5));
            }
            if t.is_finished() {
                let _ = t.join();
            }
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop();
    }
}

fn draw(shared: &Shared, measure: Measure) {
    let started = Instant::now();
    let (bar, template) = match measure {
        Measure::Runs(n) => (
            ProgressBar::new(n),
            "{spinner} {elapsed_precise} [{bar:40}] {pos}/{len} runs ({per_sec}, eta {eta}) {wide_msg}",
        ),
        Measure::Time(t) => (
            ProgressBar::new(t.as_millis().max(1) as u64),
            "{spinner} {elapsed_precise} [{bar:40}] {wide_msg}",
        ),
    };
    bar.set_style(
        ProgressStyle::with_template(template)
            .expect("valid template")
            .progress_chars("=> "),
    );
    let timed = matches!(measure, Measure::Time(_));
    loop {
        let done = shared.done.load(Ordering::Relaxed);
        for line in std::mem::take(&mut *lock(&shared.notes)) {
            bar.println(line);
        }
        if done {
            break;
        }
        let runs = shared.runs.load(Ordering::Relaxed);
        let said = lock(&shared.message).clone();
        if timed {
            bar.set_position(started.elapsed().as_millis() as u64);
            let per_sec = runs as f64 / started.elapsed().as_secs_f64().max(1e-3);
            let runs = format!("{runs} runs ({per_sec:.0}/s)");
            // What is being done now first: a narrow terminal cuts the end of the line.
            bar.set_message(if said.is_empty() {
                runs
            } else {
                format!("{said} · {runs}")
            });
        } else {
            bar.set_position(runs);
            bar.set_message(said);
        }
        bar.tick();
        std::thread::sleep(Duration::from_millis(200));
    }
    bar.finish_and_clear();
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The library's commands report through this line: runs on the bar, the status beside
/// it, notes above it.
impl reconcile_sim::campaign::pipeline::Listener for Progress {
    fn runs(&self, done: u64) {
        Progress::runs(self, done);
    }
    fn status(&self, line: String) {
        self.say(line);
    }
    fn note(&self, line: &str) {
        Progress::note(self, line.to_string());
    }
}
