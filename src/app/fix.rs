//! The `fix` command (and `lint --fix`): each file fixed in parallel, then its diff, its
//! write or its remaining findings; stdin passed through when `fix --write -` is a filter;
//! the summary line and its tallies.

use std::io::{self, IsTerminal, Seek, Write};

use rayon::prelude::*;

use crate::cli::CommonArgs;
use crate::diagnostic::Diagnostic;
use crate::escape;
use crate::fix::{self, diff::DiffStyle};
use crate::input::Fixing;
use crate::read::Loaded;
use crate::report::{self, FullRenderer, OutputFormat, Totals};
use crate::rules::UnpairedFix;

use super::output::{output_error, print, terminal_width, use_color};
use super::prepare::{diagnostics_of, prepare, source_name, unused_suppressions, Run};
use super::{EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS};

/// How `fix` (or `lint --fix`) runs.
pub(super) struct FixMode {
    pub(super) write: bool,
    /// Uncropped, colourless patches for `git apply`.
    pub(super) diff: bool,
    pub(super) unsafe_fixes: bool,
    pub(super) unpaired: Option<UnpairedFix>,
    /// `lint --fix`: report what remains as `lint` does (findings, unused suppressions and
    /// its summary), instead of the diffs of what was applied.
    pub(super) report: bool,
}

/// Standard output, as every command writes it.
type Out = io::BufWriter<crate::stdout::PipeWriter<io::StdoutLock<'static>>>;

/// What a fix run shows and how, from its mode and output format.
struct Shape<'a> {
    common: &'a CommonArgs,
    mode: &'a FixMode,
    format: OutputFormat,
    /// `lint --fix` on files: what remains is reported as `lint` reports it.
    remaining_report: bool,
    /// Findings are printed instead of diffs.
    findings_output: bool,
    /// `lint --fix`'s full report: what remains, with its source, written file by file.
    full_report: bool,
    /// `fix --write -`: the fixed text is printed, like a formatter's.
    filter: bool,
    style: DiffStyle,
    /// `-q` with `--write`: the diffs of what was applied are not wanted either.
    show_diffs: bool,
    render: Option<crate::input::Render<'a>>,
}

/// What a fix run has done so far.
#[derive(Default)]
struct Done {
    exit: u8,
    summary: FixSummary,
    diagnostics: Vec<Diagnostic>,
    skipped: Vec<crate::lint::SkipKind>,
}

impl Done {
    /// An input that could not be read or fixed: its error, counted.
    fn unreadable(&mut self, message: &str) {
        eprintln!("error: {}", escape::value(message));
        self.exit = EXIT_ERROR;
        self.summary.unreadable += 1;
    }
}

