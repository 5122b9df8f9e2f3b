//! What the proxy does with one request body: the same rules as `toolcheck lint` (and the
//! same safe fixes as `toolcheck fix`), and by mode, forward it, repair it, or refuse it.

use std::fmt::Write as _;

use toolcheck_core::embed;
use toolcheck_core::finding::Severity;
use toolcheck_core::lint::LintOptions;
use toolcheck_core::report::Diagnostic;

use crate::dialect::Dialect;

/// What the proxy does with the requests it checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Forward every request as sent; log what is wrong with it.
    #[default]
    Report,
    /// Apply the safe fixes `toolcheck fix` applies, forward the repaired body, log the change.
    Repair,
    /// Answer a request the provider would reject with the provider's own error, without
    /// calling it.
    Block,
}

impl Mode {
    pub fn from_name(name: &str) -> Option<Mode> {
        match name {
            "report" => Some(Mode::Report),
            "repair" => Some(Mode::Repair),
            "block" => Some(Mode::Block),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::Report => "report",
            Mode::Repair => "repair",
            Mode::Block => "block",
        }
    }
}

/// What to do with a request once checked.
#[derive(Debug)]
pub enum Verdict {
    /// Forward the body as it came.
    Forward,
    /// Forward this body instead (repaired).
    Replace(Vec<u8>),
    /// Answer with the provider's error holding this message.
    Block(String),
}

/// A checked request: what to do with it, and the log line saying why (none when there was
/// nothing to say).
#[derive(Debug)]
pub struct Checked {
    pub verdict: Verdict,
    pub note: Option<String>,
}

/// The name the findings are reported under; its extension makes the body read as JSON.
const NAME: &str = "request.json";

/// The most findings one log line or refusal lists; the rest are counted.
const LISTED: usize = 5;

/// Checks `body`, a request read with `opts` (its dialect's input format and targets), and
/// decides by `mode`.
pub fn check(body: &[u8], opts: &LintOptions, mode: Mode) -> Checked {
    let found = embed::lint(NAME, body.to_vec(), opts);
    if let Some(reason) = not_understood(&found) {
        // A body toolcheck cannot read is forwarded untouched, whatever the mode: the proxy
        // never changes or refuses what it did not understand.
        return Checked {
            verdict: Verdict::Forward,
            note: Some(format!("not checked, forwarded as sent: {reason}")),
        };
    }
    if found.is_empty() {
        return Checked {
            verdict: Verdict::Forward,
            note: None,
        };
    }
    match mode {
        Mode::Report => Checked {
            verdict: Verdict::Forward,
            note: Some(format!("forwarded as sent: {}", list(&found))),
        },
        Mode::Block => {
            let errors: Vec<&Diagnostic> = found
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .collect();
            if errors.is_empty() {
                return Checked {
                    verdict: Verdict::Forward,
                    note: Some(format!("forwarded (warnings only): {}", list(&found))),
                };
            }
            let message = format!(
                "toolcheck proxy refused this request: the provider would reject it. {}",
                list_refs(&errors)
            );
            Checked {
                note: Some(format!("blocked: {}", list_refs(&errors))),
                verdict: Verdict::Block(message),
            }
        }
        Mode::Repair => repair(body, opts, &found),
    }
}

/// Applies the safe fixes; forwards the repaired body when they changed it.
fn repair(body: &[u8], opts: &LintOptions, found: &[Diagnostic]) -> Checked {
    match embed::fix(NAME, body.to_vec(), opts, false) {
        Ok(fixed) if fixed.changed => {
            let fixes = if fixed.applied == 1 { "fix" } else { "fixes" };
            let mut note = format!("repaired ({} {fixes}): {}", fixed.applied, list(found));
            if !fixed.remaining.is_empty() {
                let _ = write!(note, "; still there: {}", list(&fixed.remaining));
            }
            Checked {
                verdict: Verdict::Replace(fixed.text.into_bytes()),
                note: Some(note),
            }
        }
        Ok(_) => Checked {
            verdict: Verdict::Forward,
            note: Some(format!(
                "nothing safe to repair, forwarded as sent: {}",
                list(found)
            )),
        },
        Err(e) => Checked {
            verdict: Verdict::Forward,
            note: Some(format!(
                "not repaired ({e}), forwarded as sent: {}",
                list(found)
            )),
        },
    }
}

