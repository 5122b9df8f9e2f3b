//! Command-line definitions (clap). Behaviour lives in `app/`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::embed::MAX_THREADS;
use crate::report::OutputFormat;
use crate::rules::{LoopMatch, UnpairedFix};

#[derive(Debug, Parser)]
#[command(
    name = "toolcheck",
    version,
    about = "Lint and repair tool calls in saved LLM conversation logs",
    long_about = "Lint and repair tool calls in saved LLM conversation logs: orphaned results, \
                  unpaired calls, misplaced results, broken arguments and schemas, retry loops; \
                  in provider request bodies (OpenAI, Anthropic, Gemini, Bedrock), coding-agent \
                  sessions (Claude Code, Codex, Cline, pi, Copilot CLI...), framework stores and \
                  SQLite session databases. `--input-format` lists every format read."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The options of a plain `toolcheck lint`, for a command that lints with the settings
    /// config files give (the language server).
    pub fn try_parse_lint_defaults() -> Result<CommonArgs, String> {
        match Cli::try_parse_from(["toolcheck", "lint"]) {
            Ok(Cli {
                command: Command::Lint(args),
            }) => Ok(args.common),
            Ok(_) => Err("`toolcheck lint` parsed as another command".to_string()),
            Err(e) => Err(e.to_string()),
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check conversation logs and report findings.
    Lint(LintArgs),
    /// Show (or with --write, apply) the repairs for what lint finds, as unified diffs.
    Fix(FixArgs),
    /// Find every coding agent's saved sessions on this machine and check them: which will
    /// not resume, and the command that repairs each.
    Doctor(DoctorArgs),
    /// List every rule.
    Rules(RulesArgs),
    /// Show one rule's documentation, by code or name, or what toolcheck reads in a format.
    Explain {
        /// A rule code (TC101) or name (orphaned-tool-result), or a format (claude-code).
        name: String,
    },
    /// Print a shell completion script to stdout (see docs/completions.md for where to put it).
    Completions {
        /// The shell to complete in.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Work with the tool definitions recorded in logs and traces.
    #[command(subcommand)]
    Tools(ToolsCommand),
    /// Run a local gateway between an agent and its provider: each request's tool history
    /// checked with lint's rules, and reported, repaired or refused (see docs/proxy.md).
    Proxy(ProxyArgs),
    /// Run a language server over stdio: findings as diagnostics, fixes as code actions,
    /// rule documentation on hover (see docs/editors.md for editor setup).
    Server,
    /// Print the man page (roff), e.g. `toolcheck man | man -l -`.
    Man {
        /// A subcommand whose page (toolcheck-lint...) to print instead of the main one.
        #[arg(value_name = "SUBCOMMAND")]
        command: Option<String>,
    },
    /// Write the generated documentation pages (rules, formats, the summary) under DIR (docs/).
    #[command(hide = true)]
    GenerateDocs {
        /// Where to write the pages.
        dir: PathBuf,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl CommonArgs {
    /// The paths given, or `.`.
    pub fn paths(&self) -> Vec<String> {
        if self.paths.is_empty() {
            vec![".".to_string()]
        } else {
            self.paths.clone()
        }
    }

    /// Whether any path was given.
    pub fn paths_given(&self) -> bool {
        !self.paths.is_empty()
    }

    /// The output format asked for, or `full`.
    pub fn format(&self) -> OutputFormat {
        self.output_format.unwrap_or(OutputFormat::Full)
    }
}

/// Options shared by `lint` and `fix`.
#[derive(Debug, Args)]
pub struct CommonArgs {
    /// Files or directories to check; `-` reads stdin [default: .].
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,

    /// Read every file as this format instead of detecting it [default: auto].
    #[arg(long, value_name = "FORMAT", value_parser = input_formats())]
    pub input_format: Option<String>,

    /// Only these rules: codes (TC101), prefixes (TC1) or names, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "RULE", value_parser = RuleKeys, hide_possible_values = true)]
    pub select: Vec<String>,

    /// Also these rules, on top of the selection (the config's `select`, or all).
    #[arg(long, value_delimiter = ',', value_name = "RULE", value_parser = RuleKeys, hide_possible_values = true)]
    pub extend_select: Vec<String>,

    /// Skip these rules: codes, prefixes or names, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "RULE", value_parser = RuleKeys, hide_possible_values = true)]
    pub ignore: Vec<String>,

    /// Extra tool definitions (any provider's `tools` array, Gemini `functionDeclarations`,
    /// Bedrock `toolConfig`, or an MCP `tools/list` result); repeatable.
    #[arg(long, value_name = "FILE")]
    pub tools: Vec<PathBuf>,

    /// Hold every conversation to these providers' rules (as a translation layer would send
    /// it), instead of its own format's provider; comma-separated or repeated.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "PROVIDER")]
    pub target: Vec<crate::provider::Provider>,

    /// How many consecutive matching failed calls make a loop (repeated-failing-call)
    /// [default: 3].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..))]
    pub loop_threshold: Option<u32>,

    /// What makes failed calls match: equal arguments, equal error text, or either
    /// [default: either].
    #[arg(long, value_enum, value_name = "MATCH")]
    pub loop_match: Option<LoopMatch>,

    /// Read settings from this file instead of the nearest toolcheck.toml.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,

    /// Ignore toolcheck.toml files.
    #[arg(long)]
    pub no_config: bool,

    /// The name to report for stdin (`-`); its extension also picks JSON or JSONL.
    #[arg(long, value_name = "NAME")]
    pub stdin_filename: Option<String>,

    /// Skip files named on the command line that match no conversation format, as a
    /// directory walk does, instead of reporting `unknown-format` (for pre-commit hooks and
    /// editors that pass every JSON file).
    #[arg(long)]
    pub skip_unknown_format: bool,

    /// Files larger than this are not read, and reported as `input-not-checked`: bytes, or
    /// with a unit (512K, 100M, 2G) [default: 1G].
    #[arg(long, value_name = "SIZE", value_parser = crate::read::parse_size)]
    pub max_file_size: Option<u64>,

    /// Threads that check files and JSONL records [default: one per core].
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=MAX_THREADS as i64))]
    pub threads: Option<u16>,

    /// Skip paths matching this glob in directory walks, on top of the config's `exclude`
    /// (repeatable). A glob with a `/` is relative to the current directory; one without
    /// matches a file or directory name anywhere.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,

    /// Do not read .gitignore, .ignore or git exclude files in directory walks.
    #[arg(long)]
    pub no_ignore: bool,

    /// Colour output (honours NO_COLOR).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// Print findings (or diffs) only, no summary.
    #[arg(short, long)]
    pub quiet: bool,

    /// Also list skipped files and directories, and why.
    #[arg(short, long)]
    pub verbose: bool,

    /// How to print findings. With `fix`, any format but `full` prints findings instead of
    /// diffs: those that remain after `--write`, or all of them with their fixes.
    /// [default: full; under GitHub Actions, `full` plus annotations]
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub output_format: Option<OutputFormat>,

    /// Print counts per rule instead of individual findings.
    #[arg(long)]
    pub statistics: bool,

    /// Exit 0 even when there are findings (or, with `fix`, something to fix).
    #[arg(long)]
    pub exit_zero: bool,

    /// Print the effective settings for each path given, and where each came from, then
    /// exit.
    #[arg(long)]
    pub show_settings: bool,
}

#[derive(Debug, Args)]
pub struct LintArgs {
    #[command(flatten)]
    pub common: CommonArgs,

    /// Apply the fixes in place, as `toolcheck fix --write` does, then report what remains.
    #[arg(long)]
    pub fix: bool,

    /// With --fix: also apply fixes marked unsafe.
    #[arg(long, requires = "fix")]
    pub unsafe_fixes: bool,
}

#[derive(Debug, Args)]
pub struct FixArgs {
    #[command(flatten)]
    pub common: CommonArgs,

    /// Apply the fixes in place (atomically) instead of only showing them.
    #[arg(long)]
    pub write: bool,

    /// Print complete, uncropped patches that `git apply` / `patch -p1` accept, without
    /// colour, byte for byte (the default view escapes control and bidi characters, and on
    /// a terminal crops long JSONL lines; redirected, it is whole).
    #[arg(long)]
    pub diff: bool,

    /// Also apply fixes marked unsafe (they may drop information: review the diff).
    #[arg(long)]
    pub unsafe_fixes: bool,

    /// How to repair an unpaired tool call: insert an error result (safe) or remove the
    /// call (unsafe) [default: insert-result].
    #[arg(long, value_enum, value_name = "HOW")]
    pub unpaired: Option<UnpairedFix>,
}

/// How `doctor` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DoctorFormat {
    /// One block per agent (default).
    Text,
    /// One JSON array, one object per session (docs/doctor.md).
    Json,
}