pub(super) fn fix_command(common: &CommonArgs, mode: &FixMode) -> u8 {
    let format = common.format();
    // `lint --fix -` stays a filter that prints the fixed text, as `fix --write -` is (and
    // `--stdin-filename` alone reads stdin).
    let reads_stdin = common.paths().iter().any(|p| p == "-")
        || (common.stdin_filename.is_some() && !common.paths_given());
    let remaining_report = mode.report && !reads_stdin;
    // Any output format but `full` prints findings instead of diffs.
    let findings_output = format != OutputFormat::Full || common.statistics || remaining_report;
    let full_report = remaining_report && format == OutputFormat::Full && !common.statistics;
    let renderer = FullRenderer::with_width(use_color(common.color), terminal_width());
    let render = |source: &crate::source::SourceFile, found: &[Diagnostic], first_line| {
        renderer.render_part(source, found, first_line).collect()
    };
    let shape = Shape {
        common,
        mode,
        format,
        remaining_report,
        findings_output,
        full_report,
        // `fix --write -` passes through unchanged, byte for byte, whatever it does not
        // rewrite.
        filter: mode.write && !findings_output,
        // Long lines are cropped for a reader at a terminal only: redirected, the diff stays
        // whole (`toolcheck fix x.jsonl > x.patch` applies); `--diff` is the byte-exact
        // patch, without the escaping of control and bidi characters a reader is protected
        // by.
        style: DiffStyle {
            color: use_color(common.color) && !mode.diff,
            crop: io::stdout().is_terminal(),
        },
        show_diffs: !(mode.write && common.quiet),
        render: full_report.then_some(&render as crate::input::Render<'_>),
    };
    let Run {
        inputs,
        resolver_settings,
        stdin,
        stdin_over,
        exit,
        unreadable,
    } = match prepare(common, mode.unpaired, shape.filter) {
        Ok(run) => run,
        Err(code) => return code,
    };
    let results: Vec<Result<Fixing<'_>, crate::input::Error>> = inputs
        .par_iter()
        .map(|(input, settings)| {
            let opened = crate::input::open_input(input, stdin.as_ref(), settings.limit)?;
            let name = source_name(input);
            crate::input::fix_or_stream(
                opened,
                &name,
                input.explicit,
                &settings.opts,
                mode.unsafe_fixes,
            )
        })
        .collect();

    let mut out = crate::stdout::stdout();
    let mut done = Done {
        exit,
        summary: FixSummary {
            unreadable,
            ..FixSummary::default()
        },
        ..Done::default()
    };
    let echo_input = |out: &mut Out| echo_stdin(out, stdin.as_ref(), stdin_over.as_deref());
    for ((input, settings), result) in inputs.iter().zip(results) {
        let echo = shape.filter && input.is_stdin();
        let step = match result {
            Ok(Fixing::Whole(file)) => {
                let shown = show_whole(&shape, &mut done, &mut out, input, settings, *file);
                match shown {
                    Ok(true) if echo => echo_input(&mut out),
                    Ok(_) => Ok(()),
                    Err(code) => Err(code),
                }
            }
            Ok(Fixing::Streamed(plan)) => {
                let how = Streaming {
                    mode,
                    style: &shape.style,
                    findings_output,
                    show_diffs: shape.show_diffs,
                    render: shape.render,
                };
                match fix_streamed(
                    &plan,
                    input,
                    settings,
                    &how,
                    &mut out,
                    &mut done.diagnostics,
                ) {
                    Ok((tally, failed)) => {
                        if failed {
                            done.exit = EXIT_ERROR;
                        }
                        done.summary.count(&tally, failed);
                        settings.checked(input.path.as_deref());
                        Ok(())
                    }
                    Err(Stop::Failed(message)) => {
                        done.unreadable(&message);
                        Ok(())
                    }
                    Err(Stop::Output(e)) => Err(output_error(&e)),
                }
            }
            Err(error) => {
                done.unreadable(&error.to_string());
                if echo {
                    echo_input(&mut out)
                } else {
                    Ok(())
                }
            }
        };
        if let Err(code) = step {
            return code;
        }
    }
    finish(&shape, &resolver_settings, done, out)
}

/// Shows, writes and counts one input fixed whole: its remaining findings, its diff or its
/// write. `Ok(true)` when it had nothing to change (a filter passes such stdin through);
/// `Err` is the exit code of lost output.
fn show_whole(
    shape: &Shape<'_>,
    done: &mut Done,
    out: &mut Out,
    input: &crate::discover::Input,
    settings: &crate::settings::Settings,
    mut fixed_input: crate::input::Fixed,
) -> Result<bool, u8> {
    let mode = shape.mode;
    let changed = fixed_input.file.changed();
    let mut failed = false;
    let tally = FileTally::of(&fixed_input.file);
    match fixed_input.outcome() {
        crate::lint::Outcome::Checked(_) => settings.checked(input.path.as_deref()),
        crate::lint::Outcome::Skipped(reason) => done.skipped.push(reason.kind),
    }
    if shape.findings_output {
        // After --write, what remains in the written file; otherwise what is there now,
        // each with its fix.
        let (found, rendered) = fixed_input.findings(
            &source_name(input),
            input.explicit,
            &settings.opts,
            mode.write,
            &|source, findings| diagnostics_of(source, findings, settings),
            shape.render,
        );
        done.diagnostics.extend(found);
        write_rendered(out, &rendered).map_err(|e| output_error(&e))?;
    }
    if !changed {
        done.summary.count(&tally, false);
        return Ok(true);
    }
    let diff_of = |name: &str, pieces: &fix::diff::Aligned<'_>| {
        if mode.diff {
            fix::diff::patch_aligned(name, pieces)
        } else {
            fix::diff::unified_aligned(name, pieces, &shape.style)
        }
    };
    let diff = || fixed_input.diff(&input.name, &diff_of);
    let written = match (&input.path, mode.write) {
        (None, true) if shape.filter => {
            let file = &fixed_input.file;
            out.write_all(&file.encoding.encode(file.fixed_text()))
        }
        (None, true) => Ok(()),
        (Some(path), true) => match fixed_input.write(path, &input.name) {
            Ok(()) if shape.findings_output || !shape.show_diffs => Ok(()),
            Ok(()) => write!(out, "{}", diff()),
            Err(e) => {
                eprintln!(
                    "error: cannot write {}: {}",
                    escape::value(&input.name),
                    escape::value(&e.to_string())
                );
                done.exit = EXIT_ERROR;
                failed = true;
                Ok(())
            }
        },
        (_, false) if shape.findings_output => Ok(()),
        (_, false) => write!(out, "{}", diff()),
    };
    done.summary.count(&tally, failed);
    written.map_err(|e| output_error(&e))?;
    Ok(false)
}

