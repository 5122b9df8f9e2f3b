//! A JSON tree that borrows from the text it was read from: what adapters read documents
//! and records into.
//!
//! Logs are mostly text (messages, tool output, arguments), and an adapter looks at a small
//! part of it. So strings are slices of the input, decoded only when asked for and only if
//! they hold escapes; numbers keep their text; objects are lists of members in their written
//! order, searched from the end (the last of repeated keys wins, as with serde_json). A
//! document costs one allocation per array and object, not one per string and map entry.
//!
//! This file holds the value types and their API; `parse.rs` holds the parser, which accepts
//! exactly the JSON serde_json accepts (RFC 8259, at most 127 levels of nesting; `json::parse`
//! asks serde_json for the error when it does not), and the decoding of the escapes it
//! accepted.

use once_cell::race::OnceBox;
use std::fmt;

mod parse;

pub use parse::{parse, Rejected, Tree};

pub(crate) use parse::plain_run;

use parse::{unescape, unescape_until};

/// A JSON value borrowed from text.
#[derive(Debug, Clone, Default)]
pub enum Value<'a> {
    #[default]
    Null,
    Bool(bool),
    Number(Number<'a>),
    String(Str<'a>),
    Array(Vec<Value<'a>>),
    Object(Map<'a>),
}

/// A number, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Number<'a>(std::borrow::Cow<'a, str>);

/// A string: its text between the quotes as written, decoded when first read if it holds
/// escapes.
///
/// A tree holds one `Str` per string and per key, so its size is most of the tree's: it is
/// two words and a thin cell, 24 bytes. Whether the text holds escapes is kept in `raw`
/// itself rather than in a flag (which padded it to 32): `raw` is the text as written, with
/// its closing quote kept when the text holds escapes. Text without escapes never ends in a
/// quote (an unescaped quote would have closed it), so that last byte says which one it is.
#[derive(Clone)]
pub struct Str<'a> {
    raw: &'a str,
    /// A thin cell (one pointer; a `OnceLock<Box<str>>` is three).
    decoded: OnceBox<Box<str>>,
}

/// An object's members in written order.
#[derive(Debug, Clone, Default)]
pub struct Map<'a> {
    members: Vec<(Str<'a>, Value<'a>)>,
}

static NULL: Value<'static> = Value::Null;

impl<'m, 'a> IntoIterator for &'m Map<'a> {
    type Item = (&'m str, &'m Value<'a>);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'m, (Str<'a>, Value<'a>)>,
        fn(&'m (Str<'a>, Value<'a>)) -> (&'m str, &'m Value<'a>),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.members.iter().map(member)
    }
}

fn member<'m, 'a>(m: &'m (Str<'a>, Value<'a>)) -> (&'m str, &'m Value<'a>) {
    (m.0.as_str(), &m.1)
}

impl<'a> Value<'a> {
    /// The member `key` of an object (the last one when the key repeats).
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.as_object().and_then(|m| m.get(key))
    }

    /// Element `index` of an array.
    pub fn at(&self, index: usize) -> Option<&Value<'a>> {
        self.as_array().and_then(|a| a.get(index))
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        }
    }

    /// The member `key` of an object (the last one when the key repeats), to take from.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value<'a>> {
        match self {
            Value::Object(m) => m.get_mut(key),
            _ => None,
        }
    }

    /// The elements of an array, to take from.
    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Value<'a>>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Value<'a>>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Map<'a>> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn is_boolean(&self) -> bool {
        matches!(self, Value::Bool(_))
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Value::Number(_))
    }

    pub fn is_u64(&self) -> bool {
        self.as_u64().is_some()
    }

    pub fn is_i64(&self) -> bool {
        self.as_i64().is_some()
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    /// The value at an RFC 6901 pointer.
    pub fn pointer(&self, pointer: &str) -> Option<&Value<'a>> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        let mut at = self;
        for token in rest.split('/') {
            let token = token.replace("~1", "/").replace("~0", "~");
            at = match at {
                Value::Object(m) => m.get(&token)?,
                Value::Array(a) => a.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(at)
    }

    /// Appends the value to `out` as compact JSON, strings and numbers as written: two
    /// values written alike are the same value (for keying what was read from them).
    pub fn write_compact(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => out.push_str(n.as_str()),
            Value::String(s) => s.write_quoted(out),
            Value::Array(a) => {
                out.push('[');
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.write_compact(out);
                }
                out.push(']');
            }
            Value::Object(m) => {
                out.push('{');
                for (i, (k, v)) in m.members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    k.write_quoted(out);
                    out.push(':');
                    v.write_compact(out);
                }
                out.push('}');
            }
        }
    }

    /// The same value as a serde_json value (for schemas and arguments, which are checked
    /// with serde_json-based tools).
    pub fn to_serde(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(n) => serde_json::from_str::<serde_json::Number>(n.as_str())
                .map_or(serde_json::Value::Null, serde_json::Value::Number),
            Value::String(s) => serde_json::Value::String(s.as_str().to_string()),
            Value::Array(a) => serde_json::Value::Array(a.iter().map(Value::to_serde).collect()),
            Value::Object(m) => serde_json::Value::Object(
                m.iter()
                    .map(|(k, v)| (k.to_string(), v.to_serde()))
                    .collect(),
            ),
        }
    }

    /// A serde_json value as a tree that owns its strings.
    pub fn from_serde(value: &serde_json::Value) -> Value<'static> {
        match value {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => Value::Number(Number(n.to_string().into())),
            serde_json::Value::String(s) => Value::String(Str::owned(s)),
            serde_json::Value::Array(a) => Value::Array(a.iter().map(Value::from_serde).collect()),
            serde_json::Value::Object(m) => Value::Object(Map {
                members: m
                    .iter()
                    .map(|(k, v)| (Str::owned(k), Value::from_serde(v)))
                    .collect(),
            }),
        }
    }
}

