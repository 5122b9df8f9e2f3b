//! What a rule is, apart from what it checks: its code, name, severity, fix availability and
//! documentation. The bottom of the model, beside [`crate::finding`]: findings name their
//! rule, and emitters ask it for its page, without reaching up into the rule layer.

use serde::Serialize;

use crate::provider::Provider;

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
    /// The providers known to reject a history with any finding of this rule (the rule's
    /// documentation gives each one's error text; `provider-errors.md` the sources). Empty for
    /// rules whose findings cost money or correctness but that every provider accepts, and
    /// for rules that judge each finding themselves ([`RuleMeta::judged_by`]). Gemini on
    /// Vertex AI is not listed: it rejects whatever Gemini rejects (`Context::judge` adds it).
    pub rejected_by: &'static [Provider],
    /// For a rule that judges its own findings, dialect by dialect: every provider one of
    /// them can name as rejecting (a test holds the findings of every fixture, under every
    /// target, to [`RuleMeta::enforced_by`]).
    pub judged_by: &'static [Provider],
    /// One line: when the rule fires.
    pub summary: &'static str,
    /// The rule's doc comment.
    pub doc: &'static str,
}

impl RuleMeta {
    /// Every provider a finding of this rule can name as rejecting it, in [`Provider::ALL`]'s
    /// order, Gemini on Vertex AI beside Gemini: what `toolcheck rules` and `explain` list.
    pub fn enforced_by(&self) -> Vec<Provider> {
        let own = if self.judged_by.is_empty() {
            self.rejected_by
        } else {
            self.judged_by
        };
        Provider::ALL
            .iter()
            .copied()
            .filter(|p| {
                own.contains(p) || (*p == Provider::GeminiVertex && own.contains(&Provider::Gemini))
            })
            .collect()
    }

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
