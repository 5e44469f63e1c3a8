//! `reconcile-sim replay FILE [--store NAME] [--json] [--format text|mermaid]`

use std::path::{Path, PathBuf};

use reconcile_sim::oracle::Invariant;
use reconcile_sim::run::Outcome;
use reconcile_sim::trace::class::Class;
use reconcile_sim::trace::scenario;
use reconcile_sim::trace::scenario::Scenario;
use reconcile_sim::trace::timeline::{
    format_mermaid, format_text, narrate_masked, Narration, Phase,
};

use super::flags::{resolve_scenario_store, AllowExecFlag, ExecFlags};
use super::verdict::Verdict;

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Format {
    /// A timeline, one column per actor.
    Text,
    /// A mermaid sequence diagram, fenced for GitHub Markdown.
    Mermaid,
}

#[derive(clap::Args)]
pub struct Args {
    /// The scenario file.
    file: PathBuf,
    /// Replay against this store instead of the one the file names.
    #[arg(long)]
    store: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    allow: AllowExecFlag,
    #[command(flatten)]
    exec: ExecFlags,
    /// How to draw the replay.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Judge other invariants than the file's (its `config.judged`, or all).
    #[command(flatten)]
    invariants: super::flags::InvariantFlags,
    /// Also write what tab `--tab` went through as a recorded log (`docs/record.md`): the
    /// log `import` turns back into a scenario, as the adapter's recorder would write it
    /// (texts not private).
    #[arg(long, value_name = "LOG.json")]
    log: Option<PathBuf>,
    /// The tab whose log `--log` writes (0-based).
    #[arg(long, default_value_t = 0, requires = "log")]
    tab: u8,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let mut sc = scenario::load(&args.file)?;
    if args.invariants.invariants.is_some() || args.invariants.skip.is_some() {
        sc.config.judged = args.invariants.judged()?;
    }
    let store = resolve_scenario_store(
        &args.file,
        &sc,
        args.store.as_deref(),
        args.exec,
        args.allow,
    )?;
    let store = store.as_ref();
    let contract = store.contract().map_err(anyhow::Error::msg)?;
    let steps = sc.steps();
    if let Some(path) = &args.log {
        if args.tab >= sc.config.clients {
            anyhow::bail!(
                "--tab {}: the scenario has {} tabs",
                args.tab,
                sc.config.clients
            );
        }
        let log = reconcile_sim::trace::log::record_tab(store, sc.config.clone(), &steps, args.tab);
        reconcile_sim::util::fs::write_atomically(path, log.to_json().as_bytes())
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    let (n, class) = narrate_masked(store, sc.config.clone(), &steps, &sc.masked);
    // `expect` (and `class`) speak about the store the file names (through any command
    // line that states its name); on another store no violation is expected.
    let own_store = sc.is_of(store);
    let replayed = Replayed {
        outside_contract: contract.unmet_by(&sc.config),
        contract,
        store: store.name(),
        expect: if own_store { sc.expect } else { None },
        expect_class: if own_store { sc.class.clone() } else { None },
        class,
        n,
    };
    if args.json {
        let value = replayed.json(&args.file);
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        match args.format {
            Format::Text => replayed.print_text(&args.file, &sc),
            Format::Mermaid => print!("{}", format_mermaid(&replayed.n, replayed.expect)),
        }
    }
    Ok(match replayed.n.report.outcome {
        Outcome::Pass => Verdict::Clean,
        Outcome::Fail(_) => Verdict::Violation,
    })
}

/// One replay: what the file expects of the store replayed, and what happened.
struct Replayed {
    store: String,
    /// The contract the store replayed declares.
    contract: reconcile_sim::model::pins::WorldPins,
    /// The contract's settings the scenario's world is outside of: a world the store's app
    /// never meets (a finding there is not the app's).
    outside_contract: Vec<String>,
    n: Narration,
    /// The file's `expect`, on the store it names (no violation is expected on another).
    expect: Option<Invariant>,
    /// The class the replay showed.
    class: Option<Class>,
    /// The file's `class`, on the store it names.
    expect_class: Option<Class>,
}

impl Replayed {
    /// The replay as one JSON object: what the file expects, what happened, and the inputs the
    /// store did not take.
    fn json(&self, file: &Path) -> serde_json::Value {
        let Replayed {
            store,
            n,
            expect,
            class,
            expect_class,
            contract,
            outside_contract,
        } = self;
        let skipped: Vec<_> = n
            .lines
            .iter()
            .filter_map(|l| match l.phase {
                Phase::Skipped { input_index } => {
                    Some(serde_json::json!({"index": input_index, "step": l.step}))
                }
                _ => None,
            })
            .collect();
        serde_json::json!({
            "file": file.display().to_string(),
            "store": store,
            "expect": expect,
            "outcome": n.report.outcome,
            "class": class,
            "class_name": class.as_ref().map(|c| c.to_string()),
            "expect_class": expect_class,
            "reproduced": n.report.outcome.invariant() == *expect
                && (expect_class.is_none() || *class == *expect_class),
            "steps": n.report.steps.len(),
            "drain_steps": n.report.drain.len(),
            "skipped": skipped,
            "contract": contract,
            "outside_contract": outside_contract,
        })
    }

    /// The replay as a timeline, with the file's description, options, class and masks. Text
    /// from the file is printed with control characters as escapes: a scenario from elsewhere
    /// must not drive the terminal.
    fn print_text(&self, file: &Path, sc: &Scenario) {
        let Replayed {
            store,
            n,
            expect,
            class,
            expect_class,
            contract,
            outside_contract,
        } = self;
        println!(
            "scenario {} · store {}",
            scenario::printable(&file.display().to_string()),
            scenario::printable(store)
        );
        if let Some(d) = &sc.description {
            println!("{}", scenario::printable(d));
        }
        if !sc.world_pins.is_empty() {
            println!("world pins (of the run it came from): {}", sc.world_pins);
        }
        if !contract.is_empty() {
            println!("contract (declared by the store): {contract}");
        }
        if !outside_contract.is_empty() {
            println!(
                "outside the contract: this scenario's world is not {} (the store's app never meets it: what breaks here is not the app's)",
                outside_contract.join(", ")
            );
        }
        if !sc.config.judged.is_all() {
            use reconcile_sim::oracle::judged::JudgedExt;
            println!("invariants: {}", sc.config.judged.describe());
        }
        println!("options:");
        print!("{}", sc.config.describe());
        print!("{}", format_text(n, *expect));
        if let Some(c) = class {
            let agrees = match expect_class {
                Some(want) if want == c => " (the file's class: reproduced)",
                Some(_) => " (NOT the file's class)",
                None => "",
            };
            println!("class: {c}{agrees}");
        }
        if let (Some(want), None) = (expect_class, class) {
            println!(
                "class: the file's class ({}) did not show",
                scenario::printable(&want.to_string())
            );
        }
        if !sc.masked.is_empty() {
            let names: Vec<String> = sc.masked.iter().map(|c| c.to_string()).collect();
            println!("masked: {}", scenario::printable(&names.join("; ")));
        }
    }
}
