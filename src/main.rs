use std::process::ExitCode;

use clap::Parser;

// Linting allocates many small, short-lived values per record (tree nodes, strings, findings):
// the profile had a fifth of the CPU in malloc and free. mimalloc, with its defaults, takes
// 6-16% off the CPU of the benchmark's corpora and 23% off request-sized records, for about
// 16 MiB more peak memory. (Returning freed pages at once kept the peak down but cost 40% on
// corpora of many files.)
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = toolcheck::cli::Cli::parse();
    toolcheck::app::run(cli.command)
}
