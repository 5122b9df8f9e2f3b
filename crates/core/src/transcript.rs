//! The normalised transcript every rule reads.
//!
//! A format adapter turns provider JSON into [`Conversation`]s; rules never look at provider
//! JSON. Every node remembers where it came from (a [`Loc`]: the byte offset of its JSON
//! document in the file and the RFC 6901 pointer inside it), so findings can be placed
//! precisely and fixes can be turned back into byte edits by the adapter.

mod result_text;

pub use result_text::{failed_text, looks_like_error, result_text, text_looks_like_error};

use crate::format::Format;
use crate::tree::Value as Tree;
use compact_str::CompactString;
use serde_json::Value as Json;

mod origin;
pub use origin::{span_at, Origin, SpanRef};

mod reasoning;
pub use reasoning::{
    AfterReasoning, Follower, ReasoningItem, ReasoningKind, ReasoningShapes, StoredItems,
};

/// Where a node lives: the JSON document that starts at byte `base` of the file (the whole
/// file for JSON, one line for JSONL) and the pointer inside that document.
///
/// A transcript keeps a pointer per call, result, turn and message, so the pointer is a
/// `CompactString`: up to 24 bytes (a message's `/messages/1234`, a session line's
/// `/message/content/0`) live inline, with no allocation of their own.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Loc {
    pub base: usize,
    pub pointer: CompactString,
}

impl Loc {
    pub fn new(base: usize, pointer: impl AsRef<str>) -> Self {
        Loc {
            base,
            pointer: CompactString::new(pointer),
        }
    }

    /// The location of a child of this node.
    pub fn child(&self, token: impl crate::pointer::Token) -> Loc {
        thread_local! {
            static SCRATCH: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
        }
        // Built in a reused `String`, then copied once into exactly the room it needs
        // (inline when short): pushing onto a `CompactString` checks its layout at each push.
        let pointer = SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            scratch.clear();
            scratch.push_str(&self.pointer);
            crate::pointer::push_token(&mut scratch, &token);
            CompactString::new(scratch.as_str())
        });
        Loc {
            base: self.base,
            pointer,
        }
    }
}

/// How the provider links results to calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pairing {
    /// Results must be in the turn right after the call's turn (OpenAI Chat, Anthropic,
    /// Gemini, Bedrock, after the adapter merged what the provider merges).
    NextTurn,
    /// Results may come anywhere after their call (Responses API items, Codex rollouts).
    AnyLater,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
    /// Tool-result messages (OpenAI `tool`/`function`, Vercel `tool`, LangChain `ToolMessage`).
    Tool,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// One conversation: what a provider would receive in one request, or one session.
