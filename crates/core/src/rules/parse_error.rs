use super::{declare_rule, Rule, RuleMeta};

declare_rule! {
    /// ## What it does
    /// Reports a file, or a JSONL record, that is not valid JSON: truncated, with a syntax
    /// error, with bytes that are not UTF-8, or nested deeper than 128 levels.
    ///
    /// ## Why it matters
    /// Nothing in it can be checked, and whatever replays it (a provider request, a session
    /// resume, a fine-tuning upload) fails on it. A log cut off by a crash or a full disk
    /// usually ends in a truncated record.
    ///
    /// ## Example
    /// ```jsonl
    /// {"messages": [{"role": "user", "content": "hi"}]}
    /// {"messages": [{"role": "user", "content": "hel
    /// ```
    ///
    /// ## Fix
    /// None: toolcheck cannot know what the missing bytes were. Remove or repair the record.
    pub struct ParseError {
        code: "TC001",
        name: "parse-error",
        severity: Error,
        fix: None,
        summary: "the file or a JSONL record is not valid JSON",
    }
}

impl Rule for ParseError {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }
}
