//! `reconcile-sim stores`

use super::verdict::Verdict;

#[derive(clap::Args)]
pub struct Args {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn main(args: Args) -> anyhow::Result<Verdict> {
    let stores = reconcile_sim::store::STORES;
    if args.json {
        let list: Vec<_> = stores
            .iter()
            .map(|k| serde_json::json!({"name": k.name, "summary": k.summary}))
            .collect();
        println!("{}", serde_json::to_string_pretty(&list)?);
    } else {
        let w = stores.iter().map(|k| k.name.len()).max().unwrap_or(0);
        for k in stores {
            println!("{:<w$}  {}", k.name, k.summary);
        }
    }
    Ok(Verdict::Clean)
}
