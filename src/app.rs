//! The commands: what `main` runs after parsing arguments.

use std::io::{self, IsTerminal, Read, Write};
use std::process::ExitCode;

use rayon::prelude::*;

use crate::cli::{CatalogFormat, ColorChoice, Command, CommonArgs, FixArgs, LintArgs, RulesArgs};
use crate::config::Config;
use crate::discover::{self, Input};
use crate::fix::{self, diff::DiffStyle};
use crate::formats::Format;
use crate::lint::{self, FileReport, LintOptions, Outcome, Selection, SourceName};
use crate::report::{self, Diagnostic, FullRenderer, OutputFormat, Totals};
use crate::rules::{self, UnpairedFix};

/// Exit codes: docs/architecture.md, "Exit codes".
pub const EXIT_CLEAN: u8 = 0;
pub const EXIT_FINDINGS: u8 = 1;
pub const EXIT_ERROR: u8 = 2;

pub fn run(command: Command) -> ExitCode {
    let code = match command {
        Command::Lint(args) => lint_command(&args),
        Command::Fix(args) => fix_command(&args),
        Command::Rules(args) => rules_command(&args),
        Command::Explain { rule } => explain_command(&rule),
        Command::Completions { shell } => {
            print(&String::from_utf8_lossy(&crate::docs::completions(shell)))
                .err()
                .unwrap_or(EXIT_CLEAN)
        }
        Command::Man { command } => match crate::docs::man_page(command.as_deref()) {
            Ok(page) => print(&String::from_utf8_lossy(&page))
                .err()
                .unwrap_or(EXIT_CLEAN),
            Err(e) => usage_error(&e),
        },
        Command::GenerateDocs { dir } => match crate::docs::generate(&dir) {
            Ok(n) => {
                eprintln!("{n} files updated in {}", dir.display());
                EXIT_CLEAN
            }
            Err(e) => usage_error(&format!("cannot write {}: {e}", dir.display())),
        },
    };
    ExitCode::from(code)
}

fn usage_error(message: &str) -> u8 {
    eprintln!("error: {message}");
    EXIT_ERROR
}

/// Prints to standard output; a closed pipe is not an error (see `stdout.rs`), others are.
fn print(text: &str) -> Result<(), u8> {
    let mut out = crate::stdout::stdout();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| {
            eprintln!("error: cannot write output: {e}");
            EXIT_ERROR
        })
}

/// What `lint` and `fix` share: options, the inputs, stdin, and the exit code so far.
struct Run {
    opts: LintOptions,
    inputs: Vec<Input>,
    stdin: Option<Vec<u8>>,
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
    let excludes = discover::build_excludes(&pick(&common.exclude, &config.exclude))
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
    let (mut inputs, errors) =
        discover::discover(&common.paths, &excludes, common.stdin_filename.as_deref());
    if common.skip_unknown_format {
        inputs.iter_mut().for_each(|i| i.explicit = false);
    }
    let mut exit = EXIT_CLEAN;
    for e in &errors {
        eprintln!("error: {}: {}", e.path, e.message);
        exit = EXIT_ERROR;
    }
    let stdin = if inputs.iter().any(|i| i.path.is_none()) {
        let mut buf = Vec::new();
        if let Err(e) = io::stdin().read_to_end(&mut buf) {
            eprintln!("error: cannot read stdin: {e}");
            exit = EXIT_ERROR;
        }
        Some(buf)
    } else {
        None
    };
    Ok(Run {
        opts,
        inputs,
        stdin,
        exit,
    })
}

