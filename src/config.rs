//! `toolcheck.toml` (or `.toolcheck.toml`, or `[tool.toolcheck]` in `pyproject.toml`):
//! project settings. The closest config file to each checked file applies
//! (found walking up from the file's directory, as ruff does), unless `--config` names one
//! for the whole run; the command line is layered on top.
//!
//! ```toml
//! select = ["TC1", "TC2"]          # codes, prefixes or names; replaces the default (all)
//! extend-select = ["TC401"]        # added to the selection
//! ignore = ["empty-arguments"]     # removed from the selection
//! exclude = ["vendor/**"]          # relative to this file's directory
//! tools = ["tools/claude-code.json"] # relative to this file
//! input-format = "auto"
//! loop-threshold = 4
//! loop-match = "either"            # args | error | either
//! unpaired = "insert-result"       # insert-result | remove-call
//! max-file-size = "1G"
//! target = ["anthropic", "gemini"]   # hold histories to these providers' rules
//!
//! [per-file-ignores]
//! "fixtures/legacy/*.json" = ["TC2"]
//!
//! [[suppress]]
//! path = "fixtures/known-bad.json"
//! rule = "orphaned-tool-result"
//! id = "call_evicted01"            # or: pointer = "/messages/1"
//! reason = "kept on purpose: the provider's error is the test's subject"
//! ```
//!
//! Errors name the file, line and column of the offending value and list the valid values.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::rules::{LoopMatch, UnpairedFix};
use crate::source::line_col;

/// The names a config file may have, looked for in each directory from the current one up;
/// a `pyproject.toml` counts only when it has a `[tool.toolcheck]` table (as ruff reads
/// `[tool.ruff]`), and the dedicated files win over it in the same directory.
pub const FILE_NAMES: [&str; 3] = ["toolcheck.toml", ".toolcheck.toml", "pyproject.toml"];

/// `pyproject.toml`: only its `[tool.toolcheck]` table is toolcheck's; the rest belongs to
/// other tools. Deserialised from the whole text so spans point into the file.
#[derive(Deserialize)]
struct Pyproject {
    tool: Option<PyprojectTools>,
}

#[derive(Deserialize)]
struct PyprojectTools {
    toolcheck: Option<Config>,
}

fn is_pyproject(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "pyproject.toml")
}

/// Whether a `pyproject.toml` has a `[tool.toolcheck]` table (a parse error counts as yes, so
/// the error is reported rather than the file silently passed over).
fn has_toolcheck_table(path: &Path) -> bool {
    let Ok(text) = crate::read::read_regular_to_string(path, MAX_CONFIG_SIZE) else {
        return false;
    };
    if !text.contains("toolcheck") {
        return false;
    }
    match toml::from_str::<toml::Table>(&text) {
        Ok(table) => table.get("tool").and_then(|t| t.get("toolcheck")).is_some(),
        Err(_) => true,
    }
}

/// A config file's path as findings and errors name it: relative to the current directory
/// when it is under it, as the logs' paths are (the file is found from absolute directories).
pub fn shown(path: &Path) -> String {
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .filter(|p| !p.as_os_str().is_empty());
    relative.as_deref().unwrap_or(path).display().to_string()
}

/// A config file is small; anything larger is a mistake (a log named `toolcheck.toml`).
const MAX_CONFIG_SIZE: u64 = 1 << 20;

/// `max-file-size`: a number of bytes, or a size with a unit.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum SizeSetting {
    Bytes(u64),
    Text(String),
}

impl SizeSetting {
    pub fn bytes(&self) -> Option<u64> {
        match self {
            SizeSetting::Bytes(n) => Some(*n).filter(|&n| n > 0),
            SizeSetting::Text(t) => crate::read::parse_size(t).ok(),
        }
    }
}

