//! Reading JSON text into values, for every JSON the logs hold (files, records, argument
//! strings, encoded schemas).
//!
//! Valid JSON is never reported as invalid: numbers of any magnitude are kept as written
//! (serde_json's `arbitrary_precision`), and string escapes of lone UTF-16 surrogates
//! (`"\ud83d"`), which JSON allows but Rust strings cannot hold, are read as U+FFFD in a copy
//! of the text of the same length, so byte offsets stay true. Such a value is marked lossy:
//! it is good for checking, never for writing back. The one limit kept is nesting depth
//! (serde_json's 128 levels, which bounds the stack); exceeding it is reported as what it
//! is, not as a syntax error.

use serde_json::Value as Json;
/// The deepest nesting read (serde_json's recursion limit).
pub const MAX_DEPTH: usize = 128;

/// A document read from JSON text, borrowing from it (see [`crate::tree`]).
#[derive(Debug)]
pub struct Parsed<'a> {
    pub value: crate::tree::Value<'a>,
    /// Lone surrogate escapes were read as U+FFFD: the value is not byte-faithful.
    pub lossy: bool,
    /// Where its containers are in the text: the big ones, or all of a short text (none when
    /// serde_json read it).
    pub spans: crate::spans::Spans,
}

/// One JSON document handed to an adapter: its value and where it starts in the file (a
/// JSONL record, a SQLite row, or the whole file).
#[derive(Debug, Clone, Copy)]
pub struct Doc<'a> {
    pub base: usize,
    pub value: &'a crate::tree::Value<'a>,
}

/// Why JSON text could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    pub kind: JsonErrorKind,
    /// serde_json's message, without its position.
    pub message: String,
    /// 1-based line and column (in bytes) where reading stopped.
    pub line: usize,
    pub column: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonErrorKind {
    /// Not JSON: a syntax error.
    Syntax,
    /// A valid prefix of JSON that ends too early (truncated).
    Eof,
    /// Valid as far as read, but nested deeper than [`MAX_DEPTH`].
    TooDeep,
}

impl JsonError {
    fn from_serde(e: &serde_json::Error) -> Self {
        let text = e.to_string();
        let message = text
            .rfind(" at line ")
            .map_or(text.as_str(), |i| text.get(..i).unwrap_or_default())
            .to_string();
        let kind = if e.is_eof() {
            JsonErrorKind::Eof
        } else if message.contains("recursion limit") {
            JsonErrorKind::TooDeep
        } else {
            JsonErrorKind::Syntax
        };
        JsonError {
            kind,
            message,
            line: e.line(),
            column: e.column(),
        }
    }
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            JsonErrorKind::TooDeep => write!(f, "nested deeper than {MAX_DEPTH} levels"),
            _ => f.write_str(&self.message),
        }
    }
}

/// Reads JSON text into a tree that borrows from it; see the module documentation for what
/// is accepted. The tree's parser accepts exactly what serde_json accepts; when it stops,
/// serde_json is asked why, so messages and positions are serde_json's.
pub fn parse(text: &str) -> Result<Parsed<'_>, JsonError> {
    match crate::tree::parse(text) {
        Ok(tree) => Ok(Parsed {
            value: tree.value,
            lossy: tree.lossy,
            spans: tree.spans,
        }),
        Err(crate::tree::Rejected) => match parse_serde(text) {
            // Not expected (the parsers agree, which the tests check), but never fatal.
            Ok(p) => Ok(Parsed {
                value: crate::tree::Value::from_serde(&p.0),
                lossy: p.1,
                spans: crate::spans::Spans::default(),
            }),
            Err(e) => Err(e),
        },
    }
}

/// Parses JSON text into a serde_json value (arguments and schemas, which are checked with
/// serde_json-based tools), with whether lone surrogates were replaced.
fn parse_serde(text: &str) -> Result<(Json, bool), JsonError> {
    match serde_json::from_str::<Json>(text) {
        Ok(value) => Ok((value, false)),
        Err(e) => {
            let first = JsonError::from_serde(&e);
            if first.kind == JsonErrorKind::Syntax && first.message.contains("escape") {
                if let Some(replaced) = replace_lone_surrogates(text) {
                    return serde_json::from_str::<Json>(&replaced)
                        .map(|value| (value, true))
                        .map_err(|e| JsonError::from_serde(&e));
                }
            }
            Err(first)
        }
    }
}

/// Parses JSON text, keeping only the value.
pub fn parse_value(text: &str) -> Result<Json, JsonError> {
    parse_serde(text).map(|(value, _)| value)
}

