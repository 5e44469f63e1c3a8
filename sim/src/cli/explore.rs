//! `reconcile-sim explore --store NAME [world flags] [search flags] [--max-states N] [--max-memory SIZE] [--time T] [--shard I/N] [--first] [--json] [--out FILE]`

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};
use reconcile_sim::campaign::findings::replay_command;
use reconcile_sim::explore::{
    collision_bound, explore, resident_bytes, Counterexample, Engine, ExploreBound, ExploreReport,
    ExploreResult, Limits, Parallelism, Reductions, Refused, Shard, StateCache, TimeLimit,
    JOBS_MAX,
};
use reconcile_sim::model::config::WorldConfig;
use reconcile_sim::model::content::MessageTexts;
use reconcile_sim::model::store::StoreFactory;
use reconcile_sim::trace::timeline::trace_lines;

use super::flags::resolve_store;
use super::verdict::Verdict;
use reconcile_sim::model::pins::WorldPins;

/// `--message-texts`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Texts {
    Tokens,
    Colliding,
}

#[derive(clap::Args)]
#[command(after_help = "\
By default each tab is judged in a search of its own, the other tabs reduced to their \
POSTs, one tab per class of interchangeable tabs, depth-first with sleep sets and \
persistent sets (the judged tab first, else the backend first) over 64-bit fingerprints of the full state (docs/model.md, \"Explore: \
reductions and their soundness\"). --breadth-first searches on every core instead, with \
the same verdict and counterexample, keeping every state of a level as a world in memory.

Exit codes:
  0    verified: every schedule within the bound searched, no violation (a search cut at \
--depth-max prints no verification and exits 0)
  1    a violation: the shortest counterexample is printed
  2    bad usage or input: a flag, a store, a world explore cannot search soundly, or a \
file that could not be written
  3    a bug in reconcile-sim, not in the store under test (please report it)
  4    inconclusive: --max-states, --max-memory or --time hit before anything was \
verified or refuted (the message names the flag; what was covered is printed)
  130  Ctrl-C, 143 SIGTERM, 129 SIGHUP (128 + the signal): the search stops and prints \
what it covered
  141  stdout's reader went away (`| head`)
")]
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
    /// Only the first tab sends, the second watches (two tabs).
    #[arg(long)]
    one_sender: bool,
    /// The last tab only watches (its user sends nothing), with any number of tabs.
    #[arg(long)]
    observer: bool,
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
    /// At most this many later events may overtake any one event within the window (a
    /// bound on how late an event arrives; without it, one event may wait behind every
    /// later one). Every order it allows, the unbounded window allows too.
    #[arg(long, value_name = "N")]
    overtakes: Option<u8>,
    /// A turn may fail at any point while it streams (`AgentFail`).
    #[arg(long)]
    turn_failures: bool,
    /// How the users' messages are written: unique tokens, or colliding texts (the same
    /// text twice, texts inside one another).
    #[arg(long, value_enum, default_value = "tokens")]
    message_texts: Texts,
    /// Do not send the status to a tab on connect (a fresh tab believes "running").
    #[arg(long)]
    no_status_on_connect: bool,
    /// Longest schedule explored.
    #[arg(long, default_value_t = 200)]
    depth_max: usize,
    /// Enumerate every interleaving (no partial-order reduction), for the ratio. Implies
    /// --depth-first --whole-world.
    #[arg(long)]
    plain: bool,
    /// Do not merge equal states (stateless search, every schedule run to its end).
    /// Implies --depth-first --whole-world.
    #[arg(long)]
    no_cache: bool,
    /// The breadth-first search over fingerprints, on --jobs threads: the same verdict and
    /// counterexample, every state of a level kept in memory as a world (stores that copy
    /// themselves only; others get the depth-first search).
    #[arg(long)]
    breadth_first: bool,
    /// Name states in the cache by exact keys (hash-consed, some 130 bytes a state) instead
    /// of 64-bit fingerprints: no collision bound to argue. Depth-first only.
    #[arg(long)]
    exact_keys: bool,
    /// Judge every tab in one search of the real world (no per-tab reduction, no symmetry).
    #[arg(long)]
    whole_world: bool,
    /// Search every tab, also those interchangeable with one already searched.
    #[arg(long)]
    no_symmetry: bool,
    /// Take every enabled step from every state (no persistent sets in the per-tab search).
    #[arg(long)]
    no_persistent: bool,
    /// Deliver the judged tab's POST responses as steps of their own, even when its store
    /// ignores them (no inert-response reduction in the per-tab search).
    #[arg(long)]
    no_inert_responses: bool,
    /// Never let the backend run ahead of the judged tab where the tab cannot go first
    /// (no backend-first persistent sets; with them, a search that meets a violation runs
    /// again without them for the shortest counterexample).
    #[arg(long)]
    no_backend_first: bool,
    /// Worker threads: of --breadth-first (default: every core), or of the depth-first
    /// search (default 1), whose threads share one state cache. The verdict and the
    /// counterexample do not depend on it; the depth-first counts (states, schedules) vary
    /// from run to run with more than one.
    #[arg(long)]
    jobs: Option<usize>,
    /// Stop once more distinct states than this were reached: inconclusive, exit 4.
    #[arg(long)]
    max_states: Option<u64>,
    /// Stop once the process's resident memory exceeds this (e.g. 1G, 512M, bytes without
    /// a suffix): inconclusive, exit 4.
    #[arg(long, value_parser = parse_size)]
    max_memory: Option<u64>,
    /// Stop after this long (e.g. 30s, 10m): inconclusive, exit 4, with what was covered.
    #[arg(long, value_parser = humantime::parse_duration)]
    time: Option<std::time::Duration>,
    /// Search only shard I of N of the search tree (see docs/model.md); the N shards
    /// together search every schedule, and their --json results merge.
    #[arg(long)]
    shard: Option<Shard>,
    /// Stop at the first violation instead of searching for the shortest.
    #[arg(long)]
    first: bool,
    /// Print one JSON object on stdout (a result file that merges with other shards'),
    /// nothing else: other lines go to stderr.
    #[arg(long)]
    json: bool,
    /// Write the counterexample to this file as a scenario (replay it with `reconcile-sim replay`).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Pin options of the searched world (applied over the flags above): `NAME=VALUE` or a
    /// profile, as `run --world`; ranges are refused (a search covers one world).
    #[command(flatten)]
    world: super::flags::WorldFlag,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let store = resolve_store(&args.store)?;
    let store = store.as_ref();
    let contract = store.contract().map_err(anyhow::Error::msg)?;
    let bound = bound(&args, &contract)?;
    let started = std::time::Instant::now();
    let report = explore_with_progress(store, &bound);
    let elapsed = started.elapsed();
    let mut saved = None;
    let mut write_error = None;
    if let (Some(path), Some(c)) = (&args.out, &report.counterexample) {
        // The counterexample as a scenario file: it replays, shrinks and gates like any other.
        let mut scenario = reconcile_sim::trace::scenario::Scenario::record(
            store,
            bound.world.clone(),
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
            Ok(()) => saved = Some(path.clone()),
            Err(e) => write_error = Some(format!("cannot write {}: {e}", path.display())),
        }
    }
    if args.json {
        // JSON only on stdout: the result file of this search (or shard).
        if let Some(path) = &saved {
            eprintln!("scenario: {}", path.display());
            eprintln!("replay: {}", replay_command(path));
        }
        let result = ExploreResult::new(store.name(), &bound, report.clone());
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        if let Some(path) = &saved {
            println!("scenario: {}", path.display());
            println!("replay: {}", replay_command(path));
        }
        print_text(store, &bound, &report, elapsed)?;
    }
    if let Some(e) = write_error {
        anyhow::bail!(e);
    }
    verdict(&report)
}

