//! What the fuzz targets share: decoding the two option bytes that start every `lint` and
//! `fix` input (the `store`, `folder`, `doctor` and `lsp` targets read their own: see their
//! modules), and (`support.rs`) the temporary directories and named invariants of the
//! targets that build files.
//!
//! An input is two option bytes `[f, o]` followed by the file's bytes. Every value of each
//! byte is meaningful:
//!
//! * `f` picks `--input-format`: `n = f % (Format::ALL.len() + 1)`; `0` → auto-detect,
//!   `n` → `Format::ALL[n - 1]`, so any format can be forced;
//! * `o % 3` picks the file name: `0` → `fuzz.json`, `1` → `fuzz.jsonl`, `2` → `fuzz.ndjson`;
//! * `r = o / 3` (`0..=85`) picks the rest, per target:
//!   * `lint`: `r % 12`; its `% 6` picks the loop options (`--loop-threshold` 3 or 2 by
//!     `r % 2`, `--loop-match` either/args/error by `(r % 6) / 2`); the file is named on the
//!     command line (explicit) when `r % 12 < 6`, met in a directory walk otherwise;
//!   * `fix`: `r % 9`; its bit 0 is `--unsafe-fixes`, bit 1 is `--unpaired-fix remove-call`,
//!     bit 2 makes the file non-explicit, and `8` sets `--loop-threshold 2 --loop-match args`.
//!
//! So the option bytes are `[format, ext + 3 * r]` ([`option_bytes`]; `fuzz/seed.py` uses the
//! same formula). A format byte up to `Format::ALL.len()` keeps its meaning when a format is
//! appended to `Format::ALL`; the seeds and the regression inputs only use those.
//!
//! Inputs once had a single option byte `ext + 3 * format + 30 * r`, which could force only
//! the first nine formats; `fuzz/regressions/` was converted to `[format, ext + 3 * r]`,
//! which decodes to the same settings.

pub mod doctor_check;
pub mod fix_check;
pub mod folder_check;
pub mod lint_check;
pub mod lsp_check;
pub mod store_check;
pub mod support;
pub mod tree_check;

use toolcheck::formats::Format;
use toolcheck::lint::{LintOptions, SourceName};
use toolcheck::rules::{LoopMatch, RuleOptions, UnpairedFix};

/// Everything an input's option bytes decide.
#[derive(Debug)]
pub struct Setup {
    pub name: &'static str,
    pub explicit: bool,
    pub unsafe_fixes: bool,
    pub opts: LintOptions,
}

impl Setup {
    pub fn source_name(&self) -> SourceName {
        SourceName {
            name: self.name.to_string(),
            path: None,
        }
    }

    /// A one-line description, for reproducing a crash from the command line.
    pub fn describe(&self) -> String {
        let r = &self.opts.rule_options;
        format!(
            "name={} input_format={} explicit={} unsafe_fixes={} loop_threshold={} loop_match={:?} unpaired={:?}",
            self.name,
            self.opts.input_format.map_or("auto", |f| f.name()),
            self.explicit,
            self.unsafe_fixes,
            r.loop_threshold,
            r.loop_match,
            r.unpaired,
        )
    }
}

/// The option bytes for these choices: `format` `0..=Format::ALL.len()` (0 is auto-detect),
/// `ext` `0..3`, `r` `0..12` for `lint`, `0..9` for `fix`.
pub const fn option_bytes(format: u8, ext: u8, r: u8) -> [u8; 2] {
    [format, ext + 3 * r]
}

/// An input's option bytes and the rest; `None` when it is shorter than two bytes.
pub fn split_input(data: &[u8]) -> Option<([u8; 2], &[u8])> {
    match data {
        [f, o, rest @ ..] => Some(([*f, *o], rest)),
        _ => None,
    }
}

const NAMES: [&str; 3] = ["fuzz.json", "fuzz.jsonl", "fuzz.ndjson"];

/// The format byte's `--input-format`.
pub fn input_format(f: u8) -> Option<Format> {
    let n = usize::from(f) % (Format::ALL.len() + 1);
    n.checked_sub(1).and_then(|i| Format::ALL.get(i).copied())
}

fn common([f, o]: [u8; 2]) -> (&'static str, Option<Format>, u8) {
    (NAMES[usize::from(o % 3)], input_format(f), o / 3)
}

/// The `lint` target's reading of the option bytes.
pub fn lint_setup(options: [u8; 2]) -> Setup {
    let (name, input_format, r) = common(options);
    let r = r % 12;
    let loop_opts = r % 6;
    let rule_options = RuleOptions {
        loop_threshold: [3, 2][usize::from(loop_opts % 2)],
        loop_match: [LoopMatch::Either, LoopMatch::Args, LoopMatch::Error]
            [usize::from(loop_opts / 2)],
        ..RuleOptions::default()
    };
    Setup {
        name,
        explicit: r < 6,
        unsafe_fixes: false,
        opts: LintOptions {
            input_format,
            rule_options,
            ..LintOptions::default()
        },
    }
}

/// The `fix` target's reading of the option bytes.
pub fn fix_setup(options: [u8; 2]) -> Setup {
    let (name, input_format, r) = common(options);
    let r = r % 9;
    let mut rule_options = RuleOptions {
        unpaired: if r & 2 != 0 {
            UnpairedFix::RemoveCall
        } else {
            UnpairedFix::InsertResult
        },
        ..RuleOptions::default()
    };
    if r == 8 {
        rule_options.loop_threshold = 2;
        rule_options.loop_match = LoopMatch::Args;
    }
    Setup {
        name,
        explicit: r & 4 == 0,
        unsafe_fixes: r & 1 != 0,
        opts: LintOptions {
            input_format,
            rule_options,
            ..LintOptions::default()
        },
    }
}

/// Prints the setup to stderr when `TOOLCHECK_FUZZ_VERBOSE` is set: useful when running a
/// target on one crash file (`cargo fuzz run lint artifacts/lint/crash-...`).
pub fn trace(setup: &Setup) {
    trace_line(|| setup.describe());
}

/// Prints a line to stderr when `TOOLCHECK_FUZZ_VERBOSE` is set.
pub fn trace_line(line: impl FnOnce() -> String) {
    static VERBOSE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *VERBOSE.get_or_init(|| std::env::var_os("TOOLCHECK_FUZZ_VERBOSE").is_some()) {
        eprintln!("toolcheck-fuzz: {}", line());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_decodes() {
        for f in 0..=255u8 {
            for o in 0..=255u8 {
                lint_setup([f, o]);
                fix_setup([f, o]);
            }
        }
        let s = lint_setup(option_bytes(6, 1, 0));
        assert_eq!(s.name, "fuzz.jsonl");
        assert_eq!(s.opts.input_format, Some(Format::ClaudeCode));
        assert!(s.explicit);
    }

    #[test]
    fn every_format_can_be_forced() {
        let forced: Vec<_> = (0..=Format::ALL.len() as u8)
            .map(|f| fix_setup(option_bytes(f, 0, 0)).opts.input_format)
            .collect();
        assert_eq!(forced[0], None);
        let every: Vec<_> = Format::ALL.iter().copied().map(Some).collect();
        assert_eq!(forced[1..], every[..]);
    }
}