/// The end of a fix run: `lint --fix`'s unused suppressions, the findings of every format but
/// the full report, the summary line, and the exit code.
fn finish(
    shape: &Shape<'_>,
    resolver_settings: &[std::sync::Arc<crate::settings::Settings>],
    mut done: Done,
    mut out: Out,
) -> u8 {
    let common = shape.common;
    if shape.remaining_report {
        let unused = unused_suppressions(resolver_settings);
        if shape.full_report {
            // A config file is no log: one line each, without a snippet (as `lint` does).
            let written = report::write_diagnostics_in(
                &mut out,
                OutputFormat::Concise,
                &unused,
                use_color(common.color),
            );
            if let Err(e) = written {
                return output_error(&e);
            }
        }
        done.summary.unused = unused.len();
        done.diagnostics.extend(unused);
    }
    // The full report's files were written as they were fixed.
    if shape.findings_output && !shape.full_report {
        let written = if common.statistics {
            report::write_statistics(&mut out, shape.format, &done.diagnostics)
        } else {
            report::write_diagnostics_in(
                &mut out,
                shape.format,
                &done.diagnostics,
                use_color(common.color),
            )
        };
        if let Err(e) = written {
            return output_error(&e);
        }
    }
    let _ = out.flush();
    drop(out);
    let summary = &done.summary;
    // Nothing was read (a missing file): the error says it all, and "Nothing to fix"
    // beside it would read as a pass.
    let nothing_read = summary.files == 0 && summary.unreadable > 0;
    if shape.remaining_report {
        if !common.quiet && shape.format.is_human() && !nothing_read {
            let line = summary.render_remaining(&done.diagnostics, &done.skipped);
            if let Err(code) = print(&format!("{line}\n")) {
                return code;
            }
        }
    } else if !common.quiet && !nothing_read {
        eprintln!("{}", summary.render(shape.mode.write));
    }
    if done.exit != EXIT_CLEAN || common.exit_zero {
        return done.exit;
    }
    let something_left = if shape.mode.write {
        summary.remaining() + summary.unused > 0
    } else {
        summary.files_changed > 0
    };
    if something_left {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    }
}

/// How a dataset fixed a chunk at a time is shown (as `fix_command` shows a whole file).
struct Streaming<'a> {
    mode: &'a FixMode,
    style: &'a DiffStyle,
    findings_output: bool,
    show_diffs: bool,
    /// `lint --fix`'s full report of what remains.
    render: Option<crate::input::Render<'a>>,
}

/// Why a dataset fixed a chunk at a time stopped: a chunk not fixed (or the file not read),
/// or the output gone.
enum Stop {
    Failed(String),
    Output(io::Error),
}