/// Exit 1 with a counterexample; else exit 4 (inconclusive, naming the limit) when a
/// limit stopped the search; else 0.
pub(super) fn verdict(report: &ExploreReport) -> anyhow::Result<Verdict> {
    if report.counterexample.is_some() {
        return Ok(Verdict::Violation);
    }
    if let Some(limit) = &report.limit_hit {
        return Ok(Verdict::Inconclusive(limit.to_string()));
    }
    Ok(Verdict::Clean)
}

/// The text of a merged explore result (`reconcile-sim merge`): the search, the counts
/// added over the shards, and the verdict; the counterexample narrated when the store is
/// one of this build's (an `exec:` store is not started again just to narrate it).
pub(super) fn print_result(result: &ExploreResult) -> anyhow::Result<()> {
    let o = &result.result;
    let r = &o.report;
    println!(
        "explore {} · {} · shards {} of {} merged",
        o.config.store,
        r.bound,
        result.shards.done.len(),
        result.shards.count
    );
    println!("scope: {}", r.scope);
    println!("search: {}", o.config.search);
    println!(
        "schedules {}, truncated {}, steps applied {}, distinct full states {} (added over the shards: a state two shards reach is counted twice)",
        r.schedules, r.truncated, r.steps_applied, r.distinct_full_states
    );
    match &r.counterexample {
        None if o.verified => println!("verified: no violation within bound ({})", r.bound),
        None => println!(
            "no violation found, but not a verification ({})",
            r.limit_hit
                .clone()
                .unwrap_or_else(|| format!("{} schedules cut at depth_max", r.truncated))
        ),
        Some(c) => {
            println!(
                "counterexample ({} steps, shortest over the shards):",
                c.steps.len()
            );
            if let Some(kind) = reconcile_sim::store::by_name(&o.config.store) {
                for line in trace_lines(&kind, o.config.world.clone(), &c.steps) {
                    println!("  {line}");
                }
            }
            print!("verdict: FAIL {}", c.violation);
            println!("steps (JSON): {}", serde_json::to_string(&c.steps)?);
        }
    }
    Ok(())
}

