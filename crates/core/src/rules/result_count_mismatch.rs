use std::collections::BTreeMap;

use super::pairing::{result_at, Misplacement, Pos, ResultStatus};
use super::{declare_rule, id_list, Context, Rule, RuleMeta};
use crate::finding::{Applicability, Finding, FixIntent};
use crate::provider::Provider;
use crate::transcript::{Conversation, Item, ToolResult, Turn};

declare_rule! {
    /// ## What it does
    /// Reports a turn of tool calls whose results are split: the turn right after it holds
    /// fewer results than it has calls, and the others sit in the result turns that follow
    /// it. Bedrock merges nothing: consecutive user messages holding `toolResult` blocks are
    /// separate turns, and only the one right after the calls answers them. Gemini depends on
    /// the endpoint and the role of the Contents:
    ///
    /// - responses split over consecutive `function` Contents (older clients): an error;
    /// - responses split over consecutive `user` Contents: a warning on `gemini`, an error on
    ///   `gemini-vertex`. The Gemini API has accepted this shape, Vertex AI has rejected it.
    ///
    /// The finding names both counts and where the other results are.
    ///
    /// Other count mismatches are reported once, by the rule for their cause: a call with no
    /// result anywhere is `unpaired-tool-call`; an extra result is `orphaned-tool-result` or
    /// `duplicate-tool-result`; a result elsewhere is `misplaced-tool-result`. In OpenAI Chat
    /// histories consecutive `tool` messages are one turn, which translation layers send to
    /// Gemini as one function-response Content, so a split cannot occur there: with
    /// `--target gemini`, every count mismatch in such a history is one of those findings.
    ///
    /// ## Why it matters
    /// Where the split is not merged, Gemini rejects the request with "Please ensure that the
    /// number of function response parts is equal to the number of function call parts of the
    /// function call turn." (Gemini CLI prints it inside "✕ [API Error: [{"error": {"code":
    /// 400, …", google-gemini/gemini-cli#16543, #21830.) Evidence, by shape:
    ///
    /// - `function` Contents, rejected: microsoft/semantic-kernel#12528 (gemini-2.0-flash on
    ///   the Gemini API, 2025-06; the request is quoted in the issue).
    /// - `user` Contents, rejected on Vertex AI: vertesia/llumiverse#620 (2026-08, replayed
    ///   against Vertex `generateContent`: split turns 400 on gemini-2.5-flash and
    ///   gemini-3.1-flash-lite, one merged turn 200), docker/docker-agent#2958 (2026-06),
    ///   epam/ai-dial-adapter-vertexai#214 (2025-04).
    /// - `user` Contents, accepted on the Gemini API: a recorded gemini-2.5-flash request
    ///   (v1beta, 2026-02, HTTP 200, the reply used all three results; issue 24), and
    ///   Oaklight/llm-rosetta#300 (2026-06: split and merged both 200 on gemini-2.5-flash and
    ///   gemini-2.5-flash-lite). cloudwego/eino-ext#571 (gemini-3-pro-preview, 2025-11) saw
    ///   the 400 without naming the endpoint or the role.
    ///
    /// The official SDK sends Contents as given (googleapis/python-genai `t_contents` groups
    /// bare parts, never two Contents), so what the file holds is what the endpoint saw.
    /// Bedrock rejects a split with `"Expected toolResult blocks at messages.2.content for the
    /// following Ids: tooluse_<id>"` (genkit-ai/aws-bedrock-js-plugin#664); its counterpart for
    /// extra results, "The number of toolResult blocks at messages.2.content exceeds the
    /// number of toolUse blocks of previous turn." (pydantic/pydantic-ai#2327), comes from
    /// results the rules above report. Frameworks that write one Content or message per tool
    /// result produce this whenever the model calls tools in parallel.
    ///
    /// ## Example
    /// ```json
    /// {"contents": [
    ///   {"role": "user", "parts": [{"text": "Weather in Paris and Rome?"}]},
    ///   {"role": "model", "parts": [
    ///     {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
    ///     {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}]},
    ///   {"role": "user", "parts": [
    ///     {"functionResponse": {"name": "get_weather", "response": {"temp": 18}}}]},
    ///   {"role": "user", "parts": [
    ///     {"functionResponse": {"name": "get_weather", "response": {"temp": 24}}}]}
    /// ]}
    /// ```
    ///
    /// ## Fix
    /// Safe: move the later results to the end of the turn right after the calls, in their
    /// order, and remove the turns they leave empty. Nothing is lost, and results without
    /// ids, which pair by name and order, keep their order. Offered when the later turns hold
    /// nothing but these results.
    pub struct ResultCountMismatch {
        code: "TC503",
        name: "result-count-mismatch",
        severity: Error,
        fix: Safe,
        judged_by: [Gemini, Bedrock],
        summary: "a turn of tool calls is answered over several result turns, where only the first counts",
    }
}

