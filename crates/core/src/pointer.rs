//! RFC 6901 JSON pointers into the original text: building them ([`Token`], [`push_token`],
//! `ptr!`), escaping tokens, and resolving a pointer to the byte range of its value
//! ([`locate`], [`element_spans`]) by scanning the text rather than
//! parsing it again. Scans are memoised while a span cache is installed for the text
//! ([`crate::source::with_span_cache`]).

use crate::source::{container_end, span_cache, string_end as skip_string};

/// Escapes one reference token for an RFC 6901 pointer.
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Builds a JSON pointer from its parts.
#[macro_export]
macro_rules! ptr {
    ($base:expr $(, $part:expr)* $(,)?) => {{
        let mut p: String = String::from($base);
        $(
            $crate::pointer::push_token(&mut p, &$part);
        )*
        p
    }};
}

/// Appends `/` and `token`, escaped, to a pointer: written in place, since every node of
/// every transcript gets a pointer.
pub fn push_token(pointer: &mut String, token: &(impl Token + ?Sized)) {
    pointer.push('/');
    token.push_to(pointer);
}

/// A JSON pointer token: an object key or an array index.
pub trait Token {
    /// Appends the token, escaped.
    fn push_to(&self, pointer: &mut String);

    /// The token's length unescaped: what a pointer needs for it, but for escapes.
    fn len_hint(&self) -> usize;
}

impl Token for str {
    fn len_hint(&self) -> usize {
        self.len()
    }

    fn push_to(&self, pointer: &mut String) {
        // Bytes, not chars: a char pattern decodes the UTF-8 of every key of every pointer.
        if self.bytes().any(|b| b == b'~' || b == b'/') {
            pointer.push_str(&escape_token(self));
        } else {
            pointer.push_str(self);
        }
    }
}

impl Token for String {
    fn len_hint(&self) -> usize {
        self.len()
    }

    fn push_to(&self, pointer: &mut String) {
        self.as_str().push_to(pointer);
    }
}

impl Token for usize {
    fn len_hint(&self) -> usize {
        self.checked_ilog10()
            .map_or(1, |digits| digits as usize + 1)
    }

    fn push_to(&self, pointer: &mut String) {
        // Digits without the formatting machinery: indexes are most of a transcript's tokens.
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut n = *self;
        loop {
            at -= 1;
            if let Some(d) = digits.get_mut(at) {
                *d = b'0' + (n % 10) as u8;
            }
            n /= 10;
            if n == 0 || at == 0 {
                break;
            }
        }
        let text = digits.get(at..).unwrap_or_default();
        pointer.push_str(std::str::from_utf8(text).unwrap_or_default());
    }
}

impl<T: Token + ?Sized> Token for &T {
    fn len_hint(&self) -> usize {
        (**self).len_hint()
    }

    fn push_to(&self, pointer: &mut String) {
        (**self).push_to(pointer);
    }
}

/// Two tokens, a child's child: `loc.child(("tool_calls", j))` builds the one pointer where
/// `loc.child("tool_calls").child(j)` built and dropped the one between.
impl<A: Token, B: Token> Token for (A, B) {
    fn len_hint(&self) -> usize {
        self.0.len_hint() + 1 + self.1.len_hint()
    }

    fn push_to(&self, pointer: &mut String) {
        self.0.push_to(pointer);
        push_token(pointer, &self.1);
    }
}

/// Finds the byte range of the value at `pointer` inside the JSON document that starts at
/// byte `base` of `text`. Returns `None` if the pointer does not resolve.
pub fn locate(text: &str, base: usize, pointer: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut pos = skip_ws(bytes, base);
    let tokens = match pointer {
        "" => None,
        p => Some(p.strip_prefix('/')?.split('/')),
    };
    for token in tokens.into_iter().flatten() {
        // Every finding is placed by a pointer, so its tokens are borrowed unless escaped.
        let token = if token.contains('~') {
            std::borrow::Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
        } else {
            std::borrow::Cow::Borrowed(token)
        };
        pos = match bytes.get(pos)? {
            b'{' => find_member(text, pos, &token)?,
            b'[' => find_element(bytes, pos, token.parse().ok()?)?,
            _ => return None,
        };
    }
    let end = skip_value(bytes, pos)?;
    Some((pos, end))
}

/// Whether the quoted key `raw` (quotes included) is `key`: compared in place, decoded only
/// when it holds an escape (every member passed on the way to a finding is compared).
fn key_is(raw: &str, key: &str) -> bool {
    if raw.contains('\\') {
        serde_json::from_str::<String>(raw).is_ok_and(|k| k == key)
    } else {
        raw.get(1..raw.len().saturating_sub(1)) == Some(key)
    }
}

fn find_member(text: &str, obj: usize, key: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut pos = skip_ws(bytes, obj + 1);
    let mut found = None;
    while bytes.get(pos) == Some(&b'"') {
        let key_end = skip_string(bytes, pos)?;
        let colon = skip_ws(bytes, key_end);
        if bytes.get(colon) != Some(&b':') {
            return None;
        }
        let value = skip_ws(bytes, colon + 1);
        // serde_json keeps the last of duplicate keys, so the last match wins here too.
        if key_is(text.get(pos..key_end)?, key) {
            found = Some(value);
        }
        pos = skip_ws(bytes, skip_value(bytes, value)?);
        if bytes.get(pos) == Some(&b',') {
            pos = skip_ws(bytes, pos + 1);
        } else {
            break;
        }
    }
    found
}

