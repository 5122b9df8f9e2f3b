//! How results pair with calls in one conversation: the analysis behind the orphaned,
//! unpaired, misplaced and duplicate-result rules, computed once and shared.

// foldhash: these maps key on ids and offsets a run compares itself; SipHash's
// flood resistance buys nothing there and costs a few percent of a lint.
use foldhash::{HashMap, HashMapExt};

use crate::transcript::{Conversation, Item, Loc, Pairing, Role, ToolCall, ToolResult};

/// Position of an item: (turn index, item index within the turn). Ordered as in the log.
pub(crate) type Pos = (usize, usize);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Misplacement {
    /// In the same turn as its call.
    SameTurn,
    /// Later than the turn right after its call.
    Late,
    /// In the right turn, but after text, where the provider wants results first.
    AfterText,
    /// In a later turn of an unbroken run of result turns right after the call's turn: the
    /// answer to the call's turn is split over consecutive result turns that the provider
    /// does not merge (Gemini Contents, Bedrock messages). Reported once per call turn by
    /// `result-count-mismatch`, not per result by `misplaced-tool-result`.
    Split,
    /// Right after a run of assistant turns that begins with the call's turn, each of which
    /// some endpoints merge into the one before (Gemini `model` Contents, see
    /// `Conversation::contested_merges`): `call-turn-out-of-place` reports the run once.
    AfterContestedMerge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResultStatus {
    Paired {
        call: Pos,
    },
    /// No earlier call has this result's id.
    Orphan,
    Misplaced {
        call: Pos,
        why: Misplacement,
    },
    /// The call was already answered by the result at `first`.
    Duplicate {
        call: Pos,
        first: Pos,
    },
}

/// Whether every turn after turn `t` holds results only: its calls are the last the history
/// made, a parallel batch with some results recorded included.
pub(crate) fn only_results_after(conv: &Conversation, t: usize) -> bool {
    conv.turns
        .iter()
        .skip(t + 1)
        .all(|turn| turn.items.iter().all(|i| matches!(i, Item::Result(_))))
}

#[derive(Debug, Default)]
pub(crate) struct Pairs {
    /// Every client-side result (provider-executed ones excluded), in order.
    pub results: Vec<(Pos, ResultStatus)>,
    /// Client-side calls that no later result answers, in order.
    pub unanswered: Vec<Pos>,
}

impl Pairs {
    pub fn analyse(conv: &Conversation) -> Pairs {
        // One side of the wire: nothing can be paired (`input-not-checked` says so).
        if conv.one_sided.is_some() {
            return Pairs::default();
        }
        // The client-side calls in order, each linked to the one before it with the same
        // key: one list and one map entry per key, not a list per key and a map of answers
        // (those were a twentieth of a big document's peak memory).
        let count = conv.client_calls().count();
        let mut calls: Vec<KeyedCall> = Vec::with_capacity(count);
        let mut last_by_key: HashMap<&str, usize> = HashMap::with_capacity(count);
        // Sized once: grown by doubling, a big history's list kept up to a third unused.
        let mut pairs = Pairs {
            results: Vec::with_capacity(conv.results().count()),
            unanswered: Vec::new(),
        };
        for (t, turn) in conv.turns.iter().enumerate() {
            let mut seen_text = false;
            for (i, item) in turn.items.iter().enumerate() {
                match item {
                    Item::Text(_) => seen_text = true,
                    Item::Thinking(_) => {}
                    Item::Call(call) if call.is_client() => {
                        let previous = last_by_key.insert(&call.key, calls.len());
                        calls.push(KeyedCall {
                            pos: (t, i),
                            previous,
                            answered: None,
                        });
                    }
                    Item::Call(_) => {}
                    Item::Result(result) if result.provider_executed => {}
                    Item::Result(result) => {
                        let status = match last_by_key.get(result.key.as_str()) {
                            None => ResultStatus::Orphan,
                            Some(&last) => {
                                // The most recent unanswered call with this id: ids repeat
                                // across turns in real traffic, each answered in its own turn.
                                match open_call(&calls, last) {
                                    Some(open) => {
                                        let call = calls.get_mut(open).map(|c| {
                                            c.answered = Some((t, i));
                                            c.pos
                                        });
                                        let call = call.unwrap_or((t, i));
                                        match placement(conv, call, (t, i), seen_text) {
                                            Some(why) => ResultStatus::Misplaced { call, why },
                                            None => ResultStatus::Paired { call },
                                        }
                                    }
                                    None => {
                                        let latest = calls.get(last);
                                        let call = latest.map_or((t, i), |c| c.pos);
                                        let first = latest.and_then(|c| c.answered).unwrap_or(call);
                                        ResultStatus::Duplicate { call, first }
                                    }
                                }
                            }
                        };
                        pairs.results.push(((t, i), status));
                    }
                }
            }
        }
        // In order already: calls are listed as read.
        pairs.unanswered = calls
            .iter()
            .filter(|c| c.answered.is_none())
            .map(|c| c.pos)
            .collect();
        pairs
    }
}

/// A client-side call as [`Pairs::analyse`] reads it: where it is, the call before it with the
/// same key, and the result that answered it.
struct KeyedCall {
    pos: Pos,
    previous: Option<usize>,
    answered: Option<Pos>,
}

/// The most recent call not answered yet among `last` and the calls before it with its key.
fn open_call(calls: &[KeyedCall], last: usize) -> Option<usize> {
    let mut at = Some(last);
    while let Some(k) = at {
        let call = calls.get(k)?;
        if call.answered.is_none() {
            return Some(k);
        }
        at = call.previous;
    }
    None
}

fn placement(conv: &Conversation, call: Pos, result: Pos, seen_text: bool) -> Option<Misplacement> {
    if conv.pairing == Pairing::AnyLater {
        return None;
    }
    if result.0 == call.0 {
        Some(Misplacement::SameTurn)
    } else if in_split_run(conv, call.0, result.0) {
        Some(Misplacement::Split)
    } else if after_contested_merge(conv, call.0, result.0) {
        Some(Misplacement::AfterContestedMerge)
    } else if result.0 != call.0 + 1 || conv.turns[result.0].role == Role::Assistant {
        Some(Misplacement::Late)
    } else if conv.results_first && seen_text {
        Some(Misplacement::AfterText)
    } else {
        None
    }
}

/// Whether `result_turn` comes right after a run of assistant turns that starts with
/// `call_turn`, each turn of the run after the first one that some endpoints merge into it.
fn after_contested_merge(conv: &Conversation, call_turn: usize, result_turn: usize) -> bool {
    let assistant = |t: usize| conv.turns.get(t).is_some_and(|t| t.role == Role::Assistant);
    result_turn > call_turn + 1
        && assistant(call_turn)
        && !assistant(result_turn)
        && (call_turn + 1..result_turn).all(|t| assistant(t) && conv.merge_contested(t))
}

/// Whether `result_turn` belongs to the run of result turns right after `call_turn`: the turn
/// after the call's turn holds results, and it and every turn up to `result_turn` are of the
/// conversation's results role, the later ones holding nothing but results.
pub(crate) fn in_split_run(conv: &Conversation, call_turn: usize, result_turn: usize) -> bool {
    let is_result = |item: &Item| matches!(item, Item::Result(_));
    let first = call_turn + 1;
    if result_turn <= first {
        return false;
    }
    let answers = conv
        .turns
        .get(first)
        .is_some_and(|t| t.role == conv.results_role && t.items.iter().any(is_result));
    answers
        && conv.turns.get(first + 1..=result_turn).is_some_and(|run| {
            run.iter().all(|t| {
                t.role == conv.results_role && !t.items.is_empty() && t.items.iter().all(is_result)
            })
        })
}

/// The call at `pos` (which the analysis found there).
pub(crate) fn call_at(conv: &Conversation, pos: Pos) -> Option<&ToolCall> {
    match conv.turns.get(pos.0)?.items.get(pos.1)? {
        Item::Call(call) => Some(call),
        _ => None,
    }
}

/// The result at `pos`.
pub(crate) fn result_at(conv: &Conversation, pos: Pos) -> Option<&ToolResult> {
    match conv.turns.get(pos.0)?.items.get(pos.1)? {
        Item::Result(result) => Some(result),
        _ => None,
    }
}

/// The first block of the turn after `turn`, when that turn is where this format keeps
/// results (not an assistant turn, and of the conversation's results role) and its first
/// item is a block inside a message: where a fix puts a result so the message that answers
/// the call's turn gets it, instead of a new message next to it.
pub(crate) fn next_turn_block(conv: &Conversation, turn: usize) -> Option<crate::transcript::Loc> {
    let next = conv.turns.get(turn + 1)?;
    if next.role != conv.results_role {
        return None;
    }
    let first = next.items.first()?;
    let loc = match first {
        Item::Text(t) | Item::Thinking(t) => &t.loc,
        Item::Call(c) => &c.loc,
        Item::Result(r) => &r.loc,
    };
    let is_block = loc != first.message()
        && loc
            .pointer
            .rsplit_once('/')
            .is_some_and(|(_, last)| last.parse::<usize>().is_ok());
    is_block.then(|| loc.clone())
}

/// Whether removing the item at `pos` waits for a later round of the fix loop: the items of
/// its kind (`kind`) in its message are all being removed (`removed`) and it is not the first
/// of them. Removed all at once they would leave the message with an empty list
/// (`tool_calls: []`, which OpenAI rejects, or `content: []`); one per round, the last one
/// takes its message with it.
pub(crate) fn removal_waits(
    conv: &Conversation,
    pos: Pos,
    message: &Loc,
    kind: impl Fn(&Item) -> bool,
    removed: impl Fn(Pos) -> bool,
) -> bool {
    let Some(turn) = conv.turns.get(pos.0) else {
        return false;
    };
    let mut siblings = turn
        .items
        .iter()
        .enumerate()
        .filter(|(_, item)| item.message() == message && kind(item))
        .map(|(i, _)| i);
    let Some(first) = siblings.next() else {
        return false;
    };
    first != pos.1 && removed((pos.0, first)) && siblings.all(|i| removed((pos.0, i)))
}

/// Orphaned results whose id is their call's rewritten on one side only (Kimi's
/// `functions.read_file:0` answered as `functions_read_file_0` after a gateway made ids
/// match `^[a-zA-Z0-9_-]+$`): each result's position with its call's. The call is unanswered,
/// in the turn right before the result's, at the same place among its calls as the result
/// among its results, and the two ids are equal once every character but letters and digits
/// is read as `_`.
pub(crate) fn rewritten_ids(conv: &Conversation, pairs: &Pairs) -> Vec<(Pos, Pos)> {
    let fold = |id: &str| -> String {
        id.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect()
    };
    let mut out = Vec::new();
    for &(pos, status) in &pairs.results {
        let (ResultStatus::Orphan, Some(result), Some(call_turn)) =
            (status, result_at(conv, pos), pos.0.checked_sub(1))
        else {
            continue;
        };
        let (Some(id), Some(turn), Some(calls)) = (
            result.call_id.as_deref(),
            conv.turns.get(pos.0),
            conv.turns.get(call_turn),
        ) else {
            continue;
        };
        let rank = turn
            .items
            .iter()
            .take(pos.1)
            .filter(|i| matches!(i, Item::Result(_)))
            .count();
        let Some((index, call)) = calls
            .items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| match item {
                Item::Call(c) if c.is_client() => Some((i, c)),
                _ => None,
            })
            .nth(rank)
        else {
            continue;
        };
        let rewritten = call
            .id
            .as_deref()
            .is_some_and(|cid| cid != id && fold(cid) == fold(id));
        if rewritten && pairs.unanswered.binary_search(&(call_turn, index)).is_ok() {
            out.push((pos, (call_turn, index)));
        }
    }
    out
}
