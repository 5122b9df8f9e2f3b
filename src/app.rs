//! The commands: what `main` runs after parsing arguments.

use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;

use rayon::prelude::*;

use crate::cli::{CatalogFormat, ColorChoice, Command, CommonArgs, FixArgs, LintArgs, RulesArgs};
use crate::config::Config;
use crate::discover::{self, Input};
use crate::fix::{self, diff::DiffStyle};
use crate::formats::Format;
use crate::lint::{self, FileReport, LintOptions, Outcome, Selection, SourceName};
use crate::read::{self, Loaded};
use crate::report::{self, Diagnostic, FullRenderer, OutputFormat, Totals};
use crate::rules::{self, UnpairedFix};

/// Exit codes of DESIGN.md section 2.
pub const EXIT_CLEAN: u8 = 0;
pub const EXIT_FINDINGS: u8 = 1;
pub const EXIT_ERROR: u8 = 2;

pub fn run(command: Command) -> ExitCode {
    let code = match command {
        Command::Lint(args) => lint_command(&args),
        Command::Fix(args) => fix_command(&args),
        Command::Rules(args) => rules_command(&args),
        Command::Explain { rule } => explain_command(&rule),
    };
    ExitCode::from(code)
}

fn usage_error(message: &str) -> u8 {
    eprintln!("error: {message}");
    EXIT_ERROR
}

/// What `lint` and `fix` share: options, the inputs, stdin, and the exit code so far.
struct Run {
    opts: LintOptions,
    inputs: Vec<Input>,
    /// Stdin, read once (bounded) when `-` is among the inputs.
    stdin: Option<Loaded>,
    /// The maximum input size.
    limit: u64,
    exit: u8,
}

fn prepare(common: &CommonArgs, unpaired: Option<UnpairedFix>) -> Result<Run, u8> {
    // Settings: the command line, then toolcheck.toml, then the defaults.
    let config = if common.no_config {
        Config::default()
    } else if let Some(path) = &common.config {
        Config::load(path).map_err(|e| usage_error(&format!("cannot use --config: {e}")))?
    } else {
        let cwd = std::env::current_dir().unwrap_or_default();
        Config::discover(&cwd).map_err(|e| usage_error(&format!("invalid config file {e}")))?
    };
    let pick = |cli: &[String], file: &Option<Vec<String>>| -> Vec<String> {
        if cli.is_empty() {
            file.clone().unwrap_or_default()
        } else {
            cli.to_vec()
        }
    };
    let selection = Selection::new(
        &pick(&common.select, &config.select),
        &pick(&common.ignore, &config.ignore),
    )
    .map_err(|e| usage_error(&e))?;
    // `--exclude` adds to the config's `exclude`; each is relative to where it was written.
    let cwd = std::env::current_dir().unwrap_or_default();
    let config_excludes = config.exclude.as_deref().map(|globs| {
        let dir = config.path.as_deref().and_then(|p| p.parent());
        (globs, dir.unwrap_or(&cwd))
    });
    let excludes = discover::Excludes::new(config_excludes, &common.exclude, &cwd)
        .map_err(|e| usage_error(&e))?;
    let tool_files = if common.tools.is_empty() {
        config.tools.clone().unwrap_or_default()
    } else {
        common.tools.clone()
    };
    let mut extra_tools = Vec::new();
    for path in &tool_files {
        let tools = crate::tools_file::load(path)
            .map_err(|e| usage_error(&format!("cannot use --tools {}: {e}", path.display())))?;
        extra_tools.extend(tools);
    }
    let input_format = common
        .input_format
        .clone()
        .or(config.input_format.clone())
        .unwrap_or_else(|| "auto".to_string());
    let defaults = rules::RuleOptions::default();
    let opts = LintOptions {
        input_format: Format::from_name(&input_format),
        selection,
        extra_tools,
        rule_options: rules::RuleOptions {
            loop_threshold: common
                .loop_threshold
                .or(config.loop_threshold)
                .map_or(defaults.loop_threshold, |n| n as usize),
            loop_match: common
                .loop_match
                .or(config.loop_match)
                .unwrap_or(defaults.loop_match),
            unpaired: unpaired.or(config.unpaired).unwrap_or(defaults.unpaired),
        },
        schemas: Default::default(),
    };
    let walk = discover::WalkOptions {
        excludes: excludes.into(),
        no_ignore: common.no_ignore,
        record_skipped: common.verbose,
    };
    let found = discover::discover(&common.paths, &walk, common.stdin_filename.as_deref());
    let mut exit = if discover::report(&found, common.quiet) {
        EXIT_ERROR
    } else {
        EXIT_CLEAN
    };
    let inputs = found.inputs;
    let limit = common
        .max_file_size
        .or(config.max_file_size.as_ref().and_then(|s| s.bytes()))
        .unwrap_or(read::DEFAULT_MAX_FILE_SIZE);
    let stdin = if inputs.iter().any(|i| i.path.is_none()) {
        match read::read_stream(io::stdin().lock(), limit) {
            Ok(loaded) => Some(loaded),
            Err(e) => {
                eprintln!("error: cannot read stdin: {e}");
                exit = EXIT_ERROR;
                None
            }
        }
    } else {
        None
    };
    Ok(Run {
        opts,
        inputs,
        stdin,
        limit,
        exit,
    })
}