impl Rule for ResultCountMismatch {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        // Whether any target minds at all; each split is judged below.
        if cx
            .judge(&[Provider::Gemini, Provider::Bedrock, Provider::GeminiVertex])
            .is_none()
        {
            return;
        }
        // The split results of each call turn, in order.
        let mut split: BTreeMap<usize, Vec<Pos>> = BTreeMap::new();
        for &(pos, status) in &cx.pairs().results {
            if let ResultStatus::Misplaced {
                call,
                why: Misplacement::Split,
            } = status
            {
                split.entry(call.0).or_default().push(pos);
            }
        }
        for (turn, positions) in split {
            let (Some(calls_turn), Some(next)) = (conv.turns.get(turn), conv.turns.get(turn + 1))
            else {
                continue;
            };
            let calls = calls_turn
                .items
                .iter()
                .filter(|i| matches!(i, Item::Call(c) if c.is_client()))
                .count();
            let answered = client_results(next);
            let results: Vec<_> = positions
                .iter()
                .filter_map(|&pos| result_at(conv, pos))
                .collect();
            let mut later: Vec<usize> = positions.iter().map(|p| p.0).collect();
            later.dedup();
            let places: Vec<String> = later
                .iter()
                .filter_map(|&t| conv.turns.get(t))
                .map(|t| cx.describe(&t.loc))
                .collect();
            // Split over consecutive `user` Contents, which the Gemini API has merged and
            // Vertex AI has not: contested on Gemini, an error on `gemini-vertex`.
            let contested = later.iter().all(|&t| conv.merge_contested(t));
            let verdict = if contested {
                cx.judge_contested(
                    &[Provider::Bedrock, Provider::GeminiVertex],
                    &[Provider::Gemini],
                )
            } else {
                cx.judge(&[Provider::Gemini, Provider::Bedrock])
            };
            let Some(verdict) = verdict else {
                continue;
            };
            let counted = if verdict.0 == crate::finding::Severity::Warning {
                "which Vertex AI does not count (the Gemini API has accepted such a split; `--target gemini-vertex` holds it to Vertex)"
            } else {
                "which the provider does not count"
            };
            let message = format!(
                "turn of {calls} tool call{} is answered by {answered} result{} in the turn right after it ({}); {} more ({}) {} in the turn{} after that ({}), {counted}",
                plural(calls),
                plural(answered),
                cx.describe(&next.loc),
                results.len(),
                named(&results),
                if results.len() == 1 { "is" } else { "are" },
                plural(later.len()),
                places.join(", ")
            );
            let mut finding = Finding::at(&Self::META, &calls_turn.loc, message)
                .help("put every result for this turn's calls in the one turn right after it")
                .rejected_by(verdict);
            if let Some(intent) = gather(conv, turn, &positions, &later) {
                finding = finding.fix(
                    Applicability::Safe,
                    "move the later results into the turn right after the calls",
                    intent,
                );
            }
            out.push(finding);
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The results, by id (`"call_1", "call_2"`) or, without ids, by name (`` `search` ``).
fn named(results: &[&ToolResult]) -> String {
    if results.iter().all(|r| r.call_id.is_some()) {
        return id_list(results.iter().filter_map(|r| r.call_id.as_deref()));
    }
    let names: Vec<String> = results
        .iter()
        .map(|r| match (&r.call_id, &r.name) {
            (Some(id), _) => format!("\"{id}\""),
            (None, Some(name)) => format!("`{name}`"),
            (None, None) => "without an id".to_string(),
        })
        .collect();
    match names.len() {
        0..=4 => names.join(", "),
        n => format!(
            "{} and {} more",
            names.iter().take(4).cloned().collect::<Vec<_>>().join(", "),
            n - 4
        ),
    }
}

fn client_results(turn: &Turn) -> usize {
    turn.items
        .iter()
        .filter(|i| matches!(i, Item::Result(r) if !r.provider_executed))
        .count()
}

/// The fix, when the turns after the first result turn up to the last split result are whole
/// messages holding nothing but this call turn's split results.
fn gather(
    conv: &Conversation,
    turn: usize,
    positions: &[Pos],
    later: &[usize],
) -> Option<FixIntent> {
    let into = conv.turns.get(turn + 1)?.items.last()?;
    let last = *later.last()?;
    let run = conv.turns.get(turn + 2..=last)?;
    let mut messages = Vec::new();
    for (k, t) in run.iter().enumerate() {
        let whole =
            t.items.iter().enumerate().all(|(i, item)| {
                item.message() == &t.loc && positions.contains(&(turn + 2 + k, i))
            });
        if !whole {
            return None;
        }
        messages.push(t.loc.clone());
    }
    let results = positions
        .iter()
        .filter_map(|&pos| result_at(conv, pos))
        .map(|r| r.loc.clone())
        .collect();
    let into = into.loc().clone();
    Some(FixIntent::GatherResults {
        into,
        results,
        messages,
    })
}