impl<'s> Value<'s> {
    /// A serde_json value as a tree that borrows its strings (those that need no escapes),
    /// as a caller builds one off its own objects for [`crate::lint::lint_tree`]: what the
    /// tests and fuzzing check that function with.
    pub fn borrowing(value: &'s serde_json::Value) -> Value<'s> {
        match value {
            serde_json::Value::String(s) => Value::String(Str::from(s.as_str())),
            serde_json::Value::Array(a) => Value::Array(a.iter().map(Value::borrowing).collect()),
            serde_json::Value::Object(m) => Value::Object(Map {
                members: m
                    .iter()
                    .map(|(k, v)| (Str::from(k.as_str()), Value::borrowing(v)))
                    .collect(),
            }),
            scalar => Value::from_serde(scalar),
        }
    }
}

impl<'a> std::ops::Index<&str> for Value<'a> {
    type Output = Value<'a>;

    /// The member, or null when there is none (as serde_json's `value["key"]`).
    fn index(&self, key: &str) -> &Value<'a> {
        self.get(key).unwrap_or(&NULL)
    }
}

impl<'a> std::ops::Index<usize> for Value<'a> {
    type Output = Value<'a>;

    fn index(&self, index: usize) -> &Value<'a> {
        self.at(index).unwrap_or(&NULL)
    }
}

impl PartialEq for Value<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Number(a), Value::Number(b)) => a == b,
            (Value::String(a), Value::String(b)) => a.as_str() == b.as_str(),
            (Value::Array(a), Value::Array(b)) => a == b,
            (Value::Object(a), Value::Object(b)) => a == b,
            _ => false,
        }
    }
}

impl PartialEq<str> for Value<'_> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Value<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<bool> for Value<'_> {
    fn eq(&self, other: &bool) -> bool {
        self.as_bool() == Some(*other)
    }
}

