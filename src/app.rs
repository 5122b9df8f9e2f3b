//! The commands: what `main` runs after parsing arguments.

use std::io::{self, IsTerminal, Read, Write};
use std::process::ExitCode;

use rayon::prelude::*;

use crate::cli::{CatalogFormat, ColorChoice, Command, LintArgs, RulesArgs};
use crate::discover::{self, Input};
use crate::finding::Severity;
use crate::formats::Format;
use crate::lint::{self, FileReport, LintOptions, Outcome, Selection, SourceName};
use crate::report::{self, Diagnostic, FullRenderer, OutputFormat, Totals};
use crate::rules;

/// Exit codes of DESIGN.md section 2.
pub const EXIT_CLEAN: u8 = 0;
pub const EXIT_FINDINGS: u8 = 1;
pub const EXIT_ERROR: u8 = 2;

pub fn run(command: Command) -> ExitCode {
    let code = match command {
        Command::Lint(args) => lint_command(&args),
        Command::Rules(args) => rules_command(&args),
        Command::Explain { rule } => explain_command(&rule),
    };
    ExitCode::from(code)
}

fn usage_error(message: &str) -> u8 {
    eprintln!("error: {message}");
    EXIT_ERROR
}

fn lint_command(args: &LintArgs) -> u8 {
    let selection = match Selection::new(&args.select, &args.ignore) {
        Ok(s) => s,
        Err(e) => return usage_error(&e),
    };
    let excludes = match discover::build_excludes(&args.exclude) {
        Ok(g) => g,
        Err(e) => return usage_error(&e),
    };
    let mut extra_tools = Vec::new();
    for path in &args.tools {
        match crate::tools_file::load(path) {
            Ok(tools) => extra_tools.extend(tools),
            Err(e) => return usage_error(&format!("cannot use --tools {}: {e}", path.display())),
        }
    }
    let opts = LintOptions {
        input_format: Format::from_name(&args.input_format),
        selection,
        extra_tools,
        rule_options: rules::RuleOptions {
            loop_threshold: args.loop_threshold as usize,
            loop_match: args.loop_match,
            unpaired: rules::UnpairedFix::InsertResult,
        },
        schemas: Default::default(),
    };
    let (inputs, errors) =
        discover::discover(&args.paths, &excludes, args.stdin_filename.as_deref());
    let mut exit = EXIT_CLEAN;
    for e in &errors {
        eprintln!("error: {}: {}", e.path, e.message);
        exit = EXIT_ERROR;
    }

    let stdin_text = if inputs.iter().any(|i| i.path.is_none()) {
        let mut buf = Vec::new();
        if let Err(e) = io::stdin().read_to_end(&mut buf) {
            eprintln!("error: cannot read stdin: {e}");
            exit = EXIT_ERROR;
        }
        Some(buf)
    } else {
        None
    };

    let results: Vec<Result<FileReport, (String, String)>> = inputs
        .par_iter()
        .map(|input| read_and_lint(input, stdin_text.as_deref(), &opts))
        .collect();

    let color = use_color(args.color);
    let renderer = FullRenderer::new(color);
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut totals = Totals::default();
    let mut all = Vec::new();
    let mut skipped = Vec::new();
    for result in results {
        let report = match result {
            Ok(report) => report,
            Err((name, message)) => {
                eprintln!("error: {name}: {message}");
                exit = EXIT_ERROR;
                continue;
            }
        };
        match &report.outcome {
            Outcome::Checked(_) => totals.files_checked += 1,
            Outcome::Skipped(reason) => {
                totals.files_skipped += 1;
                skipped.push((report.source.name.clone(), reason.clone()));
            }
        }
        let mut diagnostics: Vec<Diagnostic> = report
            .findings
            .into_iter()
            .map(|f| Diagnostic::resolve(&report.source, f))
            .collect();
        diagnostics
            .sort_by(|a, b| (a.start, a.code, &a.message).cmp(&(b.start, b.code, &b.message)));
        for d in &diagnostics {
            match d.severity {
                Severity::Error => totals.errors += 1,
                Severity::Warning => totals.warnings += 1,
            }
        }
        if args.output_format == OutputFormat::Full && !args.statistics {
            for d in &diagnostics {
                let _ = write!(out, "{}", renderer.render(&report.source, d));
                let _ = writeln!(out);
            }
        } else {
            all.extend(diagnostics);
        }
    }

    let written = if args.statistics {
        report::write_statistics(&mut out, &all)
    } else if args.output_format == OutputFormat::Full {
        Ok(())
    } else {
        report::write_diagnostics(&mut out, args.output_format, &all)
    };
    if let Err(e) = written.and_then(|()| out.flush()) {
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write output: {e}");
        }
        return EXIT_ERROR;
    }
    drop(out);
    if args.verbose {
        for (name, reason) in &skipped {
            eprintln!("skipped {name}: {reason}");
        }
    }
    if !args.quiet && (args.output_format.is_human() || args.statistics) {
        println!("{}", totals.summary());
    }
    if exit == EXIT_CLEAN && totals.findings() > 0 && !args.exit_zero {
        exit = EXIT_FINDINGS;
    }
    exit
}

fn read_and_lint(
    input: &Input,
    stdin: Option<&[u8]>,
    opts: &LintOptions,
) -> Result<FileReport, (String, String)> {
    let bytes = match &input.path {
        Some(path) => std::fs::read(path).map_err(|e| (input.name.clone(), e.to_string()))?,
        None => stdin.unwrap_or_default().to_vec(),
    };
    let name = SourceName {
        name: input.name.clone(),
        path: input.path.clone(),
    };
    Ok(lint::lint_bytes(name, bytes, input.explicit, opts))
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
