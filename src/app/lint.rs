//! The `lint` command: each file linted in parallel, its findings placed, then the report,
//! the verbose listing of the files checked and skipped, and the summary line.

use std::io::Write;
use std::sync::Arc;

use rayon::prelude::*;

use crate::cli::CommonArgs;
use crate::diagnostic::Diagnostic;
use crate::discover::Input;
use crate::escape;
use crate::lint::{Outcome, Skip};
use crate::read::Loaded;
use crate::report::{self, FullRenderer, OutputFormat, Totals};
use crate::settings::Settings;

use super::output::{output_error, print, terminal_width, use_color};
use super::prepare::{diagnostics_of, prepare, source_name, unused_suppressions, Run};
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
        exit,
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
    let results = lint_inputs(common, &inputs, stdin.as_ref(), keep_text);

    let mut out = crate::stdout::stdout();
    let mut tally = Tally {
        exit,
        totals: Totals {
            unreadable,
            ..Totals::default()
        },
        ..Tally::default()
    };
    // The full report's files are written as they come, the other formats' all at the end.
    let annotate = github_annotations(common);
    for result in results {
        let Some(report) = tally.add(result, common.verbose) else {
            continue;
        };
        if keep_text {
            for rendered in &report.rendered {
                let _ = write!(out, "{rendered}");
                let _ = writeln!(out);
            }
            if annotate {
                tally.all.extend(report.diagnostics);
            }
        } else {
            tally.all.extend(report.diagnostics);
        }
    }
    let unused = unused_suppressions(&resolver_settings);
    tally.totals.count(&unused);
    if keep_text {
        // A config file is no log: one line each, without a snippet.
        let _ = report::write_diagnostics_in(
            &mut out,
            OutputFormat::Concise,
            &unused,
            use_color(common.color),
        );
    }
    tally.all.extend(unused);

    let written = if common.statistics {
        report::write_statistics(&mut out, format, &tally.all)
    } else if format == OutputFormat::Full {
        if annotate {
            report::write_diagnostics(&mut out, OutputFormat::Github, &tally.all)
        } else {
            Ok(())
        }
    } else {
        report::write_diagnostics_in(&mut out, format, &tally.all, use_color(common.color))
    };
    if let Err(e) = written.and_then(|()| out.flush()) {
        return output_error(&e);
    }
    drop(out);
    if common.verbose {
        tally.list_files();
    }
    tally.finish(common, format)
}

/// Lints every input in parallel, each placed (and for the full report rendered) in its
/// worker, with the progress bar.
fn lint_inputs(
    common: &CommonArgs,
    inputs: &[(Input, Arc<Settings>)],
    stdin: Option<&Loaded>,
    keep_text: bool,
) -> Vec<Result<Linted, crate::input::Error>> {
    let renderer = FullRenderer::with_width(use_color(common.color), terminal_width());
    let render = |source: &crate::source::SourceFile, found: &[Diagnostic], first_line| {
        renderer.render_part(source, found, first_line).collect()
    };
    let progress = crate::progress::Progress::new(inputs.len(), common.quiet);
    let results = inputs
        .par_iter()
        .map(|(input, settings)| {
            let opened = crate::input::open_input(input, stdin, settings.limit)?;
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
    results
}

/// What the run found, file by file: the totals, the findings to write at the end, the files
/// checked and skipped (for `--verbose` and the summary line), and the exit code so far.
#[derive(Default)]
struct Tally {
    exit: u8,
    totals: Totals,
    all: Vec<Diagnostic>,
    skipped: Vec<(String, Skip)>,
    /// With `--verbose`: each file checked, its formats and what was read of it.
    checked: Vec<(String, String, String)>,
}

impl Tally {
    /// Counts one file's result; an error is reported here and gives `None`.
    fn add(
        &mut self,
        result: Result<Linted, crate::input::Error>,
        verbose: bool,
    ) -> Option<Linted> {
        let report = match result {
            Ok(report) => report,
            Err(error) => {
                eprintln!("error: {}", escape::value(&error.to_string()));
                self.exit = EXIT_ERROR;
                self.totals.unreadable += 1;
                return None;
            }
        };
        match &report.outcome {
            Outcome::Checked(formats) => {
                self.totals.files_checked += 1;
                if verbose {
                    let names: Vec<&str> = formats.iter().map(|f| f.name()).collect();
                    let counts = read_counts(&report.read);
                    self.checked
                        .push((report.name.clone(), names.join(", "), counts));
                }
            }
            Outcome::Skipped(reason) => {
                self.totals.files_skipped += 1;
                self.skipped.push((report.name.clone(), reason.clone()));
            }
        }
        self.totals.count(&report.diagnostics);
        Some(report)
    }

    /// `--verbose`'s lines: each file checked with what was read of it, each file skipped
    /// with why.
    fn list_files(&self) {
        for (name, formats, counts) in &self.checked {
            let formats = if formats.is_empty() {
                "no conversation found"
            } else {
                formats
            };
            eprintln!("checked {} ({formats}): {counts}", escape::value(name));
        }
        for (name, reason) in &self.skipped {
            eprintln!(
                "skipped {}: {}",
                escape::value(name),
                escape::value(&reason.reason)
            );
        }
    }

    /// The summary line, and the exit code.
    fn finish(self, common: &CommonArgs, format: OutputFormat) -> u8 {
        // Nothing was read (a missing file): the error says it all, and "No findings: 0
        // files checked" beside it would read as a pass.
        let totals = &self.totals;
        let nothing_read =
            self.exit == EXIT_ERROR && totals.files_checked + totals.files_skipped == 0;
        if !common.quiet && format.is_human() && !nothing_read {
            let reasons: Vec<_> = self.skipped.iter().map(|(_, r)| r.kind).collect();
            let mut line = totals.summary_naming(&reasons);
            if let Some(hint) = totals.fix_hint() {
                line.push(' ');
                line.push_str(&hint);
            }
            if let Err(code) = print(&format!("{line}\n")) {
                return code;
            }
        }
        if self.exit == EXIT_CLEAN && totals.findings() > 0 && !common.exit_zero {
            EXIT_FINDINGS
        } else {
            self.exit
        }
    }
}

/// What `--verbose` says was read of a file: `2 conversations, 3 calls, 1 result`.
fn read_counts(r: &crate::coverage::ReadCounts) -> String {
    let plural = |n: usize, one: &'static str, many: &'static str| if n == 1 { one } else { many };
    format!(
        "{} {}, {} {}, {} {}",
        r.conversations,
        plural(r.conversations, "conversation", "conversations"),
        r.calls,
        plural(r.calls, "call", "calls"),
        r.results,
        plural(r.results, "result", "results"),
    )
}
