use super::{declare_rule, Rule, RuleMeta};

declare_rule! {
    /// ## What it does
    /// Reports a `[[suppress]]` entry of `toolcheck.toml` that matched no finding in the run,
    /// at the entry's line in the config file (ruff's unused-noqa, for formats that have no
    /// comments to hold a suppression).
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
