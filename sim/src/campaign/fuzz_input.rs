//! Bytes ↔ a run: the library side of the cargo-fuzz `interleavings` target.
//!
//! A coverage-guided fuzzer mutates bytes; this turns them into the same choices every
//! other strategy makes, read one byte at a time through arbitrary's [`Unstructured`]:
//!
//! | bytes | meaning |
//! |---|---|
//! | 0–8 | the world options, one byte each, folded into ranges that contain both what `WorldConfig::from_seed` draws and what the shrinker cuts budgets down to (clients 1–3, passive observer, sends 0–3, scrolls 0–4, deltas 0–3, tool calls 0–2, failures, reorder window 1–3, status on connect) |
//! | 9 | the store, as an index into the shipped stores (ignored when the caller fixes one) |
//! | 10… | one byte per step: the index (modulo the count) into the sorted enabled steps |
//!
//! The main phase ends when the bytes do (or at `steps_max`); then the ordinary drain and
//! convergence check run. Every input is therefore a whole, terminating run, and the
//! mapping is invertible: [`encode_run`] turns a scenario back into bytes, so committed
//! scenarios seed the fuzzer's corpus exactly.

use arbitrary::Unstructured;

use crate::model::config::WorldConfig;
use crate::model::step::Step;
use crate::run::worlds::Worlds;
use crate::run::{execute, Next, RunReport};
use crate::store::{StoreKind, STORES};

/// Bytes before the first step choice.
pub const HEADER_LEN: usize = WorldConfig::OPTIONS.len() + 1;

fn byte(u: &mut Unstructured<'_>) -> u8 {
    u.arbitrary::<u8>().unwrap_or(0)
}

fn ranged(u: &mut Unstructured<'_>, lo: u8, hi: u8) -> u8 {
    lo + byte(u) % (hi - lo + 1)
}

/// The world options encoded in the header: one byte per [`WorldConfig::OPTIONS`] row,
/// folded into the row's range.
pub fn decode_config(u: &mut Unstructured<'_>) -> WorldConfig {
    let values: Vec<u8> = WorldConfig::OPTIONS
        .iter()
        .map(|o| ranged(u, o.min, o.max))
        .collect();
    WorldConfig::from_options(values)
}

/// The header bytes for `config`, or `None` when an option is outside the fuzzable ranges.
pub fn encode_config(config: &WorldConfig, store_index: u8) -> Option<Vec<u8>> {
    let mut bytes = Vec::with_capacity(HEADER_LEN);
    for o in WorldConfig::OPTIONS {
        let v = (o.get)(config);
        bytes.push((o.min..=o.max).contains(&v).then(|| v - o.min)?);
    }
    bytes.push(store_index);
    Some(bytes)
}

/// What a fuzz input decoded to, and how the run went.
pub struct BytesRun {
    /// The store run: the one given (`RECONCILE_SIM_STORE`), or the one byte 9 chose.
    pub store: StoreKind,
    /// The run; a failure in it is a crash for the `interleavings` target, which
    /// `from-fuzz` shrinks into a scenario.
    pub report: RunReport,
}

/// The worlds the cargo-fuzz targets draw: [`Worlds::from_env`], read once. A bad value
/// ends the process with the error (exit 2) before any input runs: a fuzz run under pins
/// it misread would fuzz the wrong worlds.
pub fn env_worlds() -> &'static Worlds {
    static WORLDS: std::sync::OnceLock<Worlds> = std::sync::OnceLock::new();
    WORLDS.get_or_init(|| {
        Worlds::from_env().unwrap_or_else(|e| {
            eprintln!("error: {e}");
            std::process::exit(2)
        })
    })
}

/// Decode `data` and run it. With `store` given, byte 9 is ignored.
pub fn run_bytes(data: &[u8], store: Option<StoreKind>) -> BytesRun {
    run_bytes_in(data, store, &Worlds::default())
}

/// [`run_bytes`] with `worlds`' pins applied to the decoded options and its invariants
/// judged (the targets read them from `RECONCILE_SIM_WORLD` and
/// `RECONCILE_SIM_INVARIANTS`; see [`Worlds::from_env`]).
pub fn run_bytes_in(data: &[u8], store: Option<StoreKind>, worlds: &Worlds) -> BytesRun {
    let mut u = Unstructured::new(data);
    let config = worlds.apply(decode_config(&mut u));
    let index = byte(&mut u) as usize % STORES.len();
    let store = store.unwrap_or(STORES[index]);
    let steps_max = config.steps_max as usize;
    let report = execute(&store, config, |_, enabled, i| {
        if u.is_empty() || enabled.is_empty() || i >= steps_max {
            Next::Stop
        } else {
            Next::Apply(enabled[byte(&mut u) as usize % enabled.len()])
        }
    });
    BytesRun { store, report }
}

