//! Google Gemini `generateContent` requests (Gemini API and Vertex AI), bare `Content[]`
//! histories (gemini-cli `/chat save` checkpoints, legacy and `{history}` forms), Vertex batch
//! records (`{request: {contents}}`) and saved responses (`candidates[].content`).
//!
//! Shapes: model parts `functionCall {name, args?: O, id?}`; user parts
//! `functionResponse {name, response: O, id?}`, failed when `response` has an `error` key.
//! Older clients send responses in `function`/`tool` turns: they are the user side. The REST
//! API reads proto3 JSON, so every field may be camelCase or snake_case. Every Content is a
//! turn of its own, as Vertex AI takes them: function responses split over consecutive
//! Contents do not answer the function-call turn there ("Please ensure that the number of
//! function response parts is equal to the number of function call parts of the function
//! call turn."), nor over `function` Contents anywhere. The Gemini API has accepted
//! consecutive `user` or `model` Contents as one turn, so those adjacencies are recorded as
//! `contested_merges`, for rules to judge. Results pair with calls by `id` when present;
//! otherwise the k-th id-less response named X in the user-side turns after a model turn
//! answers the k-th open call named X in that model turn.

// foldhash: these maps key on ids and offsets a run compares itself; SipHash's
// flood resistance buys nothing there and costs a few percent of a lint.
use foldhash::{HashMap, HashMapExt, HashSet};

use serde_json::{json, Value as Json};