/// `1G`, `512M`, `64K` or a number of bytes.
fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, unit) = match t.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => t.split_at(i),
        None => (t, ""),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?} is not a size (e.g. 1G, 512M)"))?;
    let shift = match unit
        .to_ascii_uppercase()
        .trim_end_matches("IB")
        .trim_end_matches('B')
    {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        _ => return Err(format!("{text:?}: unknown unit (K, M, G)")),
    };
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{text:?} is too large"))
}

/// The bound the flags describe: the world ([`world`]), then the reductions, limits and
/// parallelism, refused in the words of the flags when the engines do not search them
/// ([`ExploreBound::validate`]).
fn bound(args: &Args, contract: &WorldPins) -> anyhow::Result<ExploreBound> {
    let mut bound = ExploreBound::small(args.clients, args.sends);
    bound.world = world(args, contract)?;
    bound.depth_max = args.depth_max;
    bound.shortest = !args.first;
    // `--plain` and `--no-cache` are the baselines: the search the reductions are measured
    // against, so they imply the whole world and no per-tab reduction.
    let baseline = args.plain || args.no_cache;
    let persistent = !args.no_persistent && !baseline;
    bound.reductions = Reductions {
        sleep_sets: !args.plain,
        state_cache: !args.no_cache,
        exact_keys: args.exact_keys,
        per_tab: !(args.whole_world || baseline),
        symmetry: !args.no_symmetry,
        persistent,
        backend_first: persistent && !args.no_backend_first,
        inert_post_responses: !args.no_inert_responses && !baseline,
    };
    bound.parallelism = Parallelism {
        engine: if args.breadth_first {
            let every_core = || std::thread::available_parallelism().map_or(1, |n| n.get());
            Engine::BreadthFirst {
                jobs: args.jobs.unwrap_or_else(|| every_core().min(JOBS_MAX)),
            }
        } else {
            Engine::DepthFirst
        },
        jobs: if args.breadth_first {
            1
        } else {
            args.jobs.unwrap_or(1)
        },
        shard: args.shard,
    };
    bound
        .validate()
        .map_err(|refused| anyhow::anyhow!(refusal(refused)))?;
    bound.limits = Limits {
        max_states: args.max_states,
        max_memory: args.max_memory,
        time: args.time.map(TimeLimit::from_now),
    };
    Ok(bound)
}

/// A bound the engines do not search, in the words of the flags.
fn refusal(refused: Refused) -> String {
    match refused {
        Refused::BreadthFirstWith(_) => "--breadth-first goes with none of --plain, --no-cache, --exact-keys, --shard (depth-first only)".to_string(),
        Refused::Jobs(jobs) => format!("--jobs {jobs}: must be between 1 and {JOBS_MAX}"),
        Refused::ThreadsWith(_) => "--jobs above 1 goes with none of --plain, --no-cache, --exact-keys, --shard (the threads share one cache of fingerprints over the whole tree)".to_string(),
    }
}