#[derive(Debug, Subcommand)]
pub enum ToolsCommand {
    /// Print the tool definitions found in logs and traces as a `--tools` file (JSON), so
    /// a team can commit the contract it runs with.
    Extract(ToolsExtractArgs),
}

#[derive(Debug, Args)]
pub struct ToolsExtractArgs {
    /// Files or directories to read (directories are walked as `lint` walks them).
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<String>,

    /// Read every file as this format instead of detecting it [default: auto].
    #[arg(long, value_name = "FORMAT", value_parser = input_formats())]
    pub input_format: Option<String>,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Only this agent's sessions (repeatable).
    #[arg(long, value_name = "NAME", value_parser = agent_names())]
    pub agent: Vec<String>,

    /// Only sessions modified within this long: a number and a unit, s, m, h, d or w
    /// (30m, 2h, 7d).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub since: Option<std::time::Duration>,

    /// How to print the results.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = DoctorFormat::Text)]
    pub output_format: DoctorFormat,

    /// Colour the text report (honours NO_COLOR).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// Also list every location looked at, found or not, and what was skipped and why.
    #[arg(short, long)]
    pub verbose: bool,

    /// Apply the safe fixes to the sessions that will not resume, keeping a backup of each
    /// file changed under $XDG_STATE_HOME/toolcheck/backups/ (~/.local/state/... when unset).
    #[arg(long, group = "repair")]
    pub fix: bool,