#[derive(Debug, Clone)]
pub struct Conversation {
    pub format: Format,
    pub turns: Vec<Turn>,
    /// Tool definitions declared by the conversation itself.
    pub tools: Vec<ToolDef>,
    pub pairing: Pairing,
    /// Results must open their turn, before any text (Anthropic `tool_result` blocks).
    pub results_first: bool,
    /// The role of the turns results live in: `User` where they are blocks of user messages
    /// (Anthropic, Bedrock, Gemini), `Tool` where they have messages of their own.
    pub results_role: Role,
    /// Earlier items live on the server (`previous_response_id`), so results whose call is not
    /// in the file are expected.
    pub server_history: bool,
    /// A trailing unanswered call is an error too: the log is resumed by sending it again
    /// followed by a new prompt (Claude Code, Codex sessions).
    pub resumable: bool,
    /// A saved model response (Gemini `candidates`, Bedrock `output`), not a history: what
    /// came before it is not in the file.
    pub is_response: bool,
    /// Whether the request declares its tools (Bedrock `toolConfig`): `None` where that
    /// cannot be told, e.g. a bare message list or a saved response.
    pub declares_tools: Option<bool>,
    /// Results whose content is empty (Bedrock `content: []`): each result's location and
    /// its content value's, for formats that can tell an empty result from an empty text.
    pub empty_results: Vec<(Loc, Loc)>,
    /// Arguments repeated on results (Moltis `tool_result.arguments`), for formats that
    /// record what the tool ran with beside what the call says.
    pub echoed_arguments: Vec<EchoedArguments>,
    /// Where the conversation's document is (the request object, the JSONL record, the
    /// session's first line); findings about the conversation as a whole point here.
    pub loc: Loc,
    /// Whether the request enables extended thinking with a fixed budget (Anthropic
    /// `thinking.type: "enabled"`): `None` where the file does not say (bare message arrays,
    /// sessions, adaptive thinking, formats that do not read it).
    pub thinking: Option<bool>,
    /// Messages the file keeps but the tool does not send (Cline's condensed and truncated
    /// messages): not checked, and accounted for by the unread-structure guard, which
    /// counts what sits inside them as read on purpose.
    pub excluded: Vec<Loc>,
    /// Turns that follow a turn of the same role which some of the provider's endpoints merge
    /// with it and others keep apart (Gemini `user` and `model` Contents: the Gemini API has
    /// accepted shapes that only hold merged, Vertex AI rejected them): each such turn's
    /// index, ascending. Rules judge what depends on the merge as contested.
    pub contested_merges: Vec<usize>,
    /// The agent drops orphaned results and unanswered calls before it sends the history
    /// (Goose's `fix_conversation`): pairing defects then do not fail its requests, though
    /// they fail older versions and anything else that replays the session.
    pub repaired_pairing: bool,
    /// Results that repair keeps although no call is sent for them (Goose pairs a response
    /// with a request it could not parse, then leaves that request out of the request it
    /// sends): still errors.
    pub kept_unpaired: Vec<Loc>,
    /// The version of the agent that wrote the session, as the session records it (Claude
    /// Code's `version` on the resumed chain's last line, Codex's `cli_version`), or its
    /// format's version where that is all it records (pi's header `version`): what its
    /// replay model (`replay`) is judged by.
    pub agent_version: Option<String>,
    /// A second result for a call is a copy the agent itself made of the first (Gemini CLI
    /// records each response twice and copies them again on resume), so removing it loses
    /// nothing.
    pub results_copied: bool,
    /// The provider the file records this conversation was sent to (a trace's
    /// `gen_ai.provider.name`): held to it instead of its format's providers, unless
    /// `--target` says otherwise.
    pub provider: Option<crate::provider::Provider>,
    /// The file records that the provider answered this request (a trace's span ended
    /// without error and with output): what a rule says the provider rejects, it accepted
    /// here, so such findings are warnings that say so.
    pub accepted: bool,
    /// What the file records the request failed with (a trace's span status message, the
    /// provider's error): quoted by findings the provider rejects.
    pub rejection: Option<String>,
    /// A wire capture that holds one direction only (an MCP server's stdout: its responses,
    /// none of the requests): calls and results cannot be paired, so pairing rules pass it
    /// over and `input-not-checked` says so once.
    pub one_sided: Option<OneSide>,
    /// Message shapes that some providers reject and the turns do not show, as the file
    /// holds them (an empty `tool_calls` array, an assistant message with nothing in it).
    pub shapes: MessageShapes,
    /// The model the request names (`model`), where the file says.
    pub model: Option<String>,
    /// Reasoning as the file holds it, for providers that require it passed back.
    pub reasoning: ReasoningShapes,
    /// Whether the provider keeps the request's items, and the items it names by id alone.
    pub stored: StoredItems,
    /// The calls of the step the log was stopped in, as the agent's own resume finds them
    /// (DeepSeek Harness: no `step/end` or `turn/end` after them), each with whether the
    /// log records the call as started: `None` for formats that do not tell.
    pub open_calls: Option<Vec<(Loc, bool)>>,
    /// The spans of a trace the nodes were read from (see [`span_at`]): empty for formats
    /// that are not traces.
    pub origins: Vec<Origin>,
}

/// What an adapter records about messages beyond their items: shapes only, which rules judge
/// per provider. Formats that cannot tell leave them empty.
#[derive(Debug, Clone, Default)]
pub struct MessageShapes {
    /// Each `tool_calls: []` of an assistant message (the empty array's location).
    pub empty_call_lists: Vec<Loc>,
    /// Assistant messages whose content is absent or null and that make no call.
    pub contentless: Vec<Loc>,
    /// Calls and results in a wire shape that carries ids, written without one (an OpenAI
    /// `tool_calls` entry with no `id`, a `tool` message with no `tool_call_id`), which the
    /// adapter paired by position. Shapes that pair by name by design (Ollama's `tool_name`,
    /// legacy `function` messages) are not listed.
    pub missing_ids: Vec<(Loc, MissingId)>,
}