/// One `[[suppress]]` entry: a finding that is known and accepted, with the reason why.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suppression {
    /// A glob, relative to the config file's directory.
    pub path: String,
    /// A rule code, prefix or name.
    pub rule: String,
    /// The tool-call id the finding is about.
    pub id: Option<String>,
    /// The JSON pointer of the finding.
    pub pointer: Option<String>,
    pub reason: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Config {
    pub select: Option<Vec<Spanned<String>>>,
    pub extend_select: Option<Vec<Spanned<String>>>,
    pub ignore: Option<Vec<Spanned<String>>>,
    pub exclude: Option<Vec<String>>,
    pub tools: Option<Vec<PathBuf>>,
    pub input_format: Option<Spanned<String>>,
    pub loop_threshold: Option<Spanned<u32>>,
    pub loop_match: Option<LoopMatch>,
    pub unpaired: Option<UnpairedFix>,
    /// The maximum input size, as in `--max-file-size` (`"512M"`, or a number of bytes).
    pub max_file_size: Option<Spanned<SizeSetting>>,
    /// Providers to hold every conversation to, as `--target`.
    pub target: Option<Vec<crate::provider::Provider>>,
    pub per_file_ignores: Option<BTreeMap<String, Vec<Spanned<String>>>>,
    pub suppress: Option<Vec<Spanned<Suppression>>>,
    /// Where the file was read from (not a key).
    #[serde(skip)]
    pub path: Option<PathBuf>,
    /// The file's text, to place the spans of later errors (not a key).
    #[serde(skip)]
    pub text: String,
}

impl Config {
    /// Reads and checks one config file; tool paths become relative to its directory.
    pub fn load(path: &Path) -> Result<Config, String> {
        let text = crate::read::read_regular_to_string(path, MAX_CONFIG_SIZE)
            .map_err(|e| format!("cannot read {}: {e}", shown(path)))?;
        let parse_error = |e: toml::de::Error| {
            let at = e
                .span()
                .map(|s| line_col(&text, s.start))
                .map_or(String::new(), |(l, c)| format!(":{l}:{c}"));
            format!("{}{at}: {}", shown(path), e.message().trim_end())
        };
        let mut config: Config = if is_pyproject(path) {
            toml::from_str::<Pyproject>(&text)
                .map_err(parse_error)?
                .tool
                .and_then(|t| t.toolcheck)
                .ok_or_else(|| format!("{}: no [tool.toolcheck] table", shown(path)))?
        } else {
            toml::from_str(&text).map_err(parse_error)?
        };
        config.text = text;
        config.path = Some(path.to_path_buf());
        config.validate()?;
        let dir = config.dir();
        if let Some(tools) = &mut config.tools {
            for tool in tools.iter_mut() {
                if tool.is_relative() {
                    *tool = dir.join(&*tool);
                }
            }
        }
        Ok(config)
    }

    /// The directory relative paths and globs in this file are relative to.
    pub fn dir(&self) -> PathBuf {
        self.path
            .as_deref()
            .and_then(Path::parent)
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    }

    /// `path:line:col: message` for a value at `span`.
    pub fn error_at(&self, span: std::ops::Range<usize>, message: &str) -> String {
        let name = self
            .path
            .as_deref()
            .map_or_else(|| "toolcheck.toml".to_string(), shown);
        let (line, col) = line_col(&self.text, span.start);
        format!("{name}:{line}:{col}: {message}")
    }