/// Why a body was not understood: a finding about the input itself (not JSON, no known
/// shape, beyond the limits, structures no conversation read).
fn not_understood(found: &[Diagnostic]) -> Option<String> {
    found
        .iter()
        .find(|d| d.code.starts_with("TC0"))
        .map(|d| format!("{} {}: {}", d.code, d.rule, d.message))
}

fn list(found: &[Diagnostic]) -> String {
    list_refs(&found.iter().collect::<Vec<_>>())
}

/// `TC101 orphaned-tool-result at /messages/3/content/0: …; …` with at most [`LISTED`].
fn list_refs(found: &[&Diagnostic]) -> String {
    let mut out = String::new();
    for (i, d) in found.iter().take(LISTED).enumerate() {
        if i > 0 {
            out.push_str("; ");
        }
        let _ = write!(out, "{} {}", d.code, d.rule);
        if !d.pointer.is_empty() {
            let _ = write!(out, " at {}", d.pointer);
        }
        let _ = write!(out, ": {}", d.message);
    }
    if found.len() > LISTED {
        let _ = write!(out, "; and {} more", found.len() - LISTED);
    }
    out
}

/// The options each dialect's bodies are checked with: its input format, and the providers
/// named (or each format's own, or the one a request's `model` names).
pub fn options(dialect: Dialect, targets: &[String]) -> Result<LintOptions, embed::Error> {
    embed::Options {
        input_format: Some(dialect.input_format().to_string()),
        targets: targets.to_vec(),
        ..embed::Options::default()
    }
    .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORPHAN: &str = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_1","content":"x"},{"role":"user","content":"go on"}]}"#;
    const CLEAN: &str = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#;

    fn opts() -> LintOptions {
        options(Dialect::OpenAiChat, &[]).expect("options")
    }

    #[test]
    fn a_clean_request_is_forwarded_without_a_note() {
        for mode in [Mode::Report, Mode::Repair, Mode::Block] {
            let checked = check(CLEAN.as_bytes(), &opts(), mode);
            assert!(matches!(checked.verdict, Verdict::Forward), "{mode:?}");
            assert!(checked.note.is_none(), "{:?}", checked.note);
        }
    }

    #[test]
    fn each_mode_does_its_own_thing_with_an_orphaned_result() {
        let report = check(ORPHAN.as_bytes(), &opts(), Mode::Report);
        assert!(matches!(report.verdict, Verdict::Forward));
        assert!(report.note.unwrap_or_default().contains("TC101"));

        let block = check(ORPHAN.as_bytes(), &opts(), Mode::Block);
        let Verdict::Block(message) = block.verdict else {
            panic!("not blocked: {block:?}");
        };
        assert!(
            message.contains("TC101 orphaned-tool-result at /messages/1"),
            "{message}"
        );

        let repair = check(ORPHAN.as_bytes(), &opts(), Mode::Repair);
        let Verdict::Replace(body) = repair.verdict else {
            panic!("not repaired: {repair:?}");
        };
        let body: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        let roles: Vec<&str> = body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["role"].as_str())
            .collect();
        assert_eq!(roles, ["user", "user"]);
        assert_eq!(body["model"], "gpt-4o");
    }

    #[test]
    fn a_body_not_understood_is_forwarded_untouched_in_every_mode() {
        for body in [&b"{\"messages\": [tru"[..], b"[1, 2]", b"\xff\xfe"] {
            for mode in [Mode::Report, Mode::Repair, Mode::Block] {
                let checked = check(body, &opts(), mode);
                assert!(
                    matches!(checked.verdict, Verdict::Forward),
                    "{mode:?} {body:?}"
                );
            }
        }
    }
}
