//! `reconcile-sim check`
use super::Verdict;
#[derive(clap::Args)]
pub struct Args {}
pub fn main(_args: Args) -> anyhow::Result<Verdict> { anyhow::bail!("todo") }