fn find_element(bytes: &[u8], arr: usize, index: usize) -> Option<usize> {
    if let Some(found) = span_cache::element(bytes, arr, index, || element_starts(bytes, arr)) {
        return found;
    }
    let mut pos = skip_ws(bytes, arr + 1);
    if bytes.get(pos) == Some(&b']') {
        return None;
    }
    for _ in 0..index {
        pos = skip_ws(bytes, skip_value(bytes, pos)?);
        if bytes.get(pos) != Some(&b',') {
            return None;
        }
        pos = skip_ws(bytes, pos + 1);
    }
    Some(pos)
}

/// The span of every element of the array that starts at `start` (and ends at `end`), or
/// `None` when it is not an array or an element is malformed; memoised inside
/// [`crate::source::with_span_cache`].
pub fn element_spans(
    text: &str,
    start: usize,
    end: usize,
) -> Option<std::rc::Rc<Vec<(usize, usize)>>> {
    let bytes = text.as_bytes();
    span_cache::spans(bytes, start, || {
        if bytes.get(start) != Some(&b'[') {
            return None;
        }
        let mut out = Vec::new();
        let mut pos = skip_ws(bytes, start + 1);
        if bytes.get(pos) == Some(&b']') {
            return Some(out);
        }
        while pos < end {
            let value_end = skip_value(bytes, pos)?;
            out.push((pos, value_end));
            pos = skip_ws(bytes, value_end);
            match bytes.get(pos) {
                Some(b',') => pos = skip_ws(bytes, pos + 1),
                _ => break,
            }
        }
        Some(out)
    })
}

/// The start of every element of the array at `arr` (as far as it is well-formed).
fn element_starts(bytes: &[u8], arr: usize) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut pos = skip_ws(bytes, arr + 1);
    if bytes.get(pos) == Some(&b']') {
        return starts;
    }
    loop {
        starts.push(pos);
        let Some(end) = skip_value(bytes, pos) else {
            break;
        };
        pos = skip_ws(bytes, end);
        if bytes.get(pos) != Some(&b',') {
            break;
        }
        pos = skip_ws(bytes, pos + 1);
    }
    starts
}

pub(crate) fn skip_ws(bytes: &[u8], mut pos: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(pos) {
        pos += 1;
    }
    pos
}

/// End offset (exclusive) of the JSON value starting at `start`.
pub(crate) fn skip_value(bytes: &[u8], start: usize) -> Option<usize> {
    match bytes.get(start)? {
        b'"' => skip_string(bytes, start),
        b'{' | b'[' => span_cache::end(bytes, start, || container_end(bytes, start)),
        _ => {
            let mut pos = start;
            while let Some(b) = bytes.get(pos) {
                if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                    break;
                }
                pos += 1;
            }
            (pos > start).then_some(pos)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;

    #[test]
    fn tokens_are_written_escaped() {
        let mut p = String::new();
        for n in [0usize, 7, 10, 4096, usize::MAX] {
            push_token(&mut p, &n);
        }
        push_token(&mut p, "a/b~c");
        push_token(&mut p, &String::from("plain"));
        assert_eq!(p, format!("/0/7/10/4096/{}/a~1b~0c/plain", usize::MAX));
    }

    #[test]
    fn length_hints_are_the_unescaped_lengths() {
        for n in [0usize, 9, 10, 99, 100, 4096, usize::MAX] {
            assert_eq!(n.len_hint(), n.to_string().len(), "{n}");
        }
        assert_eq!("größe".len_hint(), "größe".len());
        assert_eq!(String::from("a/b").len_hint(), 3);
    }

    #[test]
    fn locates_nested_values() {
        let text = r#"{"a": [1, {"b/c": "x\"y", "d": [true, null]}], "a~": 2}"#;
        let span = |p: &str| locate(text, 0, p).map(|(s, e)| &text[s..e]);
        assert_eq!(span(""), Some(text));
        assert_eq!(span("/a/0"), Some("1"));
        assert_eq!(span("/a/1/b~1c"), Some(r#""x\"y""#));
        assert_eq!(span("/a/1/d/1"), Some("null"));
        assert_eq!(span("/a~0"), Some("2"));
        assert_eq!(span("/a/2"), None);
        assert_eq!(span("/zz"), None);
        // A key written with an escape is compared decoded; the last of duplicates wins.
        let text = r#"{"\u0062": 3, "b": 4, "c\"": 5}"#;
        let span = |p: &str| locate(text, 0, p).map(|(s, e)| &text[s..e]);
        assert_eq!(span("/b"), Some("4"));
        assert_eq!(span("/c\""), Some("5"));
        let text = r#"{"\u0062": 3}"#;
        assert_eq!(locate(text, 0, "/b").map(|(s, e)| &text[s..e]), Some("3"));
    }

    #[test]
    fn locates_inside_a_jsonl_record() {
        let text = "{\"x\": 1}\n{\"x\": [5, 6]}\n";
        let (s, e) = locate(text, 9, "/x/1").unwrap();
        assert_eq!(&text[s..e], "6");
        let file = SourceFile::new(None, "t".into(), text.into());
        assert_eq!(file.line_col(s), (2, 11));
    }
}