/// Appends `text` to `out` as a JSON string, quoted and escaped byte for byte as serde_json
/// writes it (`\"`, `\\`, `\b`, `\t`, `\n`, `\f`, `\r`, other controls as `\u00xx`,
/// everything else as is). The runs between escapes are found as the parser finds them
/// (eight bytes at a time, then SIMD) and copied whole: serde_json tests each byte against a table and costs a writer call per
/// string, which made writing a history's objects as JSON as costly as linting it.
pub fn push_quoted(out: &mut Vec<u8>, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(text.len() + 2);
    out.push(b'"');
    let mut rest = text.as_bytes();
    loop {
        let run = crate::tree::plain_run(rest);
        let Some((plain, tail)) = rest.split_at_checked(run) else {
            break;
        };
        out.extend_from_slice(plain);
        let Some((&byte, tail)) = tail.split_first() else {
            break;
        };
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xf)],
            ]),
        }
        rest = tail;
    }
    out.push(b'"');
}

/// The text with every escape of an unpaired UTF-16 surrogate inside a string replaced by
/// `\ufffd` (the same length), or `None` when there is none.
fn replace_lone_surrogates(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut in_string = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if !in_string {
            in_string = b == b'"';
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' if bytes.get(i + 1) == Some(&b'u') => {
                let Some(unit) = hex4(bytes, i + 2) else {
                    i += 2;
                    continue;
                };
                let high = (0xD800..0xDC00).contains(&unit);
                let low = (0xDC00..0xE000).contains(&unit);
                let paired = high
                    && bytes.get(i + 6) == Some(&b'\\')
                    && bytes.get(i + 7) == Some(&b'u')
                    && hex4(bytes, i + 8).is_some_and(|u| (0xDC00..0xE000).contains(&u));
                if paired {
                    i += 12;
                } else if high || low {
                    let buf = out.get_or_insert_with(|| bytes.to_vec());
                    if let Some(slot) = buf.get_mut(i..i + 6) {
                        slot.copy_from_slice(b"\\ufffd");
                    }
                    i += 6;
                } else {
                    i += 6;
                }
            }
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    // Only ASCII bytes were replaced by ASCII bytes, so the text is still UTF-8.
    out.and_then(|b| String::from_utf8(b).ok())
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let text = std::str::from_utf8(digits).ok()?;
    u32::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quoted(text: &str) -> String {
        let mut out = Vec::new();
        push_quoted(&mut out, text);
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn quotes_every_byte_as_serde_json_does() {
        for b in 0u8..0x80 {
            let text = format!("a{}b", char::from(b));
            assert_eq!(
                quoted(&text),
                serde_json::to_string(&text).unwrap_or_default()
            );
        }
        let long = "plain text, long enough to leave the eight-byte path \"quoted\"\n\u{1}é";
        assert_eq!(
            quoted(long),
            serde_json::to_string(long).unwrap_or_default()
        );
        assert_eq!(quoted(""), "\"\"");
    }

    proptest::proptest! {
        #[test]
        fn push_quoted_is_serde_json(text in ".*", pad in 0usize..40) {
            let text = format!("{}{text}", "x".repeat(pad));
            proptest::prop_assert_eq!(quoted(&text), serde_json::to_string(&text).unwrap_or_default());
        }
    }

    #[test]
    fn huge_numbers_are_valid() {
        let v = parse_value(r#"{"n": 1e400, "m": -123456789012345678901234567890}"#)
            .expect("valid JSON");
        assert!(v["n"].is_number() && v["m"].is_number());
        assert_eq!(v["m"].to_string(), "-123456789012345678901234567890");
    }

    #[test]
    fn lone_surrogates_are_read_lossily() {
        let p = parse(r#"{"s": "a\ud83d b", "t": "\udc00", "ok": "\ud83d\ude00"}"#);
        let p = p.expect("valid JSON");
        assert!(p.lossy);
        assert_eq!(p.value["s"], "a\u{fffd} b");
        assert_eq!(p.value["t"], "\u{fffd}");
        assert_eq!(p.value["ok"], "\u{1f600}");
    }

    #[test]
    fn escaped_backslash_is_not_an_escape() {
        let p = parse(r#"["\\ud83d"]"#).expect("valid JSON");
        assert!(!p.lossy);
        assert_eq!(p.value[0], "\\ud83d");
    }

    #[test]
    fn depth_is_reported_as_depth() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let e = parse(&deep).expect_err("too deep");
        assert_eq!(e.kind, JsonErrorKind::TooDeep);
        assert_eq!(e.to_string(), "nested deeper than 128 levels");
    }

    #[test]
    fn truncation_and_syntax() {
        assert_eq!(
            parse(r#"{"query": "hello wor"#)
                .map(|_| ())
                .map_err(|e| e.kind),
            Err(JsonErrorKind::Eof)
        );
        assert_eq!(
            parse(r#"{"a": tru}"#).map(|_| ()).map_err(|e| e.kind),
            Err(JsonErrorKind::Syntax)
        );
        assert!(parse(r#""\u12""#).is_err());
    }
}
