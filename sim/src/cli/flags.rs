//! Flags several subcommands share, each parsed once into a typed value.

use std::path::PathBuf;

use reconcile_sim::campaign::settle_budget::SettleBudget;
use reconcile_sim::exec::ExecOptions;
use reconcile_sim::exec::{PIN_ENV, STARTUP_TIMEOUT_ENV, TIMEOUT_ENV};
use reconcile_sim::model::store::StoreFactory;
use reconcile_sim::run::strategy::StrategySpec;
use reconcile_sim::trace::shrink::Limits;

/// Where failures found by `run`, `fuzz` and `check` are written.
pub const DEFAULT_OUT: &str = "reconcile-failures";

/// `--strategy NAME [--depth D]`.
#[derive(clap::Args, Clone)]
pub struct StrategyFlags {
    /// How steps are chosen: random, pct or swarm.
    #[arg(long, default_value = "random")]
    strategy: String,
    /// PCT bug depth (with `--strategy pct`; default 3).
    #[arg(long)]
    depth: Option<u32>,
}

impl StrategyFlags {
    /// The strategy the flags name.
    pub fn spec(&self) -> anyhow::Result<StrategySpec> {
        StrategySpec::from_flags(&self.strategy, self.depth).map_err(anyhow::Error::msg)
    }
}

/// `--jobs J`.
#[derive(clap::Args, Clone, Copy)]
pub struct JobsFlag {
    /// Worker threads (default: every core). Results do not depend on it.
    #[arg(long)]
    jobs: Option<usize>,
}

/// The most worker threads `--jobs` may ask for: far more than any machine's cores, far
/// fewer than the threads a process can start.
pub const JOBS_MAX: usize = 1024;

impl JobsFlag {
    /// The number of worker threads.
    pub fn jobs(&self) -> anyhow::Result<usize> {
        match self.jobs {
            Some(0) => anyhow::bail!("--jobs must be at least 1"),
            Some(j) if j > JOBS_MAX => {
                anyhow::bail!("--jobs {j} is too many: at most {JOBS_MAX} worker threads")
            }
            Some(j) => Ok(j),
            None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        }
    }
}

/// The longest `--time` (and `--max-shrink-time`) a command takes: a year, so that every
/// deadline computed from it is a moment the clock can hold.
pub const TIME_MAX: std::time::Duration = std::time::Duration::from_secs(366 * 86_400);

/// Parse a duration flag (`10s`, `5m`), at most [`TIME_MAX`].
pub fn duration(text: &str) -> Result<std::time::Duration, String> {
    let d = humantime::parse_duration(text).map_err(|e| e.to_string())?;
    if d > TIME_MAX {
        return Err(format!(
            "{text} is too long: at most {}",
            humantime::format_duration(TIME_MAX)
        ));
    }
    Ok(d)
}

/// Check that seeds `start .. start + count` exist (`what` names the flags for the
/// message): a range past the largest seed would wrap around to seed 0.
pub fn seed_range(start: u64, count: u64, what: &str) -> anyhow::Result<()> {
    if start.checked_add(count).is_none() {
        anyhow::bail!(
            "{what}: seeds {start} + {count} go past the largest seed ({}); lower the start or the count",
            u64::MAX
        );
    }
    Ok(())
}

/// The shrinking limits, shared by every subcommand that shrinks.
#[derive(clap::Args, Clone, Copy)]
pub struct LimitFlags {
    /// Replays shrinking may spend on one failure before it gives up.
    #[arg(long, default_value_t = Limits::default().replays_max)]
    pub max_shrink_iters: u64,
    /// Time shrinking may spend on one failure before it gives up (e.g. `30s`).
    #[arg(long, value_parser = duration, default_value = "60s")]
    pub max_shrink_time: std::time::Duration,
}

impl LimitFlags {
    /// The limits the flags set.
    pub fn limits(&self) -> Limits {
        Limits {
            replays_max: self.max_shrink_iters,
            time_max: self.max_shrink_time,
            deadline: None,
        }
    }
}