    fn validate(&self) -> Result<(), String> {
        let selectors = [
            ("select", &self.select),
            ("extend-select", &self.extend_select),
            ("ignore", &self.ignore),
        ];
        for (key, list) in selectors {
            for item in list.iter().flatten() {
                crate::rules::resolve_selector(item.get_ref())
                    .map_err(|e| self.error_at(item.span(), &format!("{key}: {e}")))?;
            }
        }
        for list in self.per_file_ignores.iter().flat_map(BTreeMap::values) {
            for item in list {
                crate::rules::resolve_selector(item.get_ref())
                    .map_err(|e| self.error_at(item.span(), &format!("per-file-ignores: {e}")))?;
            }
        }
        for glob in self.per_file_ignores.iter().flat_map(BTreeMap::keys) {
            globset::Glob::new(glob).map_err(|e| {
                self.error_at(
                    0..0,
                    &format!("per-file-ignores: invalid glob {glob:?}: {e}"),
                )
            })?;
        }
        for entry in self.suppress.iter().flatten() {
            let s = entry.get_ref();
            let at = |m: &str| self.error_at(entry.span(), &format!("suppress: {m}"));
            crate::rules::resolve_selector(&s.rule).map_err(|e| at(&e))?;
            globset::Glob::new(&s.path).map_err(|e| at(&format!("invalid path glob: {e}")))?;
            if s.reason.trim().is_empty() {
                return Err(at("`reason` must say why the finding is accepted"));
            }
            if s.id.is_none() && s.pointer.is_none() {
                return Err(at(
                    "give the tool-call `id` or the JSON `pointer` of the finding to suppress (per-file-ignores turns a rule off for whole files)",
                ));
            }
        }
        if let Some(threshold) = &self.loop_threshold {
            if *threshold.get_ref() < 2 {
                return Err(self.error_at(
                    threshold.span(),
                    "loop-threshold must be at least 2 (a loop is two or more failed calls)",
                ));
            }
        }
        if let Some(size) = &self.max_file_size {
            if let SizeSetting::Text(text) = size.get_ref() {
                crate::read::parse_size(text)
                    .map_err(|e| self.error_at(size.span(), &format!("max-file-size: {e}")))?;
            }
            if size.get_ref().bytes().is_none() {
                return Err(self.error_at(size.span(), "max-file-size must be at least 1 byte"));
            }
        }
        if let Some(format) = &self.input_format {
            let name = format.get_ref();
            if name != "auto" && crate::format::Format::from_name(name).is_none() {
                return Err(self.error_at(
                    format.span(),
                    &format!(
                        "unknown input-format `{name}`; valid values: auto, {}",
                        crate::format::Format::names()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The nearest config file to `dir`, walking up, if any.
    pub fn find(dir: &Path) -> Option<PathBuf> {
        dir.ancestors()
            .flat_map(|a| FILE_NAMES.iter().map(move |n| a.join(n)))
            .find(|candidate| {
                candidate.is_file() && (!is_pyproject(candidate) || has_toolcheck_table(candidate))
            })
    }

    pub fn strings(list: &Option<Vec<Spanned<String>>>) -> Option<Vec<String>> {
        list.as_ref()
            .map(|l| l.iter().map(|s| s.get_ref().clone()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_key_and_rejects_unknown_ones() {
        let config: Config = toml::from_str(
            r#"
select = ["TC1"]
extend-select = ["TC401"]
ignore = ["empty-arguments"]
exclude = ["vendor/**"]
tools = ["tools.json"]
input-format = "codex"
loop-threshold = 5
loop-match = "args"
unpaired = "remove-call"
max-file-size = "2G"

[per-file-ignores]
"legacy/*.json" = ["TC2"]

[[suppress]]
path = "a.json"
rule = "TC101"
id = "call_1"
reason = "known"
"#,
        )
        .expect("a valid config");
        assert_eq!(
            config.loop_threshold.as_ref().map(|t| *t.get_ref()),
            Some(5)
        );
        assert_eq!(config.loop_match, Some(LoopMatch::Args));
        assert_eq!(config.unpaired, Some(UnpairedFix::RemoveCall));
        assert!(config.validate().is_ok());
        assert!(toml::from_str::<Config>("selct = [\"TC1\"]").is_err());
    }

    #[test]
    fn value_errors_name_line_and_column() {
        let text = "# settings\nselect = [\"TC1\", \"TC9\"]\n";
        let mut config: Config = toml::from_str(text).expect("parses");
        config.text = text.into();
        let err = config.validate().expect_err("TC9 is no rule");
        assert!(
            err.starts_with("toolcheck.toml:2:18: select: unknown rule selector `TC9`"),
            "{err}"
        );
    }
}