/// The world the flags describe, under the store's declared contract and then the `--world`
/// pins, refused when explore cannot search it.
fn world(args: &Args, contract: &WorldPins) -> anyhow::Result<WorldConfig> {
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
    if args.overtakes.is_some() && args.window <= 1 {
        anyhow::bail!("--overtakes bounds the reordering within --window: with --window 1 events arrive in order and none overtakes another (give --window 2 or more)");
    }
    if args.one_sender && args.clients > 2 {
        anyhow::bail!("--one-sender needs --clients 2 (--observer makes the last of any number of tabs watch)");
    }
    let mut world = ExploreBound::small(args.clients, args.sends).world;
    world.passive_observer = args.one_sender || args.observer;
    world.scrolls_per_client = args.scrolls;
    world.deltas_per_segment_max = args.deltas;
    world.tool_calls_per_turn_max = args.tool_calls;
    world.ws_reorder_window = args.window.max(1);
    world.ws_overtakes_max = args.overtakes;
    world.status_on_connect = !args.no_status_on_connect;
    world.turn_failures = args.turn_failures;
    world.message_texts = match args.message_texts {
        Texts::Tokens => MessageTexts::Tokens,
        Texts::Colliding => MessageTexts::Colliding,
    };
    let pins = contract
        .then(&args.world.pins()?)
        .map_err(|e| anyhow::anyhow!("the store's contract ({contract}) under --world: {e}"))?;
    if let Some(range) = pins.settings().into_iter().find(|s| s.contains("..")) {
        anyhow::bail!(
            "--world {range}: explore searches one world, not a range of them (pin one value, or run it once per value)"
        );
    }
    world = pins.apply(world);
    if let Some(why) = world.incoherence() {
        anyhow::bail!("--world: {why}");
    }
    if world.clients < 2 {
        anyhow::bail!("--world clients=1: explore searches worlds of at least 2 tabs");
    }
    if world.ws_overtakes_max.is_some() && world.ws_reorder_window <= 1 {
        anyhow::bail!("--overtakes bounds the reordering within the window, which --world pins to 1: events arrive in order and none overtakes another");
    }
    if let Some(why) = reconcile_sim::explore::world_refusal(&world) {
        anyhow::bail!("{why}");
    }
    Ok(world)
}