/// Fixes a JSONL dataset a chunk at a time: its diff printed as the chunks are fixed (after
/// `--write`, once the file is written, as for a whole file: the diff waits in a temporary
/// file), its findings placed per chunk. The file's tally, and whether its write failed.
fn fix_streamed(
    plan: &crate::input::Plan<'_>,
    input: &crate::discover::Input,
    settings: &crate::settings::Settings,
    how: &Streaming<'_>,
    out: &mut impl Write,
    diagnostics_out: &mut Vec<crate::diagnostic::Diagnostic>,
) -> Result<(FileTally, bool), Stop> {
    let mode = how.mode;
    let name = source_name(input);
    let job = crate::input::Job {
        name: &name,
        explicit: input.explicit,
        opts: &settings.opts,
        unsafe_fixes: mode.unsafe_fixes,
        write: mode.write,
        chunk_bytes: crate::input::FIX_CHUNK_BYTES,
    };
    let place =
        |source: &crate::source::SourceFile, findings| diagnostics_of(source, findings, settings);
    let wants_diff = !how.findings_output && (!mode.write || how.show_diffs);
    let mut diff = match (wants_diff, mode.diff) {
        (false, _) => None,
        (true, true) => Some(fix::diff::DiffStream::patch(&input.name)),
        (true, false) => Some(fix::diff::DiffStream::unified(&input.name, how.style)),
    };
    // After --write the diff is shown only once the file is written.
    let mut spool = match (&diff, mode.write) {
        (Some(_), true) => Some(tempfile::tempfile().map_err(Stop::Output)?),
        _ => None,
    };
    let mut output_failed: Option<io::Error> = None;
    let mut each = |chunk: &mut crate::input::FixedChunk| {
        if how.findings_output {
            let (found, rendered) = chunk.findings(&job, mode.write, &place, how.render);
            diagnostics_out.extend(found);
            if let Err(e) = write_rendered(&mut *out, &rendered) {
                output_failed.get_or_insert(e);
            }
        }
        if let Some(diff) = &mut diff {
            let (old, new) = chunk.texts();
            if let Err(e) = diff.push(&old, new, diff_target(&mut spool, &mut *out)) {
                output_failed.get_or_insert(e);
            }
        }
        Ok(())
    };
    let totals = crate::input::fix_streamed(plan, &job, &mut each).map_err(Stop::Failed)?;
    if let Some(diff) = &mut diff {
        if let Err(e) = diff.finish(diff_target(&mut spool, &mut *out)) {
            output_failed.get_or_insert(e);
        }
    }
    if let Some(e) = output_failed {
        return Err(Stop::Output(e));
    }
    if let Some(report) = totals.unrecognised {
        if how.findings_output {
            let placed = place(&report.source, report.findings);
            if let Some(render) = how.render.filter(|_| !placed.is_empty()) {
                write_rendered(&mut *out, &render(&report.source, &placed, 0))
                    .map_err(Stop::Output)?;
            }
            diagnostics_out.extend(placed);
        }
    }
    let tally = FileTally {
        applied: totals.applied,
        unsafe_left: totals.unsafe_left,
        unfixable: totals.unfixable,
        changed: totals.changed,
    };
    let failed = match totals.write_error {
        Some(e) if totals.changed => {
            eprintln!(
                "error: cannot write {}: {}",
                escape::value(&input.name),
                escape::value(&e.to_string())
            );
            true
        }
        _ => false,
    };
    if let (Some(mut file), false) = (spool, failed) {
        file.seek(io::SeekFrom::Start(0)).map_err(Stop::Output)?;
        io::copy(&mut file, out).map_err(Stop::Output)?;
    }
    Ok((tally, failed))
}

/// Writes a file's findings as the full report rendered them, each followed by a blank line
/// (as `lint` writes them).
fn write_rendered(out: &mut dyn Write, rendered: &[String]) -> io::Result<()> {
    for r in rendered {
        write!(out, "{r}")?;
        writeln!(out)?;
    }
    Ok(())
}

/// Where a streamed diff goes: the spool that holds it until `--write` is done, or `out`.
fn diff_target<'a>(
    spool: &'a mut Option<std::fs::File>,
    out: &'a mut dyn Write,
) -> &'a mut dyn Write {
    match spool {
        Some(file) => file,
        None => out,
    }
}

