//! The `reconcile-sim` binary: parses, calls the library, prints. See `cli/`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}

/// mimalloc: explore clones and drops worlds by the million, and glibc's allocator spent
/// over half of the search's time consolidating its free lists (perf, `explore --sends 2`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
