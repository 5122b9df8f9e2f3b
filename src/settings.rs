//! The effective settings for each checked file: the closest `toolcheck.toml` (or the one
//! `--config` names), with the command line layered on top, and where each value came from
//! (`--show-settings`). Also applies `[per-file-ignores]` and `[[suppress]]` to a file's
//! findings, and reports suppressions that matched nothing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use globset::{Glob, GlobMatcher};

use crate::cli::CommonArgs;
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::finding::Severity;
use crate::format::Format;
use crate::lint::LintOptions;
use crate::rules::{self, resolve_selector, RuleLayer, Selection, UnpairedFix};

/// Where a setting's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Default,
    Config(PathBuf),
    CommandLine,
    /// The command line on top of a config file.
    Both(PathBuf),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Default => f.write_str("default"),
            Origin::Config(p) => write!(f, "{}", p.display()),
            Origin::CommandLine => f.write_str("command line"),
            Origin::Both(p) => write!(f, "{} + command line", p.display()),
        }
    }
}

/// One file's settings.
pub struct Settings {
    pub opts: LintOptions,
    /// The maximum input size.
    pub limit: u64,
    pub config_path: Option<PathBuf>,
    /// The directory config globs are relative to.
    base: PathBuf,
    per_file_ignores: Vec<(GlobMatcher, Vec<&'static str>)>,
    suppressions: Vec<Suppress>,
    /// `key`, value, origin: what `--show-settings` prints.
    pub shown: Vec<(&'static str, String, Origin)>,
    /// The config's `exclude` globs.
    config_excludes: Option<Vec<String>>,
}

struct Suppress {
    matcher: GlobMatcher,
    codes: Vec<&'static str>,
    id: Option<String>,
    pointer: Option<String>,
    used: AtomicBool,
    /// Whether this run covered the entry: checked a file its `path` matches, with a rule
    /// of its `rule` enabled. Only then can it be unused (ruff reports an unused `noqa`
    /// only in the files it checked); see [`rules::UnusedSuppression`].
    checked: AtomicBool,
    line: usize,
    column: usize,
    reason: String,
    path_glob: String,
    rule: String,
}

impl Settings {
    /// The config file's `exclude` globs (relative to [`Settings::config_dir`]).
    pub fn config_excludes(&self) -> Option<Vec<String>> {
        self.config_excludes.clone()
    }

    /// The directory of the config file, if there is one.
    pub fn config_dir(&self) -> Option<PathBuf> {
        self.config_path.as_ref().map(|_| self.base.clone())
    }

    /// Drops the findings `[per-file-ignores]` turns off for `path` and those a `[[suppress]]`
    /// entry accepts, marking those entries used.
    pub fn filter(&self, path: Option<&Path>, diagnostics: &mut Vec<Diagnostic>) {
        if self.per_file_ignores.is_empty() && self.suppressions.is_empty() {
            return;
        }
        let Some(rel) = path.and_then(|p| relative_to(p, &self.base)) else {
            return;
        };
        let ignored: Vec<&'static str> = self
            .per_file_ignores
            .iter()
            .filter(|(m, _)| m.is_match(&rel))
            .flat_map(|(_, codes)| codes.iter().copied())
            .collect();
        diagnostics.retain(|d| {
            if ignored.contains(&d.code) {
                return false;
            }
            let hit = self.suppressions.iter().find(|s| {
                s.codes.contains(&d.code)
                    && s.matcher.is_match(&rel)
                    && s.id
                        .as_ref()
                        .is_none_or(|id| d.tool_call_id.as_deref() == Some(id.as_str()))
                    && s.pointer.as_ref().is_none_or(|p| *p == d.pointer)
            });
            match hit {
                Some(s) => {
                    s.used.store(true, Ordering::Relaxed);
                    false
                }
                None => true,
            }
        });
    }

    /// Marks the `[[suppress]]` entries this run covers, `path` being a file it checked: those
    /// whose `path` matches it and whose `rule` names a rule the run has on. An entry for a
    /// rule left out (`--select`, `--ignore`) could not have matched, so a run without that
    /// rule says nothing about whether the entry is still needed.
    pub fn checked(&self, path: Option<&Path>) {
        if self.suppressions.is_empty() {
            return;
        }
        let Some(rel) = path.and_then(|p| relative_to(p, &self.base)) else {
            return;
        };
        for s in &self.suppressions {
            if s.matcher.is_match(&rel) && s.codes.iter().any(|c| self.opts.selection.is_enabled(c))
            {
                s.checked.store(true, Ordering::Relaxed);
            }
        }
    }

    /// `unused-suppression` findings for the `[[suppress]]` entries that matched nothing in
    /// the files this run checked.
    pub fn unused_suppressions(&self) -> Vec<Diagnostic> {
        let Some(config) = &self.config_path else {
            return Vec::new();
        };
        let meta = &rules::UnusedSuppression::META;
        self.suppressions
            .iter()
            .filter(|s| s.checked.load(Ordering::Relaxed) && !s.used.load(Ordering::Relaxed))
            .map(|s| {
                let what = match (&s.id, &s.pointer) {
                    (Some(id), _) => format!("tool call \"{id}\""),
                    (None, Some(p)) => format!("pointer `{p}`"),
                    (None, None) => "any finding".to_string(),
                };
                Diagnostic {
                    code: meta.code,
                    rule: meta.name,
                    severity: Severity::Warning,
                    message: format!(
                        "suppression of `{}` for {what} in `{}` matched no finding (reason given: {:?})",
                        s.rule, s.path_glob, s.reason
                    ),
                    help: Some(
                        "remove the entry: the finding it accepted is gone, or the entry no longer points at it".into(),
                    ),
                    path: crate::config::shown(config),
                    format: None,
                    line: s.line,
                    column: s.column,
                    end_line: s.line,
                    end_column: s.column,
                    pointer: String::new(),
                    location: None,
                    fix: None,
                    tool_call_id: s.id.clone(),
                    providers: Vec::new(),
                    replay: None,
                    span: None,
                    start: 0,
                    end: 0,
                    base: 0,
                }
            })
            .collect()
    }
}

/// `path` relative to `base`, both made absolute against the current directory.
fn relative_to(path: &Path, base: &Path) -> Option<PathBuf> {
    let abs = std::path::absolute(path).ok()?;
    let base = std::path::absolute(base).ok()?;
    abs.strip_prefix(&base).ok().map(Path::to_path_buf)
}

/// Builds and caches settings per config file.
pub struct Resolver<'a> {
    cli: &'a CommonArgs,
    unpaired: Option<UnpairedFix>,
    schemas: Arc<crate::schema::SchemaCache>,
    /// `--config` or `--no-config`: one config for every file.
    fixed: Option<Arc<Settings>>,
    by_config: HashMap<Option<PathBuf>, Arc<Settings>>,
}

impl<'a> Resolver<'a> {
    pub fn new(cli: &'a CommonArgs, unpaired: Option<UnpairedFix>) -> Result<Self, String> {
        let mut resolver = Resolver {
            cli,
            unpaired,
            schemas: Arc::default(),
            fixed: None,
            by_config: HashMap::new(),
        };
        if cli.no_config {
            resolver.fixed = Some(Arc::new(resolver.build(Config::default())?));
        } else if let Some(path) = &cli.config {
            let config = Config::load(path).map_err(|e| format!("cannot use --config: {e}"))?;
            resolver.fixed = Some(Arc::new(resolver.build(config)?));
        }
        Ok(resolver)
    }

