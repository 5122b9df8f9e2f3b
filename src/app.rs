//! The commands: what `main` runs after parsing arguments.

use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;

use rayon::prelude::*;

use crate::cli::{CatalogFormat, ColorChoice, Command, CommonArgs, LintArgs, RulesArgs};
use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::discover::{self, Input};
use crate::escape;
use crate::fix::{self, diff::DiffStyle};
use crate::lint::{self, FileReport, Outcome, SourceName};
use crate::read::{self, Loaded};
use crate::report::{self, FullRenderer, OutputFormat, Totals};
use crate::rules::{self, UnpairedFix};
use crate::settings::{Resolver, Settings};

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
        Command::Lint(args) => lint_command(&args),
        Command::Fix(args) => fix_command(
            &args.common,
            &FixMode {
                write: args.write,
                diff: args.diff,
                unsafe_fixes: args.unsafe_fixes,
                unpaired: args.unpaired,
            },
        ),
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
    }
}

fn usage_error(message: &str) -> u8 {
    // Config and --tools errors quote the files, which may be hostile; keep their layout.
    eprintln!("error: {}", escape::layout(message));
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

/// What `lint` and `fix` share: each input with its settings, stdin, and the exit code so
/// far.
struct Run {
    inputs: Vec<(Input, Arc<Settings>)>,
    resolver_settings: Vec<Arc<Settings>>,
    /// Stdin, read once (bounded) when `-` is among the inputs.
    stdin: Option<Loaded>,
    /// What was read of a stdin over the size limit, kept only when asked for (`fix
    /// --write -` passes such an input through).
    stdin_over: Option<Vec<u8>>,
    exit: u8,
}

fn prepare(
    common: &CommonArgs,
    unpaired: Option<UnpairedFix>,
    keep_stdin_over: bool,
) -> Result<Run, u8> {
    let format = common.format();
    if let Some(threads) = common.threads {
        // The global pool can be built once per process; an embedder that built it already
        // keeps its own.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(usize::from(threads))
            .build_global();
    }
    if common.statistics && matches!(format, OutputFormat::Github | OutputFormat::Sarif) {
        return Err(usage_error(&format!(
            "--statistics prints counts, which the `{}` format has no place for; use full, concise, json or jsonl",
            format.name()
        )));
    }
    let mut paths = common.paths();
    if common.stdin_filename.is_some() && !paths.iter().any(|p| p == "-") {
        // ruff's habit: `--stdin-filename` with no path reads stdin.
        if paths == ["."] && !common.paths_given() {
            paths = vec!["-".to_string()];
        } else {
            return Err(usage_error(
                "--stdin-filename names stdin, but `-` is not among the paths; add `-` to read stdin",
            ));
        }
    }
    let mut resolver = Resolver::new(common, unpaired).map_err(|e| usage_error(&e))?;
    // The walk's excludes: the settings that apply where the run starts.
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    let here = resolver.for_dir(&cwd).map_err(|e| usage_error(&e))?;
    // `--exclude` adds to the config's `exclude`; each is relative to where it was written.
    let config_dir = here.config_dir();
    let config_excludes = here.config_excludes();
    let excludes = discover::Excludes::new(
        config_excludes.as_deref().zip(config_dir.as_deref()),
        &common.exclude,
        &cwd,
    )
    .map_err(|e| usage_error(&e))?;
    if common.show_settings {
        show_settings(&paths, &mut resolver)?;
        return Err(EXIT_CLEAN);
    }
    let walk = discover::WalkOptions {
        excludes: excludes.into(),
        no_ignore: common.no_ignore,
        record_skipped: common.verbose,
    };
    let found = discover::discover(&paths, &walk, common.stdin_filename.as_deref());
    let mut exit = if discover::report(&found, common.quiet) {
        EXIT_ERROR
    } else {
        EXIT_CLEAN
    };
    let mut inputs = Vec::with_capacity(found.inputs.len());
    // A walked file whose own closest config (not the one where the run starts) excludes it.
    let mut nested_excludes: Vec<(Arc<Settings>, discover::Excludes)> = Vec::new();
    for mut input in found.inputs {
        if common.skip_unknown_format {
            input.explicit = false;
        }
        let settings = resolver
            .for_input(input.path.as_deref())
            .map_err(|e| usage_error(&e))?;
        if let (false, Some(path)) = (input.explicit || Arc::ptr_eq(&settings, &here), &input.path)
        {
            if !nested_excludes
                .iter()
                .any(|(s, _)| Arc::ptr_eq(s, &settings))
            {
                let globs = settings.config_excludes().unwrap_or_default();
                let dir = settings.config_dir().unwrap_or_else(|| cwd.clone());
                let excludes = discover::Excludes::new(Some((&globs, &dir)), &[], &cwd)
                    .map_err(|e| usage_error(&e))?;
                nested_excludes.push((settings.clone(), excludes));
            }
            let excluded = nested_excludes
                .iter()
                .find(|(s, _)| Arc::ptr_eq(s, &settings))
                .and_then(|(_, e)| e.excluding(path));
            if let Some(glob) = excluded {
                if common.verbose {
                    eprintln!(
                        "skipped {}: excluded by {:?} in {}",
                        escape::value(&input.name),
                        glob,
                        settings
                            .config_path
                            .as_deref()
                            .map_or_else(String::new, |p| escape::value(&p.display().to_string())
                                .into_owned())
                    );
                }
                continue;
            }
        }
        inputs.push((input, settings));
    }
    let mut stdin_over = None;
    let stdin = if inputs.iter().any(|(i, _)| i.path.is_none()) {
        match read::read_prefix(io::stdin().lock(), here.limit) {
            Ok((bytes, false)) => Some(Loaded::Bytes(bytes, None)),
            Ok((bytes, true)) => {
                stdin_over = keep_stdin_over.then_some(bytes);
                Some(Loaded::TooLarge {
                    size: None,
                    limit: here.limit,
                })
            }
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
        inputs,
        resolver_settings: resolver.all(),
        stdin,
        stdin_over,
        exit,
    })
}

/// `--show-settings`: the effective settings for each path given, and their origins.
fn show_settings(paths: &[String], resolver: &mut Resolver<'_>) -> Result<(), u8> {
    let mut out = String::new();
    for path in paths {
        let p = std::path::Path::new(path);
        let dir = if path == "-" || p.is_dir() {
            p.to_path_buf()
        } else {
            p.parent()
                .filter(|d| !d.as_os_str().is_empty())
                .map_or_else(
                    || std::path::PathBuf::from("."),
                    std::path::Path::to_path_buf,
                )
        };
        let dir = if path == "-" {
            std::path::PathBuf::from(".")
        } else {
            dir
        };
        let settings = resolver.for_dir(&dir).map_err(|e| usage_error(&e))?;
        out.push_str(&format!(
            "# settings for {path}\n# config file: {}\n",
            settings
                .config_path
                .as_deref()
                .map_or_else(|| "none".to_string(), |c| c.display().to_string())
        ));
        let width = settings
            .shown
            .iter()
            .map(|(k, _, _)| k.len())
            .max()
            .unwrap_or(0);
        for (key, value, origin) in &settings.shown {
            let value = if value.is_empty() { "(none)" } else { value };
            out.push_str(&format!("{key:<width$} = {value}  # {origin}\n"));
        }
    }
    print(&escape::layout(&out))
}

/// An input's bytes (and, for a regular file, its stamp when read), or why there are none.
/// An input as found: a SQLite store, read in place and never loaded whole, or loaded bytes.
enum Opened<'a> {
    Store(&'a std::path::Path),
    Loaded(Loaded),
}

/// Opens an input: a regular file with the SQLite header is a store (bounded by the size of
/// the database and its log or journal), anything else is read as bytes.
fn open_input<'a>(
    input: &'a Input,
    stdin: Option<&Loaded>,
    limit: u64,
) -> Result<Opened<'a>, String> {
    if let Some(path) = input.path.as_deref() {
        let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
        if regular && crate::store::has_sqlite_header(path) {
            let size =
                crate::store::size(path).map_err(|e| format!("cannot read {}: {e}", input.name))?;
            if size > limit {
                return Ok(Opened::Loaded(Loaded::TooLarge {
                    size: Some(size),
                    limit,
                }));
            }
            return Ok(Opened::Store(path));
        }
    }
    let loaded = read_input(input, stdin, limit)?;
    if matches!(&loaded, Loaded::Bytes(bytes, _) if crate::store::is_sqlite(bytes)) {
        return Err(format!(
            "{}: holds a SQLite database, which toolcheck reads in place: name the database file itself",
            input.name
        ));
    }
    Ok(Opened::Loaded(loaded))
}

