use super::{declare_rule, Rule, RuleMeta};

declare_rule! {
    /// ## What it does
    /// Reports a `[[suppress]]` entry of `toolcheck.toml` that matched no finding in the run,
    /// at the entry's line in the config file (ruff's unused-noqa, for formats that have no
    /// comments to hold a suppression).
    ///
    /// Only an entry the run covers can be unused, as ruff reports an unused `noqa` only in the
    /// files it checked: the run must have checked a file the entry's `path` glob matches
    /// (relative to the config file's directory; a file a directory walk skipped as no
    /// conversation, or one that could not be read, was not checked), with the entry's `rule`
    /// (a code, a prefix or a name: any rule it names) turned on for that file. So a pre-commit
    /// hook linting the files of one commit, or a run with `--select TC2`, says nothing about
    /// the entries for other files or rules. The entry's `id` or `pointer` does not narrow what
    /// it covers: in a file it covers, a finding of its rule with that tool-call id or JSON
    /// pointer must be found, or the entry is reported. An entry applies only to the files
    /// whose closest config file holds it (or to every file, with `--config`).
    ///
    /// ## Why it matters
    /// A suppression outlives what it was for: the log was repaired, or the entry's `id` or
    /// `pointer` no longer points at the finding. A stale entry would silently accept a
    /// different finding later; removing it keeps every accepted defect deliberate.
    ///
    /// ## Example
    /// ```toml
    /// [[suppress]]
    /// path = "fixtures/evicted.json"
    /// rule = "orphaned-tool-result"
    /// id = "call_evicted01"
    /// reason = "the 400 it causes is what the test checks"
    /// ```
    /// reported when `fixtures/evicted.json` no longer has that orphaned result.
    ///
    /// ## Fix
    /// None: remove the entry from the config file.
    pub struct UnusedSuppression {
        code: "TC004",
        name: "unused-suppression",
        severity: Warning,
        fix: None,
        summary: "a [[suppress]] entry of toolcheck.toml matched no finding",
    }
}

impl Rule for UnusedSuppression {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
}
