use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::Finding;
use crate::provider::Provider;
use crate::transcript::{Conversation, Item, Role, Turn};

declare_rule! {
    /// ## What it does
    /// Reports a turn of tool calls that does not come right after a user turn or a turn of
    /// tool results: one that opens the history, or one that follows another model turn.
    /// System messages do not count (Gemini takes them as `systemInstruction`), nor do saved
    /// responses, whose history is not in the file. In histories
    /// of other formats held to Gemini with `--target gemini`, consecutive assistant messages
    /// count as one model turn, since translation layers may merge them: only a history
    /// whose first non-system turn is an assistant turn with tool calls is reported there.
    ///
    /// A Gemini `model` Content with calls right after another `model` Content is a warning,
    /// on `gemini` and `gemini-vertex` alike: a gemini-3-flash-preview request with two
    /// consecutive `model` Contents of one `functionCall` each, answered by one `user`
    /// Content with both responses, got HTTP 200 (a recorded request, issue 24), and no
    /// rejection of that exact shape is on record. The result after such a run is not also
    /// reported as `misplaced-tool-result`. Keep a turn's calls in the one Content Gemini
    /// returned them in: Gemini 3 signs only the first call of a step (pipecat-ai/pipecat#3420,
    /// 2026-01, on why split Contents lose signatures).
    ///
    /// ## Why it matters
    /// Gemini rejects the request with "Please ensure that function call turn comes
    /// immediately after a user turn or after a function response turn."
    /// (google-gemini/gemini-cli#11814, a history that starts with a function call; #26956,
    /// #26486). Chat-memory windows that cut a history at a fixed number of messages, and
    /// OpenAI-style requests that open with an assistant tool call after the system message
    /// (lbjlaq/Antigravity-Manager#3396), produce it.
    ///
    /// ## Example
    /// ```json
    /// {"contents": [
    ///   {"role": "model", "parts": [
    ///     {"functionCall": {"name": "list_directory", "args": {"path": "."}}}]},
    ///   {"role": "user", "parts": [
    ///     {"functionResponse": {"name": "list_directory", "response": {"output": "src"}}}]},
    ///   {"role": "user", "parts": [{"text": "What is in src?"}]}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// None: the missing user turn cannot be recovered, and removing the calls with their
    /// results would drop what the model did. Restore the turn before the calls (a memory
    /// window should cut before a user turn), or drop the calls and their results yourself.
    pub struct CallTurnOutOfPlace {
        code: "TC504",
        name: "call-turn-out-of-place",
        severity: Error,
        fix: None,
        judged_by: [Gemini],
        summary: "a turn of tool calls does not follow a user turn or a turn of tool results",
    }
}

impl Rule for CallTurnOutOfPlace {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        // A saved response is not a history: what came before it is not in the file.
        if conv.is_response {
            return;
        }
        let Some(verdict) = cx.judge(&[Provider::Gemini]) else {
            return;
        };
        // Gemini's own Contents are what it receives; other formats' assistant messages may
        // be merged on the way.
        let native = conv.format.native().contains(&Provider::Gemini);
        for (t, turn) in conv.turns.iter().enumerate() {
            if turn.role != Role::Assistant || !has_calls(turn) {
                continue;
            }
            let earlier = conv.turns.get(..t).unwrap_or_default();
            let before = earlier.iter().rev().find(|p| p.role != Role::System);
            let mut verdict = verdict.clone();
            let message = match before {
                Some(p) if p.role != Role::Assistant => continue,
                // Consecutive `model` Contents, which the Gemini API has taken as one turn.
                Some(p) if native && conv.merge_contested(t) => {
                    let Some(contested) =
                        cx.judge_contested(&[], &[Provider::Gemini, Provider::GeminiVertex])
                    else {
                        continue;
                    };
                    verdict = contested;
                    format!(
                        "turn of tool calls comes right after another model Content ({}); the Gemini API has accepted consecutive model Contents as one turn, but a turn's calls belong in the one Content Gemini returned them in",
                        cx.describe(&p.loc)
                    )
                }
                Some(p) if native => format!(
                    "turn of tool calls comes right after another model turn ({}); a function call turn must follow a user turn or a function response turn",
                    cx.describe(&p.loc)
                ),
                Some(_) => {
                    // One merged model turn: report it once, at its first turn with calls,
                    // and only when nothing but system messages comes before it.
                    let run_start = earlier
                        .iter()
                        .rposition(|p| !matches!(p.role, Role::System | Role::Assistant));
                    let first_with_calls = earlier
                        .iter()
                        .skip(run_start.map_or(0, |s| s + 1))
                        .any(|p| p.role == Role::Assistant && has_calls(p));
                    if run_start.is_some() || first_with_calls {
                        continue;
                    }
                    "the history opens with assistant turns holding tool calls; a function call turn must follow a user turn or a function response turn".to_string()
                }
                None => "the history opens with a turn of tool calls; a function call turn must follow a user turn or a function response turn".to_string(),
            };
            out.push(
                Finding::at(&Self::META, &turn.loc, message)
                    .help("restore the user turn that asked for these calls, or remove the calls and their results")
                    .rejected_by(verdict),
            );
        }
    }
}

fn has_calls(turn: &Turn) -> bool {
    turn.items
        .iter()
        .any(|i| matches!(i, Item::Call(c) if c.is_client()))
}