/// An input's bytes (and, for a regular file, its stamp when read), or why there are none.
fn read_input(input: &Input, stdin: Option<&Loaded>, limit: u64) -> Result<Loaded, String> {
    match &input.path {
        Some(path) => read::read_path(path, limit).map_err(|e| format!("cannot read it: {e}")),
        None => match stdin {
            Some(Loaded::Bytes(bytes, _)) => Ok(Loaded::Bytes(bytes.clone(), None)),
            Some(Loaded::TooLarge { size, limit }) => Ok(Loaded::TooLarge {
                size: *size,
                limit: *limit,
            }),
            None => Err("stdin could not be read".into()),
        },
    }
}

fn source_name(input: &Input) -> SourceName {
    SourceName {
        name: input.name.clone(),
        path: input.path.clone(),
    }
}

/// Places a file's findings and sorts them by position.
fn diagnostics(report: FileReport) -> (Vec<Diagnostic>, crate::source::SourceFile) {
    let mut diagnostics: Vec<Diagnostic> = report
        .findings
        .into_iter()
        .map(|f| Diagnostic::resolve(&report.source, f))
        .collect();
    diagnostics.sort_by(|a, b| (a.start, a.code, &a.message).cmp(&(b.start, b.code, &b.message)));
    (diagnostics, report.source)
}

fn lint_command(args: &LintArgs) -> u8 {
    let Run {
        opts,
        inputs,
        stdin,
        limit,
        mut exit,
    } = match prepare(&args.common, None) {
        Ok(run) => run,
        Err(code) => return code,
    };
    let results: Vec<Result<FileReport, String>> = inputs
        .par_iter()
        .map(|input| {
            Ok(match read_input(input, stdin.as_ref(), limit)? {
                Loaded::Bytes(bytes, _) => {
                    lint::lint_bytes(source_name(input), bytes, input.explicit, &opts)
                }
                Loaded::TooLarge { size, limit } => {
                    lint::too_large(source_name(input), size, limit)
                }
            })
        })
        .collect();

    let renderer = FullRenderer::new(use_color(args.common.color));
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut totals = Totals::default();
    let mut all = Vec::new();
    let mut skipped = Vec::new();
    let mut checked = Vec::new();
    for (input, result) in inputs.iter().zip(results) {
        let report = match result {
            Ok(report) => report,
            Err(message) => {
                eprintln!("error: {}: {message}", input.name);
                exit = EXIT_ERROR;
                continue;
            }
        };
        match &report.outcome {
            Outcome::Checked(formats) => {
                totals.files_checked += 1;
                if args.common.verbose {
                    let names: Vec<&str> = formats.iter().map(|f| f.name()).collect();
                    checked.push((report.source.name.clone(), names.join(", ")));
                }
            }
            Outcome::Skipped(reason) => {
                totals.files_skipped += 1;
                skipped.push((report.source.name.clone(), reason.clone()));
            }
        }
        let (diagnostics, source) = diagnostics(report);
        totals.count(&diagnostics);
        if args.common.output_format == OutputFormat::Full && !args.common.statistics {
            for d in &diagnostics {
                let _ = write!(out, "{}", renderer.render(&source, d));
                let _ = writeln!(out);
            }
        } else {
            all.extend(diagnostics);
        }
    }

    let written = if args.common.statistics {
        report::write_statistics(&mut out, args.common.output_format, &all)
    } else if args.common.output_format == OutputFormat::Full {
        Ok(())
    } else {
        report::write_diagnostics(&mut out, args.common.output_format, &all)
    };
    if let Err(e) = written.and_then(|()| out.flush()) {
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write output: {e}");
        }
        return EXIT_ERROR;
    }
    drop(out);
    if args.common.verbose {
        for (name, formats) in &checked {
            let formats = if formats.is_empty() {
                "no conversation found"
            } else {
                formats
            };
            eprintln!("checked {name} ({formats})");
        }
        for (name, reason) in &skipped {
            eprintln!("skipped {name}: {reason}");
        }
    }
    if !args.common.quiet && args.common.output_format.is_human() {
        println!("{}", totals.summary());
    }
    if exit == EXIT_CLEAN && totals.findings() > 0 && !args.common.exit_zero {
        exit = EXIT_FINDINGS;
    }
    exit
}

