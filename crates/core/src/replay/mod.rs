//! What a coding agent sends when it resumes a session: its replay model.
//!
//! Agents do not send what their session file holds. On resume each one loads the file,
//! then repairs the history in memory before the first request: Claude Code and Codex answer
//! a call left without a result with a result of their own, older versions drop the call,
//! Codex drops results whose call is gone. The provider then accepts the request, and the
//! model is shown an invented result instead. What each agent does depends on its version,
//! so each model lists its repairs by the version they began and ended, with the agent's own
//! code or release notes as evidence, and the version the session records decides.
//!
//! Which records an agent loads (branches, compaction, checkpoints) is its format adapter's
//! business; a model here only judges the defects the rules found on what was loaded. A
//! defect the agent repairs stays a finding, as a warning that says what the model will be
//! shown and from which version; one the agent sends as held keeps the provider's verdict;
//! a session that does not record its version, or records one newer than the model was
//! checked against, is said so in the finding.
//!
//! One file per agent, holding its [`Model`]; one line in [`MODELS`].

mod claude_code;
mod codex;
mod copilot_cli;
mod droid;
// Its texts are what the dsh adapter appends for the calls the resume would answer.
pub(crate) mod dsh;
mod hermes;
mod kimi_cli;
mod opencode;
mod pi;
mod qwen_code;
mod version;

use crate::finding::{Anchor, Finding, ReplayAction, Replayed, Severity};
use crate::format::Format;
use crate::rules;
use crate::transcript::{Conversation, Item, Loc};

pub use version::Version;

/// Every agent whose resume is modelled.
pub const MODELS: &[&Model] = &[
    &claude_code::MODEL,
    &codex::MODEL,
    &pi::MODEL,
    &copilot_cli::MODEL,
    &opencode::MODEL,
    &qwen_code::MODEL,
    &kimi_cli::MODEL,
    &hermes::MODEL,
    &droid::MODEL,
    &dsh::MODEL,
];

/// One agent's resume, by version.
#[derive(Debug)]
pub struct Model {
    /// The format its sessions are read as.
    pub format: Format,
    /// The agent's `--agent` name.
    pub agent: &'static str,
    /// The name people know it by.
    pub title: &'static str,
    /// What its sessions record of the version that wrote them.
    pub recorded: Recorded,
    /// The newest version whose resume was run and checked against a provider's rules.
    pub checked: &'static str,
    /// The repairs it makes on resume; the first that applies to a defect and version is
    /// the one made, so a narrower one comes before a wider one.
    pub repairs: &'static [Repair],
}

/// What a session records of the agent version that wrote it.
#[derive(Debug)]
pub enum Recorded {
    /// The agent's version, at this place (for the docs).
    Version(&'static str),
    /// Only its file format's version, at this place; each format version with the first
    /// agent version that writes it, which is all a session tells of its writer.
    FormatVersion {
        place: &'static str,
        first_written_by: &'static [(&'static str, &'static str)],
    },
    /// Nothing.
    Nothing,
}

/// One repair an agent makes in memory before it sends a resumed history.
#[derive(Debug)]
pub struct Repair {
    pub defect: Defect,
    /// The first version that makes it; `None`: every version modelled.
    pub since: Option<&'static str>,
    /// The first version that no longer makes it.
    pub until: Option<&'static str>,
    pub action: Action,
    /// Where this was read or seen: file and function, release note, or run.
    pub evidence: &'static str,
}

/// The defects agents repair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Defect {
    /// A call no result answers, wherever it is.
    UnansweredCall,
    /// A call no result answers after which the history holds only results: the agent was
    /// stopped while it ran.
    TrailingUnansweredCall,
    /// A result whose call is not in the history.
    OrphanedResult,
    /// A second result for a call.
    DuplicateResult,
    /// A call no result answers in the step the session was stopped in, as the agent's own
    /// resume finds it (`Conversation::open_calls`), and whether the session records it as
    /// started.
    OpenCall { started: bool },
}

/// What the agent does about the defect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Sends a result of its own with this text (an error result where the provider has one).
    Answers(&'static str),
    /// Leaves the call or result out of what it sends.
    Drops,
}

impl Model {
    /// The repair the version makes for the defect; for an unknown version, the repair
    /// every version makes.
    fn repair(&self, defect: Defect, version: Option<&Version>) -> Option<&Repair> {
        self.repairs.iter().find(|r| {
            covers(r.defect, defect)
                && match version {
                    Some(v) => {
                        r.since.is_none_or(|s| *v >= Version::parse(s))
                            && r.until.is_none_or(|u| *v < Version::parse(u))
                    }
                    None => r.since.is_none() && r.until.is_none(),
                }
        })
    }

    /// The repair the newest versions make for the defect.
    fn newest(&self, defect: Defect) -> Option<&Repair> {
        self.repairs
            .iter()
            .find(|r| covers(r.defect, defect) && r.until.is_none())
    }