impl serde::Serialize for Value<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(n) => match serde_json::from_str::<serde_json::Number>(n.as_str()) {
                Ok(n) => n.serialize(serializer),
                Err(_) => serializer.serialize_unit(),
            },
            Value::String(s) => serializer.serialize_str(s.as_str()),
            Value::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Object(m) => {
                let mut map = serializer.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// Compact JSON, members in their order.
impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Number(n) => f.write_str(n.as_str()),
            Value::String(s) => write_quoted(f, s.as_str()),
            Value::Array(a) => {
                f.write_str("[")?;
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            Value::Object(m) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write_quoted(f, k)?;
                    write!(f, ":{v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

fn write_quoted(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    match serde_json::to_string(s) {
        Ok(quoted) => f.write_str(&quoted),
        Err(_) => Err(fmt::Error),
    }
}

impl From<i64> for Number<'_> {
    fn from(n: i64) -> Self {
        Number(n.to_string().into())
    }
}

impl From<u64> for Number<'_> {
    fn from(n: u64) -> Self {
        Number(n.to_string().into())
    }
}

impl<'a> Number<'a> {
    /// A finite float as serde_json writes it (`None` for NaN and the infinities, which JSON
    /// cannot hold).
    pub fn from_f64(f: f64) -> Option<Self> {
        if !f.is_finite() {
            return None;
        }
        serde_json::to_string(&f)
            .ok()
            .map(|text| Number(text.into()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn as_u64(&self) -> Option<u64> {
        self.0.parse().ok()
    }

    pub fn as_i64(&self) -> Option<i64> {
        self.0.parse().ok()
    }

    pub fn as_f64(&self) -> Option<f64> {
        self.0.parse().ok()
    }
}

impl<'a> Str<'a> {
    /// A string read from text: `raw` is its text as written, followed by its closing quote
    /// when the text holds escapes (see [`Str`]).
    fn borrowed(raw: &'a str) -> Self {
        Str {
            raw,
            decoded: OnceBox::new(),
        }
    }

    /// Appends the string in quotes, as written where it was read from text.
    fn write_quoted(&self, out: &mut String) {
        let made = self.raw == "\"";
        if made {
            // Made, not read: escaped as JSON.
            let text = self.as_str();
            out.push_str(&serde_json::Value::from(text).to_string());
        } else {
            out.push('"');
            out.push_str(self.written());
            out.push('"');
        }
    }

    /// Whether the text as written holds escapes (or the string was made, not read).
    fn escaped(&self) -> bool {
        self.raw.as_bytes().last() == Some(&b'"')
    }

    /// The text as written, between the quotes (empty for a string that was made, not read).
    fn written(&self) -> &'a str {
        match self.raw.strip_suffix('"') {
            Some(text) => text,
            None => self.raw,
        }
    }

    fn owned(s: &str) -> Str<'static> {
        Str::from(s.to_string())
    }

    /// Whether the text is empty or only whitespace, decoding it only when it opens with an
    /// escape.
    pub fn is_blank(&self) -> bool {
        match self.written().trim_start().as_bytes().first() {
            None => self.as_str().trim().is_empty(),
            Some(b'\\') => self.as_str().trim().is_empty(),
            Some(_) => false,
        }
    }

    /// The start of the text, at least `min` bytes of it where it is that long (more where
    /// that is cheaper): a long text is decoded only as far as asked.
    pub fn prefix(&self, min: usize) -> std::borrow::Cow<'_, str> {
        if !self.escaped() || self.decoded.get().is_some() {
            return std::borrow::Cow::Borrowed(self.as_str());
        }
        std::borrow::Cow::Owned(unescape_until(self.written(), min))
    }

    /// The decoded text, borrowed from the text it was read from where it holds no escapes:
    /// unlike [`Str::as_str`], it outlives the tree.
    pub fn text(&self) -> std::borrow::Cow<'a, str> {
        if self.escaped() {
            std::borrow::Cow::Owned(self.as_str().to_owned())
        } else {
            std::borrow::Cow::Borrowed(self.raw)
        }
    }

    /// The decoded text.
    pub fn as_str(&self) -> &str {
        if !self.escaped() {
            return self.raw;
        }
        self.decoded
            .get_or_init(|| Box::new(unescape(self.written()).into_boxed_str()))
    }
}