/// Search, with a progress bar on a terminal (stderr): states, states/s, resident memory
/// and, once it can be estimated, the share done and an ETA.
fn explore_with_progress(store: &dyn StoreFactory, bound: &ExploreBound) -> ExploreReport {
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::new(1_000_000);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} {elapsed_precise} [{bar:30}] {percent}% (eta {eta}) {msg}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar
    });
    let started = std::time::Instant::now();
    let report = explore(store, bound, &mut |p| {
        if let Some(bar) = &bar {
            if let Some(f) = p.fraction_done {
                bar.set_position((f * 1e6) as u64);
            }
            let secs = started.elapsed().as_secs_f64().max(1e-3);
            let rss = resident_bytes().map_or("?".to_string(), |b| {
                format!("{:.0} MiB", b as f64 / (1024.0 * 1024.0))
            });
            let tab = p.tab.map_or(String::new(), |c| format!("c{c}: "));
            bar.set_message(format!(
                "{tab}{} states, {} schedules, {:.0} states/s, {} steps, {rss} resident{}",
                p.states,
                p.schedules,
                p.states as f64 / secs,
                p.steps_applied,
                if p.fraction_done.is_none() {
                    " (no ETA yet)"
                } else {
                    ""
                }
            ));
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
    if let Ok(contract) = store.contract() {
        if !contract.is_empty() {
            println!("contract (declared by the store): {contract}");
        }
    }
    println!("scope: {}", report.scope);
    if let (Some(shard), Some(c)) = (bound.parallelism.shard, &report.covered) {
        let units: usize = c.units.iter().map(Vec::len).sum();
        println!(
            "shard {shard}: {units} of {} units per tab searched (prefixes of {} steps; every shard lists the same units)",
            c.units_total, c.prefix_depth
        );
    }
    if let Some(why) = &report.per_tab_refused {
        println!("per-tab search refused ({why}); the whole world was searched");
    }
    if let Some(why) = &report.post_responses_refused {
        println!("inert POST responses refused ({why}); searched again with them delivered");
    }
    match report.engine {
        Engine::DepthFirst => print_depth_first(store, report),
        Engine::BreadthFirst { jobs } => print_breadth_first(report, jobs),
    }
    let secs = elapsed.as_secs_f64().max(1e-9);
    eprintln!(
        "({elapsed:.1?}, {:.0} steps/s, {:.0} states/s)",
        report.steps_applied as f64 / secs,
        report.distinct_full_states.max(report.distinct_states) as f64 / secs
    );
    match &report.counterexample {
        None if report.verified() => {
            println!("verified: no violation within bound ({})", report.bound)
        }
        None if report.limit_hit.is_some() => println!(
            "no violation found before the search stopped: not a verification (covered: {}; {} distinct full states, {} schedules, {} steps)",
            report.scope, report.distinct_full_states, report.schedules, report.steps_applied
        ),
        None => println!(
            "no violation found, but {} schedules were cut at depth_max: not a verification",
            report.truncated
        ),
        Some(c) => print_counterexample(store, bound, report, c)?,
    }
    Ok(())
}

fn print_breadth_first(report: &ExploreReport, jobs: usize) {
    println!(
        "schedules {} (distinct quiescent states; breadth-first, no sleep sets), truncated {}, steps applied {}",
        report.schedules, report.truncated, report.steps_applied
    );
    println!(
        "state cache: {} distinct full states as 64-bit fingerprints ({:.1} MiB, {:.1} bytes a state; chance of any collision <= {:.1e}), {} revisits; {jobs} thread(s)",
        report.distinct_full_states,
        report.visited_bytes as f64 / (1024.0 * 1024.0),
        report.visited_bytes as f64 / report.distinct_full_states.max(1) as f64,
        collision_bound(report.distinct_full_states),
        report.revisits
    );
}

/// The counterexample `c` of `report`: how it was found, its trace, verdict and steps.
fn print_counterexample(
    store: &dyn StoreFactory,
    bound: &ExploreBound,
    report: &ExploreReport,
    c: &Counterexample,
) -> anyhow::Result<()> {
    let which = if bound.shortest {
        "shortest found"
    } else {
        "the first found (--first): a shorter one may exist"
    };
    println!("counterexample ({} steps, {which}):", c.steps.len());
    if let Some(check) = &report.shortest_check {
        println!("  ({check})");
    }
    if let Some(found) = report.backend_first_found {
        println!(
            "  (the search with backend-first sets met a violation after {found} steps; searched again without them for the shortest, whose counts are above)"
        );
    }
    for line in trace_lines(store, bound.world.clone(), &c.steps) {
        println!("  {line}");
    }
    print!("verdict: FAIL {}", c.violation);
    println!("steps (JSON): {}", serde_json::to_string(&c.steps)?);
    Ok(())
}

fn print_depth_first(store: &dyn StoreFactory, report: &ExploreReport) {
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
        StateCache::On if report.state_key_bytes > 0 => println!(
            "state cache: {} distinct full states by exact keys, {} cached ({:.1} MiB of key parts), {} revisits pruned, {} searched again in part",
            report.distinct_full_states,
            report.states_cached,
            report.state_key_bytes as f64 / (1024.0 * 1024.0),
            report.revisits_pruned,
            report.revisits_partial,
        ),
        StateCache::On => println!(
            "state cache: {} distinct full states as 64-bit fingerprints ({:.1} MiB, {:.1} bytes a state; chance of any collision <= {:.1e}), {} revisits pruned, {} searched again in part",
            report.distinct_full_states,
            report.visited_bytes as f64 / (1024.0 * 1024.0),
            report.visited_bytes as f64 / report.distinct_full_states.max(1) as f64,
            collision_bound(report.distinct_full_states),
            report.revisits_pruned,
            report.revisits_partial,
        ),
        StateCache::Unsupported => println!(
            "state cache: off, {} cannot expose its internal state (stateless search)",
            store.name()
        ),
        StateCache::Off => println!("state cache: off (--no-cache)"),
    }
}
