//! A finding as rules produce it, before it is placed in the file.

use serde::Serialize;

use crate::formats::Format;
use crate::rules::RuleMeta;
use crate::transcript::Loc;

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

/// Where a finding points.
#[derive(Debug, Clone)]
pub enum Anchor {
    /// A node of the transcript.
    Node(Loc),
    /// A raw byte range (parse errors, where there is no node).
    Span { start: usize, end: usize },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Keeps the conversation's meaning; applied by `fix`.
    Safe,
    /// May change meaning; applied only with `--unsafe-fixes`.
    Unsafe,
}

/// One byte-range replacement on the original text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub content: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Fix {
    pub applicability: Applicability,
    pub message: String,
    pub edits: Vec<Edit>,
}

#[derive(Debug, Clone)]
pub struct Finding {
    pub rule: &'static RuleMeta,
    pub severity: Severity,
    pub message: String,
    pub help: Option<String>,
    pub anchor: Anchor,
    pub format: Option<Format>,
    pub fix: Option<Fix>,
}

impl Finding {
    /// A finding at a transcript node, with the rule's default severity.
    pub fn at(rule: &'static RuleMeta, loc: &Loc, message: impl Into<String>) -> Self {
        Finding {
            rule,
            severity: rule.severity,
            message: message.into(),
            help: None,
            anchor: Anchor::Node(loc.clone()),
            format: None,
            fix: None,
        }
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }
}

/// Quotes a value for a message, cropped so a 200 KB argument string stays one line.
pub fn quote(text: &str, max_chars: usize) -> String {
    let cropped: String = text.chars().take(max_chars).collect();
    let escaped = serde_json::to_string(&cropped).unwrap_or_default();
    if cropped.len() < text.len() {
        format!("{escaped}…")
    } else {
        escaped
    }
}