/// Which side of a pair lacks its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissingId {
    Call,
    Result,
}

/// Which direction of a wire capture is the only one there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OneSide {
    /// Requests and no responses (a client's stdout).
    RequestsOnly,
    /// Responses and no requests (a server's stdout).
    ResponsesOnly,
}

/// A run of messages the provider treats as one turn (adjacent same-role messages merged
/// where the provider merges them, consecutive OpenAI `tool` messages grouped).
#[derive(Debug, Clone)]
pub struct Turn {
    pub role: Role,
    pub loc: Loc,
    pub items: Vec<Item>,
}

#[derive(Debug, Clone)]
pub enum Item {
    Text(Text),
    /// A reasoning block (Anthropic `thinking` and `redacted_thinking`), kept apart from text
    /// because providers constrain where it sits. Formats that do not tell it apart keep
    /// reasoning as [`Item::Text`].
    Thinking(Text),
    Call(ToolCall),
    Result(ToolResult),
}

impl Item {
    /// Where the item itself is (the block, part or message).
    pub fn loc(&self) -> &Loc {
        match self {
            Item::Text(t) | Item::Thinking(t) => &t.loc,
            Item::Call(c) => &c.loc,
            Item::Result(r) => &r.loc,
        }
    }

    /// The message holding this item.
    pub fn message(&self) -> &Loc {
        match self {
            Item::Text(t) | Item::Thinking(t) => &t.message,
            Item::Call(c) => &c.message,
            Item::Result(r) => &r.message,
        }
    }
}

impl Turn {
    /// The last message of the turn (where results for its calls are inserted after).
    pub fn last_message(&self) -> &Loc {
        self.items.last().map_or(&self.loc, Item::message)
    }

    /// The turn's items message by message (a turn may merge several), in order.
    pub fn by_message(&self) -> Vec<(&Loc, Vec<&Item>)> {
        let mut messages: Vec<(&Loc, Vec<&Item>)> = Vec::new();
        for item in &self.items {
            match messages.last_mut() {
                Some((message, items)) if *message == item.message() => items.push(item),
                _ => messages.push((item.message(), vec![item])),
            }
        }
        messages
    }
}

#[derive(Debug, Clone)]
pub struct Text {
    pub loc: Loc,
    /// The message holding this text.
    pub message: Loc,
}

/// What kind of call this is, which decides what rules apply to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    /// A client-side function call with JSON arguments.
    Function,
    /// A client-side call whose input is free text by design (`custom_tool_call`).
    FreeText,
    /// Executed by the provider, answered inside the same turn; never paired.
    ProviderExecuted,
}

/// The arguments of a call, as the log holds them.
#[derive(Debug, Clone, PartialEq)]
pub enum Arguments {
    /// JSON text inside a string (OpenAI `arguments`).
    Encoded(String),
    /// A structured value (Anthropic `input`, Gemini `args`), boxed: inline (72 bytes) it
    /// made every item of a transcript, texts too, 48 bytes bigger.
    Value(Box<Json>),
    /// The field is missing where the format requires it.
    Absent,
}

/// What parsing a call's arguments yields.
#[derive(Debug, Clone, PartialEq)]
pub enum ParsedArgs {
    /// A JSON object (always `Json::Object`): kept whole so a schema checks it without a
    /// copy.
    Object(Json),
    /// Null, missing, or an empty string.
    Empty,
    /// Parses to something other than an object.
    NotObject(Json),
    /// Not JSON at all; `truncated` when the text is a valid prefix of a JSON document.
    Invalid { error: String, truncated: bool },
    /// Valid as far as read, but nested deeper than toolcheck reads.
    TooDeep,
}

impl Arguments {
    pub fn value(v: Json) -> Self {
        Arguments::Value(Box::new(v))
    }