fn fix_command(args: &FixArgs) -> u8 {
    let Run {
        opts,
        inputs,
        stdin,
        limit,
        mut exit,
    } = match prepare(&args.common, args.unpaired) {
        Ok(run) => run,
        Err(code) => return code,
    };
    let results: Vec<Result<(fix::FileFix, Option<read::FileStamp>), String>> = inputs
        .par_iter()
        .map(|input| {
            let (bytes, stamp) = match read_input(input, stdin.as_ref(), limit)? {
                Loaded::Bytes(bytes, stamp) => (bytes, stamp),
                Loaded::TooLarge { size, limit } => {
                    return Err(lint::too_large_message(size, limit));
                }
            };
            fix::fix_bytes(
                &source_name(input),
                bytes,
                input.explicit,
                &opts,
                args.unsafe_fixes,
            )
            .map(|file| (file, stamp))
            .map_err(|e| e.to_string())
        })
        .collect();

    let style = DiffStyle {
        color: use_color(args.common.color),
    };
    // Any output format but `full` prints findings instead of diffs.
    let findings_output = args.common.output_format != OutputFormat::Full || args.common.statistics;
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut summary = FixSummary::default();
    let mut diagnostics_out = Vec::new();
    for (input, result) in inputs.iter().zip(results) {
        let (file, stamp) = match result {
            Ok(file) => file,
            Err(message) => {
                eprintln!("error: {}: {message}", input.name);
                exit = EXIT_ERROR;
                continue;
            }
        };
        let changed = file.changed();
        let mut failed = false;
        let tally = FileTally::of(&file);
        let fix::FileFix {
            original,
            fixed,
            report,
            encoding,
            ..
        } = file;
        if findings_output {
            // After --write, what remains in the written file; otherwise what is there now,
            // each with its fix.
            let report = if args.write {
                report
            } else {
                let bytes = original.clone().into_bytes();
                lint::lint_bytes(source_name(input), bytes, input.explicit, &opts)
            };
            diagnostics_out.extend(diagnostics(report).0);
        }
        if !changed {
            summary.count(&tally, false);
            continue;
        }
        let diff = || fix::diff::unified(&input.name, &original, &fixed, &style);
        let written = match (&input.path, args.write) {
            // `fix --write -` prints the fixed text, like a formatter.
            (None, true) if !findings_output => out.write_all(&encoding.encode(&fixed)),
            (None, true) => Ok(()),
            (Some(path), true) => {
                let (read, new) = (encoding.encode(&original), encoding.encode(&fixed));
                match fix::write::write_atomic(path, &read, stamp.as_ref(), new) {
                    Ok(()) if findings_output => Ok(()),
                    Ok(()) => write!(out, "{}", diff()),
                    Err(e) => {
                        eprintln!("error: {}: {e}", input.name);
                        exit = EXIT_ERROR;
                        failed = true;
                        Ok(())
                    }
                }
            }
            (_, false) if findings_output => Ok(()),
            (_, false) => write!(out, "{}", diff()),
        };
        summary.count(&tally, failed);
        if let Err(e) = written {
            if e.kind() != io::ErrorKind::BrokenPipe {
                eprintln!("error: cannot write output: {e}");
            }
            return EXIT_ERROR;
        }
    }
    if findings_output {
        let written = if args.common.statistics {
            report::write_statistics(&mut out, args.common.output_format, &diagnostics_out)
        } else {
            report::write_diagnostics(&mut out, args.common.output_format, &diagnostics_out)
        };
        if let Err(e) = written {
            eprintln!("error: cannot write output: {e}");
            return EXIT_ERROR;
        }
    }
    let _ = out.flush();
    drop(out);
    if !args.common.quiet {
        eprintln!("{}", summary.render(args.write));
    }
    if exit != EXIT_CLEAN || args.common.exit_zero {
        return exit;
    }
    let something_left = if args.write {
        summary.remaining() > 0
    } else {
        summary.files_changed > 0
    };
    if something_left {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    }
}

/// One file's counts for the summary.
struct FileTally {
    applied: usize,
    unsafe_left: usize,
    unfixable: usize,
    changed: bool,
}