    /// The writing version a session's record stands for, and how to name it: the agent
    /// version itself, or the first one that writes the recorded format.
    fn writer(&self, recorded: Option<&str>) -> Option<Writer> {
        let recorded = recorded?;
        match &self.recorded {
            Recorded::Version(_) => {
                let version = Version::parse(recorded);
                (!version.is_empty()).then(|| Writer {
                    version,
                    named: format!(
                        "{} {recorded}, the version this session records,",
                        self.title
                    ),
                    many: false,
                })
            }
            Recorded::FormatVersion {
                first_written_by, ..
            } => first_written_by
                .iter()
                .find(|(format, _)| *format == recorded)
                .map(|(_, agent)| Writer {
                    version: Version::parse(agent),
                    named: format!(
                        "{} {agent} and later, the versions that write this session's format {recorded},",
                        self.title
                    ),
                    many: true,
                }),
            Recorded::Nothing => None,
        }
    }
}

/// The version a session was written by, as far as it tells.
struct Writer {
    /// The version, or the lowest it can be.
    version: Version,
    /// How the finding names it.
    named: String,
    /// Whether it stands for a range of versions.
    many: bool,
}

/// Whether a repair of `repaired` covers `found`: a repair of every unanswered call covers
/// the one the history ends on.
fn covers(repaired: Defect, found: Defect) -> bool {
    repaired == found
        || (repaired == Defect::UnansweredCall
            && matches!(
                found,
                Defect::TrailingUnansweredCall | Defect::OpenCall { .. }
            ))
}

/// The model of the agent whose sessions are read as `format`.
pub fn model(format: Format) -> Option<&'static Model> {
    MODELS.iter().copied().find(|m| m.format == format)
}

/// Judges the pairing findings of one conversation by what its agent sends on resume: a
/// defect the agent repairs is a warning that says what the model is shown instead.
pub fn judge(conv: &Conversation, findings: &mut [Finding]) {
    let Some(model) = model(conv.format) else {
        return;
    };
    let recorded = conv.agent_version.as_deref();
    let writer = model.writer(recorded);
    for finding in findings.iter_mut() {
        let Anchor::Node(loc) = &finding.anchor else {
            continue;
        };
        let defect = if finding.rule.code == rules::UnpairedToolCall::META.code {
            // An agent that says which calls its resume closes repairs only those.
            if let Some(open) = &conv.open_calls {
                match open.iter().find(|(call, _)| call == loc) {
                    Some(&(_, started)) => Defect::OpenCall { started },
                    None => Defect::UnansweredCall,
                }
            } else {
                match turn_of_call(conv, loc) {
                    Some(t) if rules::only_results_after(conv, t) => Defect::TrailingUnansweredCall,
                    Some(_) => Defect::UnansweredCall,
                    None => continue,
                }
            }
        } else if finding.rule.code == rules::OrphanedToolResult::META.code {
            Defect::OrphanedResult
        } else if finding.rule.code == rules::DuplicateToolResult::META.code {
            Defect::DuplicateResult
        } else {
            continue;
        };
        let repair = model.repair(defect, writer.as_ref().map(|w| &w.version));
        let (action, text) = match repair {
            Some(r) => (
                match r.action {
                    Action::Answers(_) => ReplayAction::Answers,
                    Action::Drops => ReplayAction::Drops,
                },
                repaired(model, r, defect, writer.as_ref()),
            ),
            None => match (&writer, model.newest(defect)) {
                (_, None) => continue,
                (Some(w), Some(newest)) => (ReplayAction::SendsAsHeld, held(w, newest, defect)),
                (None, Some(newest)) => (
                    ReplayAction::Unknown,
                    format!(
                        " (the session does not record which {} version wrote it: {} {} on resume, earlier ones send it as held)",
                        model.title,
                        range(newest),
                        does(newest.action, defect, true)
                    ),
                ),
            },
        };
        if action.repairs() && finding.severity == Severity::Error {
            finding.severity = Severity::Warning;
        }
        let shown = repair.or(model.newest(defect));
        finding.replay = Some(Replayed {
            agent: model.agent,
            version: recorded
                .filter(|_| matches!(model.recorded, Recorded::Version(_)))
                .map(str::to_string),
            format_version: recorded
                .filter(|_| matches!(model.recorded, Recorded::FormatVersion { .. }))
                .map(str::to_string),
            action,
            placeholder: repair.and_then(|r| match r.action {
                Action::Answers(text) => Some(text),
                Action::Drops => None,
            }),
            since: shown.and_then(|r| r.since),
        });
        finding.message.push_str(&text);
    }
}

/// What the finding adds where the agent repairs the defect.
fn repaired(model: &Model, r: &Repair, defect: Defect, writer: Option<&Writer>) -> String {
    let (who, many) = match writer {
        Some(w) => (w.named.clone(), w.many),
        None => (
            format!("{}, in every version modelled,", model.title),
            false,
        ),
    };
    let beyond = match writer {
        Some(w) if w.version > Version::parse(model.checked) => format!(
            "; modelled on {} {} and earlier, the newest checked",
            model.title, model.checked
        ),
        _ => String::new(),
    };
    format!(
        " ({who} {} on resume{beyond}: {})",
        does(r.action, defect, many),
        outcome(r.action, defect)
    )
}

