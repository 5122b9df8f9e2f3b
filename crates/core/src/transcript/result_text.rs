//! What adapters read from a tool result: its text, bounded, and whether it reads as a
//! failure where the format has no error flag.

use crate::tree::Value as Tree;

/// [`super::ToolResult::text`] for a result whose failure is decided: its text if it failed
/// or is a placeholder ([`crate::placeholder`]), else nothing. A big document's results would
/// otherwise each keep a few hundred bytes that no rule reads (a tenth of what an OpenAI
/// document of tool calls holds while it is read).
pub fn failed_text(is_error: bool, text: impl FnOnce() -> String) -> String {
    let text = text();
    // A placeholder is kept though the result did not fail: agents insert "aborted" or "No
    // result provided" for results never recorded, without an error flag.
    if is_error || crate::placeholder::inserted_by(&text).is_some() {
        text
    } else {
        String::new()
    }
}

/// Text of a result for error comparison: trimmed and bounded.
pub fn result_text(value: &Tree<'_>) -> String {
    const MAX: usize = 400;
    // The first `MAX` bytes of `text`, cut at a character boundary: a long output is never
    // copied whole only to be cut.
    let head = |text: &str| -> String {
        let cut = crate::source::floor_char_boundary(text, MAX);
        text.get(..cut).unwrap_or_default().to_string()
    };
    let mut text = match value {
        Tree::String(s) => {
            // Long outputs are decoded only as far as the text kept.
            let prefix = s.prefix(MAX);
            match prefix.trim_start() {
                t if t.len() >= MAX => head(t),
                _ => head(s.trim()),
            }
        }
        Tree::Array(parts) => parts
            .iter()
            .filter_map(|p| {
                p.get("text")
                    .or_else(|| p.get("value"))
                    .and_then(Tree::as_str)
                    .or_else(|| p.as_str())
            })
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_string(),
        Tree::Null => String::new(),
        other => other.to_string(),
    };
    text.truncate(crate::source::floor_char_boundary(&text, MAX));
    text
}

/// For formats with no error flag: content that is an error object or starts with
/// `Error`/`error:`.
pub fn looks_like_error(value: &Tree<'_>) -> bool {
    match value {
        Tree::Object(map) => {
            map.contains_key("error") && map.len() <= 3
                || map.get("is_error").and_then(Tree::as_bool) == Some(true)
                || map.get("isError").and_then(Tree::as_bool) == Some(true)
        }
        Tree::String(s) => {
            // The first few characters decide, except for an object.
            let head = s.prefix(64);
            let start = head.trim_start();
            if start.starts_with('{') || start.len() < 8 {
                text_looks_like_error(s)
            } else {
                text_looks_like_error(start)
            }
        }
        Tree::Array(parts) => parts
            .first()
            .is_some_and(|p| looks_like_error(p.get("text").unwrap_or(p))),
        _ => false,
    }
}

pub fn text_looks_like_error(s: &str) -> bool {
    let s = s.trim_start();
    if s.starts_with("Error") || s.starts_with("error:") || s.starts_with("ERROR") {
        return true;
    }
    if labelled_error(s) {
        return true;
    }
    // A JSON-encoded error object inside a string.
    s.starts_with('{')
        && crate::tree::parse(s).is_ok_and(|t| t.value.is_object() && looks_like_error(&t.value))
}

/// An `Error:`-style label opening the text, as tools and frameworks prefix their failures:
/// one word ending in `Error` (`ValueError: ...`, `tool_error: ...`), or a few words whose
/// last is `Error`/`ERROR` (`DB Error: ...`, `HTTP Error 404: ...`). The label is at most 40
/// characters of letters, digits, spaces, `_`, `.` and `-`, and does not open with a
/// negation, so `No Error: ...` or a sentence that mentions an error later is not one.
fn labelled_error(s: &str) -> bool {
    let end = crate::source::floor_char_boundary(s, 48);
    let Some(colon) = s.get(..end).and_then(|head| head.find(':')) else {
        return false;
    };
    let Some(label) = s.get(..colon) else {
        return false;
    };
    let plain = label
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '_' | '.' | '-'));
    if label.len() > 40 || !plain {
        return false;
    }
    // `HTTP Error 404`: a status code may follow the word.
    let named = label
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .trim_end();
    let first = named.split(' ').next().unwrap_or_default();
    if !named.contains(' ') {
        return named.ends_with("Error") || named.ends_with("error");
    }
    !matches!(first, "No" | "no" | "Zero" | "zero" | "Without" | "without")
        && (named.ends_with(" Error") || named.ends_with(" ERROR"))
}