/// `--settle-time`: how long settling what a campaign found may take (`fuzz`, `check`).
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct SettleFlag {
    /// How long the recheck, shrinking and needs searches after the campaign may take:
    /// `campaign` (the default: as long as the campaign took, at least 30 s), a duration
    /// (`90s`, `5m`) or `unbounded`. Every class is shrunk before any needs search; what
    /// the budget does not reach is listed as unfinished.
    #[arg(long = "settle-time", value_name = "campaign|DURATION|unbounded", value_parser = SettleBudget::parse, default_value = "campaign")]
    pub settle_time: SettleBudget,
}

/// `--out DIR` for the failures a command finds.
#[derive(clap::Args, Clone)]
pub struct OutFlag {
    /// Where failures are written, shrunk, as scenario files.
    #[arg(long, default_value = DEFAULT_OUT)]
    pub out: PathBuf,
}

/// How `exec:` stores run, from the environment: the per-message timeout
/// (`RECONCILE_SIM_EXEC_TIMEOUT`, e.g. `500ms`), the start-up timeout
/// (`RECONCILE_SIM_EXEC_STARTUP_TIMEOUT`) and CPU pinning (`RECONCILE_SIM_EXEC_PIN`).
pub fn exec_options() -> anyhow::Result<ExecOptions> {
    let mut options = ExecOptions::default();
    for (var, value) in [
        (TIMEOUT_ENV, &mut options.timeout),
        (STARTUP_TIMEOUT_ENV, &mut options.startup_timeout),
    ] {
        if let Ok(text) = std::env::var(var) {
            *value = humantime::parse_duration(&text)
                .map_err(|e| anyhow::anyhow!("{var}='{text}': {e}"))?;
        }
    }
    options.pin = !matches!(std::env::var(PIN_ENV).as_deref(), Ok("off" | "0" | "false"));
    Ok(options)
}

/// `--isolate`: how the processes of an `exec:` store are used.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct ExecFlags {
    /// Give every run of an `exec:` store fresh adapter processes, never reused across runs
    /// (slower: a start-up per tab per run). A verdict that changes with it depends on what
    /// a process served before its `reset` (a state leak).
    #[arg(long)]
    pub isolate: bool,
    /// Set from `--localize` by the commands that take it (`fuzz`, `check`, `nightly`).
    #[arg(skip)]
    pub localize: bool,
}

impl ExecFlags {
    /// [`exec_options`] with these flags.
    pub fn options(&self) -> anyhow::Result<ExecOptions> {
        let mut options = exec_options()?;
        options.isolate = self.isolate;
        options.localize = self.localize;
        Ok(options)
    }
}

/// Resolve `--store NAME` (a shipped store or `exec:'COMMAND ARGS'`).
pub fn resolve_store(name: &str) -> anyhow::Result<Box<dyn StoreFactory>> {
    resolve_store_with(name, ExecFlags::default())
}

/// [`resolve_store`] with `--isolate`.
pub fn resolve_store_with(name: &str, flags: ExecFlags) -> anyhow::Result<Box<dyn StoreFactory>> {
    Ok(reconcile_sim::store::resolve(name, flags.options()?)?)
}

/// Resolve `--store NAME|all`.
pub fn resolve_stores(name: &str, flags: ExecFlags) -> anyhow::Result<Vec<Box<dyn StoreFactory>>> {
    Ok(reconcile_sim::store::resolve_all(name, flags.options()?)?)
}

/// One line per store that stated settings shaping its runs (an adapter's virtual clock),
/// for the head of a text report: results say under which settings they were found.
pub fn settings_lines(stores: &[Box<dyn StoreFactory>]) -> String {
    stores
        .iter()
        .filter_map(|s| reconcile_sim::campaign::pipeline::text::settings_line(s.as_ref()))
        .collect()
}

