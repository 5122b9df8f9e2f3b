use std::process::ExitCode;

use clap::Parser;

// Linting allocates many small, short-lived values per record (tree nodes, strings, findings);
// mimalloc serves them in about half the time the system allocator takes (issue 25's profile:
// a fifth of the CPU in malloc and free).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    toolcheck::embed::tune_allocator();
    let cli = toolcheck::cli::Cli::parse();
    toolcheck::app::run(cli.command)
}