    pub fn parse(&self) -> ParsedArgs {
        match self {
            Arguments::Absent => ParsedArgs::Empty,
            Arguments::Value(v) => classify(Json::clone(v)),
            Arguments::Encoded(s) if s.trim().is_empty() => ParsedArgs::Empty,
            Arguments::Encoded(s) => match crate::json::parse_value(s) {
                Ok(v) => classify(v),
                Err(e) if e.kind == crate::json::JsonErrorKind::TooDeep => ParsedArgs::TooDeep,
                Err(e) => ParsedArgs::Invalid {
                    truncated: e.kind == crate::json::JsonErrorKind::Eof,
                    error: format!("{} at line {} column {}", e.message, e.line, e.column),
                },
            },
        }
    }

    /// The parsed arguments when they are an object.
    pub fn object(&self) -> Option<serde_json::Map<String, Json>> {
        match self.parse() {
            ParsedArgs::Object(Json::Object(map)) => Some(map),
            _ => None,
        }
    }
}

fn classify(v: Json) -> ParsedArgs {
    match v {
        v @ Json::Object(_) => ParsedArgs::Object(v),
        Json::Null => ParsedArgs::Empty,
        other => ParsedArgs::NotObject(other),
    }
}

#[derive(Debug, Clone)]
pub struct ToolCall {
    /// The id as written in the log, if the format has one.
    pub id: Option<String>,
    /// What results are paired by: the id, or a key the adapter derived (by name and order)
    /// for formats where ids are optional.
    pub key: String,
    pub name: String,
    pub kind: CallKind,
    pub arguments: Arguments,
    /// The call element.
    pub loc: Loc,
    /// The arguments value (the call element itself when absent).
    pub args_loc: Loc,
    /// The message holding this call.
    pub message: Loc,
}

impl ToolCall {
    /// Whether the client executes this call and owes it a result (the provider answers
    /// its own calls in the same turn).
    pub fn is_client(&self) -> bool {
        self.kind != CallKind::ProviderExecuted
    }

    /// How findings name this call in a sentence: `tool call "call_1" to `search``, or
    /// `tool call to `search`` when it has no id (the location says which one).
    pub fn subject(&self) -> String {
        match &self.id {
            Some(id) => format!("tool call \"{id}\" to `{}`", self.name),
            None => format!("tool call to `{}`", self.name),
        }
    }

    /// A short reference for ranges ("from "call_1" at ... to "call_9" at ..."): the quoted
    /// id, or "the call" when it has none.
    pub fn reference(&self) -> String {
        match &self.id {
            Some(id) => format!("\"{id}\""),
            None => "the call".to_string(),
        }
    }
}

/// The arguments a result repeats: the result at `result`, the value at `loc`.
#[derive(Debug, Clone)]
pub struct EchoedArguments {
    pub result: Loc,
    pub value: Json,
    pub loc: Loc,
}

#[derive(Debug, Clone)]
pub struct ToolResult {
    /// The id as written in the log, if the format has one.
    pub call_id: Option<String>,
    /// The pairing key (see [`ToolCall::key`]).
    pub key: String,
    pub name: Option<String>,
    /// The provider's or framework's error flag, or, for formats without one, content that
    /// is an error object or starts with `Error`/`error:`.
    pub is_error: bool,
    /// The result's text, for comparing error messages (trimmed, at most a few hundred
    /// chars). Only failed results' texts are compared: an adapter that knows, when it reads
    /// a result, that it did not fail may leave this empty (see [`failed_text`]).
    pub text: String,
    /// Answered inside the call's own turn by the provider (server tools); never paired.
    pub provider_executed: bool,
    /// The key of the field inside the result that holds its call id (OpenAI
    /// `tool_call_id`), for formats where a fix may rewrite the id. A field here, not a list
    /// beside the items: an item is as big as a call, which leaves a result the room.
    pub id_field: Option<&'static str>,
    pub loc: Loc,
    /// The message holding this result (the same as `loc` when the message is the result).
    pub message: Loc,
}

