//! Ctrl-C, SIGTERM and SIGHUP for every subcommand, in one place. SIGTERM and SIGHUP are
//! what `timeout`, CI runners, systemd, container runtimes and a closed terminal send; a
//! campaign they stop must keep what it found as one Ctrl-C stopped does.
//!
//! Subcommands that poll [`reconcile_sim::run::interrupt`] (`fuzz`, `check`, `run`,
//! `shrink`, `from-fuzz`, `nightly`, `explore`) treat the first signal as "stop soon":
//! they finish the runs in progress (stopping between seeds and between shrink replays),
//! save what they found, print their results, drop their stores (which ends `exec:`
//! adapters and a nightly's cargo-fuzz) and exit 128 + the signal's number (130 for
//! SIGINT, 143 for SIGTERM, 129 for SIGHUP), as a shell reports a process the signal
//! ended. A second signal still lets them save and print, but quits after
//! [`GRACE`] whatever they are doing; a third quits at once. Subcommands that do not
//! poll quit at the first, as without a handler.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering};
use std::time::Duration;

use reconcile_sim::run::interrupt;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// How long a second signal leaves the run to save and print before it quits.
pub const GRACE: Duration = Duration::from_secs(5);

/// Whether the running subcommand polls the flag.
static POLLED: AtomicBool = AtomicBool::new(false);
/// The first signal received (0: none).
static FIRST: AtomicI32 = AtomicI32::new(0);
/// Signals received.
static SEEN: AtomicU32 = AtomicU32::new(0);

/// Install the handler; `polled` says whether the subcommand stops soon on the flag.
pub fn install(polled: bool) {
    POLLED.store(polled, Ordering::Relaxed);
    // Failing to install leaves the signals' defaults: quit.
    let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        for signal in signals.forever() {
            on_signal(signal);
        }
    });
}

/// The exit code of a run a signal ended: 128 + the first signal's number.
pub fn exit_code() -> u8 {
    let signal = FIRST.load(Ordering::Relaxed);
    u8::try_from(128 + if signal > 0 { signal } else { SIGINT }).unwrap_or(130)
}

/// `Ctrl-C`, `SIGTERM`, `SIGHUP`: how the messages name a signal.
pub fn name(signal: i32) -> &'static str {
    match signal {
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        _ => "Ctrl-C",
    }
}

/// What the first signal was, in words (`Ctrl-C` when none was received).
pub fn first_name() -> &'static str {
    name(FIRST.load(Ordering::Relaxed))
}

fn on_signal(signal: i32) {
    let _ = FIRST.compare_exchange(0, signal, Ordering::Relaxed, Ordering::Relaxed);
    let seen = SEEN.fetch_add(1, Ordering::Relaxed);
    let code = exit_code();
    if !POLLED.load(Ordering::Relaxed) || seen >= 2 {
        eprintln!("\n{}: quitting now", name(signal));
        std::process::exit(code.into());
    }
    if seen == 0 {
        interrupt::request();
        eprintln!(
            "\n{}: finishing the runs in progress, then saving and printing what was found (again to quit within {}s)",
            name(signal),
            GRACE.as_secs()
        );
        return;
    }
    eprintln!(
        "\n{} again: saving and printing what was found, quitting within {}s (a third time quits at once)",
        name(signal),
        GRACE.as_secs()
    );
    std::thread::spawn(move || {
        std::thread::sleep(GRACE);
        eprintln!(
            "quitting: the run did not finish saving within {}s",
            GRACE.as_secs()
        );
        std::process::exit(code.into());
    });
}
