//! The `reconcile-sim` binary: parses, calls the library, prints. See `cli/`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
