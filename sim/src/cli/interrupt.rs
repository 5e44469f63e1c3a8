//! Ctrl-C for every subcommand, in one place. SIGTERM and SIGHUP are handled the same
//! way: they are what `timeout`, CI runners, systemd and container runtimes send, and a
//! campaign they stop must keep what it found as one Ctrl-C stopped does.
//!
//! Subcommands that poll [`reconcile_sim::run::interrupt`] (`fuzz`, `check`, `run`,
//! `shrink`, `from-fuzz`, `nightly`) treat the first Ctrl-C as "stop soon": they finish the
//! runs in progress (stopping between seeds and between shrink replays), save what they
//! found, print their results, drop their stores (which ends `exec:` adapters) and exit
//! with [`EXIT_INTERRUPTED`]. A second Ctrl-C quits at once. Subcommands that do not poll
//! quit at the first, as without a handler.

use std::sync::atomic::{AtomicBool, Ordering};

use reconcile_sim::run::interrupt;

/// The exit code of a run that Ctrl-C (or SIGTERM, SIGHUP) ended: 128 + SIGINT, as a
/// shell reports Ctrl-C, whichever of the three it was (the handler is not told which).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Whether the running subcommand polls the flag.
static POLLED: AtomicBool = AtomicBool::new(false);

/// Install the handler; `polled` says whether the subcommand stops soon on the flag.
pub fn install(polled: bool) {
    POLLED.store(polled, Ordering::Relaxed);
    // Failing to install (another handler already set) leaves Ctrl-C's default: quit.
    let _ = ctrlc::set_handler(|| {
        if !POLLED.load(Ordering::Relaxed) || interrupt::requested() {
            eprintln!("\ninterrupted: quitting now");
            std::process::exit(EXIT_INTERRUPTED.into());
        }
        interrupt::request();
        eprintln!(
            "\ninterrupted: finishing the runs in progress, then saving and printing what was found (Ctrl-C again to quit at once)"
        );
    });
}
