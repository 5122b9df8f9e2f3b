//! What the fuzz targets share: decoding the option byte that starts every input.
//!
//! An input is one option byte followed by the file's bytes. The option byte `b` is read in
//! mixed radix so that every value is meaningful:
//!
//! * `b % 3` picks the file name: `0` → `fuzz.json`, `1` → `fuzz.jsonl`, `2` → `fuzz.ndjson`;
//! * `(b / 3) % 10` picks `--input-format`: `0` → auto-detect, `1..=9` → `Format::ALL[n - 1]`;
//! * `r = b / 30` (`0..=8`) picks the rest, per target:
//!   * `lint`: `r % 6` picks the loop options (`--loop-threshold` 3 or 2 by `r % 2`,
//!     `--loop-match` either/args/error by `(r % 6) / 2`); the file is named on the command line
//!     (explicit) when `r < 6`, met in a directory walk otherwise;
//!   * `fix`: bit 0 of `r` is `--unsafe-fixes`, bit 1 is `--unpaired-fix remove-call`, bit 2
//!     makes the file non-explicit, and `r == 8` sets `--loop-threshold 2 --loop-match args`.
//!
//! So `b = ext + 3 * format + 30 * r` ([`option_byte`]; `fuzz/seed.py` uses the same formula).

pub mod fix_check;
pub mod lint_check;
pub mod tree_check;

use toolcheck::formats::Format;
use toolcheck::lint::{LintOptions, SourceName};
use toolcheck::rules::{LoopMatch, RuleOptions, UnpairedFix};

/// Everything an input's option byte decides.
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

/// The option byte for these choices (`ext` 0..3, `format` 0..10, `r` 0..=8; `r == 8` only
/// exists when `ext + 3 * format < 16`).
pub const fn option_byte(ext: u8, format: u8, r: u8) -> u8 {
    ext + 3 * format + 30 * r
}

const NAMES: [&str; 3] = ["fuzz.json", "fuzz.jsonl", "fuzz.ndjson"];

fn common(b: u8) -> (&'static str, Option<Format>, u8) {
    let name = NAMES[usize::from(b % 3)];
    let format = match (b / 3) % 10 {
        0 => None,
        n => Some(Format::ALL[usize::from(n - 1)]),
    };
    (name, format, b / 30)
}

/// The `lint` target's reading of the option byte.
pub fn lint_setup(b: u8) -> Setup {
    let (name, input_format, r) = common(b);
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

/// The `fix` target's reading of the option byte.
pub fn fix_setup(b: u8) -> Setup {
    let (name, input_format, r) = common(b);
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
    static VERBOSE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *VERBOSE.get_or_init(|| std::env::var_os("TOOLCHECK_FUZZ_VERBOSE").is_some()) {
        eprintln!("toolcheck-fuzz: {}", setup.describe());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_decodes() {
        for b in 0..=255u8 {
            lint_setup(b);
            fix_setup(b);
        }
        let s = lint_setup(option_byte(1, 6, 0));
        assert_eq!(s.name, "fuzz.jsonl");
        assert_eq!(s.opts.input_format, Some(Format::ClaudeCode));
        assert!(s.explicit);
    }
}