impl FileTally {
    fn of(file: &fix::FileFix) -> FileTally {
        FileTally {
            applied: file.applied,
            unsafe_left: file.unsafe_left,
            unfixable: file
                .report
                .findings
                .iter()
                .filter(|f| f.fix.is_none())
                .count(),
            changed: file.changed(),
        }
    }
}

/// What `fix` did, for its summary line and exit code.
#[derive(Default)]
struct FixSummary {
    fixed: usize,
    files_changed: usize,
    /// Findings left that have no fix at all.
    unfixable: usize,
    /// Findings left whose fix is unsafe and was not asked for.
    unsafe_left: usize,
    /// Fixes not applied because their file could not be written.
    failed: usize,
}

impl FixSummary {
    /// Counts one file; `failed`: its fixes could not be written, so none of them count
    /// as fixed.
    fn count(&mut self, file: &FileTally, failed: bool) {
        if failed {
            self.failed += file.applied;
            return;
        }
        self.unsafe_left += file.unsafe_left;
        self.unfixable += file.unfixable;
        if file.changed {
            self.fixed += file.applied;
            self.files_changed += 1;
        }
    }

    fn remaining(&self) -> usize {
        self.unfixable + self.unsafe_left + self.failed
    }

    fn render(&self, write: bool) -> String {
        let mut s = fix_summary(
            write,
            self.fixed,
            self.files_changed,
            self.unfixable,
            self.unsafe_left,
        );
        if self.failed > 0 {
            s.push_str(&format!(
                " {} not applied: the file could not be written (see the errors above).",
                if self.failed == 1 {
                    "1 fix".to_string()
                } else {
                    format!("{} fixes", self.failed)
                }
            ));
        }
        s
    }
}

fn fix_summary(
    write: bool,
    fixed: usize,
    files: usize,
    remaining: usize,
    unsafe_left: usize,
) -> String {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut s = if fixed == 0 {
        "Nothing to fix.".to_string()
    } else if write {
        format!(
            "Fixed {} in {}.",
            plural(fixed, "finding", "findings"),
            plural(files, "file", "files")
        )
    } else {
        format!(
            "Would fix {} in {} (run with --write to apply).",
            plural(fixed, "finding", "findings"),
            plural(files, "file", "files")
        )
    };
    if remaining > 0 {
        s.push_str(&format!(
            " {} {} no automatic fix (see `toolcheck lint`).",
            plural(remaining, "finding", "findings"),
            if remaining == 1 { "has" } else { "have" }
        ));
    }
    if unsafe_left > 0 {
        s.push_str(&format!(
            " {} left out: rerun with --unsafe-fixes to include them.",
            plural(unsafe_left, "unsafe fix", "unsafe fixes")
        ));
    }
    s
}

fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && io::stdout().is_terminal()
        }
    }
}

fn rules_command(args: &RulesArgs) -> u8 {
    let metas: Vec<&rules::RuleMeta> = rules::RULES.iter().map(|r| r.meta()).collect();
    match args.output_format {
        CatalogFormat::Json => {
            let rows: Vec<serde_json::Value> = metas
                .iter()
                .map(|m| {
                    serde_json::json!({
                        "code": m.code,
                        "name": m.name,
                        "severity": m.severity,
                        "fix": m.fix.as_str(),
                        "summary": m.summary,
                    })
                })
                .collect();
            println!(
                "{}",
                serde_json::to_string_pretty(&rows).unwrap_or_default()
            );
        }
        CatalogFormat::Table => {
            let name_width = metas.iter().map(|m| m.name.len()).max().unwrap_or(0);
            println!(
                "{:<6} {:<name_width$} {:<8} {:<9} summary",
                "code", "name", "severity", "fix"
            );
            for m in metas {
                println!(
                    "{:<6} {:<name_width$} {:<8} {:<9} {}",
                    m.code,
                    m.name,
                    m.severity.as_str(),
                    m.fix.as_str(),
                    m.summary
                );
            }
        }
    }
    EXIT_CLEAN
}

fn explain_command(key: &str) -> u8 {
    match rules::find(key) {
        Some(rule) => {
            let m = rule.meta();
            println!("# {} ({})\n", m.name, m.code);
            println!(
                "Severity: {}. Fix: {}.\n",
                m.severity.as_str(),
                m.fix.as_str()
            );
            println!("{}", m.documentation());
            EXIT_CLEAN
        }
        None => usage_error(&format!(
            "unknown rule `{key}`; `toolcheck rules` lists them"
        )),
    }
}
