//! Two different signals (issue 52): the run ends with 128 + the **first** one's number,
//! whichever the second is, as a shell reports the signal that stopped it; the second
//! still says it was seen. Every ordered pair of SIGINT, SIGTERM and SIGHUP, each on a
//! `fuzz` of its own over a slow adapter (so the run is still saving when the second
//! comes), the six at once.

use std::time::Duration;

use rustix::process::Signal;

use super::{adapters_working, code_of, slow, spawn_slow};
use crate::support::{require_node, tmp};

/// How the binary's messages name `signal`.
fn name(signal: Signal) -> &'static str {
    match signal {
        Signal::TERM => "SIGTERM",
        Signal::HUP => "SIGHUP",
        _ => "Ctrl-C",
    }
}

/// `first`, then (once its message is out) `second`, to a slow `fuzz`: its exit code and
/// what it said.
fn stopped_by(first: Signal, second: Signal) {
    let what = format!("{} then {}", name(first), name(second));
    let out = tmp("signal-pair");
    let ready = tmp("signal-pair-ready");
    let store = slow(50);
    let running = spawn_slow(
        &[
            "fuzz",
            "--store",
            &store,
            "--time",
            "10m",
            "--jobs",
            "1",
            "--out",
            out.to_str().unwrap(),
        ],
        &ready,
    );
    adapters_working(&running, 1, &ready);
    running.signal(first);
    running.wait_for_stderr(&format!("{}: finishing", name(first)));
    running.signal(second);
    let done = running.finish(Duration::from_secs(90));
    assert_eq!(done.code, code_of(first), "{what}: {}", done.stderr);
    assert!(
        done.stderr.contains(&format!("{} again", name(second))),
        "{what}: the second signal was seen: {}",
        done.stderr
    );
}

#[test]
fn after_two_different_signals_the_exit_code_is_the_first_ones() {
    require_node();
    let signals = [Signal::INT, Signal::TERM, Signal::HUP];
    std::thread::scope(|s| {
        for first in signals {
            for second in signals.into_iter().filter(|&x| x != first) {
                s.spawn(move || stopped_by(first, second));
            }
        }
    });
}