impl ToolResult {
    /// How findings name this result in a sentence: `tool result for "call_1"`, or
    /// `tool result from `search`` when it carries no id.
    pub fn subject(&self) -> String {
        match (&self.call_id, &self.name) {
            (Some(id), _) => format!("tool result for \"{id}\""),
            (None, Some(name)) => format!("tool result from `{name}`"),
            (None, None) => "tool result without an id".to_string(),
        }
    }
}

/// Which schema dialect a declaration uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemaDialect {
    JsonSchema,
    /// Gemini `parameters`: an OpenAPI 3.0 Schema subset (upper-case types, `nullable`).
    OpenApi,
}

/// A tool's declared input schema as the log holds it.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaDecl {
    /// Shared by every declaration of the same schema that a thread read recently: datasets
    /// repeat a handful of tool schemas in every record.
    Value(std::sync::Arc<Json>),
    /// A JSON document inside a string (double-encoded).
    Encoded(String),
}

#[derive(Debug, Clone)]
pub struct ToolDef {
    pub name: String,
    pub schema: Option<SchemaDecl>,
    pub dialect: SchemaDialect,
    /// OpenAI `strict: true`: no extra keys, every property required.
    pub strict: bool,
    /// A provider built-in (web search, code execution ...): calls to it are not unknown, and
    /// it has no schema to check.
    pub builtin: bool,
    /// The provider requires the schema root to be an object type.
    pub object_root_required: bool,
    pub loc: Loc,
    /// The schema value (the definition itself when there is none).
    pub schema_loc: Loc,
}

impl Conversation {
    pub fn new(format: Format, loc: Loc, pairing: Pairing) -> Self {
        Conversation {
            format,
            turns: Vec::new(),
            tools: Vec::new(),
            pairing,
            results_first: false,
            results_role: Role::Tool,
            server_history: false,
            resumable: false,
            is_response: false,
            declares_tools: None,
            empty_results: Vec::new(),
            echoed_arguments: Vec::new(),
            loc,
            thinking: None,
            excluded: Vec::new(),
            contested_merges: Vec::new(),
            repaired_pairing: false,
            kept_unpaired: Vec::new(),
            agent_version: None,
            results_copied: false,
            provider: None,
            accepted: false,
            rejection: None,
            one_sided: None,
            shapes: MessageShapes::default(),
            model: None,
            reasoning: ReasoningShapes::default(),
            stored: StoredItems::default(),
            open_calls: None,
            origins: Vec::new(),
        }
    }

    /// Every call with its turn index, in order.
    /// Whether turn `t` is one that some endpoints merge into the turn before it.
    pub fn merge_contested(&self, t: usize) -> bool {
        self.contested_merges.binary_search(&t).is_ok()
    }

    pub fn calls(&self) -> impl Iterator<Item = (usize, &ToolCall)> {
        self.turns.iter().enumerate().flat_map(|(t, turn)| {
            turn.items.iter().filter_map(move |item| match item {
                Item::Call(call) => Some((t, call)),
                _ => None,
            })
        })
    }

    /// Every result with its turn index, in order.
    /// The calls with JSON arguments, which argument rules check: all but free-text ones.
    pub fn json_calls(&self) -> impl Iterator<Item = (usize, &ToolCall)> {
        self.calls().filter(|(_, c)| c.kind != CallKind::FreeText)
    }

    /// The calls the client executes and must answer: all but the provider's own.
    pub fn client_calls(&self) -> impl Iterator<Item = (usize, &ToolCall)> {
        self.calls().filter(|(_, c)| c.is_client())
    }

    pub fn results(&self) -> impl Iterator<Item = (usize, &ToolResult)> {
        self.turns.iter().enumerate().flat_map(|(t, turn)| {
            turn.items.iter().filter_map(move |item| match item {
                Item::Result(result) => Some((t, result)),
                _ => None,
            })
        })
    }

    /// The declared tool named `name` (the conversation's own first, then `extra`).
    pub fn tool<'a>(&'a self, extra: &'a [ToolDef], name: &str) -> Option<&'a ToolDef> {
        self.tools
            .iter()
            .chain(extra.iter())
            .find(|t| t.name == name)
    }

