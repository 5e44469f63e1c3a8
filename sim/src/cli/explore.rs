//! `reconcile-sim explore --store NAME [bound flags] [--plain] [--no-cache] [--first] [--json] [--out FILE]`

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};
use reconcile_sim::campaign::findings::replay_command;
use reconcile_sim::model::store::StoreFactory;
use reconcile_sim::run::explore::{explore, ExploreBound, ExploreReport, StateCache};
use reconcile_sim::trace::timeline::trace_lines;

use super::flags::resolve_store;
use super::Verdict;

#[derive(clap::Args)]
pub struct Args {
    /// The store under test.
    #[arg(long)]
    store: String,
    /// Browser tabs.
    #[arg(long, default_value_t = 2)]
    clients: u8,
    /// Messages each sending tab's user sends.
    #[arg(long, default_value_t = 1)]
    sends: u8,
    /// Only the first tab sends (the others watch).
    #[arg(long)]
    one_sender: bool,
    /// Scroll toggles per user.
    #[arg(long, default_value_t = 0)]
    scrolls: u8,
    /// Text deltas per reply segment.
    #[arg(long, default_value_t = 1)]
    deltas: u8,
    /// Tool calls per turn.
    #[arg(long, default_value_t = 0)]
    tool_calls: u8,
    /// WebSocket reordering window (1 = in order).
    #[arg(long, default_value_t = 1)]
    window: u8,
    /// Do not send the status to a tab on connect (a fresh tab believes "running").
    #[arg(long)]
    no_status_on_connect: bool,
    /// Longest schedule explored.
    #[arg(long, default_value_t = 200)]
    depth_max: usize,
    /// Enumerate every interleaving (no partial-order reduction), for the ratio.
    #[arg(long)]
    plain: bool,
    /// Do not merge equal states (stateless search, every schedule run to its end). On by
    /// default when every store can expose its internal state.
    #[arg(long)]
    no_cache: bool,
    /// Stop at the first violation instead of searching for the shortest.
    #[arg(long)]
    first: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Write the counterexample to this file as a scenario (replay it with `reconcile-sim replay`).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let store = resolve_store(&args.store)?;
    let store = store.as_ref();
    let bound = bound(&args)?;
    let started = std::time::Instant::now();
    let report = explore_with_progress(store, &bound);
    let elapsed = started.elapsed();
    let mut write_error = None;
    if let (Some(path), Some(c)) = (&args.out, &report.counterexample) {
        // The counterexample as a scenario file: it replays, shrinks and gates like any other.
        let mut scenario = reconcile_sim::trace::scenario::Scenario::record(
            store,
            bound.config.clone(),
            &c.steps,
            Some(c.violation.invariant),
        );
        scenario.strategy = Some("explore".to_string());
        scenario.description = Some(format!(
            "found by `reconcile-sim explore` within {}",
            report.bound
        ));
        // A file that cannot be written fails the command after the counterexample is
        // printed (it is in the output, steps as JSON included), not before.
        match scenario.save(path) {
            Ok(()) => {
                println!("scenario: {}", path.display());
                println!("replay: {}", replay_command(path));
            }
            Err(e) => write_error = Some(format!("cannot write {}: {e}", path.display())),
        }
    }
    if args.json {
        let value = serde_json::json!({ "store": store.name(), "report": report, "verified": report.verified() });
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        print_text(store, &bound, &report, elapsed)?;
    }
    if let Some(e) = write_error {
        anyhow::bail!(e);
    }
    Ok(if report.counterexample.is_some() {
        Verdict::Violation
    } else {
        Verdict::Clean
    })
}

/// The bound the flags describe.
fn bound(args: &Args) -> anyhow::Result<ExploreBound> {
    if args.clients < 2 {
        anyhow::bail!("--clients must be at least 2");
    }
    let clients_max = reconcile_sim::trace::scenario::CLIENTS_MAX;
    if args.clients > clients_max {
        anyhow::bail!(
            "--clients {} is too many: at most {clients_max} (what a scenario file holds)",
            args.clients
        );
    }
    let mut bound = ExploreBound::small(args.clients, args.sends);
    bound.config.passive_observer = false;
    bound.config.scrolls_per_client = args.scrolls;
    bound.config.deltas_per_segment_max = args.deltas;
    bound.config.tool_calls_per_turn_max = args.tool_calls;
    bound.config.ws_reorder_window = args.window.max(1);
    bound.config.status_on_connect = !args.no_status_on_connect;
    bound.depth_max = args.depth_max;
    bound.reduction = !args.plain;
    bound.shortest = !args.first;
    bound.state_cache = !args.no_cache;
    if args.one_sender {
        // Only client 0 sends: mark every other client passive by giving the world one
        // observer when there are two tabs; with more, the extra tabs still send.
        bound.config.passive_observer = true;
        if args.clients > 2 {
            anyhow::bail!("--one-sender needs --clients 2");
        }
    }
    Ok(bound)
}

/// Search, with a progress bar on a terminal.
fn explore_with_progress(store: &dyn StoreFactory, bound: &ExploreBound) -> ExploreReport {
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::new(1_000_000);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} {elapsed_precise} [{bar:40}] {percent}% (eta {eta}) {msg}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar
    });
    let report = explore(store, bound, &mut |p| {
        if let Some(bar) = &bar {
            bar.set_position((p.fraction_done * 1e6) as u64);
            bar.set_message(format!("{} schedules", p.schedules));
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    report
}

fn print_text(
    store: &dyn StoreFactory,
    bound: &ExploreBound,
    report: &ExploreReport,
    elapsed: std::time::Duration,
) -> anyhow::Result<()> {
    println!("explore {} · {}", store.name(), report.bound);
    println!(
        "schedules {} (reduction {}), sleep-blocked {}, truncated {}, steps applied {}, distinct states {}",
        report.schedules,
        if report.reduction { "sleep sets" } else { "off" },
        report.sleep_blocked,
        report.truncated,
        report.steps_applied,
        report.distinct_states
    );
    match report.state_cache {
        StateCache::On => println!(
            "state cache: {} distinct full states, {} cached ({:.1} MiB of key parts), {} revisits pruned, {} searched again in part; {:.1} schedules + pruned revisits per cached state",
            report.distinct_full_states,
            report.states_cached,
            report.state_key_bytes as f64 / (1024.0 * 1024.0),
            report.revisits_pruned,
            report.revisits_partial,
            (report.schedules + report.revisits_pruned) as f64 / report.states_cached.max(1) as f64
        ),
        StateCache::Unsupported => println!(
            "state cache: off, {} cannot expose its internal state (stateless search)",
            store.name()
        ),
        StateCache::Off => println!("state cache: off (--no-cache)"),
    }
    eprintln!(
        "({elapsed:.1?}, {:.0} steps/s)",
        report.steps_applied as f64 / elapsed.as_secs_f64().max(1e-9)
    );
    match &report.counterexample {
        None if report.verified() => {
            println!("verified: no violation within bound ({})", report.bound)
        }
        None => println!(
            "no violation found, but {} schedules were cut at depth_max: not a verification",
            report.truncated
        ),
        Some(c) => {
            println!("counterexample ({} steps, shortest found):", c.steps.len());
            for line in trace_lines(store, bound.config.clone(), &c.steps) {
                println!("  {line}");
            }
            print!("verdict: FAIL {}", c.violation);
            println!("steps (JSON): {}", serde_json::to_string(&c.steps)?);
        }
    }
    Ok(())
}