/// The bytes that make [`run_bytes`] apply exactly the steps of `steps` that are enabled
/// when replayed on `config` (skipped steps leave no byte), with `store`.
/// `None` when the config is outside the fuzzable ranges.
pub fn encode_run(store: StoreKind, config: &WorldConfig, steps: &[Step]) -> Option<Vec<u8>> {
    let index = STORES
        .iter()
        .position(|k| k.name == store.name)
        .unwrap_or(0) as u8;
    let mut bytes = encode_config(config, index)?;
    let config = decode_config(&mut Unstructured::new(&bytes));
    let mut input = steps
        .iter()
        .take(config.steps_max as usize)
        .copied()
        .enumerate();
    let mut too_many = false;
    execute(&store, config, |_, enabled, _| match input.next() {
        None => Next::Stop,
        Some((_, step)) => match enabled.binary_search(&step) {
            Ok(i) => {
                match u8::try_from(i) {
                    Ok(b) => bytes.push(b),
                    Err(_) => too_many = true,
                }
                Next::Apply(step)
            }
            Err(_) => Next::Skip(0),
        },
    });
    (!too_many).then_some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{replay, Outcome};

    /// The fuzz encoding under pins (`RECONCILE_SIM_WORLD`): the decoded world takes the
    /// pins and the judged invariants, and no pins decode as before.
    #[test]
    fn pins_apply_to_the_decoded_world() {
        let worlds = Worlds {
            contract: Default::default(),
            pins: crate::model::pins::WorldPins::parse(&["ws_reorder_window=1", "clients=2"])
                .unwrap(),
            judged: crate::oracle::judged::from_flags(None, Some("inv5")).unwrap(),
        };
        for n in 0u8..64 {
            let data: Vec<u8> = (0..40u8)
                .map(|i| i.wrapping_mul(37).wrapping_add(n))
                .collect();
            let plain = run_bytes(&data, None);
            let pinned = run_bytes_in(&data, None, &worlds);
            assert_eq!(pinned.report.config.ws_reorder_window, 1);
            assert_eq!(pinned.report.config.clients, 2);
            assert_eq!(pinned.report.config.judged, worlds.judged);
            let mut same = plain.report.config.clone();
            same.ws_reorder_window = 1;
            same.clients = 2;
            assert_eq!(
                pinned.report.config.message_texts, same.message_texts,
                "free options decode as before"
            );
            let again = run_bytes_in(&data, None, &Worlds::default());
            assert_eq!(again.report, plain.report, "no pins: the run as before");
        }
    }

    #[test]
    fn any_bytes_make_a_whole_run_that_replays_identically() {
        let current = crate::store::note::current::KIND;
        for len in [0usize, 1, 9, 10, 11, 64, 512] {
            let data: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let a = run_bytes(&data, Some(current));
            let b = replay(&current, a.report.config.clone(), &a.report.steps);
            assert_eq!(a.report.outcome, b.outcome, "len {len}");
            assert_eq!(a.report.steps, b.steps);
        }
    }

    #[test]
    fn encoding_a_run_gives_back_the_same_run() {
        for seed in 0..200u64 {
            let store = crate::store::STORES[(seed % 7) as usize];
            let data: Vec<u8> = (0..120u64)
                .map(|i| (seed.wrapping_mul(2654435761).wrapping_add(i * 97) >> 3) as u8)
                .collect();
            let a = run_bytes(&data, None);
            let bytes = encode_run(a.store, &a.report.config, &a.report.steps).unwrap();
            let b = run_bytes(&bytes, None);
            assert_eq!(a.store.name, b.store.name);
            assert_eq!(a.report, b.report, "seed {seed} store {}", store.name);
        }
    }

    #[test]
    fn the_canary_is_caught_from_bytes_whenever_a_message_is_sent() {
        let canary = crate::store::note::canary::KIND;
        let mut with_send = 0;
        for i in 0u64..50 {
            // A small LCG: varied bytes without a dependency.
            let mut x = i + 1;
            let data: Vec<u8> = (0..256)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (x >> 56) as u8
                })
                .collect();
            let run = run_bytes(&data, Some(canary));
            if run
                .report
                .steps
                .iter()
                .any(|s| matches!(s, Step::Send { .. }))
            {
                with_send += 1;
                assert_ne!(
                    run.report.outcome,
                    Outcome::Pass,
                    "input {i}: canary passed"
                );
            }
        }
        assert!(with_send >= 25, "only {with_send}/50 inputs sent a message");
    }
}
