//! The commands: what `main` runs after parsing arguments. This file only dispatches them;
//! `lint.rs`, `fix.rs` and `catalog.rs` (the commands that print what toolcheck knows) hold
//! them, `prepare.rs` what `lint` and `fix` share, and `output.rs` how every command writes.

use std::process::ExitCode;

use crate::cli::Command;

mod backup;
mod catalog;
mod doctor;
mod fix;
mod lint;
mod output;
mod prepare;
mod proxy;
mod server;
mod tools;

use fix::FixMode;

/// Exit codes: docs/architecture.md, "Exit codes".
pub const EXIT_CLEAN: u8 = 0;
pub const EXIT_FINDINGS: u8 = 1;
pub const EXIT_ERROR: u8 = 2;

pub fn run(command: Command) -> ExitCode {
    ExitCode::from(run_code(command))
}

/// Runs a command and returns its exit code as a number (0, 1 or 2), for embedders that
/// cannot use [`ExitCode`] (the Python module's `toolcheck` command).
pub fn run_code(command: Command) -> u8 {
    match command {
        // `lint --fix` is `fix --write`, without `fix`'s `--diff` and `--unpaired`.
        Command::Lint(args) if args.fix => fix::fix_command(
            &args.common,
            &FixMode {
                write: true,
                diff: false,
                unsafe_fixes: args.unsafe_fixes,
                unpaired: None,
                report: true,
            },
        ),
        Command::Lint(args) => lint::lint_command(&args.common),
        Command::Fix(args) => fix::fix_command(
            &args.common,
            &FixMode {
                write: args.write,
                diff: args.diff,
                unsafe_fixes: args.unsafe_fixes,
                unpaired: args.unpaired,
                report: false,
            },
        ),
        Command::Doctor(args) => doctor::doctor_command(&args),
        Command::Rules(args) => catalog::rules_command(&args),
        Command::Explain { name } => catalog::explain_command(&name),
        Command::Completions { shell } => catalog::completions_command(shell),
        Command::Tools(command) => tools::tools_command(&command),
        Command::Proxy(args) => proxy::proxy_command(&args),
        Command::Server => server::server_command(),
        Command::Man { command } => catalog::man_command(command.as_deref()),
        Command::GenerateDocs { dir } => catalog::generate_docs_command(&dir),
    }
}