    /// With --fix: also fix sessions modified in the last minute (the agent may be writing
    /// them). With --restore: also restore files changed since they were fixed.
    #[arg(long, requires = "repair")]
    pub force: bool,

    /// Put back the files a `doctor --fix` run changed, from the backup folder it printed
    /// (…/toolcheck/backups/<stamp>-<pid>).
    #[arg(long, value_name = "DIR", group = "repair", conflicts_with_all = ["agent", "since"])]
    pub restore: Option<std::path::PathBuf>,

    /// Threads that check sessions [default: one per core].
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=MAX_THREADS as i64))]
    pub threads: Option<u16>,
}

fn agent_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(crate::agents::Agent::ALL.iter().map(|a| a.name()))
}

/// `30m`, `2h`, `7d`: a whole number and one unit.
pub fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("`{text}` has no unit: add s, m, h, d or w (30m, 2h, 7d)"))?;
    let (number, unit) = text.split_at(split);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` does not start with a whole number (30m, 2h, 7d)"))?;
    let secs = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => {
            return Err(format!(
                "unknown unit `{unit}`: use s, m, h, d or w (30m, 2h, 7d)"
            ))
        }
    };
    n.checked_mul(secs)
        .map(std::time::Duration::from_secs)
        .ok_or_else(|| format!("`{text}` is too long"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CatalogFormat {
    Table,
    Json,
}

#[derive(Debug, Args)]
pub struct RulesArgs {
    /// How to print the catalog.
    #[arg(long, value_enum, default_value_t = CatalogFormat::Table)]
    pub output_format: CatalogFormat,

    /// Only the rules whose findings these providers reject (comma-separated or repeated).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "PROVIDER")]
    pub target: Vec<crate::provider::Provider>,

    /// Colour the table (honours NO_COLOR).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

fn input_formats() -> clap::builder::PossibleValuesParser {
    let mut names = vec!["auto"];
    names.extend(crate::format::Format::ALL.iter().map(|f| f.name()));
    clap::builder::PossibleValuesParser::new(names)
}

/// Rule selectors: any text (prefixes and `ALL` are checked later, with a suggestion), but
/// with every rule's code and name as the values shell completions offer.
#[derive(Clone)]
struct RuleKeys;

impl clap::builder::TypedValueParser for RuleKeys {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let rules = crate::rules::RULES.iter().map(|r| r.meta());
        let values =
            std::iter::once(clap::builder::PossibleValue::new("ALL")).chain(rules.flat_map(|m| {
                [
                    clap::builder::PossibleValue::new(m.code).help(m.summary),
                    clap::builder::PossibleValue::new(m.name).help(m.summary),
                ]
            }));
        Some(Box::new(values))
    }
}

#[derive(Debug, Args)]
pub struct ProxyArgs {
    /// The address to listen on (127.0.0.1 keeps it to this machine).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8787")]
    pub listen: String,
    /// The provider's base URL every request goes to (`https://api.anthropic.com`,
    /// `https://api.openai.com`, `https://generativelanguage.googleapis.com`...).
    #[arg(long, value_name = "URL", required_unless_present = "config")]
    pub upstream: Option<String>,
    /// What to do with a request the provider would reject.
    #[arg(long, value_enum, value_name = "MODE")]
    pub mode: Option<ProxyMode>,
    /// Record each checked request body, as the agent sent it, in a file of DIR named by
    /// its order, dialect and the status it got (files `toolcheck lint` reads).
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// The largest request body read; a bigger one is answered 413 (default 64MiB).
    #[arg(long, value_name = "SIZE", value_parser = crate::read::parse_size)]
    pub max_body_size: Option<u64>,
    /// Hold requests to these providers' rules instead of each dialect's own (or the
    /// provider a request's `model` names).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "PROVIDER")]
    pub target: Vec<crate::provider::Provider>,
    /// A TOML file of settings with several upstreams, each under a path prefix (see
    /// docs/proxy.md); options given here win over it.
    #[arg(long, value_name = "FILE", conflicts_with = "upstream")]
    pub config: Option<PathBuf>,
}

/// What `toolcheck proxy` does with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProxyMode {
    /// Forward every request as sent; log what is wrong with it (default).
    Report,
    /// Apply the safe fixes `toolcheck fix` applies and forward the repaired request.
    Repair,
    /// Answer a request the provider would reject with the provider's own error, without
    /// calling it.
    Block,
}
