//! Shape helpers the adapters share: fields under their several spellings, message content.

use crate::tree::Value as Tree;

/// `value[key]` as a string.
pub(crate) fn str_at<'a>(value: &'a Tree, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Tree::as_str)
}

/// `value[key]` as a string that outlives the tree (borrowed from the text it was read from
/// where it holds no escapes).
pub(crate) fn text_at<'t>(value: &Tree<'t>, key: &str) -> Option<std::borrow::Cow<'t, str>> {
    match value.get(key) {
        Some(Tree::String(s)) => Some(s.text()),
        _ => None,
    }
}

/// `value[key]` as an array.
pub(crate) fn array_at<'a>(value: &'a Tree, key: &str) -> Option<&'a Vec<Tree<'a>>> {
    value.get(key).and_then(Tree::as_array)
}

/// The first of several spellings of a field that is present (camelCase and snake_case).
pub(crate) fn field<'a>(
    value: &'a Tree,
    names: &[&'static str],
) -> Option<(&'static str, &'a Tree<'a>)> {
    names
        .iter()
        .find_map(|&name| value.get(name).map(|v| (name, v)))
}

/// Whether every element of `items` (and at least one) is an object with a string `role`.
pub(crate) fn all_have_role(items: &[Tree]) -> bool {
    !items.is_empty() && items.iter().all(|m| str_at(m, "role").is_some())
}

/// Whether every element of `items` (and at least one) has one of `roles` as its `role`: a
/// sniff's test of a format's roles, in one pass that stops at the first other.
pub(crate) fn all_roles_among(items: &[Tree], roles: &[&str]) -> bool {
    !items.is_empty()
        && items
            .iter()
            .all(|m| str_at(m, "role").is_some_and(|role| roles.contains(&role)))
}

/// The content blocks of a message: its `content` array, or nothing for string content.
pub(crate) fn blocks<'a>(message: &'a Tree<'a>) -> &'a [Tree<'a>] {
    array_at(message, "content").map_or(&[], Vec::as_slice)
}

/// Whether message content holds anything: a non-blank string or a non-empty part list.
pub(crate) fn has_text(content: Option<&Tree>) -> bool {
    match content {
        Some(Tree::String(s)) => !s.is_blank(),
        Some(Tree::Array(parts)) => !parts.is_empty(),
        _ => false,
    }
}

/// `records` as the documents of one session, for adapter tests: bases only tell records
/// apart.
#[cfg(test)]
pub(crate) fn session_docs<'a>(records: &'a [Tree<'a>]) -> Vec<crate::json::Doc<'a>> {
    records
        .iter()
        .enumerate()
        .map(|(base, value)| crate::json::Doc { base, value })
        .collect()
}

/// The one conversation `adapter` reads from `records` as a session, for adapter tests.
#[cfg(test)]
pub(crate) fn one_conversation(
    adapter: &dyn super::Adapter,
    records: &[Tree<'_>],
) -> crate::transcript::Conversation {
    let docs = session_docs(records);
    let mut read = adapter.normalise(&docs).expect("a session of the format");
    assert_eq!(read.len(), 1, "one conversation");
    read.pop().expect("one conversation")
}

/// The tool outputs the OpenAI Agents SDK writes in place of a failed tool's result, which
/// carries no error flag: `default_tool_error_function` in openai-agents-python
/// `src/agents/tool.py` (and its openai-agents-js twin) returns "An error occurred while
/// running the tool. Please try again." (with ` Error: <exception>` in later releases), or
/// "An error occurred while parsing tool arguments. ..." for arguments that are not JSON.
pub(crate) const AGENTS_SDK_FAILURES: &[&str] = &[
    "An error occurred while running the tool",
    "An error occurred while parsing tool arguments",
];

/// Whether a result's text opens with one of a framework's failure texts.
pub(crate) fn opens_with_any(text: &str, failures: &[&str]) -> bool {
    let text = text.trim_start();
    failures.iter().any(|f| text.starts_with(f))
}