/// A cell holding `text` already decoded.
fn decoded(text: Box<str>) -> OnceBox<Box<str>> {
    let cell = OnceBox::new();
    // A new cell is empty: the value is always set.
    let _ = cell.set(Box::new(text));
    cell
}

impl From<String> for Str<'_> {
    fn from(s: String) -> Self {
        Str {
            // Marked as escaped, so `as_str` reads the cell.
            raw: "\"",
            decoded: decoded(s.into_boxed_str()),
        }
    }
}

impl<'a> From<&'a str> for Str<'a> {
    /// Decoded text, borrowed where it needs no escapes as JSON: a borrowed `Str` is its own
    /// text as written, so text holding a quote, a backslash or a control character is kept
    /// decoded (and is written escaped).
    fn from(s: &'a str) -> Self {
        if plain_run(s.as_bytes()) == s.len() {
            Str::borrowed(s)
        } else {
            Str::from(s.to_string())
        }
    }
}

impl std::ops::Deref for Str<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for Str<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<str> for Str<'_> {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Str<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// An object of these members, in this order (built, not read: a guard's history read off
/// its objects).
impl<'a> FromIterator<(Str<'a>, Value<'a>)> for Map<'a> {
    fn from_iter<I: IntoIterator<Item = (Str<'a>, Value<'a>)>>(members: I) -> Self {
        Map {
            members: members.into_iter().collect(),
        }
    }
}

impl<'a> Map<'a> {
    /// The member `key` (the last one when the key repeats).
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.members
            .iter()
            .rev()
            .find(|(k, _)| k.as_str() == key)
            .map(|(_, v)| v)
    }

    /// The member `key` (the last one when the key repeats), to take from.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value<'a>> {
        self.members
            .iter_mut()
            .rev()
            .find(|(k, _)| k.as_str() == key)
            .map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Members in written order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value<'a>)> {
        self.members.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.members.iter().map(|(k, _)| k.as_str())
    }

    pub fn values(&self) -> impl Iterator<Item = &Value<'a>> {
        self.members.iter().map(|(_, v)| v)
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

impl PartialEq for Map<'_> {
    /// Equal as JSON objects: the same keys with equal values, in any order.
    fn eq(&self, other: &Self) -> bool {
        fn keys_of<'m>(m: &'m Map<'_>) -> Vec<&'m str> {
            let mut k: Vec<&str> = m.keys().collect();
            k.sort_unstable();
            k.dedup();
            k
        }
        let keys = keys_of(self);
        keys == keys_of(other) && keys.iter().all(|k| self.get(k) == other.get(k))
    }
}

