//! Shrink time from a fuzz-found failure to a 1-minimal scenario, median of 20 per store:
//! the shrink table of `reconcile-sim bench` alone (see `bench::shrink_bench`).
//!
//! ```sh
//! cargo run --release --example shrink_timing
//! ```

use reconcile_sim::campaign::bench::{format_shrink_table, shrink_bench};

fn main() {
    print!("{}", format_shrink_table(&shrink_bench(20)));
}
