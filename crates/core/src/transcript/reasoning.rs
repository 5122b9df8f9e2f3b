//! Reasoning as a request holds it, and what the provider resolves by server id: what
//! adapters record beyond the turns, for rules to judge per provider.

use super::Loc;

/// How a format carries reasoning that a provider requires passed back with tool calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReasoningKind {
    /// `reasoning_content` on assistant messages (DeepSeek, Kimi on OpenAI-compatible chat).
    ReasoningContent,
    /// A `thoughtSignature` on `functionCall` parts (Gemini).
    ThoughtSignature,
    /// `reasoning` items before the items they produced (OpenAI Responses).
    ReasoningItems,
}

/// Reasoning as a request holds it: an adapter records what is there; rules decide whether
/// the provider required it.
#[derive(Debug, Clone, Default)]
pub struct ReasoningShapes {
    /// How this format carries reasoning; `None` for formats that do not read it.
    pub kind: Option<ReasoningKind>,
    /// What the request options say about thinking (`thinking.type`, `extra_body.thinking`,
    /// `reasoning_effort`): `Some(true)` on, `Some(false)` off, `None` where they do not say.
    pub requested: Option<bool>,
    /// What carries reasoning: assistant messages with a `reasoning_content` string (even
    /// empty), `functionCall` parts with a signature, `reasoning` items.
    pub carried: Vec<Loc>,
    /// Calls the provider links to the reasoning that produced them (Responses
    /// `function_call` items with an item `id`).
    pub linked_calls: Vec<Loc>,
    /// Reasoning items of a request's input, each with what the provider links it to (its
    /// server id, its encrypted content) and the item after it. Only for files that hold the
    /// input as it is sent: formats whose agent rebuilds the request from its own store
    /// (Codex rollouts) leave it empty.
    pub items: Vec<ReasoningItem>,
}

/// One reasoning item of a request's input (a Responses `reasoning` item).
#[derive(Debug, Clone)]
pub struct ReasoningItem {
    pub loc: Loc,
    /// The server id the provider gave it (`rs_…`), as written; `None` when absent or empty.
    pub id: Option<String>,
    /// It carries its reasoning encrypted (a non-empty `encrypted_content`), so the provider
    /// can read it without looking its id up.
    pub encrypted: bool,
    /// Where its reasoning text is (the `content` array), when that array is not empty.
    pub content: Option<Loc>,
    /// What comes right after it in the input.
    pub next: AfterReasoning,
}

/// The item right after a reasoning item in a request's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AfterReasoning {
    /// An item the model produces (an assistant message, a call) that keeps its own server
    /// id (`msg_…`, `fc_…`).
    OutputWithId,
    /// An item the model produces, written without a server id (re-created by the client).
    OutputWithoutId(Follower),
    /// An item the client writes: a user, system or developer message, a call's output.
    Input(Follower),
    /// Another reasoning item.
    Reasoning(Follower),
    /// An item that stands for a stored item by its id alone (`item_reference`): what it is
    /// is on the server.
    Reference,
    /// An item of a type the adapter does not know.
    Unknown,
    /// Nothing: the reasoning item is the last item of the input.
    Nothing,
}

/// The item that follows a reasoning item: where it is, and how a message names it
/// (`assistant message`, `function_call_output` item).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Follower {
    pub loc: Loc,
    pub label: String,
}

/// Whether the provider keeps a request's items for later requests, and the items the
/// request names by id alone. Formats that cannot tell leave it empty.
#[derive(Debug, Clone, Default)]
pub struct StoredItems {
    /// The request's `store` flag as written: `Some(false)` only where it is written `false`,
    /// `None` where it is absent or not a boolean.
    pub store: Option<bool>,
    /// Items that stand for a stored item by its id alone (Responses `item_reference`): each
    /// one's location and the id it names.
    pub references: Vec<(Loc, Option<String>)>,
}