/// What the finding adds where the recorded version sends the defect as held.
fn held(writer: &Writer, newest: &Repair, defect: Defect) -> String {
    let later = match newest.since {
        Some(s) if Version::parse(s) > writer.version => format!(
            "; {} {} on resume",
            range(newest),
            does(newest.action, defect, true)
        ),
        _ => String::new(),
    };
    let s = if writer.many { "" } else { "s" };
    format!(" ({} send{s} it as held{later})", writer.named)
}

/// "2.1.281 and later", "0.5.43 up to 0.25.0", "every version".
fn range(r: &Repair) -> String {
    match (r.since, r.until) {
        (Some(s), None) => format!("{s} and later"),
        (Some(s), Some(u)) => format!("{s} up to {u}"),
        (None, Some(u)) => format!("versions before {u}"),
        (None, None) => "every version".to_string(),
    }
}

/// What the agent does, after one version (`many` false: "answers it") or a range of them
/// ("answer it").
fn does(action: Action, defect: Defect, many: bool) -> String {
    let s = if many { "" } else { "s" };
    match (action, defect) {
        (Action::Answers(text), _) => format!("answer{s} it with {text:?}"),
        (Action::Drops, Defect::OrphanedResult | Defect::DuplicateResult) => {
            format!("drop{s} the result")
        }
        (Action::Drops, _) => format!("drop{s} the call"),
    }
}

fn outcome(action: Action, defect: Defect) -> &'static str {
    match (action, defect) {
        (Action::Answers(_), _) => {
            "the session resumes, and the model is shown that invented result instead"
        }
        (Action::Drops, Defect::OrphanedResult | Defect::DuplicateResult) => {
            "the session resumes, and the model is not shown that result"
        }
        (Action::Drops, _) => {
            "the session resumes, and the model is not shown that it made the call"
        }
    }
}

/// The turn holding the call at `loc`.
fn turn_of_call(conv: &Conversation, loc: &Loc) -> Option<usize> {
    conv.turns.iter().position(|turn| {
        turn.items
            .iter()
            .any(|item| matches!(item, Item::Call(call) if call.loc == *loc))
    })
}

/// The page of what every modelled agent does on resume, one table row per repair, for the
/// generated docs.
pub fn page() -> String {
    let mut page = String::from(
        "# What agents send on resume\n\n\
         (From the replay models in `crates/core/src/replay/`, one file per agent.)\n\n\
         Coding agents repair a session's history in memory when they resume it. toolcheck judges\n\
         `unpaired-tool-call`, `orphaned-tool-result` and `duplicate-tool-result` findings in their\n\
         sessions by what the agent that wrote the session sends: a defect it repairs is a warning\n\
         that says what the model is shown instead, one it sends as held keeps the provider's\n\
         verdict. `toolcheck doctor` says \"resumes with invented results\" for such sessions.\n\n\
         | agent | version recorded in | checked up to | defect | versions | on resume | evidence |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for model in MODELS {
        let recorded = match &model.recorded {
            Recorded::Version(place) => (*place).to_string(),
            Recorded::FormatVersion {
                place,
                first_written_by,
            } => {
                let known: Vec<String> = first_written_by
                    .iter()
                    .map(|(f, v)| format!("{f}: {v}+"))
                    .collect();
                format!("{place} ({})", known.join(", "))
            }
            Recorded::Nothing => "not recorded".to_string(),
        };
        if model.repairs.is_empty() {
            page.push_str(&format!(
                "| `{}` | {recorded} | {} | any | every version | sends it as held (repairs nothing) | `crates/core/src/replay/{}.rs` |\n",
                model.agent,
                model.checked,
                model.agent.replace('-', "_")
            ));
        }
        for r in model.repairs {
            let defect = match r.defect {
                Defect::UnansweredCall => "a call without a result",
                Defect::TrailingUnansweredCall => "a call the session was stopped in",
                Defect::OrphanedResult => "a result without its call",
                Defect::DuplicateResult => "a second result for a call",
                Defect::OpenCall { started: true } => {
                    "a call of the step the session was stopped in, recorded as started"
                }
                Defect::OpenCall { started: false } => {
                    "a call of the step the session was stopped in, never started"
                }
            };
            let action = match r.action {
                Action::Answers(text) => format!("answers it with `{text}`"),
                Action::Drops => "leaves it out".to_string(),
            };
            page.push_str(&format!(
                "| `{}` | {recorded} | {} | {defect} | {} | {action} | {} |\n",
                model.agent,
                model.checked,
                range(r),
                r.evidence.replace('|', "\\|")
            ));
        }
    }
    page
}

#[cfg(test)]
mod tests {
    use super::{Action, MODELS};

    /// Every placeholder a model says an agent sends is one `invented-tool-result` knows.
    #[test]
    fn every_placeholder_is_recognised_in_datasets() {
        for model in MODELS {
            for repair in model.repairs {
                if let Action::Answers(text) = repair.action {
                    assert!(
                        crate::placeholder::inserted_by(text).is_some(),
                        "{}: {text:?}",
                        model.agent
                    );
                }
            }
        }
    }
}
