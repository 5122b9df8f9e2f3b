//! Model calls as traces record them, each with the whole request it sent and the response
//! it got, and how they are rebuilt into conversations (for `otel`, `openinference`,
//! `langfuse`, `langsmith` and `letta`).
//!
//! The calls whose inputs extend one another are one conversation, checked once at its last
//! call (input and output); a call that extends none starts a conversation of its own, so
//! two interleaved conversations in one file stay apart.

use crate::provider::Provider;
use crate::transcript::{Conversation, Item, Loc, Pairing, Role, ToolDef};

/// One message of a recorded request or response.
#[derive(Clone)]
pub(crate) struct Message {
    pub role: Role,
    pub loc: Loc,
    pub items: Vec<Item>,
    /// What the message says, for telling whether one request extends another.
    pub print: String,
}

/// One model call: the request it sent and the response it got.
pub(crate) struct ModelCall {
    pub input: Vec<Message>,
    pub output: Vec<Message>,
    pub tools: Vec<ToolDef>,
    pub provider: Option<Provider>,
    pub failed: bool,
    pub loc: Loc,
    pub start: u128,
    pub order: usize,
    /// The trace (or session) the call was recorded in, when the container says.
    pub trace: Option<String>,
    /// What a failed call records it failed with (a span's status message).
    pub rejection: Option<String>,
    /// The spans (and attributes) its messages were read from.
    pub origins: Vec<crate::transcript::Origin>,
}

/// Gives each call on a server-held history (`threads[i]`, the thread call `i` continues, or
/// `None`) the whole request it stands for: the input and output of the call before it on
/// the same thread, then its own input, which is only what is new. A thread's first call
/// sent its history whole. Their spans go with the messages, so findings in them name the
/// earlier spans they were read from.
pub(crate) fn continue_threads(calls: &mut [ModelCall], threads: &[Option<String>]) {
    let mut order: Vec<usize> = (0..calls.len()).collect();
    order.sort_by_key(|&i| calls.get(i).map(|c| (c.start, c.order)));
    let mut last: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for i in order {
        let Some(thread) = threads.get(i).and_then(Option::as_deref) else {
            continue;
        };
        if let Some(&before) = last.get(thread) {
            let earlier = calls.get(before).map(|c| {
                let history: Vec<Message> = c.input.iter().chain(&c.output).cloned().collect();
                (history, c.origins.clone())
            });
            if let (Some((mut history, origins)), Some(call)) = (earlier, calls.get_mut(i)) {
                history.append(&mut call.input);
                call.input = history;
                let mut all = origins;
                all.append(&mut call.origins);
                call.origins = all;
            }
        }
        last.insert(thread, i);
    }
}

/// The conversations of a file's model calls: one per chain of calls whose inputs extend
/// each other, read at its last call. `failed_runs` are the call ids of tool executions
/// that failed, which mark their results as errors.
pub(crate) fn rebuild(
    format: crate::format::Format,
    mut calls: Vec<ModelCall>,
    failed_runs: &[String],
) -> Vec<Conversation> {
    calls.sort_by_key(|c| (c.start, c.order));
    // Each message as a hash of what it says: traces repeat the whole history in every
    // call, so prefixes are compared on hashes, each computed once.
    let prints: Vec<Vec<u64>> = calls
        .iter()
        .map(|c| {
            c.input
                .iter()
                .map(|m| {
                    use std::hash::BuildHasher;
                    foldhash::quality::FixedState::with_seed(0).hash_one(&m.print)
                })
                .collect()
        })
        .collect();
    // Each chain's calls; a call joins the chain whose last input is the longest prefix of
    // its own. A chain of another trace is joined only when the call's input goes on past
    // it (an application that starts a trace per user turn): a call whose input is the
    // same as another trace's is a run of its own (the same prompt run again), and at equal
    // length a chain of the call's own trace wins.
    let mut chains: Vec<Vec<usize>> = Vec::new();
    for (i, mine) in prints.iter().enumerate() {
        let trace = calls.get(i).and_then(|c| c.trace.as_deref());
        let joined = chains
            .iter()
            .enumerate()
            .filter_map(|(c, chain)| {
                let last = *chain.last()?;
                let theirs = prints.get(last)?;
                let same = calls.get(last).and_then(|c| c.trace.as_deref()) == trace;
                let extends = !theirs.is_empty()
                    && mine.starts_with(theirs)
                    && (same || mine.len() > theirs.len());
                extends.then_some((theirs.len(), same, c))
            })
            .max();
        match joined.and_then(|(_, _, c)| chains.get_mut(c)) {
            Some(chain) => chain.push(i),
            None => chains.push(vec![i]),
        }
    }
    let mut lasts: Vec<usize> = chains.iter().filter_map(|c| c.last().copied()).collect();
    lasts.sort_unstable();
    let mut out = Vec::new();
    for (i, call) in calls.into_iter().enumerate() {
        if lasts.binary_search(&i).is_ok() {
            out.push(conversation(format, call, failed_runs));
        }
    }
    out
}

fn conversation(
    format: crate::format::Format,
    call: ModelCall,
    failed_runs: &[String],
) -> Conversation {
    let mut conv = Conversation::new(format, call.loc, Pairing::NextTurn);
    conv.provider = call.provider;
    conv.accepted = !call.failed && call.output.iter().any(|m| !m.items.is_empty());
    conv.rejection = call.rejection.filter(|_| call.failed);
    conv.tools = call.tools;
    conv.origins = call.origins;
    // Where the trace puts results decides the convention: user messages (Anthropic,
    // Gemini, Bedrock request shapes) or messages of their own (OpenAI, and the parts form's
    // `tool` role whichever the provider).
    let in_user = call
        .input
        .iter()
        .any(|m| m.role == Role::User && m.items.iter().any(|i| matches!(i, Item::Result(_))));
    if in_user {
        conv.results_role = Role::User;
        conv.results_first = call.provider == Some(Provider::Anthropic);
    }
    for message in call.input.into_iter().chain(call.output) {
        let merge = conv.turns.last().is_some_and(|t| t.role == message.role);
        if !merge {
            conv.start_turn(message.role, message.loc.clone());
        }
        for mut item in message.items {
            if let Item::Result(result) = &mut item {
                if result
                    .call_id
                    .as_ref()
                    .is_some_and(|id| failed_runs.contains(id))
                {
                    result.is_error = true;
                }
            }
            conv.push_to_last(item);
        }
    }
    conv
}