/// Passes stdin through to `out` unchanged: the bytes read, or for an input over the size
/// limit what was read of it and then the rest of the stream (so `fix --write - < f > g &&
/// mv g f` never empties or truncates `f`). `Err` is the exit code of a failed echo.
fn echo_stdin(
    out: &mut io::BufWriter<crate::stdout::PipeWriter<io::StdoutLock<'static>>>,
    stdin: Option<&Loaded>,
    over: Option<&[u8]>,
) -> Result<(), u8> {
    let start = match (stdin, over) {
        (Some(Loaded::Bytes(bytes, _)), _) => bytes,
        (Some(Loaded::TooLarge { .. }), Some(start)) => start,
        // Stdin could not be read: there is nothing to pass on.
        _ => return Ok(()),
    };
    out.write_all(start).map_err(|e| output_error(&e))?;
    if !matches!(stdin, Some(Loaded::TooLarge { .. })) {
        return Ok(());
    }
    let mut rest = io::stdin().lock();
    let mut buf = vec![0; 1 << 16];
    // Stops when the reader of stdout has gone, not at the end of an endless input.
    while !out.get_ref().is_closed() {
        let n = match io::Read::read(&mut rest, &mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                eprintln!("error: cannot read stdin: {e}");
                return Err(EXIT_ERROR);
            }
        };
        out.write_all(buf.get(..n).unwrap_or_default())
            .map_err(|e| output_error(&e))?;
    }
    Ok(())
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
    /// Files counted, fixed or not.
    files: usize,
    /// Paths that could not be read or fixed (each has had its error).
    unreadable: usize,
    /// `lint --fix`: the unused suppressions reported.
    unused: usize,
}

impl FixSummary {
    /// Counts one file; `failed`: its fixes could not be written, so none of them count
    /// as fixed.
    fn count(&mut self, file: &FileTally, failed: bool) {
        self.files += 1;
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
        let s = self.render_written(write);
        if self.unreadable == 0 {
            return s;
        }
        let one = self.unreadable == 1;
        let unreadable = format!(
            "{} {} could not be read or fixed (see the {} above)",
            self.unreadable,
            if one { "path" } else { "paths" },
            if one { "error" } else { "errors" }
        );
        // "Nothing to fix" alone would read as a pass: the failure comes first.
        match s.strip_prefix("Nothing to fix.") {
            Some(rest) => format!("{unreadable}; nothing to fix in the rest.{rest}"),
            None => format!("{s} {unreadable}."),
        }
    }

    /// `lint --fix`'s summary, in `lint`'s words: the findings found, fixed and remaining
    /// (`remaining`, as reported), and what else could fix them.
    fn render_remaining(
        &self,
        remaining: &[Diagnostic],
        skipped: &[crate::lint::SkipKind],
    ) -> String {
        let mut totals = Totals {
            files_checked: self.files - skipped.len().min(self.files),
            files_skipped: skipped.len(),
            unreadable: self.unreadable,
            ..Totals::default()
        };
        totals.count(remaining);
        let mut line = totals.summary_fixed(self.fixed, skipped);
        if let Some(hint) = totals.fix_hint() {
            line.push(' ');
            line.push_str(&hint);
        }
        if self.failed > 0 {
            line.push_str(&format!(
                " {} not applied: the file could not be written (see the errors above).",
                if self.failed == 1 {
                    "1 fix".to_string()
                } else {
                    format!("{} fixes", self.failed)
                }
            ));
        }
        line
    }

    /// The summary of the files read: what was (or would be) fixed, what remains.
    fn render_written(&self, write: bool) -> String {
        let s = fix_summary(
            write,
            self.fixed,
            self.files_changed,
            self.unfixable,
            self.unsafe_left,
        );
        if self.failed == 0 {
            return s;
        }
        let failed = format!(
            "{} not applied: the file could not be written (see the errors above).",
            if self.failed == 1 {
                "1 fix".to_string()
            } else {
                format!("{} fixes", self.failed)
            }
        );
        // "Nothing to fix" would be false: there was, and it could not be written.
        match s.strip_prefix("Nothing to fix.") {
            Some(rest) => format!("{failed}{rest}"),
            None => format!("{s} {failed}"),
        }
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
            " {} left out: rerun with --unsafe-fixes to include {}.",
            plural(unsafe_left, "unsafe fix", "unsafe fixes"),
            if unsafe_left == 1 { "it" } else { "them" }
        ));
    }
    s
}
