//! File text, line index, and the mapping between byte offsets, line:column and JSON pointers.
//!
//! Spans are found on demand: a file is parsed once with serde_json, the model keeps JSON
//! pointers, and only files with findings are scanned again here to turn pointers into byte
//! ranges. Clean files therefore cost one parse.

use std::path::PathBuf;

/// One input file (or stdin) as text, with a lazily useful line index.
#[derive(Debug)]
pub struct SourceFile {
    /// Where the text came from; `None` for stdin.
    pub path: Option<PathBuf>,
    /// The name findings report (the path as given, or `--stdin-filename`).
    pub name: String,
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(path: Option<PathBuf>, name: String, text: String) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        SourceFile {
            path,
            name,
            text,
            line_starts,
        }
    }

    /// 0-based line index holding `offset` (the last line for offsets past the end).
    pub fn line_index(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// Byte range of line `idx` (0-based), without its line terminator. A line past the
    /// last one is the empty range at the end of the text, so no caller can index out of
    /// bounds (a file still being written often lacks its final newline).
    pub fn line_range(&self, idx: usize) -> (usize, usize) {
        let len = self.text.len();
        let Some(&start) = self.line_starts.get(idx) else {
            return (len, len);
        };
        let mut end = self
            .line_starts
            .get(idx + 1)
            .map_or(len, |next| next.saturating_sub(1));
        if end > start && self.text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        (start, end.max(start))
    }

    /// Byte range of line `idx` including its terminator (`\n` or `\r\n`), if it has one:
    /// what removing a whole JSONL record removes.
    pub fn line_range_with_terminator(&self, idx: usize) -> (usize, usize) {
        let len = self.text.len();
        let start = self.line_starts.get(idx).copied().unwrap_or(len);
        let end = self.line_starts.get(idx + 1).copied().unwrap_or(len);
        (start, end.max(start))
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// 1-based line and column (in characters) of a byte offset; an offset inside a
    /// character counts as that character.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(&self.text, offset);
        let line = self.line_index(offset);
        let start = self.line_starts.get(line).copied().unwrap_or(0);
        let col = self
            .text
            .get(start..offset)
            .map_or(0, |s| s.chars().count());
        (line + 1, col + 1)
    }
}

/// The largest char boundary of `text` at or before `offset` (clamped to its length):
/// parsers report byte positions that can fall inside a multi-byte character.
pub fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest char boundary of `text` at or after `offset` (clamped to its length).
pub fn ceil_char_boundary(text: &str, offset: usize) -> usize {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

fn memchr_iter(needle: u8, haystack: &[u8]) -> impl Iterator<Item = usize> + '_ {
    haystack
        .iter()
        .enumerate()
        .filter_map(move |(i, &b)| (b == needle).then_some(i))
}

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
            p.push('/');
            p.push_str(&$crate::source::escape_token(&$part.to_string()));
        )*
        p
    }};
}

/// Finds the byte range of the value at `pointer` inside the JSON document that starts at
/// byte `base` of `text`. Returns `None` if the pointer does not resolve.
pub fn locate(text: &str, base: usize, pointer: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut pos = skip_ws(bytes, base);
    let tokens: Vec<String> = if pointer.is_empty() {
        Vec::new()
    } else {
        pointer
            .strip_prefix('/')?
            .split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect()
    };
    for token in &tokens {
        pos = match bytes.get(pos)? {
            b'{' => find_member(text, pos, token)?,
            b'[' => find_element(bytes, pos, token.parse().ok()?)?,
            _ => return None,
        };
    }
    let end = skip_value(bytes, pos)?;
    Some((pos, end))
}