fn read_input(input: &Input, stdin: Option<&[u8]>) -> Result<Vec<u8>, String> {
    match &input.path {
        Some(path) => std::fs::read(path).map_err(|e| e.to_string()),
        None => Ok(stdin.unwrap_or_default().to_vec()),
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
        mut exit,
    } = match prepare(&args.common, None) {
        Ok(run) => run,
        Err(code) => return code,
    };
    let results: Vec<Result<FileReport, String>> = inputs
        .par_iter()
        .map(|input| {
            let bytes = read_input(input, stdin.as_deref())?;
            Ok(lint::lint_bytes(
                source_name(input),
                bytes,
                input.explicit,
                &opts,
            ))
        })
        .collect();

    let renderer = FullRenderer::new(use_color(args.common.color));
    let mut out = crate::stdout::stdout();
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
        if let Err(code) = print(&format!("{}\n", totals.summary())) {
            return code;
        }
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
        mut exit,
    } = match prepare(&args.common, args.unpaired) {
        Ok(run) => run,
        Err(code) => return code,
    };
    let results: Vec<Result<fix::FileFix, String>> = inputs
        .par_iter()
        .map(|input| {
            let bytes = read_input(input, stdin.as_deref())?;
            fix::fix_bytes(
                &source_name(input),
                bytes,
                input.explicit,
                &opts,
                args.unsafe_fixes,
            )
            .map_err(|e| e.to_string())
        })
        .collect();

    let style = DiffStyle {
        color: use_color(args.common.color),
    };
    // Any output format but `full` prints findings instead of diffs.
    let findings_output = args.common.output_format != OutputFormat::Full || args.common.statistics;
    let mut out = crate::stdout::stdout();
    let mut summary = FixSummary::default();
    let mut diagnostics_out = Vec::new();
    for (input, result) in inputs.iter().zip(results) {
        let file = match result {
            Ok(file) => file,
            Err(message) => {
                eprintln!("error: {}: {message}", input.name);
                exit = EXIT_ERROR;
                continue;
            }
        };
        summary.count(&file);
        let changed = file.changed();
        let (original, fixed) = (file.original, file.fixed);
        if findings_output {
            // After --write, what remains in the written file; otherwise what is there now,
            // each with its fix.
            let report = if args.write {
                file.report
            } else {
                let bytes = original.clone().into_bytes();
                lint::lint_bytes(source_name(input), bytes, input.explicit, &opts)
            };
            diagnostics_out.extend(diagnostics(report).0);
        }
        if !changed {
            continue;
        }
        let diff = || fix::diff::unified(&input.name, &original, &fixed, &style);
        let written = match (&input.path, args.write) {
            // `fix --write -` prints the fixed text, like a formatter.
            (None, true) if !findings_output => write!(out, "{fixed}"),
            (None, true) => Ok(()),
            (Some(path), true) => match fix::write::write_atomic(path, original.as_bytes(), &fixed)
            {
                Ok(()) if findings_output => Ok(()),
                Ok(()) => write!(out, "{}", diff()),
                Err(e) => {
                    eprintln!("error: {}: {e}", input.name);
                    exit = EXIT_ERROR;
                    Ok(())
                }
            },
            (_, false) if findings_output => Ok(()),
            (_, false) => write!(out, "{}", diff()),
        };
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

/// What `fix` did, for its summary line and exit code.
#[derive(Default)]
struct FixSummary {
    fixed: usize,
    files_changed: usize,
    /// Findings left that have no fix at all.
    unfixable: usize,
    /// Findings left whose fix is unsafe and was not asked for.
    unsafe_left: usize,
}

impl FixSummary {
    fn count(&mut self, file: &fix::FileFix) {
        self.unsafe_left += file.unsafe_left;
        self.unfixable += file
            .report
            .findings
            .iter()
            .filter(|f| f.fix.is_none())
            .count();
        if file.changed() {
            self.fixed += file.applied;
            self.files_changed += 1;
        }
    }

    fn remaining(&self) -> usize {
        self.unfixable + self.unsafe_left
    }

    fn render(&self, write: bool) -> String {
        fix_summary(
            write,
            self.fixed,
            self.files_changed,
            self.unfixable,
            self.unsafe_left,
        )
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
    let mut text;
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
            text = serde_json::to_string_pretty(&rows).unwrap_or_default();
            text.push('\n');
        }
        CatalogFormat::Table => {
            let name_width = metas.iter().map(|m| m.name.len()).max().unwrap_or(0);
            text = format!(
                "{:<6} {:<name_width$} {:<8} {:<9} summary\n",
                "code", "name", "severity", "fix"
            );
            for m in metas {
                text.push_str(&format!(
                    "{:<6} {:<name_width$} {:<8} {:<9} {}\n",
                    m.code,
                    m.name,
                    m.severity.as_str(),
                    m.fix.as_str(),
                    m.summary
                ));
            }
        }
    }
    print(&text).err().unwrap_or(EXIT_CLEAN)
}

fn explain_command(key: &str) -> u8 {
    match rules::find(key) {
        Some(rule) => {
            let m = rule.meta();
            let text = format!(
                "# {} ({})\n\nSeverity: {}. Fix: {}.\n\n{}\n\nDocumentation: {}\n",
                m.name,
                m.code,
                m.severity.as_str(),
                m.fix.as_str(),
                m.documentation(),
                crate::docs::rule_doc_url(m),
            );
            print(&text).err().unwrap_or(EXIT_CLEAN)
        }
        None => usage_error(&format!(
            "unknown rule `{key}`{}; `toolcheck rules` lists them",
            rules::did_you_mean(key)
        )),
    }
}
