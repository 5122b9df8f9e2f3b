use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = toolcheck::cli::Cli::parse();
    toolcheck::app::run(cli.command)
}