    /// Adds an item to the last turn if it has `role`, otherwise starts a new turn.
    pub fn push(&mut self, role: Role, turn_loc: &Loc, item: Item) {
        match self.turns.last_mut() {
            Some(turn) if turn.role == role => push_item(&mut turn.items, item),
            _ => self.turns.push(Turn {
                role,
                loc: turn_loc.clone(),
                items: vec![item],
            }),
        }
    }

    /// Adds an item to the last turn (started with [`Conversation::start_turn`]).
    pub fn push_to_last(&mut self, item: Item) {
        if let Some(turn) = self.turns.last_mut() {
            push_item(&mut turn.items, item);
        }
    }

    /// Starts a new turn even if the last one has the same role (providers that do not merge).
    pub fn start_turn(&mut self, role: Role, loc: Loc) {
        self.turns.push(Turn {
            role,
            loc,
            // Most turns hold one item: a first push must not reserve room for four.
            items: Vec::with_capacity(1),
        });
    }

    /// Where the conversation ends now: what is read after this is [`Conversation::since`] it.
    pub fn mark(&self) -> Mark {
        Mark {
            turns: self.turns.len(),
            items: self.turns.last().map_or(0, |t| t.items.len()),
            excluded: self.excluded.len(),
        }
    }

    /// What was read after `mark`: the items, the turns started, the locations excluded.
    pub fn since(&self, mark: Mark) -> Since<'_> {
        // The turn that was last at the mark may have grown; every turn after it is new.
        let grown = mark.turns.checked_sub(1);
        let items = self
            .turns
            .iter()
            .enumerate()
            .skip(grown.unwrap_or(0))
            .flat_map(move |(t, turn)| {
                let from = if Some(t) == grown { mark.items } else { 0 };
                turn.items.get(from..).unwrap_or_default()
            });
        Since {
            items: items.collect(),
            turns: self.turns.get(mark.turns..).unwrap_or_default(),
            excluded: self.excluded.get(mark.excluded..).unwrap_or_default(),
        }
    }
}

/// How far a conversation was read, for telling what a later read added
/// ([`Conversation::mark`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    turns: usize,
    items: usize,
    excluded: usize,
}

/// What a conversation read after a [`Mark`].
pub struct Since<'c> {
    pub items: Vec<&'c Item>,
    pub turns: &'c [Turn],
    pub excluded: &'c [Loc],
}

/// Appends to a turn's items, one slot at a time while the turn is small: an item is 200
/// bytes, most turns hold one to three, and a `Vec`'s first growth reserves four (a big
/// document's transcript was a sixth unused room).
fn push_item(items: &mut Vec<Item>, item: Item) {
    if items.len() == items.capacity() && items.len() < 8 {
        items.reserve_exact(1);
    }
    items.push(item);
}

/// What results pair by: the id, or, for an element without one, a key unique to its place
/// (which only a result that adapters link by name and order will share).
pub fn pairing_key(id: Option<&str>, loc: &Loc) -> String {
    match id {
        Some(id) => id.to_string(),
        None => format!("#noid@{}{}", loc.base, loc.pointer),
    }
}

/// Schemas a thread read recently, by their text as written.
type Interned = foldhash::HashMap<Box<str>, std::sync::Arc<Json>>;

thread_local! {
    /// The schemas, and the buffer a schema's key is written into.
    static SCHEMAS: std::cell::RefCell<(Interned, String)> = std::cell::RefCell::default();
}

/// The schema as a shared serde_json value: the one read before when it is written the same.
fn intern_schema(tree: &Tree<'_>) -> std::sync::Arc<Json> {
    // Enough for any real tool set; a corpus of ever-new schemas only starts over.
    const KEEP: usize = 4096;
    if !tree.is_object() {
        return std::sync::Arc::new(tree.to_serde());
    }
    SCHEMAS.with(|cell| {
        let (seen, key) = &mut *cell.borrow_mut();
        key.clear();
        tree.write_compact(key);
        if let Some(hit) = seen.get(key.as_str()) {
            return std::sync::Arc::clone(hit);
        }
        if seen.len() >= KEEP {
            seen.clear();
        }
        let value = std::sync::Arc::new(tree.to_serde());
        seen.insert(key.as_str().into(), std::sync::Arc::clone(&value));
        value
    })
}