/// Byte range of the key string and value of object member `key` (start of the key's quote,
/// end of the value), for edits that remove or replace a whole member.
pub fn locate_member(text: &str, base: usize, pointer: &str) -> Option<(usize, usize)> {
    let (parent, key) = pointer.rsplit_once('/')?;
    let key = key.replace("~1", "/").replace("~0", "~");
    let (obj, _) = locate(text, base, parent)?;
    let bytes = text.as_bytes();
    if bytes.get(obj) != Some(&b'{') {
        return None;
    }
    let mut pos = skip_ws(bytes, obj + 1);
    while bytes.get(pos) == Some(&b'"') {
        let key_start = pos;
        let key_end = skip_string(bytes, pos)?;
        let colon = skip_ws(bytes, key_end);
        let value = skip_ws(bytes, colon + 1);
        let value_end = skip_value(bytes, value)?;
        if decode_key(text.get(key_start..key_end)?).as_deref() == Some(key.as_str()) {
            return Some((key_start, value_end));
        }
        pos = skip_ws(bytes, value_end);
        if bytes.get(pos) == Some(&b',') {
            pos = skip_ws(bytes, pos + 1);
        } else {
            break;
        }
    }
    None
}

fn decode_key(raw: &str) -> Option<String> {
    if raw.contains('\\') {
        serde_json::from_str(raw).ok()
    } else {
        raw.get(1..raw.len().saturating_sub(1)).map(str::to_string)
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
        if decode_key(text.get(pos..key_end)?).as_deref() == Some(key) {
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

pub(crate) fn skip_ws(bytes: &[u8], mut pos: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(pos) {
        pos += 1;
    }
    pos
}

fn skip_string(bytes: &[u8], start: usize) -> Option<usize> {
    let mut pos = start + 1;
    loop {
        match bytes.get(pos)? {
            b'"' => return Some(pos + 1),
            b'\\' => pos += 2,
            _ => pos += 1,
        }
    }
}

/// End offset (exclusive) of the JSON value starting at `start`.
pub(crate) fn skip_value(bytes: &[u8], start: usize) -> Option<usize> {
    match bytes.get(start)? {
        b'"' => skip_string(bytes, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut pos = start;
            loop {
                match bytes.get(pos)? {
                    b'"' => {
                        pos = skip_string(bytes, pos)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(pos + 1);
                        }
                    }
                    _ => {}
                }
                pos += 1;
            }
        }
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
    }

    #[test]
    fn locates_inside_a_jsonl_record() {
        let text = "{\"x\": 1}\n{\"x\": [5, 6]}\n";
        let (s, e) = locate(text, 9, "/x/1").unwrap();
        assert_eq!(&text[s..e], "6");
        let file = SourceFile::new(None, "t".into(), text.into());
        assert_eq!(file.line_col(s), (2, 11));
    }

    #[test]
    fn locates_members() {
        let text = r#"{"a": 1, "b": {"c": 2}}"#;
        let (s, e) = locate_member(text, 0, "/b/c").unwrap();
        assert_eq!(&text[s..e], r#""c": 2"#);
    }

    #[test]
    fn offsets_inside_a_character_count_as_that_character() {
        // 你 is bytes 1..4, 😀 bytes 4..8.
        let file = SourceFile::new(None, "t".into(), "\"你😀".into());
        assert_eq!(floor_char_boundary(&file.text, 2), 1);
        assert_eq!(ceil_char_boundary(&file.text, 2), 4);
        assert_eq!(floor_char_boundary(&file.text, 6), 4);
        assert_eq!(ceil_char_boundary(&file.text, 6), 8);
        assert_eq!(ceil_char_boundary(&file.text, 99), 8);
        assert_eq!(file.line_col(2), (1, 2));
        assert_eq!(file.line_col(7), (1, 3));
        assert_eq!(file.line_col(8), (1, 4));
        assert_eq!(file.line_range(5), (8, 8));
    }

    #[test]
    fn crlf_lines_exclude_the_carriage_return() {
        let file = SourceFile::new(None, "t".into(), "{\r\n\"é\": 1\r\n}".into());
        assert_eq!(file.line_range(1), (3, 10));
        assert_eq!(file.line_col(9), (2, 6));
    }

    #[test]
    fn columns_count_characters() {
        let file = SourceFile::new(None, "t".into(), "{\"é\": 1}".into());
        let (s, _) = locate(&file.text, 0, "/é").unwrap();
        assert_eq!(file.line_col(s), (1, 7));
    }
}