/// A tree written in `serde_json::json!` syntax, for tests.
#[cfg(test)]
#[macro_export]
macro_rules! tree_json {
    ($($t:tt)+) => {
        $crate::tree::Value::from_serde(&::serde_json::json!($($t)+))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> Value<'_> {
        parse(text).expect("valid JSON").value
    }

    /// A session's tree is mostly object members: their size is the tree's (on 64-bit
    /// targets a member was 96 bytes, a value 48, with a `OnceLock` per string; 72 and 40
    /// with an escape flag per string and each object's text kept).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn nodes_stay_small() {
        assert_eq!(std::mem::size_of::<Str<'_>>(), 24);
        assert_eq!(std::mem::size_of::<Value<'_>>(), 32);
        assert_eq!(std::mem::size_of::<(Str<'_>, Value<'_>)>(), 56);
    }

    #[test]
    fn reads_what_it_is_given() {
        let v = tree(r#" {"a": [1, -2.5e3, true, null], "b": "x\ny", "c": {}, "a": "last"} "#);
        assert_eq!(v["a"], "last");
        assert_eq!(v["b"].as_str(), Some("x\ny"));
        assert!(v["c"].as_object().is_some_and(Map::is_empty));
        assert_eq!(v.as_object().map(Map::len), Some(4));
        assert_eq!(v["missing"], Value::Null);
    }

    /// Escaped text keeps its closing quote as its mark: text ending in an escaped quote or
    /// backslash, keys with escapes and made strings all read back as they should.
    #[test]
    fn escaped_text_reads_back() {
        let v = tree(r#"{"q\"": "a\"", "b\\": "c\\\\", "plain": "p", "e": ""}"#);
        assert_eq!(v["q\""], "a\"");
        assert_eq!(v["b\\"], "c\\\\");
        assert_eq!(v["plain"], "p");
        assert_eq!(v["e"], "");
        let made = Str::from("ends in a quote\"");
        assert_eq!(made.as_str(), "ends in a quote\"");
        assert_eq!(Str::from("x").as_str(), "x");
        // Borrowed text is written as it is, so only text that needs no escapes is borrowed.
        for text in ["a\\b", "line\nbreak", "tab\t", "q\"uote", "\u{1}"] {
            let mut out = String::new();
            Value::String(Str::from(text)).write_compact(&mut out);
            assert_eq!(out, serde_json::to_string(text).unwrap_or_default());
        }
        assert!(Str::from(String::from("  ")).is_blank());
    }

    #[test]
    fn compact_text_is_the_same_value() {
        let text = r#" { "a" : [ 1 , -2.5e3 , true , null ] , "s\n" : "x\"y" , "o" : { } } "#;
        let mut out = String::new();
        tree(text).write_compact(&mut out);
        assert_eq!(out, r#"{"a":[1,-2.5e3,true,null],"s\n":"x\"y","o":{}}"#);
        let made = Value::from_serde(&serde_json::json!({"k\"": ["v\n"]}));
        out.clear();
        made.write_compact(&mut out);
        assert_eq!(out, r#"{"k\"":["v\n"]}"#);
    }

    #[test]
    fn round_trips_through_serde_json() {
        let text = r#"{"n": 1e400, "m": -12345678901234567890123, "s": "q\"\u0001", "a": [{}]}"#;
        let v = tree(text);
        let s: serde_json::Value = serde_json::from_str(text).expect("valid");
        assert_eq!(v.to_serde(), s);
        // Numbers print as written (serde_json would print `1e+400`).
        assert_eq!(v.to_string().replace("1e400", "1e+400"), s.to_string());
        assert_eq!(Value::from_serde(&s).to_serde(), s);
    }

    #[test]
    fn prefixes_decode_only_what_they_need() {
        let long = format!(
            "\"{}\"",
            "ab\\n\\\\\\u00e9\\ud83d\\ude00\\\\ud83d\\\\".repeat(500)
        );
        let v = tree(&long);
        let Value::String(s) = &v else {
            panic!("a string")
        };
        let full = s.as_str().to_string();
        for min in (0..300).chain([400, 5000]) {
            let head = s.prefix(min);
            assert!(full.starts_with(head.as_ref()), "{min}");
            assert!(head.len() >= min.min(full.len()), "{min}");
        }
        assert!(!s.is_blank());
        assert!(tree(r#"" \n\t ""#).as_str().is_some());
        let Value::String(blank) = tree(r#"" \n\t ""#) else {
            panic!("a string")
        };
        assert!(blank.is_blank());
    }

    #[test]
    fn pointers() {
        let v = tree(r#"{"a/b": [0, {"c~d": 7}]}"#);
        assert_eq!(v.pointer("/a~1b/1/c~0d").and_then(Value::as_u64), Some(7));
        assert!(v.pointer("/a~1b/9").is_none());
        assert!(std::ptr::eq(v.pointer("").expect("root"), &v));
    }
}
