//! The `lint` command: each file linted in parallel, its findings placed, then the report,
//! the verbose listing of the files checked and skipped, and the summary line.

use std::io::Write;

use rayon::prelude::*;

use crate::cli::CommonArgs;
use crate::diagnostic::Diagnostic;
use crate::escape;
use crate::lint::Outcome;
use crate::report::{self, FullRenderer, OutputFormat, Totals};

use super::output::{output_error, print, terminal_width, use_color};
use super::prepare::{diagnostics_of, open_input, prepare, source_name, Run};
use super::{EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS};

/// One file's outcome with its findings placed, and rendered where the full report needs it.
struct Linted {
    name: String,
    outcome: Outcome,
    read: crate::coverage::ReadCounts,
    diagnostics: Vec<Diagnostic>,
    rendered: Vec<String>,
}

/// Whether GitHub Actions annotations go out beside the normal output: under Actions, when
/// no output format was asked for (ruff's habit).
fn github_annotations(common: &CommonArgs) -> bool {
    common.output_format.is_none()
        && std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true")
}

/// `toolcheck lint`; `lint --fix` never comes here: `run_code` sends it to the fix command.
pub(super) fn lint_command(common: &CommonArgs) -> u8 {
    let Run {
        inputs,
        resolver_settings,
        stdin,
        mut exit,
        unreadable,
        ..
    } = match prepare(common, None, false) {
        Ok(run) => run,
        Err(code) => return code,
    };
    let format = common.format();
    // Findings are placed inside the worker and the text dropped, so a directory run holds
    // one file per thread, not the corpus; only the full report keeps the text of files with
    // findings, for their snippets.
    let keep_text = format == OutputFormat::Full && !common.statistics;
    let renderer = FullRenderer::with_width(use_color(common.color), terminal_width());
    let render = |source: &crate::source::SourceFile, found: &[Diagnostic], first_line| {
        renderer.render_part(source, found, first_line).collect()
    };
    let progress = crate::progress::Progress::new(inputs.len(), common.quiet);
    let results: Vec<Result<Linted, String>> = inputs
        .par_iter()
        .map(|(input, settings)| {
            let opened = open_input(input, stdin.as_ref(), settings.limit)?;
            let place = |source: &crate::source::SourceFile, findings| {
                diagnostics_of(source, findings, settings)
            };
            let placed = crate::input::lint_placed(
                opened,
                source_name(input),
                input.explicit,
                &settings.opts,
                &place,
                keep_text.then_some(&render as crate::input::Render<'_>),
            )?;
            if matches!(placed.outcome, Outcome::Checked(_)) {
                settings.checked(input.path.as_deref());
            }
            progress.file_done(
                usize::try_from(placed.bytes).unwrap_or(usize::MAX),
                placed.diagnostics.len(),
            );
            Ok(Linted {
                name: input.name.clone(),
                outcome: placed.outcome,
                read: placed.read,
                diagnostics: placed.diagnostics,
                rendered: placed.rendered,
            })
        })
        .collect();
    progress.finish();

    let mut out = crate::stdout::stdout();
    let mut totals = Totals {
        unreadable,
        ..Totals::default()
    };
    let mut all = Vec::new();
    let mut skipped = Vec::new();
    let mut checked = Vec::new();
    let annotate = github_annotations(common);
    for result in results {
        let report = match result {
            Ok(report) => report,
            Err(message) => {
                eprintln!("error: {}", escape::value(&message));
                exit = EXIT_ERROR;
                totals.unreadable += 1;
                continue;
            }
        };
        match &report.outcome {
            Outcome::Checked(formats) => {
                totals.files_checked += 1;
                if common.verbose {
                    let names: Vec<&str> = formats.iter().map(|f| f.name()).collect();
                    let r = report.read;
                    let counts = format!(
                        "{} {}, {} {}, {} {}",
                        r.conversations,
                        if r.conversations == 1 {
                            "conversation"
                        } else {
                            "conversations"
                        },
                        r.calls,
                        if r.calls == 1 { "call" } else { "calls" },
                        r.results,
                        if r.results == 1 { "result" } else { "results" },
                    );
                    checked.push((report.name.clone(), names.join(", "), counts));
                }
            }
            Outcome::Skipped(reason) => {
                totals.files_skipped += 1;
                skipped.push((report.name.clone(), reason.clone()));
            }
        }
        let diagnostics = report.diagnostics;
        totals.count(&diagnostics);
        if keep_text {
            for rendered in &report.rendered {
                let _ = write!(out, "{rendered}");
                let _ = writeln!(out);
            }
            if annotate {
                all.extend(diagnostics);
            }
        } else {
            all.extend(diagnostics);
        }
    }
    let unused: Vec<Diagnostic> = resolver_settings
        .iter()
        .flat_map(|s| s.unused_suppressions())
        .filter(|d| {
            resolver_settings
                .iter()
                .any(|s| s.opts.selection.is_enabled(d.code))
        })
        .collect();
    totals.count(&unused);
    if format == OutputFormat::Full && !common.statistics {
        // A config file is no log: one line each, without a snippet.
        let _ = report::write_diagnostics_in(
            &mut out,
            OutputFormat::Concise,
            &unused,
            use_color(common.color),
        );
    }
    all.extend(unused);

    let written = if common.statistics {
        report::write_statistics(&mut out, format, &all)
    } else if format == OutputFormat::Full {
        if annotate {
            report::write_diagnostics(&mut out, OutputFormat::Github, &all)
        } else {
            Ok(())
        }
    } else {
        report::write_diagnostics_in(&mut out, format, &all, use_color(common.color))
    };
    if let Err(e) = written.and_then(|()| out.flush()) {
        return output_error(&e);
    }
    drop(out);
    if common.verbose {
        for (name, formats, counts) in &checked {
            let formats = if formats.is_empty() {
                "no conversation found"
            } else {
                formats
            };
            eprintln!("checked {} ({formats}): {counts}", escape::value(name));
        }
        for (name, reason) in &skipped {
            eprintln!(
                "skipped {}: {}",
                escape::value(name),
                escape::value(&reason.reason)
            );
        }
    }
    // Nothing was read (a missing file): the error says it all, and "No findings: 0 files
    // checked" beside it would read as a pass.
    let nothing_read = exit == EXIT_ERROR && totals.files_checked + totals.files_skipped == 0;
    if !common.quiet && format.is_human() && !nothing_read {
        let reasons: Vec<_> = skipped.iter().map(|(_, r)| r.kind).collect();
        let mut line = totals.summary_naming(&reasons);
        if let Some(hint) = totals.fix_hint() {
            line.push(' ');
            line.push_str(&hint);
        }
        if let Err(code) = print(&format!("{line}\n")) {
            return code;
        }
    }
    if exit == EXIT_CLEAN && totals.findings() > 0 && !common.exit_zero {
        exit = EXIT_FINDINGS;
    }
    exit
}