fn read_input(input: &Input, stdin: Option<&Loaded>, limit: u64) -> Result<Loaded, String> {
    match &input.path {
        Some(path) => {
            read::read_path(path, limit).map_err(|e| format!("cannot read {}: {e}", input.name))
        }
        None => match stdin {
            Some(Loaded::Bytes(bytes, _)) => Ok(Loaded::Bytes(bytes.clone(), None)),
            Some(Loaded::TooLarge { size, limit }) => Ok(Loaded::TooLarge {
                size: *size,
                limit: *limit,
            }),
            None => Err("cannot read stdin".into()),
        },
    }
}

fn source_name(input: &Input) -> SourceName {
    SourceName {
        name: input.name.clone(),
        path: input.path.clone(),
    }
}

/// Places a file's findings, drops the suppressed ones, and sorts them by position.
fn diagnostics(
    report: FileReport,
    settings: &Settings,
) -> (Vec<Diagnostic>, crate::source::SourceFile) {
    let diagnostics = diagnostics_of(&report.source, report.findings, settings);
    (diagnostics, report.source)
}

/// [`diagnostics`] of findings whose source stays with its owner (`fix` writes it back).
fn diagnostics_of(
    source: &crate::source::SourceFile,
    findings: Vec<crate::finding::Finding>,
    settings: &Settings,
) -> Vec<Diagnostic> {
    let mut diagnostics = crate::diagnostic::place_all(source, findings);
    settings.filter(source.path.as_deref(), &mut diagnostics);
    diagnostics
}