use super::{array_at, field, str_at, Adapter, CallSite, Dialect, Doc, Format};
use crate::transcript::{
    pairing_key, result_text, Arguments, CallKind, Conversation, Item, Loc, Pairing, ReasoningKind,
    Role, SchemaDialect, Text, ToolCall, ToolDef, ToolResult,
};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain gemini` prints (Markdown).
pub(super) const DOC: &str = r#"`contents` with `functionCall`/`functionResponse` parts, camelCase or snake_case; id-less pairing by name and order; gemini-cli checkpoints"#;

pub struct Gemini;

const FUNCTION_CALL: &[&str] = &["functionCall", "function_call"];
const FUNCTION_RESPONSE: &[&str] = &["functionResponse", "function_response"];
const DECLARATIONS: &[&str] = &["functionDeclarations", "function_declarations"];
const JSON_SCHEMA: &[&str] = &["parametersJsonSchema", "parameters_json_schema"];
const THOUGHT_SIGNATURE: &[&str] = &["thoughtSignature", "thought_signature"];

impl Dialect for Gemini {
    fn interrupted_block(&self, site: &CallSite<'_, '_>, text: &str) -> Option<Json> {
        // Answer in the casing the call was written in.
        let snake = site.element.get("function_call").is_some();
        let mut response = serde_json::Map::new();
        response.insert("name".into(), json!(site.call.name));
        if let Some(id) = &site.call.id {
            response.insert("id".into(), json!(id));
        }
        response.insert("response".into(), json!({"error": text}));
        let key = if snake {
            "function_response"
        } else {
            "functionResponse"
        };
        Some(json!({ key: response }))
    }

    fn result_message(&self, part: Json) -> Option<Json> {
        Some(json!({"role": "user", "parts": [part]}))
    }
}

impl Adapter for Gemini {
    fn format(&self) -> Format {
        Format::Gemini
    }

    fn sniff(&self, doc: &Tree) -> Option<u8> {
        if let Some((_, contents)) = locate_contents(doc) {
            let all_content = !contents.is_empty() && contents.iter().all(is_content);
            return match (all_content, doc.is_array()) {
                (true, false) => Some(90),
                (true, true) => Some(85),
                // `{contents: []}` with Gemini tools or config is still a request.
                (false, false) if contents.is_empty() && has_gemini_config(doc) => Some(50),
                (false, false) if contents.is_empty() => Some(5),
                _ => None,
            };
        }
        let candidates = array_at(doc, "candidates")?;
        candidates
            .iter()
            .any(|c| c.get("content").is_some_and(is_content))
            .then_some(80)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let mut out = Vec::new();
        for doc in docs {
            out.extend(normalise_doc(doc)?);
        }
        Ok(out)
    }
}

/// A Content object: `parts` array, with an optional string `role`.
fn is_content(value: &Tree) -> bool {
    array_at(value, "parts").is_some()
        && value
            .get("role")
            .is_none_or(|r| r.is_string() || r.is_null())
}

fn has_gemini_config(doc: &Tree) -> bool {
    field(doc, &["systemInstruction", "system_instruction"]).is_some()
        || field(doc, &["toolConfig", "tool_config"]).is_some()
        || field(doc, &["generationConfig", "generation_config"]).is_some()
        || array_at(doc, "tools")
            .is_some_and(|t| t.iter().any(|t| field(t, DECLARATIONS).is_some()))
}

/// Where the `Content[]` history is: `contents`, a checkpoint's `history`, a Vertex batch
/// record's `request.contents`, or a bare array. Returns the pointer prefix of its container.
fn locate_contents<'a>(doc: &'a Tree<'a>) -> Option<(&'static str, &'a Vec<Tree<'a>>)> {
    if let Some(contents) = array_at(doc, "contents") {
        return Some(("", contents));
    }
    if let Some(history) = array_at(doc, "history") {
        return history.iter().all(is_content).then_some(("", history));
    }
    if let Some(contents) = doc.get("request").and_then(|r| array_at(r, "contents")) {
        return Some(("/request", contents));
    }
    doc.as_array().map(|a| ("", a))
}

fn normalise_doc(doc: &Doc<'_>) -> Result<Vec<Conversation>, String> {
    if let Some((prefix, contents)) = locate_contents(doc.value) {
        let root = Loc::new(doc.base, prefix);
        let contents_loc = if doc.value.is_array() {
            root.clone()
        } else if doc.value.get("contents").is_some() || !prefix.is_empty() {
            root.child("contents")
        } else {
            root.child("history")
        };
        let mut conv = Conversation::new(Format::Gemini, root.clone(), Pairing::NextTurn);
        conv.results_role = Role::User;
        if !doc.value.is_array() {
            let container = if prefix.is_empty() {
                doc.value
            } else {
                doc.value.get(&prefix[1..]).unwrap_or(doc.value)
            };
            read_tools(container, &root, &mut conv);
            conv.model = str_at(container, "model").map(str::to_string);
        }
        conv.reasoning.kind = Some(ReasoningKind::ThoughtSignature);
        let mut previous = None;
        for (i, content) in contents.iter().enumerate() {
            push_content(&mut conv, content, &contents_loc.child(i))?;
            let merges = merging_role(content);
            if merges.is_some() && merges == previous {
                conv.contested_merges
                    .push(conv.turns.len().saturating_sub(1));
            }
            previous = merges;
        }
        pair_idless(&mut conv);
        conv.results_copied = repeats_are_copies(contents);
        return Ok(vec![conv]);
    }
    // A saved response: each candidate is one alternative model turn.
    let candidates = array_at(doc.value, "candidates")
        .ok_or("expected `contents` (an array of {role, parts}), a bare array of Content objects, or `candidates`")?;
    let root = Loc::new(doc.base, "");
    let mut out = Vec::new();
    for (c, candidate) in candidates.iter().enumerate() {
        let Some(content) = candidate.get("content") else {
            continue;
        };
        let loc = root.child(("candidates", c));
        let mut conv = Conversation::new(Format::Gemini, loc.clone(), Pairing::NextTurn);
        conv.results_role = Role::User;
        conv.is_response = true;
        push_content(&mut conv, content, &loc.child("content"))?;
        pair_idless(&mut conv);
        out.push(conv);
    }
    Ok(out)
}

/// Whether some response id is answered more than once and every repeat is the same
/// `functionResponse` as the first, field for field (Gemini CLI's resume replays each
/// response twice): removing the repeats then loses nothing.
fn repeats_are_copies(contents: &[Tree]) -> bool {
    let responses = || {
        contents
            .iter()
            .flat_map(|content| array_at(content, "parts").map_or(&[][..], Vec::as_slice))
            .filter_map(|part| object_field(part, FUNCTION_RESPONSE).map(|(_, r)| r))
            .filter_map(|r| str_at(r, "id").map(|id| (id, r)))
    };
    // Ids first, cheaply: the text of a response is compared only when its id repeats.
    let mut seen = HashSet::default();
    let repeated: HashSet<&str> =
        responses().filter(|(id, _)| !seen.insert(*id)).map(|(id, _)| id).collect();
    if repeated.is_empty() {
        return false;
    }
    let mut first: HashMap<&str, String> = HashMap::new();
    for (id, response) in responses().filter(|(id, _)| repeated.contains(id)) {
        let mut text = String::new();
        response.write_compact(&mut text);
        match first.get(id) {
            None => {
                first.insert(id, text);
            }
            Some(earlier) if *earlier == text => {}
            Some(_) => return false,
        }
    }
    true
}

/// The role under which the Gemini API may merge a Content with a neighbour of the same
/// role: `user` (or none) and `model`. Recorded traffic shows it answering three parallel
/// calls from three consecutive `user` Contents (gemini-2.5-flash, 2026-02 and 2026-06) and
/// taking two consecutive `model` Contents as one call turn (gemini-3-flash-preview), while
/// Vertex AI rejected split `user` Contents (2026-06, 2026-08). Responses split over `function`
/// Contents were rejected (gemini-2.0-flash, 2025-06): those are never merged. Sources in
/// `docs/provider-errors.md`; which rules care is theirs to say.
fn merging_role(content: &Tree) -> Option<&'static str> {
    match content.get("role") {
        None | Some(Tree::Null) => Some("user"),
        Some(Tree::String(r)) if r == "user" => Some("user"),
        Some(Tree::String(r)) if r == "model" => Some("model"),
        _ => None,
    }
}

fn push_content(conv: &mut Conversation, content: &Tree, cloc: &Loc) -> Result<(), String> {
    let role = match content.get("role") {
        Some(Tree::String(r)) if r == "model" => Role::Assistant,
        // `function` and `tool` turns (older clients) hold responses: the user side.
        Some(Tree::String(r)) if matches!(r.as_str(), "user" | "function" | "tool") => Role::User,
        None | Some(Tree::Null) => Role::User,
        Some(Tree::String(other)) => {
            return Err(format!("unexpected role \"{other}\" at {}", cloc.pointer))
        }
        Some(_) => return Err(format!("`role` is not a string at {}", cloc.pointer)),
    };
    let parts = array_at(content, "parts").map_or(&[][..], Vec::as_slice);
    // Each Content is a turn of its own, even next to one of the same role.
    conv.start_turn(role, cloc.clone());
    for (j, part) in parts.iter().enumerate() {
        let loc = cloc.child(("parts", j));
        let item = part_item(part, loc, cloc);
        // The signature is the part's, beside `functionCall` (a sentinel such as
        // `skip_thought_signature_validator` counts: the provider accepts it).
        if let Item::Call(call) = &item {
            if object_field(part, THOUGHT_SIGNATURE).is_some() {
                conv.reasoning.carried.push(call.loc.clone());
            }
        }
        conv.push_to_last(item);
    }
    Ok(())
}

pub(crate) fn part_item(part: &Tree, loc: Loc, cloc: &Loc) -> Item {
    if let Some((key, call)) = object_field(part, FUNCTION_CALL) {
        let body = loc.child(key);
        return Item::Call(function_call(call, loc, body, cloc));
    }
    if let Some((_, response)) = object_field(part, FUNCTION_RESPONSE) {
        return Item::Result(function_response(response, loc, cloc));
    }
    // text, thought, inlineData, executableCode, codeExecutionResult ...
    Item::Text(Text {
        loc,
        message: cloc.clone(),
    })
}

/// The first spelling of a field whose value is not null (SDK dumps write every unset field
/// as `null`).
pub(crate) fn object_field<'a>(
    value: &'a Tree,
    names: &[&'static str],
) -> Option<(&'static str, &'a Tree<'a>)> {
    names
        .iter()
        .find_map(|&name| value.get(name).filter(|v| !v.is_null()).map(|v| (name, v)))
}

/// A `FunctionCall {name, args?, id?}` at `body` (the part holding it at `loc`).
pub(crate) fn function_call(call: &Tree, loc: Loc, body: Loc, message: &Loc) -> ToolCall {
    let id = str_at(call, "id").map(str::to_string);
    let (arguments, args_loc) = match call.get("args") {
        // `args` is optional: a call without it passes no arguments.
        None => (Arguments::value(json!({})), body.clone()),
        Some(args) => (Arguments::value(args.to_serde()), body.child("args")),
    };
    ToolCall {
        key: pairing_key(id.as_deref(), &loc),
        id,
        name: str_at(call, "name").unwrap_or_default().to_string(),
        kind: CallKind::Function,
        arguments,
        args_loc,
        loc,
        message: message.clone(),
    }
}

/// A `FunctionResponse {name, response, id?}` at `loc`, failed when `response` has an
/// `error`. Id-less responses get their key in [`pair_idless`].
pub(crate) fn function_response(response: &Tree, loc: Loc, message: &Loc) -> ToolResult {
    let call_id = str_at(response, "id").map(str::to_string);
    let body = response.get("response").unwrap_or(&Tree::Null);
    let error = body.get("error").filter(|e| !e.is_null());
    ToolResult {
        key: call_id.clone().unwrap_or_else(|| pairing_key(None, &loc)),
        call_id,
        name: str_at(response, "name").map(str::to_string),
        is_error: error.is_some(),
        text: result_text(error.unwrap_or(body)),
        provider_executed: false,
        id_field: None,
        loc,
        message: message.clone(),
    }
}

/// Gives id-less responses the key of the call they answer: the k-th id-less response named
/// X in the user-side turns after a model turn (up to the next model turn) meets the k-th
/// call named X in that model turn, among the calls no response there answers by id; where
/// those responses sit is for the rules to judge. Responses with no such call keep a key that
/// matches nothing.
pub(crate) fn pair_idless(conv: &mut Conversation) {
    let mut t = 1;
    while t < conv.turns.len() {
        if conv.turns[t].role != Role::User || conv.turns[t - 1].role != Role::Assistant {
            t += 1;
            continue;
        }
        let end = conv.turns[t..]
            .iter()
            .position(|turn| turn.role != Role::User)
            .map_or(conv.turns.len(), |n| t + n);
        // The call turn, with the `model` Contents the Gemini API may merge into it.
        let mut start = t - 1;
        while start > 0
            && conv.merge_contested(start)
            && conv.turns[start - 1].role == Role::Assistant
        {
            start -= 1;
        }
        let (before, after) = conv.turns.split_at_mut(t);
        let calls_turns = &before[start..];
        let results_turns = &mut after[..end - t];
        let claimed: HashSet<String> = results_turns
            .iter()
            .flat_map(|turn| turn.items.iter())
            .filter_map(|item| match item {
                Item::Result(r) => r.call_id.clone(),
                _ => None,
            })
            .collect();
        let mut open: HashMap<&str, Vec<&str>> = HashMap::new();
        for item in calls_turns.iter().flat_map(|turn| turn.items.iter()) {
            if let Item::Call(call) = item {
                if call.id.as_deref().is_none_or(|id| !claimed.contains(id)) {
                    open.entry(call.name.as_str())
                        .or_default()
                        .push(call.key.as_str());
                }
            }
        }
        let mut seen: HashMap<String, usize> = HashMap::new();
        for item in results_turns
            .iter_mut()
            .flat_map(|turn| turn.items.iter_mut())
        {
            let Item::Result(result) = item else {
                continue;
            };
            if result.call_id.is_some() {
                continue;
            }
            let name = result.name.clone().unwrap_or_default();
            let k = seen.entry(name.clone()).or_insert(0);
            if let Some(key) = open.get(name.as_str()).and_then(|keys| keys.get(*k)) {
                result.key = (*key).to_string();
            }
            *k += 1;
        }
        t = end;
    }
}

/// Reads `tools[].functionDeclarations[]` (also under the SDKs' `config`). Entries without
/// declarations (`googleSearch`, `codeExecution`, ...) declare no named function.
fn read_tools(container: &Tree, root: &Loc, conv: &mut Conversation) {
    match array_at(container, "tools") {
        Some(tools) => read_tool_list(tools, &root.child("tools"), conv),
        None => {
            if let Some(tools) = container.get("config").and_then(|c| array_at(c, "tools")) {
                read_tool_list(tools, &root.child(("config", "tools")), conv);
            }
        }
    }
}

/// Reads a `Tool[]` list at `tools_loc`: each entry's `functionDeclarations[]`.
pub(crate) fn read_tool_list(tools: &[Tree], tools_loc: &Loc, conv: &mut Conversation) {
    for (k, tool) in tools.iter().enumerate() {
        let Some((decl_key, Tree::Array(decls))) = field(tool, DECLARATIONS) else {
            continue;
        };
        for (d, decl) in decls.iter().enumerate() {
            let Some(name) = str_at(decl, "name") else {
                continue;
            };
            let loc = tools_loc.child((k, decl_key)).child(d);
            let (schema, dialect, schema_loc) = match field(decl, JSON_SCHEMA) {
                Some((key, schema)) => (Some(schema), SchemaDialect::JsonSchema, loc.child(key)),
                None => match decl.get("parameters") {
                    Some(schema) => (
                        Some(schema),
                        SchemaDialect::OpenApi,
                        loc.child("parameters"),
                    ),
                    None => (None, SchemaDialect::OpenApi, loc.clone()),
                },
            };
            conv.tools.push(ToolDef {
                dialect,
                ..ToolDef::declared(name, schema, loc, schema_loc)
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::detect;
    use crate::lint::lint_str;
    use crate::tree_json;

    fn codes(text: &str) -> Vec<String> {
        lint_str("x.json", text).codes()
    }

    fn detected(text: &str) -> Option<Format> {
        let value: Tree = crate::tree::parse(text).ok()?.value;
        detect(&value).map(|a| a.format())
    }

    fn conversations(value: Tree) -> Vec<Conversation> {
        Gemini
            .normalise(&[Doc {
                base: 0,
                value: &value,
            }])
            .unwrap_or_default()
    }

    const CLEAN_REQUEST: &str = include_str!("../../../../fixtures/gemini/clean-request.json");
    const CLEAN_CHECKPOINT: &str = include_str!("../../../../fixtures/gemini/clean-chat-checkpoint.json");
    const CLEAN_SNAKE: &str = include_str!("../../../../fixtures/gemini/clean-snake-case.json");
    const BROKEN_PAIRING: &str = include_str!("../../../../fixtures/gemini/broken-pairing.json");
    const BROKEN_ARGUMENTS: &str = include_str!("../../../../fixtures/gemini/broken-arguments.json");

    #[test]
    fn repeated_responses_are_copies_only_when_every_repeat_is_the_same() {
        let request = |second: &str| {
            format!(
                r#"{{"contents": [
                {{"role": "model", "parts": [{{"functionCall": {{"id": "c1", "name": "f", "args": {{}}}}}}]}},
                {{"role": "user", "parts": [
                  {{"functionResponse": {{"id": "c1", "name": "f", "response": {{"out": "A"}}}}}},
                  {{"functionResponse": {{"id": "c1", "name": "f", "response": {second}}}}}]}}]}}"#
            )
        };
        let copied = |text: &str| {
            let Ok(parsed) = crate::tree::parse(text) else {
                return false;
            };
            conversations(parsed.value)
                .first()
                .is_some_and(|c| c.results_copied)
        };
        assert!(copied(&request(r#"{"out": "A"}"#)));
        assert!(!copied(&request(r#"{"out": "B"}"#)));
        assert!(!copied(CLEAN_REQUEST));
    }

    #[test]
    fn fixtures_are_detected_as_gemini() {
        for text in [
            CLEAN_REQUEST,
            CLEAN_CHECKPOINT,
            CLEAN_SNAKE,
            BROKEN_PAIRING,
            BROKEN_ARGUMENTS,
        ] {
            assert_eq!(detected(text), Some(Format::Gemini));
        }
    }

    #[test]
    fn clean_fixtures_have_no_findings() {
        assert_eq!(codes(CLEAN_REQUEST), Vec::<String>::new());
        assert_eq!(codes(CLEAN_CHECKPOINT), Vec::<String>::new());
        assert_eq!(codes(CLEAN_SNAKE), Vec::<String>::new());
    }

    #[test]
    fn broken_pairing() {
        assert_eq!(
            codes(BROKEN_PAIRING),
            [
                "TC101@9:9",
                "TC104@32:9",
                "TC105@95:9",
                "TC102@109:9",
                "TC103@162:9",
                "TC101@171:9"
            ]
        );
    }

    #[test]
    fn broken_arguments() {
        assert_eq!(
            codes(BROKEN_ARGUMENTS),
            [
                "TC203@18:21",
                "TC203@25:21",
                "TC202@32:21",
                "TC202@36:27",
                "TC401@41:9",
                "TC202@45:21"
            ]
        );
    }

    #[test]
    fn detects_bare_arrays_batch_records_and_responses() {
        let bare = r#"[
            {"role": "user", "parts": [{"text": "ls"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "list_directory", "args": {"path": "."}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "list_directory", "response": {"output": "src"}}}]}
        ]"#;
        assert_eq!(detected(bare), Some(Format::Gemini));
        assert_eq!(codes(bare), Vec::<String>::new());

        let batch = r#"{"request": {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}}"#;
        assert_eq!(detected(batch), Some(Format::Gemini));
        let convs = conversations(
            crate::tree::parse(batch)
                .map(|t| t.value)
                .unwrap_or_default(),
        );
        assert_eq!(convs[0].turns[0].loc.pointer, "/request/contents/0");

        let response = r#"{
            "candidates": [{"content": {"role": "model", "parts": [
                {"functionCall": {"name": "get_time", "args": {"tz": "UTC"}}}
            ]}, "finishReason": "STOP"}],
            "usageMetadata": {"totalTokenCount": 12}
        }"#;
        assert_eq!(detected(response), Some(Format::Gemini));
        assert_eq!(codes(response), Vec::<String>::new());

        // Other formats' files stay theirs.
        let openai = r#"{"messages": [{"role": "user", "content": "hi"}]}"#;
        assert_eq!(detected(openai), Some(Format::OpenAiChat));
        let history = r#"{"history": [{"role": "user", "content": "hi"}]}"#;
        assert_eq!(detected(history), None);
    }

    #[test]
    fn idless_responses_pair_by_name_and_order() {
        // Answered out of order across names, in order within a name.
        let ok = r#"{"contents": [{"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [
                {"functionCall": {"name": "read", "args": {"p": "a"}}},
                {"functionCall": {"name": "read", "args": {"p": "b"}}},
                {"functionCall": {"name": "stat", "args": {"p": "a"}}}
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "stat", "response": {"size": 1}}},
                {"functionResponse": {"name": "read", "response": {"text": "A"}}},
                {"functionResponse": {"name": "read", "response": {"text": "B"}}}
            ]}
        ]}"#;
        assert_eq!(codes(ok), Vec::<String>::new());
        let convs = conversations(crate::tree::parse(ok).map(|t| t.value).unwrap_or_default());
        let keys: Vec<&str> = convs[0].results().map(|(_, r)| r.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "#noid@0/contents/1/parts/2",
                "#noid@0/contents/1/parts/0",
                "#noid@0/contents/1/parts/1"
            ]
        );

        // A third `read` response has no third call: orphan. So has a response to a call
        // made two turns earlier, and one with no model turn before it.
        let bad = r#"{"contents": [
            {"role": "user", "parts": [{"functionResponse": {"name": "read", "response": {}}}]},
            {"role": "model", "parts": [{"functionCall": {"name": "read", "args": {"p": "a"}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "read", "response": {"text": "A"}}},
                {"functionResponse": {"name": "read", "response": {"text": "A"}}}
            ]}
        ]}"#;
        assert_eq!(codes(bad), ["TC101@2:40", "TC101@6:17"]);
    }

    #[test]
    fn idless_response_answers_a_call_with_an_id() {
        let text = r#"{"contents": [{"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [
                {"functionCall": {"id": "0usajhl5", "name": "read", "args": {"p": "a"}}},
                {"functionCall": {"id": "lx8q24je", "name": "read", "args": {"p": "b"}}}
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"id": "0usajhl5", "name": "read", "response": {"text": "A"}}},
                {"functionResponse": {"name": "read", "response": {"text": "B"}}}
            ]}
        ]}"#;
        assert_eq!(codes(text), Vec::<String>::new());
    }

    #[test]
    fn every_content_is_a_turn_and_function_roles_are_the_user_side() {
        // Gemini merges nothing: the second call turn follows a model turn, and responses
        // behind a user text turn do not answer the call turn.
        let text = r#"[{"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [{"function_call": {"name": "a", "args": {}}}]},
            {"role": "model", "parts": [{"function_call": {"name": "b", "args": {}}}]},
            {"role": "user", "parts": [{"text": "results:"}]},
            {"role": "function", "parts": [{"function_response": {"name": "b", "response": {}}}]},
            {"role": "model", "parts": [{"text": "done"}]}
        ]"#;
        assert_eq!(codes(text), ["TC102@2:41", "TC504@3:13", "TC103@5:44"]);
        let convs = conversations(
            crate::tree::parse(text)
                .map(|t| t.value)
                .unwrap_or_default(),
        );
        let roles: Vec<Role> = convs[0].turns.iter().map(|t| t.role).collect();
        use Role::{Assistant, User};
        assert_eq!(roles, [User, Assistant, Assistant, User, User, Assistant]);
        // Only the second of two `model` Contents is one the Gemini API may merge; a
        // `function` Content after a `user` one is never merged.
        assert_eq!(convs[0].contested_merges, [2]);
    }

    #[test]
    fn responses_split_over_contents_pair_but_do_not_answer_the_turn() {
        // Id-less responses in the Contents after a model turn pair by name and order; the
        // second one sits in a turn of its own: one result-count-mismatch, no misplaced result.
        let text = r#"{"contents": [{"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [
                {"functionCall": {"name": "read", "args": {"p": "a"}}},
                {"functionCall": {"name": "read", "args": {"p": "b"}}}
            ]},
            {"role": "user", "parts": [{"functionResponse": {"name": "read", "response": {"text": "A"}}}]},
            {"role": "tool", "parts": [{"functionResponse": {"name": "read", "response": {"text": "B"}}}]}
        ]}"#;
        assert_eq!(codes(text), ["TC503@2:13"]);
        let convs = conversations(
            crate::tree::parse(text)
                .map(|t| t.value)
                .unwrap_or_default(),
        );
        let keys: Vec<&str> = convs[0].results().map(|(_, r)| r.key.as_str()).collect();
        assert_eq!(
            keys,
            ["#noid@0/contents/1/parts/0", "#noid@0/contents/1/parts/1"]
        );
    }

    #[test]
    fn reads_calls_results_and_errors() {
        let convs = conversations(tree_json!({"contents": [
            {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "f"}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"id": "c1", "name": "f", "response": {"error": "Permission denied"}}}
            ]}
        ]}));
        let (_, call) = convs[0].calls().next().expect("one call");
        assert_eq!(call.arguments, Arguments::value(serde_json::json!({})));
        assert_eq!(call.args_loc.pointer, "/contents/0/parts/0/functionCall");
        assert_eq!(call.loc.pointer, "/contents/0/parts/0");
        let (_, result) = convs[0].results().next().expect("one result");
        assert!(result.is_error);
        assert_eq!(result.text, "Permission denied");
        assert_eq!(result.call_id.as_deref(), Some("c1"));

        let bad_role = tree_json!({"contents": [{"role": "system", "parts": [{"text": "x"}]}]});
        let value = &bad_role;
        assert!(Gemini.normalise(&[Doc { base: 0, value }]).is_err());
    }

    #[test]
    fn reads_declarations_in_both_casings() {
        let convs = conversations(tree_json!({
            "contents": [],
            "tools": [
                {"functionDeclarations": [
                    {"name": "a", "parameters": {"type": "OBJECT"}},
                    {"name": "b", "parametersJsonSchema": {"type": "object"}},
                    {"name": "c"}
                ]},
                {"function_declarations": [{"name": "d", "parameters_json_schema": {"type": "object"}}]},
                {"googleSearch": {}},
                {"codeExecution": {}}
            ]
        }));
        let tools: Vec<(&str, SchemaDialect, &str)> = convs[0]
            .tools
            .iter()
            .map(|t| (t.name.as_str(), t.dialect, t.schema_loc.pointer.as_str()))
            .collect();
        assert_eq!(
            tools,
            [
                (
                    "a",
                    SchemaDialect::OpenApi,
                    "/tools/0/functionDeclarations/0/parameters"
                ),
                (
                    "b",
                    SchemaDialect::JsonSchema,
                    "/tools/0/functionDeclarations/1/parametersJsonSchema"
                ),
                (
                    "c",
                    SchemaDialect::OpenApi,
                    "/tools/0/functionDeclarations/2"
                ),
                (
                    "d",
                    SchemaDialect::JsonSchema,
                    "/tools/1/function_declarations/0/parameters_json_schema"
                ),
            ]
        );
    }
}
