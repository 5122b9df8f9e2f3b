//! A finding as rules produce it, before it is placed in the file.

use serde::Serialize;

use crate::format::Format;
pub use crate::rule_meta::{RuleMeta, Severity};
use crate::transcript::{Loc, ToolCall, ToolResult};

/// Where a finding points.
#[derive(Debug, Clone)]
pub enum Anchor {
    /// A node of the transcript.
    Node(Loc),
    /// A raw byte range (parse errors, where there is no node).
    Span { start: usize, end: usize },
    /// A node of the transcript already located in the text, at `start..end`: a dataset
    /// record's findings are located while the spans its parse recorded are at hand
    /// ([`crate::diagnostic::locate_now`]).
    Located { loc: Loc, start: usize, end: usize },
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

/// What a rule would do to repair a finding, on the transcript; the format adapter turns it
/// into byte edits, since only it knows the JSON shape.
#[derive(Debug, Clone)]
pub enum FixIntent {
    /// Remove a result, and its message when that leaves the message without content.
    RemoveResult { result: Loc, message: Loc },
    /// Insert an error result for `call`: as a block just before `before` (the first block
    /// of the turn that answers the call's turn) when there is one and the format has
    /// blocks, else as a message right after the message `after`.
    InsertResult {
        call: Box<ToolCall>,
        after: Loc,
        before: Option<Loc>,
    },
    /// Move a result (out of `message`) to just before the block `before` (the first block
    /// of the turn after its call) when there is one, else right after the message `after`.
    MoveResult {
        result: Loc,
        message: Loc,
        after: Loc,
        before: Option<Loc>,
    },
    /// Remove a call, and its message when that leaves it without content.
    RemoveCall { call: Loc, message: Loc },
    /// Append `results` (in order) to the end of the message holding the block `into` (the
    /// turn right after their call's turn), and remove `messages`, the messages right after
    /// that one, which hold nothing but those results.
    GatherResults {
        into: Loc,
        results: Vec<Loc>,
        messages: Vec<Loc>,
    },
    /// Replace the empty content at `content` of an error result with a short error text, in
    /// the format's shape.
    FillErrorResult { content: Loc },
    /// Replace the value at `at` with this JSON text.
    Replace { at: Loc, text: String },
    /// Move `blocks` (elements of the array holding `before`, after it, in order) to just
    /// before the element `before`, keeping every byte of each.
    MoveBlocks { blocks: Vec<Loc>, before: Loc },
    /// Add the member `key` with this JSON text to the object at `object`.
    AddMember {
        object: Loc,
        key: &'static str,
        value: String,
    },
    /// Remove the member `key` of the object at `object`.
    RemoveMember { object: Loc, key: &'static str },
}

/// A rule's proposed repair: how safe it is, what it does, and the intent.
#[derive(Debug, Clone)]
pub struct FixPlan {
    pub applicability: Applicability,
    pub message: String,
    pub intent: FixIntent,
}

#[derive(Debug, Clone)]
pub struct Finding {
    pub rule: &'static RuleMeta,
    pub severity: Severity,
    pub message: String,
    pub help: Option<String>,
    pub anchor: Anchor,
    pub format: Option<Format>,
    /// The repair a rule proposes, before it is turned into edits.
    pub plan: Option<Box<FixPlan>>,
    /// The repair as byte edits on the file.
    pub fix: Option<Fix>,
    /// The tool-call id the finding is about, when it has one (for suppressions and output).
    pub tool_call_id: Option<String>,
    /// The providers that reject the history because of this finding (empty: none is known
    /// to; the finding costs money or correctness).
    pub providers: Vec<crate::provider::Provider>,
    /// What the agent that resumes this session does about the finding, where its resume is
    /// modelled (`replay`).
    pub replay: Option<Replayed>,
    /// The span of a trace the finding's node was read from (set by the pipeline from the
    /// conversation's origins).
    pub span: Option<crate::transcript::SpanRef>,
}

/// What an agent does on resume about one defect its session holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Replayed {
    /// The agent's `--agent` name.
    pub agent: &'static str,
    /// The agent version the session records, as recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The version of the session's file format, where that is all it records of its
    /// writer (pi).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format_version: Option<String>,
    pub action: ReplayAction,
    /// The result text the agent sends in place of the missing one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<&'static str>,
    /// The first version that repairs it, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<&'static str>,
}

/// What the agent does with the defect before it sends the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReplayAction {
    /// Sends a result of its own (`placeholder`): the request is accepted.
    Answers,
    /// Leaves the call or result out: the request is accepted.
    Drops,
    /// Sends it as the file holds it: the provider's verdict stands.
    SendsAsHeld,
    /// The session does not say which version wrote it, and versions differ.
    Unknown,
}

impl ReplayAction {
    /// Whether the agent repairs the defect, so the request it sends is accepted.
    pub fn repairs(self) -> bool {
        matches!(self, ReplayAction::Answers | ReplayAction::Drops)
    }
}

impl Finding {
    /// The finding with a node it was located at ([`Anchor::Located`]) to be located again
    /// when it is placed: to check where the spans placed it against a scan.
    pub fn unlocated(mut self) -> Finding {
        if let Anchor::Located { loc, .. } = self.anchor {
            self.anchor = Anchor::Node(loc);
        }
        self
    }

    /// A finding at a transcript node, with the rule's default severity.
    pub fn at(rule: &'static RuleMeta, loc: &Loc, message: impl Into<String>) -> Self {
        Finding {
            rule,
            severity: rule.severity,
            message: message.into(),
            help: None,
            anchor: Anchor::Node(loc.clone()),
            format: None,
            plan: None,
            fix: None,
            tool_call_id: None,
            providers: Vec::new(),
            replay: None,
            span: None,
        }
    }

    /// A finding at a raw byte range, where there is no transcript node (a parse error, a
    /// limit on the whole file).
    pub fn at_span(
        rule: &'static RuleMeta,
        start: usize,
        end: usize,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            anchor: Anchor::Span { start, end },
            ..Finding::at(rule, &Loc::new(start, ""), message)
        }
    }

    /// A finding about a tool call, at `loc` (the call or its arguments).
    pub fn about_call(
        rule: &'static RuleMeta,
        call: &ToolCall,
        loc: &Loc,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            tool_call_id: call.id.clone(),
            ..Finding::at(rule, loc, message)
        }
    }

    /// A finding about a tool result, at `loc`.
    pub fn about_result(
        rule: &'static RuleMeta,
        result: &ToolResult,
        loc: &Loc,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            tool_call_id: result.call_id.clone(),
            ..Finding::at(rule, loc, message)
        }
    }

    pub fn fix(
        mut self,
        applicability: Applicability,
        message: impl Into<String>,
        intent: FixIntent,
    ) -> Self {
        self.plan = Some(Box::new(FixPlan {
            applicability,
            message: message.into(),
            intent,
        }));
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The providers that reject this, with the severity they imply (from
    /// [`crate::rules::Context::judge`]).
    pub fn rejected_by(mut self, verdict: (Severity, Vec<crate::provider::Provider>)) -> Self {
        self.severity = verdict.0;
        self.providers = verdict.1;
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
