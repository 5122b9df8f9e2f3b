use super::{declare_rule, Rule, RuleMeta};

declare_rule! {
    /// ## What it does
    /// Reports a file named explicitly on the command line that matches no conversation
    /// format, or that does not fit the format forced with `--input-format`.
    ///
    /// ## Why it matters
    /// You asked for this file to be checked, and it was not: a silent pass would hide that.
    /// Files met during a directory walk are skipped instead (counted in the summary, listed
    /// with `-v`), since folders of logs often hold other JSON.
    ///
    /// ## Example
    /// ```json
    /// {"name": "my-package", "version": "1.0.0"}
    /// ```
    ///
    /// ## Fix
    /// None. Pass `--input-format` if detection is wrong, or leave the file out.
    pub struct UnknownFormat {
        code: "TC002",
        name: "unknown-format",
        severity: Error,
        fix: None,
        summary: "an explicitly named file matches no format",
    }
}

impl Rule for UnknownFormat {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
}
