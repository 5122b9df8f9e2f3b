//! LangGraph checkpoint databases (`langgraph-checkpoint-sqlite`, `SqliteSaver`): the
//! latest checkpoint of each thread is the live history a resumed graph starts from
//! (langchain-ai/langgraph `libs/checkpoint-sqlite/langgraph/checkpoint/sqlite/__init__.py`,
//! `libs/checkpoint/langgraph/checkpoint/serde/jsonplus.py`).
//!
//! `checkpoints(thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type,
//! checkpoint BLOB, metadata BLOB)`: the `checkpoint` column holds `dumps_typed` output of
//! the kind `type` names, msgpack since langgraph-checkpoint 2.0 (JSON before). The store
//! layer (`store/table.rs`) reads the latest root checkpoint (`checkpoint_ns = ''`, the
//! greatest `checkpoint_id`, which is time-ordered) of each thread and turns it into JSON
//! with [`decode`]; this adapter reads that JSON.
//!
//! A checkpoint is `{v, id, ts, channel_values, channel_versions, versions_seen, …}`; a
//! `MessagesState` graph keeps its history inline in `channel_values.messages`, each message
//! a msgpack extension 5 (pydantic v2: `[module, class, model_dump(), "model_validate_json"]`)
//! whose `model_dump()` is read as the `langchain` format reads LangChain messages. The other
//! extensions (0–4: constructors, `datetime.fromisoformat`, pydantic v1) become the value
//! they were built from; anything else stays opaque. msgpack inside SQLite has no byte edits:
//! findings only (what would repair it is `graph.update_state`).

use serde_json::{Map, Value as Json};

use super::langchain;
use super::{array_at, Adapter, Dialect, Doc, Format, Planned};
use crate::edit::plan::EditContext;
use crate::finding::FixIntent;
use crate::transcript::{Conversation, Loc};
use crate::tree::Value as Tree;

/// What toolcheck reads in this format and how it is sent: its page in `docs/formats/`
/// and what `toolcheck explain langgraph-checkpoint` prints (Markdown).
pub(super) const DOC: &str = r#"LangGraph `SqliteSaver` databases (`langgraph-checkpoint-sqlite`, e.g. `checkpoints.sqlite`): the latest root checkpoint of each thread (`checkpoint_ns = ''`, greatest `checkpoint_id`), decoded from msgpack (`JsonPlusSerializer`; LangChain messages are extension 5, read as their `model_dump()`) or JSON by the `type` column; `channel_values.messages` read as `langchain` reads LangChain messages; one conversation per thread; pickled or encrypted checkpoints are reported unread; read strictly read-only, findings only (a JSON dump of a checkpoint is read too)"#;

pub struct LanggraphCheckpoint;

impl Dialect for LanggraphCheckpoint {}

/// How deep msgpack values (extensions included) are followed: far beyond a checkpoint's
/// nesting, short of the stack's limit.
const MAX_DEPTH: usize = 96;

/// Why a checkpoint column gave no JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Undecoded {
    /// The column does not decode as the serialisation it names: broken.
    Broken(String),
    /// A serialisation toolcheck does not read (pickle, encrypted): not checked, not broken.
    NotRead(String),
}

/// A checkpoint column as JSON text, by the serialisation its `type` column names.
pub(crate) fn decode(kind: Option<&str>, blob: &[u8]) -> Result<String, Undecoded> {
    match kind {
        Some("msgpack") => {
            let value = rmpv::decode::read_value_with_max_depth(&mut &blob[..], MAX_DEPTH)
                .map_err(|e| {
                    Undecoded::Broken(format!("the msgpack checkpoint does not decode: {e}"))
                })?;
            Ok(to_json(&value, MAX_DEPTH).to_string())
        }
        Some("json") => std::str::from_utf8(blob)
            .map(str::to_string)
            .map_err(|_| Undecoded::Broken("the JSON checkpoint is not valid UTF-8".to_string())),
        Some(other) => Err(Undecoded::NotRead(format!(
            "the checkpoint is serialised as `{other}` (pickle and encrypted checkpoints are not read)"
        ))),
        None => Err(Undecoded::Broken(
            "the checkpoint has no serialisation type".to_string(),
        )),
    }
}

/// A msgpack value as JSON: non-string map keys written as text, binary as its length,
/// extensions by what `jsonplus.py` packs into them.
fn to_json(value: &rmpv::Value, depth: usize) -> Json {
    use rmpv::Value as Mp;
    let Some(depth) = depth.checked_sub(1) else {
        return Json::Null;
    };
    match value {
        Mp::Nil => Json::Null,
        Mp::Boolean(b) => Json::Bool(*b),
        Mp::Integer(n) => n
            .as_i64()
            .map(Json::from)
            .or_else(|| n.as_u64().map(Json::from))
            .unwrap_or(Json::Null),
        Mp::F32(x) => serde_json::Number::from_f64(f64::from(*x)).map_or(Json::Null, Json::Number),
        Mp::F64(x) => serde_json::Number::from_f64(*x).map_or(Json::Null, Json::Number),
        Mp::String(s) => Json::String(match s.as_str() {
            Some(s) => s.to_string(),
            None => String::from_utf8_lossy(s.as_bytes()).into_owned(),
        }),
        Mp::Binary(bytes) => Json::String(format!("<{} bytes>", bytes.len())),
        Mp::Array(items) => Json::Array(items.iter().map(|v| to_json(v, depth)).collect()),
        Mp::Map(entries) => Json::Object(
            entries
                .iter()
                .map(|(k, v)| {
                    let key = match k {
                        Mp::String(s) => s.as_str().map_or_else(|| k.to_string(), str::to_string),
                        other => other.to_string(),
                    };
                    (key, to_json(v, depth))
                })
                .collect::<Map<String, Json>>(),
        ),
        Mp::Ext(code, data) => extension(*code, data, depth),
    }
}

