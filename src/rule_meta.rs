//! What a rule is, apart from what it checks: its code, name, severity, fix availability and
//! documentation. The bottom of the model, beside [`crate::finding`]: findings name their
//! rule, and emitters ask it for its page, without reaching up into the rule layer.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The provider rejects the transcript as it stands.
    Error,
    /// A defect that costs money or correctness.
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// Whether and how a rule's findings can be fixed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixAvailability {
    None,
    Safe,
    Unsafe,
    /// Safe for some findings only (say which in the docs).
    Sometimes,
}

impl FixAvailability {
    pub fn as_str(self) -> &'static str {
        match self {
            FixAvailability::None => "none",
            FixAvailability::Safe => "safe",
            FixAvailability::Unsafe => "unsafe",
            FixAvailability::Sometimes => "sometimes",
        }
    }
}

#[derive(Debug)]
pub struct RuleMeta {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    pub fix: FixAvailability,
    /// One line: when the rule fires.
    pub summary: &'static str,
    /// The rule's doc comment.
    pub doc: &'static str,
}

impl RuleMeta {
    /// The documentation with the doc-comment leading space removed.
    pub fn documentation(&self) -> String {
        self.doc
            .lines()
            .map(|l| l.strip_prefix(' ').unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string()
    }
}

/// Where rule pages are published (`helpUri` in SARIF, the last line of `toolcheck explain`):
/// `TOOLCHECK_DOCS_URL` at build time, else the pages' path
/// relative to the repository root, `docs/rules/` (where they are generated). A packager who
/// publishes the pages sets an absolute base when building, e.g.
/// `TOOLCHECK_DOCS_URL=https://example.org/toolcheck/rules/ cargo build --release`.
pub const DOCS_BASE_URL: &str = match option_env!("TOOLCHECK_DOCS_URL") {
    Some(url) => url,
    None => "docs/rules/",
};

impl RuleMeta {
    /// The rule's documentation page (see `DOCS_BASE_URL`).
    pub fn doc_url(&self) -> String {
        format!("{DOCS_BASE_URL}{}.md", self.name)
    }
}