/// One file's outcome with its findings placed, and its text only where a report needs it.
struct Linted {
    name: String,
    bytes: usize,
    outcome: Outcome,
    read: crate::coverage::ReadCounts,
    diagnostics: Vec<Diagnostic>,
    source: Option<crate::source::SourceFile>,
}

impl Linted {
    fn new(
        report: FileReport,
        settings: &Settings,
        keep_text: bool,
        rows: Option<&crate::store::Rows>,
    ) -> Linted {
        let outcome = report.outcome.clone();
        let read = report.read;
        let (mut diagnostics, source) = diagnostics(report, settings);
        if let Some(rows) = rows {
            rows.relocate(&source, &mut diagnostics);
        }
        Linted {
            name: source.name.clone(),
            bytes: source.text.len(),
            outcome,
            read,
            source: (keep_text && !diagnostics.is_empty()).then_some(source),
            diagnostics,
        }
    }
}

/// Whether GitHub Actions annotations go out beside the normal output: under Actions, when
/// no output format was asked for (ruff's habit).
fn github_annotations(common: &CommonArgs) -> bool {
    common.output_format.is_none()
        && std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true")
}

fn lint_command(args: &LintArgs) -> u8 {
    if args.fix {
        return fix_command(
            &args.common,
            &FixMode {
                write: true,
                diff: false,
                unsafe_fixes: args.unsafe_fixes,
                unpaired: None,
            },
        );
    }
    let common = &args.common;
    let Run {
        inputs,
        resolver_settings,
        stdin,
        mut exit,
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
    let progress = crate::progress::Progress::new(inputs.len(), common.quiet);
    let results: Vec<Result<Linted, String>> = inputs
        .par_iter()
        .map(|(input, settings)| {
            let mut rows = None;
            let report = match open_input(input, stdin.as_ref(), settings.limit)? {
                Opened::Store(path) => {
                    let (report, r) = crate::store::lint_path(
                        source_name(input),
                        path,
                        input.explicit,
                        &settings.opts,
                    )?;
                    rows = Some(r);
                    report
                }
                Opened::Loaded(Loaded::Bytes(bytes, _)) => {
                    lint::lint_bytes(source_name(input), bytes, input.explicit, &settings.opts)
                }
                Opened::Loaded(Loaded::TooLarge { size, limit }) => {
                    lint::too_large(source_name(input), size, limit)
                }
            };
            let linted = Linted::new(report, settings, keep_text, rows.as_ref());
            progress.file_done(linted.bytes, linted.diagnostics.len());
            Ok(linted)
        })
        .collect();
    progress.finish();

    let renderer = FullRenderer::with_width(use_color(common.color), terminal_width());
    let mut out = crate::stdout::stdout();
    let mut totals = Totals::default();
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
        if let Some(source) = report.source.filter(|_| keep_text) {
            for rendered in renderer.render_file(&source, &diagnostics) {
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
        let _ = report::write_diagnostics(&mut out, OutputFormat::Concise, &unused);
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
        report::write_diagnostics(&mut out, format, &all)
    };
    if let Err(e) = written.and_then(|()| out.flush()) {
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write output: {e}");
        }
        return EXIT_ERROR;
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
            eprintln!("skipped {}: {}", escape::value(name), escape::value(reason));
        }
    }
    if !common.quiet && format.is_human() {
        let mut line = totals.summary();
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

/// How `fix` (or `lint --fix`) runs.
struct FixMode {
    write: bool,
    /// Uncropped, colourless patches for `git apply`.
    diff: bool,
    unsafe_fixes: bool,
    unpaired: Option<UnpairedFix>,
}

fn fix_command(common: &CommonArgs, mode: &FixMode) -> u8 {
    let format = common.format();
    // Any output format but `full` prints findings instead of diffs.
    let findings_output = format != OutputFormat::Full || common.statistics;
    // `fix --write -` prints the fixed text, like a formatter: a filter, which passes
    // through unchanged, byte for byte, whatever it does not rewrite.
    let filter = mode.write && !findings_output;
    let Run {
        inputs,
        stdin,
        stdin_over,
        mut exit,
        ..
    } = match prepare(common, mode.unpaired, filter) {
        Ok(run) => run,
        Err(code) => return code,
    };
    // A SQLite store keeps what was read, to be written back in a transaction.
    type Fixed = (
        fix::FileFix,
        Option<read::FileStamp>,
        Option<crate::store::Snapshot>,
    );
    let results: Vec<Result<Fixed, String>> = inputs
        .par_iter()
        .map(|(input, settings)| {
            let (bytes, stamp) = match open_input(input, stdin.as_ref(), settings.limit)? {
                Opened::Store(path) => {
                    let snapshot = crate::store::read(path, &input.name)?;
                    let name = source_name(input);
                    let explicit = input.explicit;
                    return crate::store::fix(
                        &name,
                        &snapshot,
                        explicit,
                        &settings.opts,
                        mode.unsafe_fixes,
                    )
                    .map(|file| (file, None, Some(snapshot)))
                    .map_err(|e| format!("{}: {e}", input.name));
                }
                Opened::Loaded(Loaded::Bytes(bytes, stamp)) => (bytes, stamp),
                Opened::Loaded(Loaded::TooLarge { size, limit }) => {
                    return Err(format!(
                        "{}: {}",
                        input.name,
                        lint::too_large_message(size, limit)
                    ));
                }
            };
            fix::fix_bytes(
                &source_name(input),
                bytes,
                input.explicit,
                &settings.opts,
                mode.unsafe_fixes,
            )
            .map(|file| (file, stamp, None))
            .map_err(|e| format!("{}: {e}", input.name))
        })
        .collect();

    let style = DiffStyle {
        color: use_color(common.color) && !mode.diff,
    };
    // `-q` with `--write`: the diffs of what was applied are not wanted either.
    let show_diffs = !(mode.write && common.quiet);
    let mut out = crate::stdout::stdout();
    let mut summary = FixSummary::default();
    let mut diagnostics_out = Vec::new();
    for ((input, settings), result) in inputs.iter().zip(results) {
        let echo = filter && input.path.is_none();
        let (mut file, stamp, store) = match result {
            Ok(file) => file,
            Err(message) => {
                eprintln!("error: {}", escape::value(&message));
                exit = EXIT_ERROR;
                if echo {
                    if let Err(code) = echo_stdin(&mut out, stdin.as_ref(), stdin_over.as_deref()) {
                        return code;
                    }
                }
                continue;
            }
        };
        let changed = file.changed();
        let mut failed = false;
        let tally = FileTally::of(&file);
        if findings_output {
            // After --write, what remains in the written file; otherwise what is there now,
            // each with its fix.
            let (mut placed, rows) = match &store {
                Some(snapshot) => {
                    let text = if mode.write {
                        file.fixed_text()
                    } else {
                        file.original_text()
                    };
                    let (report, rows) = crate::store::lint_text(
                        source_name(input),
                        text.to_string(),
                        snapshot,
                        input.explicit,
                        &settings.opts,
                    );
                    let (placed, source) = diagnostics(report, settings);
                    (placed, Some((rows, source)))
                }
                // The fix's own report: its findings move out, its text stays for the write.
                None if mode.write || file.report_of_original().is_some() => {
                    let findings = std::mem::take(&mut file.report.findings);
                    (
                        diagnostics_of(&file.report.source, findings, settings),
                        None,
                    )
                }
                None => {
                    let bytes = file.original_text().as_bytes().to_vec();
                    let report =
                        lint::lint_bytes(source_name(input), bytes, input.explicit, &settings.opts);
                    (diagnostics(report, settings).0, None)
                }
            };
            if let Some((rows, source)) = rows {
                rows.relocate(&source, &mut placed);
            }
            diagnostics_out.extend(placed);
        }
        let (original, fixed, encoding) = (file.original_text(), file.fixed_text(), file.encoding);
        if !changed {
            summary.count(&tally, false);
            if echo {
                if let Err(code) = echo_stdin(&mut out, stdin.as_ref(), stdin_over.as_deref()) {
                    return code;
                }
            }
            continue;
        }
        let diff_of = |name: &str, old: &str, new: &str| {
            if mode.diff {
                fix::diff::patch(name, old, new)
            } else {
                fix::diff::unified(name, old, new, &style)
            }
        };
        // A store's diff is one per changed row, of its JSON value.
        let diff = || match &store {
            Some(snapshot) => snapshot
                .changed_rows(&input.name, fixed)
                .iter()
                .map(|(row, old, new)| diff_of(row, old, new))
                .collect(),
            None => diff_of(&input.name, original, fixed),
        };
        let written = match (&input.path, mode.write) {
            (None, true) if filter => out.write_all(&encoding.encode(fixed)),
            (None, true) => Ok(()),
            (Some(path), true) => {
                let (read, new) = (encoding.encode(original), encoding.encode(fixed));
                let written = match &store {
                    Some(snapshot) => crate::store::write(path, &input.name, snapshot, fixed)
                        .map_err(fix::write::WriteError),
                    None => fix::write::write_atomic(path, &read, stamp.as_ref(), new),
                };
                match written {
                    Ok(()) if findings_output || !show_diffs => Ok(()),
                    Ok(()) => write!(out, "{}", diff()),
                    Err(e) => {
                        eprintln!(
                            "error: cannot write {}: {}",
                            escape::value(&input.name),
                            escape::value(&e.to_string())
                        );
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
            return output_error(&e);
        }
    }
    if findings_output {
        let written = if common.statistics {
            report::write_statistics(&mut out, format, &diagnostics_out)
        } else {
            report::write_diagnostics(&mut out, format, &diagnostics_out)
        };
        if let Err(e) = written {
            return output_error(&e);
        }
    }
    let _ = out.flush();
    drop(out);
    if !common.quiet {
        eprintln!("{}", summary.render(mode.write));
    }
    if exit != EXIT_CLEAN || common.exit_zero {
        return exit;
    }
    let something_left = if mode.write {
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

/// Standard output failed: said on stderr unless the reader has gone.
fn output_error(e: &io::Error) -> u8 {
    if e.kind() != io::ErrorKind::BrokenPipe {
        eprintln!("error: cannot write output: {e}");
    }
    EXIT_ERROR
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

/// Whether to colour stdout. `auto` follows the conventions anstream implements: `NO_COLOR`,
/// `CLICOLOR=0`, `CLICOLOR_FORCE`, `TERM=dumb`, whether stdout is a terminal, and on Windows
/// whether the console can show ANSI colours (enabling them if it can).
fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            anstream::AutoStream::choice(&io::stdout()) != anstream::ColorChoice::Never
        }
    }
}

/// The width to wrap reports at: `COLUMNS`, else the terminal's, else a fixed width so piped
/// output does not depend on the window it was run in.
fn terminal_width() -> usize {
    let width = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .or_else(|| {
            io::stdout()
                .is_terminal()
                .then(|| terminal_size::terminal_size().map(|(w, _)| usize::from(w.0)))
                .flatten()
        })
        .unwrap_or(crate::report::DEFAULT_WIDTH);
    width.clamp(60, 400)
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
                m.doc_url(),
            );
            print(&text).err().unwrap_or(EXIT_CLEAN)
        }
        None => usage_error(&format!(
            "unknown rule `{key}`{}; `toolcheck rules` lists them",
            rules::did_you_mean(key)
        )),
    }
}
