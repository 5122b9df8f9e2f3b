//! `toolcheck.toml`: project settings, found by walking up from the current directory (or
//! given with `--config`). Command-line options override it.
//!
//! ```toml
//! select = ["TC1", "TC2"]          # codes, prefixes or names
//! ignore = ["empty-arguments"]
//! exclude = ["vendor/**"]
//! tools = ["tools/claude-code.json"] # relative to this file
//! input-format = "auto"
//! loop-threshold = 4
//! loop-match = "either"            # args | error | either
//! unpaired = "insert-result"       # insert-result | remove-call
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::rules::{LoopMatch, UnpairedFix};

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

/// The names a config file may have, looked for in each directory from the current one up.
pub const FILE_NAMES: [&str; 2] = ["toolcheck.toml", ".toolcheck.toml"];

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Config {
    pub select: Option<Vec<String>>,
    pub ignore: Option<Vec<String>>,
    pub exclude: Option<Vec<String>>,
    pub tools: Option<Vec<PathBuf>>,
    pub input_format: Option<String>,
    pub loop_threshold: Option<u32>,
    pub loop_match: Option<LoopMatch>,
    pub unpaired: Option<UnpairedFix>,
    /// The maximum input size, as in `--max-file-size` (`"512M"`, or a number of bytes).
    pub max_file_size: Option<SizeSetting>,
    /// Where the file was read from (not a key).
    #[serde(skip)]
    pub path: Option<PathBuf>,
}

impl Config {
    /// Reads and checks one config file; tool paths become relative to its directory.
    pub fn load(path: &Path) -> Result<Config, String> {
        let text = crate::read::read_regular_to_string(path, MAX_CONFIG_SIZE)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let mut config: Config = toml::from_str(&text)
            .map_err(|e| format!("{}: {}", path.display(), e.to_string().trim_end()))?;
        if let Some(threshold) = config.loop_threshold {
            if threshold < 2 {
                return Err(format!(
                    "{}: loop-threshold must be at least 2",
                    path.display()
                ));
            }
        }
        if let Some(SizeSetting::Text(size)) = &config.max_file_size {
            crate::read::parse_size(size)
                .map_err(|e| format!("{}: max-file-size: {e}", path.display()))?;
        }
        if let Some(format) = &config.input_format {
            if format != "auto" && crate::formats::Format::from_name(format).is_none() {
                return Err(format!(
                    "{}: unknown input-format `{format}`",
                    path.display()
                ));
            }
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        if let Some(tools) = &mut config.tools {
            for tool in tools.iter_mut() {
                if tool.is_relative() {
                    *tool = dir.join(&*tool);
                }
            }
        }
        config.path = Some(path.to_path_buf());
        Ok(config)
    }

    /// The config file for a run started in `dir`: the nearest one walking up, if any.
    pub fn discover(dir: &Path) -> Result<Config, String> {
        for ancestor in dir.ancestors() {
            for name in FILE_NAMES {
                let candidate = ancestor.join(name);
                if candidate.is_file() {
                    return Config::load(&candidate);
                }
            }
        }
        Ok(Config::default())
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
ignore = ["empty-arguments"]
exclude = ["vendor/**"]
tools = ["tools.json"]
input-format = "codex"
loop-threshold = 5
loop-match = "args"
unpaired = "remove-call"
"#,
        )
        .expect("a valid config");
        assert_eq!(config.loop_threshold, Some(5));
        assert_eq!(config.loop_match, Some(LoopMatch::Args));
        assert_eq!(config.unpaired, Some(UnpairedFix::RemoveCall));
        assert!(toml::from_str::<Config>("selct = [\"TC1\"]").is_err());
    }
}
