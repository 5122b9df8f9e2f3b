//! What `lint` and `fix` share: preparing a run (settings, discovery, stdin), opening each
//! input, and placing a file's findings.

use std::io;
use std::sync::Arc;

use crate::cli::CommonArgs;
use crate::diagnostic::Diagnostic;
use crate::discover::{self, Input};
use crate::escape;
use crate::lint::SourceName;
use crate::read::{self, Loaded};
use crate::report::OutputFormat;
use crate::rules::UnpairedFix;
use crate::settings::{Resolver, Settings};

use super::catalog::show_settings;
use super::output::usage_error;
use super::{EXIT_CLEAN, EXIT_ERROR};

/// What `lint` and `fix` share: each input with its settings, stdin, and the exit code so
/// far.
pub(super) struct Run {
    pub(super) inputs: Vec<(Input, Arc<Settings>)>,
    pub(super) resolver_settings: Vec<Arc<Settings>>,
    /// Stdin, read once (bounded) when `-` is among the inputs.
    pub(super) stdin: Option<Loaded>,
    /// What was read of a stdin over the size limit, kept only when asked for (`fix
    /// --write -` passes such an input through).
    pub(super) stdin_over: Option<Vec<u8>>,
    pub(super) exit: u8,
    /// Paths named that could not be read (missing, unreadable), stdin among them: each has
    /// had its error, and the summary counts them.
    pub(super) unreadable: usize,
}

/// Checks the options, resolves the settings, finds the inputs and reads stdin. `Err` is the
/// exit code to stop with: a usage error's, or a clean one once `--show-settings` has printed.
pub(super) fn prepare(
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
    if common.statistics
        && matches!(
            format,
            OutputFormat::Github | OutputFormat::Sarif | OutputFormat::Gitlab | OutputFormat::Junit
        )
    {
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
    let mut unreadable = found.errors.len();
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
    let stdin = if inputs.iter().any(|(i, _)| i.is_stdin()) {
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
                unreadable += 1;
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
        unreadable,
    })
}

pub(super) fn source_name(input: &Input) -> SourceName {
    SourceName {
        name: input.name.clone(),
        path: input.path.clone(),
    }
}

/// Places a file's findings, drops the suppressed ones, and sorts them by position.
pub(super) fn diagnostics_of(
    source: &crate::source::SourceFile,
    findings: Vec<crate::finding::Finding>,
    settings: &Settings,
) -> Vec<Diagnostic> {
    let mut diagnostics = crate::diagnostic::place_all(source, findings);
    settings.filter(source.path.as_deref(), &mut diagnostics);
    diagnostics
}

/// The `unused-suppression` findings of a run, when the rule is on (as `lint` reports them).
pub(super) fn unused_suppressions(
    settings: &[std::sync::Arc<crate::settings::Settings>],
) -> Vec<Diagnostic> {
    settings
        .iter()
        .flat_map(|s| s.unused_suppressions())
        .filter(|d| settings.iter().any(|s| s.opts.selection.is_enabled(d.code)))
        .collect()
}