impl SchemaDecl {
    /// A declaration as written: a string is a double-encoded schema.
    pub fn from_value(value: &Tree<'_>) -> SchemaDecl {
        match value {
            Tree::String(text) => SchemaDecl::Encoded(text.to_string()),
            other => SchemaDecl::Value(intern_schema(other)),
        }
    }

    /// The schema as a value, decoding one level of string encoding.
    pub fn value(&self) -> Option<std::borrow::Cow<'_, Json>> {
        match self {
            SchemaDecl::Value(v) => Some(std::borrow::Cow::Borrowed(v.as_ref())),
            SchemaDecl::Encoded(text) => {
                serde_json::from_str(text).ok().map(std::borrow::Cow::Owned)
            }
        }
    }
}

impl ToolDef {
    /// A client tool declared with `schema` (JSON Schema) found at `schema_loc`; findings
    /// about a missing schema point at the definition itself. Adapters adjust the dialect,
    /// `strict` and `builtin` with struct-update syntax.
    pub fn declared(name: &str, schema: Option<&Tree<'_>>, loc: Loc, schema_loc: Loc) -> ToolDef {
        ToolDef {
            name: name.to_string(),
            schema: schema.map(SchemaDecl::from_value),
            dialect: SchemaDialect::JsonSchema,
            strict: false,
            builtin: false,
            object_root_required: true,
            schema_loc: if schema.is_some() {
                schema_loc
            } else {
                loc.clone()
            },
            loc,
        }
    }

    /// The parameters a call must pass: the schema's `required`, or every property under
    /// `strict`.
    pub fn required_params(&self) -> Vec<String> {
        let Some(schema) = self.schema.as_ref().and_then(SchemaDecl::value) else {
            return Vec::new();
        };
        let names = |key: &str| -> Vec<String> {
            match schema.get(key) {
                Some(Json::Array(items)) => items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect(),
                Some(Json::Object(map)) if key == "properties" => map.keys().cloned().collect(),
                _ => Vec::new(),
            }
        };
        let required = names("required");
        if required.is_empty() && self.strict {
            names("properties")
        } else {
            required
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_arguments() {
        let enc = |s: &str| Arguments::Encoded(s.into()).parse();
        assert!(matches!(enc(r#"{"a":1}"#), ParsedArgs::Object(_)));
        assert_eq!(enc(""), ParsedArgs::Empty);
        assert_eq!(enc("null"), ParsedArgs::Empty);
        assert!(matches!(
            enc(r#"{"query": "hello wor"#),
            ParsedArgs::Invalid {
                truncated: true,
                ..
            }
        ));
        assert!(matches!(
            enc(r#"{"a": 1,}"#),
            ParsedArgs::Invalid {
                truncated: false,
                ..
            }
        ));
        assert_eq!(
            enc(r#""{\"a\":1}""#),
            ParsedArgs::NotObject(json!("{\"a\":1}"))
        );
        assert_eq!(
            Arguments::value(json!([1])).parse(),
            ParsedArgs::NotObject(json!([1]))
        );
    }

    #[test]
    fn recognises_error_text() {
        assert!(looks_like_error(&crate::tree_json!(
            "Error: missing 'command'"
        )));
        assert!(looks_like_error(&crate::tree_json!({"error": "boom"})));
        assert!(looks_like_error(
            &crate::tree_json!([{"type": "text", "text": "error: no"}])
        ));
        assert!(!looks_like_error(&crate::tree_json!("22 degrees")));
        for failed in [
            "DB Error: no such table: orders",
            "ValueError: bad city",
            "tool_error: timeout",
            "HTTP Error 404: Not Found",
            "DB Error: привет привет привет привет привет привет",
        ] {
            assert!(text_looks_like_error(failed), "{failed}");
        }
        for fine in [
            "No error: the build passed",
            "No Error: the build passed",
            "Tool error count: 0",
            "ééééééééééééééééééééééééééééééééééééééééé Error: x",
            "Found 3 results: a, b, c",
            "The last error: none",
            "user_error_count: 0",
        ] {
            assert!(!text_looks_like_error(fine), "{fine}");
        }
        assert!(!looks_like_error(
            &crate::tree_json!({"errors": 0, "count": 3})
        ));
    }
}