/// `--allow-exec`: consent to run the `exec:` command a scenario file names.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct AllowExecFlag {
    /// Run the `exec:` command a scenario file names, in the directory recorded with it.
    /// Without it such a file is an error naming the command: a file from elsewhere (a
    /// pull request, an artifact) never runs a program you did not choose. `--store
    /// exec:'…'` runs a command of your choosing instead.
    #[arg(long)]
    pub allow_exec: bool,
}

/// The store to replay scenario `file` (`sc`) on: `--store NAME` when given (the user's
/// choice, run in the working directory), else the store the file names, whose `exec:`
/// command runs only with `--allow-exec`.
pub fn resolve_scenario_store(
    file: &std::path::Path,
    sc: &reconcile_sim::trace::scenario::Scenario,
    store: Option<&str>,
    exec: ExecFlags,
    allow: AllowExecFlag,
) -> anyhow::Result<Box<dyn StoreFactory>> {
    if let Some(name) = store {
        return resolve_store_with(name, exec);
    }
    reconcile_sim::store::recorded::resolve_recorded(
        &sc.store,
        file,
        sc.store_dir.as_deref(),
        exec.options()?,
        allow.allow_exec,
    )
    .map_err(|e| anyhow::anyhow!("{}: field `store`: {e}", file.display()))
}

/// `--world SETTING` (repeatable): what the seeds' worlds pin.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct WorldFlag {
    /// Pin or range a world option the seeds draw (repeatable; later ones override
    /// earlier ones): `NAME=VALUE` (`ws_reorder_window=1`, `turn_failures=false`),
    /// `NAME=A..B` (half-open) or `NAME=A..=B` (inclusive), a profile (`ordered-socket`:
    /// one ordered WebSocket per tab, only HTTP responses race; `note`: the design note's
    /// world, the default), or a JSON file of options. Everything left free is drawn by
    /// the seed as always.
    #[arg(long = "world", value_name = "NAME=VALUE|PROFILE|FILE.json")]
    pub world: Vec<String>,
}

impl WorldFlag {
    /// The pins the flags name.
    pub fn pins(&self) -> anyhow::Result<reconcile_sim::model::pins::WorldPins> {
        reconcile_sim::model::pins::WorldPins::parse(&self.world).map_err(anyhow::Error::msg)
    }
}

/// `--invariants LIST` / `--skip LIST`: what the oracle judges.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct InvariantFlags {
    /// Judge only these invariants (comma-separated: `inv1,inv2` or full names such as
    /// `inv1-no-loss`); the others are reported as skipped. A crash is always judged.
    #[arg(long, value_name = "LIST")]
    pub invariants: Option<String>,
    /// Judge every invariant but these (comma-separated, as `--invariants`; not with it).
    #[arg(long, value_name = "LIST")]
    pub skip: Option<String>,
}

impl InvariantFlags {
    /// The invariants judged.
    pub fn judged(&self) -> anyhow::Result<reconcile_sim::model::judged::Judged> {
        reconcile_sim::oracle::judged::from_flags(self.invariants.as_deref(), self.skip.as_deref())
            .map_err(anyhow::Error::msg)
    }
}

/// The worlds `--world` and `--invariants` / `--skip` choose, under the contract the
/// stores under test declare (`--world` overrides it; stores declaring different ones are
/// an error).
pub fn worlds_under(
    world: &WorldFlag,
    invariants: &InvariantFlags,
    stores: &[&dyn StoreFactory],
) -> anyhow::Result<reconcile_sim::run::worlds::Worlds> {
    worlds(world, invariants)?
        .under_contract_of(stores)
        .map_err(anyhow::Error::msg)
}

/// The worlds `--world` and `--invariants` / `--skip` choose.
pub fn worlds(
    world: &WorldFlag,
    invariants: &InvariantFlags,
) -> anyhow::Result<reconcile_sim::run::worlds::Worlds> {
    Ok(reconcile_sim::run::worlds::Worlds {
        pins: world.pins()?,
        judged: invariants.judged()?,
        contract: Default::default(),
    })
}