    /// The settings for a file in `dir` (stdin: the current directory).
    pub fn for_dir(&mut self, dir: &Path) -> Result<Arc<Settings>, String> {
        if let Some(fixed) = &self.fixed {
            return Ok(fixed.clone());
        }
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let found = Config::find(&dir);
        if let Some(settings) = self.by_config.get(&found) {
            return Ok(settings.clone());
        }
        let config = match &found {
            Some(path) => Config::load(path).map_err(|e| format!("invalid config file {e}"))?,
            None => Config::default(),
        };
        let settings = Arc::new(self.build(config)?);
        self.by_config.insert(found, settings.clone());
        Ok(settings)
    }

    /// The settings for one input.
    pub fn for_input(&mut self, path: Option<&Path>) -> Result<Arc<Settings>, String> {
        let dir = path
            .and_then(Path::parent)
            .filter(|d| !d.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        self.for_dir(&dir)
    }

    fn build(&self, config: Config) -> Result<Settings, String> {
        let cli = self.cli;
        let mut shown = Vec::new();
        let selection = rule_selection(cli, &config, &mut shown)?;
        let extra_tools = tools(cli, &config, &mut shown)?;
        let origin = |from_cli: bool, from_config: bool| origin(&config, from_cli, from_config);

        let input_format = cli
            .input_format
            .clone()
            .or(config.input_format.as_ref().map(|s| s.get_ref().clone()))
            .unwrap_or_else(|| "auto".to_string());
        shown.push((
            "input-format",
            input_format.clone(),
            origin(cli.input_format.is_some(), config.input_format.is_some()),
        ));

        let defaults = rules::RuleOptions::default();
        let loop_threshold = cli
            .loop_threshold
            .or(config.loop_threshold.as_ref().map(|t| *t.get_ref()))
            .map_or(defaults.loop_threshold, |n| n as usize);
        shown.push((
            "loop-threshold",
            loop_threshold.to_string(),
            origin(
                cli.loop_threshold.is_some(),
                config.loop_threshold.is_some(),
            ),
        ));
        let loop_match = cli
            .loop_match
            .or(config.loop_match)
            .unwrap_or(defaults.loop_match);
        shown.push((
            "loop-match",
            format!("{loop_match:?}").to_lowercase(),
            origin(cli.loop_match.is_some(), config.loop_match.is_some()),
        ));
        let unpaired = self
            .unpaired
            .or(config.unpaired)
            .unwrap_or(defaults.unpaired);
        shown.push((
            "unpaired",
            match unpaired {
                UnpairedFix::InsertResult => "insert-result".to_string(),
                UnpairedFix::RemoveCall => "remove-call".to_string(),
            },
            origin(self.unpaired.is_some(), config.unpaired.is_some()),
        ));
        let config_limit = config
            .max_file_size
            .as_ref()
            .and_then(|s| s.get_ref().bytes());
        let limit = cli
            .max_file_size
            .or(config_limit)
            .unwrap_or(crate::read::DEFAULT_MAX_FILE_SIZE);
        shown.push((
            "max-file-size",
            crate::read::human_size(limit),
            origin(cli.max_file_size.is_some(), config_limit.is_some()),
        ));
        let targets = if cli.target.is_empty() {
            config.target.clone()
        } else {
            Some(cli.target.clone())
        };
        shown.push((
            "target",
            targets.as_ref().map_or_else(
                || "each format's own provider, or the one a request's `model` names".to_string(),
                |t| crate::provider::list(t),
            ),
            origin(!cli.target.is_empty(), config.target.is_some()),
        ));
        let mut excludes: Vec<String> = config.exclude.clone().unwrap_or_default();
        excludes.extend(cli.exclude.iter().cloned());
        shown.push((
            "exclude",
            excludes.join(", "),
            origin(!cli.exclude.is_empty(), config.exclude.is_some()),
        ));

        let per_file_ignores = per_file_ignores(&config, &mut shown)?;
        let suppressions = suppressions(&config, &mut shown)?;
        let base = config.dir();
        Ok(Settings {
            opts: LintOptions {
                input_format: Format::from_name(&input_format),
                selection,
                extra_tools,
                rule_options: rules::RuleOptions {
                    loop_threshold,
                    loop_match,
                    unpaired,
                },
                schemas: self.schemas.clone(),
                targets,
                tools_found: None,
            },
            limit,
            config_path: config.path.clone(),
            base,
            per_file_ignores,
            suppressions,
            shown,
            config_excludes: config.exclude.clone(),
        })
    }

    /// Every distinct settings used so far (for unused-suppression reports).
    pub fn all(&self) -> Vec<Arc<Settings>> {
        let mut all: Vec<Arc<Settings>> = self.fixed.iter().cloned().collect();
        let mut by_path: Vec<(&Option<PathBuf>, &Arc<Settings>)> = self.by_config.iter().collect();
        by_path.sort_by(|a, b| a.0.cmp(b.0));
        all.extend(by_path.into_iter().map(|(_, s)| s.clone()));
        all
    }
}

/// What `--show-settings` lists: each setting, its value, and where it came from.
type Shown = Vec<(&'static str, String, Origin)>;

/// Where a setting came from: the command line, the config file, both, or neither.
fn origin(config: &Config, from_cli: bool, from_config: bool) -> Origin {
    match (from_cli, from_config) {
        (true, true) => config
            .path
            .clone()
            .map_or(Origin::CommandLine, Origin::Both),
        (true, false) => Origin::CommandLine,
        (false, true) => config_origin(config),
        (false, false) => Origin::Default,
    }
}

/// A setting only a config file can give.
fn config_origin(config: &Config) -> Origin {
    config.path.clone().map_or(Origin::Default, Origin::Config)
}

/// The rules on: the config's `select` / `extend-select` / `ignore`, with the command line's
/// on top.
fn rule_selection(
    cli: &CommonArgs,
    config: &Config,
    shown: &mut Shown,
) -> Result<Selection, String> {
    let config_layer = RuleLayer {
        select: Config::strings(&config.select),
        extend_select: Config::strings(&config.extend_select).unwrap_or_default(),
        ignore: Config::strings(&config.ignore).unwrap_or_default(),
    };
    let cli_layer = RuleLayer {
        select: (!cli.select.is_empty()).then(|| cli.select.clone()),
        extend_select: cli.extend_select.clone(),
        ignore: cli.ignore.clone(),
    };
    let selection = Selection::layered(&[config_layer.clone(), cli_layer.clone()])?;
    let given = |layer: &RuleLayer| {
        layer.select.is_some() || !layer.extend_select.is_empty() || !layer.ignore.is_empty()
    };
    shown.push((
        "rules",
        selection.codes().join(", "),
        origin(config, given(&cli_layer), given(&config_layer)),
    ));
    Ok(selection)
}

/// The tools of every `--tools` file, the config's first.
fn tools(
    cli: &CommonArgs,
    config: &Config,
    shown: &mut Shown,
) -> Result<Vec<crate::transcript::ToolDef>, String> {
    let mut tool_files: Vec<PathBuf> = config.tools.clone().unwrap_or_default();
    tool_files.extend(cli.tools.iter().cloned());
    let mut extra_tools = Vec::new();
    for path in &tool_files {
        let tools = crate::tools_file::load(path)
            .map_err(|e| format!("cannot use --tools {}: {e}", path.display()))?;
        extra_tools.extend(tools);
    }
    shown.push((
        "tools",
        tool_files
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        origin(config, !cli.tools.is_empty(), config.tools.is_some()),
    ));
    Ok(extra_tools)
}

/// The config's `per-file-ignores`: each glob with the rule codes it turns off.
fn per_file_ignores(
    config: &Config,
    shown: &mut Shown,
) -> Result<Vec<(GlobMatcher, Vec<&'static str>)>, String> {
    let mut per_file_ignores = Vec::new();
    for (glob, list) in config.per_file_ignores.iter().flatten() {
        let matcher = Glob::new(glob)
            .map_err(|e| format!("invalid per-file-ignores glob {glob:?}: {e}"))?
            .compile_matcher();
        let mut codes = Vec::new();
        for item in list {
            codes.extend(resolve_selector(item.get_ref())?);
        }
        shown.push((
            "per-file-ignores",
            format!("{glob} = {}", codes.join(", ")),
            config_origin(config),
        ));
        per_file_ignores.push((matcher, codes));
    }
    Ok(per_file_ignores)
}

/// The config's `[[suppress]]` entries, each remembering where it is for
/// `unused-suppression`.
fn suppressions(config: &Config, shown: &mut Shown) -> Result<Vec<Suppress>, String> {
    let mut suppressions = Vec::new();
    for entry in config.suppress.iter().flatten() {
        let s = entry.get_ref();
        let (line, column) = crate::source::line_col(&config.text, entry.span().start);
        let what =
            s.id.as_ref()
                .map(|i| format!("id {i}"))
                .or(s.pointer.as_ref().map(|p| format!("pointer {p}")))
                .unwrap_or_default();
        shown.push((
            "suppress",
            format!("{} {} {what} ({})", s.path, s.rule, s.reason),
            config_origin(config),
        ));
        suppressions.push(Suppress {
            matcher: Glob::new(&s.path)
                .map_err(|e| format!("invalid suppress path {:?}: {e}", s.path))?
                .compile_matcher(),
            codes: resolve_selector(&s.rule)?,
            id: s.id.clone(),
            pointer: s.pointer.clone(),
            used: AtomicBool::new(false),
            checked: AtomicBool::new(false),
            line,
            column,
            reason: s.reason.clone(),
            path_glob: s.path.clone(),
            rule: s.rule.clone(),
        });
    }
    Ok(suppressions)
}
