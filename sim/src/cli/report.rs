//! `reconcile-sim report FILE… [--out DIR] [--allow-exec]`: self-contained HTML pages (see
//! `reconcile_sim::campaign::pipeline::report`): a scenario file's page beside it (the
//! interleaving drawn step by step), or one page for `fuzz` / `check` / `nightly` results
//! and nights in `--out` (default `reconcile-report/`), with a page per class.

use std::path::PathBuf;

use reconcile_sim::campaign::pipeline::report::{report, ReportRequest};
use reconcile_sim::campaign::report::{files, Written};

use super::flags::{AllowExecFlag, ExecFlags};
use super::verdict::Verdict;

#[derive(clap::Args)]
pub struct Args {
    /// Scenario files, result files (what `fuzz`, `check` and `nightly` write with
    /// `--result`), nights' `summary.json`, or folders searched for results and nights.
    #[arg(required = true, value_name = "FILE|DIR")]
    paths: Vec<PathBuf>,
    /// Where the pages go: for results and nights, `DIR/report.html` and the pages of the
    /// scenarios they carry (default `reconcile-report`); for scenario files, `DIR/<name>.html`
    /// (default: beside each file).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    allow: AllowExecFlag,
    #[command(flatten)]
    exec: ExecFlags,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let exec = args.exec.options()?;
    let allow_exec = args.allow.allow_exec;
    let written = report(&ReportRequest {
        inputs: args.paths.clone(),
        out: args.out.clone(),
        resolve: &|path, sc| {
            reconcile_sim::store::recorded::resolve_recorded(
                &sc.store,
                path,
                sc.store_dir.as_deref(),
                exec,
                allow_exec,
            )
        },
    })?;
    let (lines, errors) = written_lines(&written);
    print!("{lines}");
    if !errors.is_empty() {
        anyhow::bail!("{}", errors.join("\n"));
    }
    Ok(Verdict::Clean)
}

/// What a command that wrote pages prints (`report: PATH`, a line per page not made) and
/// the files it could not write, which fail it (exit 2) after everything is printed.
pub fn written_lines(w: &Written) -> (String, Vec<String>) {
    let mut out = String::new();
    if let Some(page) = &w.page {
        out.push_str(&format!(
            "report: {} ({} scenario page{})\n",
            page.display(),
            w.scenario_pages.len(),
            if w.scenario_pages.len() == 1 { "" } else { "s" }
        ));
    } else {
        for p in files(w) {
            out.push_str(&format!("report: {}\n", p.display()));
        }
    }
    for why in &w.not_made {
        out.push_str(&format!(
            "  no page: {}\n",
            reconcile_sim::trace::scenario::printable(why)
        ));
    }
    (out, w.errors.clone())
}
