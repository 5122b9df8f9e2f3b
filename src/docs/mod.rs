//! Documentation generated from the program itself: shell completions and the man page from
//! the clap definitions here, and the book's generated pages (`book.rs`).

use clap::CommandFactory;

use crate::cli::Cli;

mod book;

pub use book::{format_page, generate};

/// A completion script for `shell`, without the hidden subcommands.
pub fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut out = Vec::new();
    let mut command = without_hidden_subcommands(&Cli::command());
    clap_complete::generate(shell, &mut command, "toolcheck", &mut out);
    out
}

/// `command` without its hidden subcommands, at every level: clap_complete leaves out hidden
/// arguments and values but offers hidden subcommands, and clap cannot remove a subcommand,
/// so a level that has one is rebuilt from what the completion generators read (names,
/// help, arguments, the visible subcommands) and the settings that shape its flags.
fn without_hidden_subcommands(command: &clap::Command) -> clap::Command {
    let visible: Vec<clap::Command> = command
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(without_hidden_subcommands)
        .collect();
    if visible.len() == command.get_subcommands().count() {
        return command
            .clone()
            .mut_subcommands(|c| without_hidden_subcommands(&c));
    }
    let mut rebuilt = clap::Command::new(command.get_name().to_string())
        .args(command.get_arguments().cloned())
        .groups(command.get_groups().cloned())
        .subcommands(visible)
        .subcommand_required(command.is_subcommand_required_set())
        .arg_required_else_help(command.is_arg_required_else_help_set())
        .propagate_version(command.is_propagate_version_set())
        .disable_help_flag(command.is_disable_help_flag_set())
        .disable_version_flag(command.is_disable_version_flag_set())
        .disable_help_subcommand(command.is_disable_help_subcommand_set())
        .hide(command.is_hide_set())
        .visible_aliases(
            command
                .get_visible_aliases()
                .map(str::to_string)
                .collect::<Vec<_>>(),
        );
    if let Some(about) = command.get_about() {
        rebuilt = rebuilt.about(about.clone());
    }
    if let Some(about) = command.get_long_about() {
        rebuilt = rebuilt.long_about(about.clone());
    }
    if let Some(version) = command.get_version() {
        rebuilt = rebuilt.version(version.to_string());
    }
    if let Some(version) = command.get_long_version() {
        rebuilt = rebuilt.long_version(version.to_string());
    }
    if let Some(name) = command.get_bin_name() {
        rebuilt = rebuilt.bin_name(name.to_string());
    }
    if let Some(name) = command.get_display_name() {
        rebuilt = rebuilt.display_name(name.to_string());
    }
    rebuilt
}

/// The roff man page of toolcheck, or with `subcommand` of `toolcheck-<subcommand>`.
pub fn man_page(subcommand: Option<&str>) -> Result<Vec<u8>, String> {
    let mut command = Cli::command();
    command.build();
    let page = match subcommand {
        None => command,
        Some(name) => {
            let names: Vec<String> = command
                .get_subcommands()
                .filter(|c| !c.is_hide_set() && c.get_name() != "help")
                .map(|c| c.get_name().to_string())
                .collect();
            let sub = command
                .find_subcommand(name)
                .filter(|c| !c.is_hide_set())
                .ok_or_else(|| {
                    format!(
                        "no man page for `{name}`; there is one for each of: {}",
                        names.join(", ")
                    )
                })?;
            // Building named it `toolcheck-<name>`, as its page is called.
            sub.clone().version(env!("CARGO_PKG_VERSION"))
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut out)
        .map_err(|e| e.to_string())?;
    Ok(name_subcommand_pages(out))
}

/// clap_mangen names each subcommand's page `toolcheck-lint(1)`, which no package installs:
/// the pages come from `toolcheck man lint`, so that is what the main page says.
fn name_subcommand_pages(page: Vec<u8>) -> Vec<u8> {
    let Ok(text) = String::from_utf8(page) else {
        return Vec::new();
    };
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        match body
            .strip_prefix("toolcheck\\-")
            .and_then(|rest| rest.strip_suffix("(1)"))
        {
            // `help` has no page of its own.
            Some("help") => out.push_str("\\fBtoolcheck help\\fR\n"),
            Some(name) => {
                let name = name.replace("\\-", "-");
                out.push_str(&format!(
                    "\\fBtoolcheck {name}\\fR (page: \\fBtoolcheck man {name}\\fR)\n"
                ));
            }
            None => out.push_str(line),
        }
    }
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_command_is_the_cli_less_its_hidden_subcommands() {
        let full = Cli::command();
        let shown = without_hidden_subcommands(&full);
        let names = |c: &clap::Command| -> Vec<String> {
            c.get_subcommands()
                .map(|s| s.get_name().to_string())
                .collect()
        };
        let mut expected = names(&full);
        expected.retain(|n| n != "generate-docs");
        assert_eq!(names(&shown), expected);
        assert_eq!(shown.get_name(), full.get_name());
        assert_eq!(shown.get_version(), full.get_version());
        assert_eq!(
            shown.get_about().map(ToString::to_string),
            full.get_about().map(ToString::to_string)
        );
        assert!(shown.is_subcommand_required_set());
        // A level with nothing hidden is kept as it is, options and all.
        let lint = |c: &clap::Command| {
            c.find_subcommand("lint").map(|l| {
                l.get_arguments()
                    .map(|a| a.get_id().to_string())
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(lint(&shown), lint(&full));
    }
}