/// `jsonplus.py`'s extensions 0–5 pack `[module, class, argument(s), …]`: the argument is
/// what the object was built from (a message's `model_dump()`, a datetime's ISO text).
fn extension(code: i8, data: &[u8], depth: usize) -> Json {
    let opaque = || Json::String(format!("<msgpack extension {code}>"));
    if !(0..=5).contains(&code) {
        return opaque();
    }
    let Ok(rmpv::Value::Array(parts)) =
        rmpv::decode::read_value_with_max_depth(&mut &data[..], depth.max(1))
    else {
        return opaque();
    };
    match parts.get(2) {
        Some(argument) => to_json(argument, depth),
        None => opaque(),
    }
}

/// The message list of a decoded checkpoint.
fn messages<'a>(doc: &'a Tree<'a>) -> Option<&'a Vec<Tree<'a>>> {
    doc.get("channel_values")
        .and_then(|c| array_at(c, "messages"))
}

impl Adapter for LanggraphCheckpoint {
    fn format(&self) -> Format {
        Format::LanggraphCheckpoint
    }

    /// A checkpoint dumped as JSON (`channel_values.messages` beside `channel_versions`);
    /// in a database the store layer picks the table.
    fn sniff(&self, doc: &Tree) -> Option<u8> {
        (messages(doc).is_some() && doc.get("channel_versions").is_some()).then_some(90)
    }

    fn normalise(&self, docs: &[Doc<'_>]) -> Result<Vec<Conversation>, String> {
        let mut out = Vec::new();
        for doc in docs {
            let Some(list) = messages(doc.value) else {
                if doc.value.get("channel_values").is_some() {
                    // A graph whose state keeps no message list (or a `DeltaChannel` one,
                    // rebuilt from writes): nothing to read in this checkpoint.
                    continue;
                }
                return Err("expected a LangGraph checkpoint (`channel_values.messages`)".into());
            };
            let mut conv =
                langchain::conversation(list, Loc::new(doc.base, "/channel_values/messages"))?;
            conv.format = Format::LanggraphCheckpoint;
            out.push(conv);
        }
        Ok(out)
    }

    fn normalise_records(&self, docs: &[Doc<'_>]) -> Option<Result<Vec<Conversation>, String>> {
        Some(self.normalise(docs))
    }

    /// msgpack inside SQLite: findings only.
    fn plan_edits(&self, _intent: &FixIntent, _cx: &EditContext<'_>) -> Planned {
        Planned::Unsupported
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmpv::Value as Mp;

    fn ext(code: i8, parts: Vec<Mp>) -> Mp {
        let mut bytes = Vec::new();
        rmpv::encode::write_value(&mut bytes, &Mp::Array(parts)).expect("encode");
        Mp::Ext(code, bytes)
    }

    #[test]
    fn decodes_messages_and_keeps_unknown_extensions_opaque() {
        let message = ext(
            5,
            vec![
                "langchain_core.messages.human".into(),
                "HumanMessage".into(),
                Mp::Map(vec![
                    ("content".into(), "hi".into()),
                    ("type".into(), "human".into()),
                ]),
                "model_validate_json".into(),
            ],
        );
        let when = ext(
            3,
            vec![
                "datetime".into(),
                "datetime".into(),
                "2025-01-01T00:00:00".into(),
                "fromisoformat".into(),
            ],
        );
        let doc = Mp::Map(vec![
            ("messages".into(), Mp::Array(vec![message])),
            ("ts".into(), when),
            (Mp::from(3), Mp::Ext(42, vec![1, 2])),
            ("raw".into(), Mp::Binary(vec![0; 3])),
        ]);
        let mut bytes = Vec::new();
        rmpv::encode::write_value(&mut bytes, &doc).expect("encode");
        let json = decode(Some("msgpack"), &bytes).expect("decodes");
        assert_eq!(
            json,
            r#"{"messages":[{"content":"hi","type":"human"}],"ts":"2025-01-01T00:00:00","3":"<msgpack extension 42>","raw":"<3 bytes>"}"#
        );
        assert!(matches!(
            decode(Some("pickle"), b"x"),
            Err(Undecoded::NotRead(_))
        ));
        assert!(decode(Some("msgpack"), &[0xdc, 0xff]).is_err());
    }

    /// Nesting far past the limit (arrays, and extensions holding extensions) is refused or
    /// cut short, never followed to the end of the stack.
    #[test]
    fn deep_nesting_stays_bounded() {
        let deep = [0x91u8; 100_000];
        assert!(decode(Some("msgpack"), &deep).is_err());
        let mut value = Mp::Nil;
        for _ in 0..200 {
            value = ext(5, vec!["m".into(), "C".into(), Mp::Array(vec![value])]);
        }
        let bytes = {
            let mut b = Vec::new();
            rmpv::encode::write_value(&mut b, &value).expect("encode");
            b
        };
        assert!(decode(Some("msgpack"), &bytes).is_ok());
    }

    proptest::proptest! {
        /// Any bytes decode to JSON text or an error, without panicking.
        #[test]
        fn any_bytes_decode_or_fail(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..256)) {
            if let Ok(text) = decode(Some("msgpack"), &bytes) {
                proptest::prop_assert!(crate::json::parse_value(&text).is_ok());
            }
        }
    }
}
