//! Tool schemas: the effective JSON Schema of a declaration (decoded, OpenAPI normalised,
//! `strict` applied), compiled once per distinct schema and shared by every file and thread.
//!
//! A log that declares the same 40 tools in each of 100 000 requests compiles 40 validators:
//! entries are keyed by a structural hash of the effective schema and compared by value.

// foldhash: these maps key on ids and offsets a run compares itself; SipHash's
// flood resistance buys nothing there and costs a few percent of a lint.
use foldhash::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, RwLock};

use serde_json::{Map, Value};

use crate::transcript::{SchemaDecl, SchemaDialect, ToolDef};

/// A compiled schema and what is wrong with it, if anything.
pub struct Compiled {
    schema: Value,
    /// The validator, or why the schema cannot be compiled.
    pub validator: Result<jsonschema::Validator, String>,
    /// The first problem found by checking the schema against its meta-schema.
    pub meta_problem: Option<String>,
}

impl Compiled {
    /// Every violation of `instance`, as `path: message` (path `/` for the root).
    pub fn violations(&self, instance: &Value) -> Vec<String> {
        let Ok(validator) = &self.validator else {
            return Vec::new();
        };
        validator
            .iter_errors(instance)
            .map(|e| {
                let path = e.instance_path().to_string();
                let path = if path.is_empty() {
                    "/".to_string()
                } else {
                    path
                };
                format!("{path}: {e}")
            })
            .collect()
    }
}

/// A shared declaration and its compiled schema.
type Held = (Arc<Value>, Arc<Compiled>);

/// A shared declaration by address, with what turns it into the schema used.
type DeclKey = (usize, SchemaDialect, bool);

#[derive(Default)]
pub struct SchemaCache {
    entries: RwLock<HashMap<u64, Vec<Arc<Compiled>>>>,
    /// Shared declarations seen before, by address: each entry holds its declaration, so an
    /// address is never reused while it is a key.
    by_decl: RwLock<HashMap<DeclKey, Held>>,
}

impl std::fmt::Debug for SchemaCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SchemaCache")
    }
}

impl SchemaCache {
    /// The compiled effective schema of `tool`, or `None` when it declares none (or its
    /// declaration is not usable as a schema at all: a string that is not JSON).
    pub fn get(&self, tool: &ToolDef) -> Option<Arc<Compiled>> {
        // Declarations repeat (datasets declare the same tools in every record) and are
        // shared once read: found by address, they are not hashed, converted or compared.
        if let Some(SchemaDecl::Value(decl)) = &tool.schema {
            let key = (Arc::as_ptr(decl) as usize, tool.dialect, tool.strict);
            let hit = self.by_decl.read().ok().and_then(|seen| {
                seen.get(&key)
                    .filter(|(held, _)| Arc::ptr_eq(held, decl))
                    .map(|(_, compiled)| Arc::clone(compiled))
            });
            if hit.is_some() {
                return hit;
            }
            let compiled = match (tool.dialect, tool.strict) {
                (SchemaDialect::JsonSchema, false) => self.lookup(decl)?,
                _ => self.lookup(&effective_schema(tool)?)?,
            };
            if let Ok(mut seen) = self.by_decl.write() {
                // Bounded: a corpus of ever-new schemas only starts over.
                if seen.len() >= 16_384 {
                    seen.clear();
                }
                seen.insert(key, (Arc::clone(decl), Arc::clone(&compiled)));
            }
            return Some(compiled);
        }
        self.lookup(&effective_schema(tool)?)
    }

    /// The compiled `schema`, compiled once per distinct schema.
    fn lookup(&self, schema: &Value) -> Option<Arc<Compiled>> {
        let key = structural_hash(schema);
        if let Ok(entries) = self.entries.read() {
            if let Some(hit) = entries
                .get(&key)
                .and_then(|v| v.iter().find(|c| &c.schema == schema))
            {
                return Some(Arc::clone(hit));
            }
        }
        let compiled = Arc::new(compile(schema.clone()));
        if let Ok(mut entries) = self.entries.write() {
            let bucket = entries.entry(key).or_default();
            match bucket.iter().find(|c| c.schema == compiled.schema) {
                // Another thread compiled it meanwhile: keep one.
                Some(existing) => return Some(Arc::clone(existing)),
                None => bucket.push(Arc::clone(&compiled)),
            }
        }
        Some(compiled)
    }

    /// How many distinct schemas were compiled (for benchmarks and tests).
    pub fn len(&self) -> usize {
        self.entries
            .read()
            .map_or(0, |e| e.values().map(Vec::len).sum())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn compile(schema: Value) -> Compiled {
    // Third-party code on untrusted input: a panic here must not take the run down.
    let outcome = std::panic::catch_unwind(|| {
        let meta_problem = jsonschema::meta::validate(&schema).err().map(|e| {
            let path = e.instance_path().to_string();
            if path.is_empty() {
                e.to_string()
            } else {
                format!("at {path}: {e}")
            }
        });
        let validator = jsonschema::validator_for(&schema).map_err(|e| e.to_string());
        (meta_problem, validator)
    });
    let (meta_problem, validator) = outcome.unwrap_or_else(|_| {
        let message = "the schema could not be compiled".to_string();
        (Some(message.clone()), Err(message))
    });
    Compiled {
        schema,
        validator,
        meta_problem,
    }
}

/// The JSON Schema a call's arguments must satisfy: decoded from a string if double-encoded,
/// converted from Gemini's OpenAPI subset, with OpenAI `strict` semantics made explicit.
pub fn effective_schema(tool: &ToolDef) -> Option<Value> {
    let mut schema = tool
        .schema
        .as_ref()
        .and_then(SchemaDecl::value)?
        .into_owned();
    if tool.dialect == SchemaDialect::OpenApi {
        schema = openapi_to_json_schema(schema);
    }
    if tool.strict {
        apply_strict(&mut schema);
    }
    Some(schema)
}

/// Gemini `parameters` (OpenAPI 3.0 subset) to JSON Schema: lower-case types, `nullable`
/// as a `null` type, OpenAPI-only keywords dropped.
pub fn openapi_to_json_schema(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let nullable = map.get("nullable").and_then(Value::as_bool) == Some(true);
            let mut out = Map::new();
            for (key, v) in map {
                match key.as_str() {
                    "nullable" | "propertyOrdering" | "property_ordering" | "example" => {}
                    "type" => {
                        let ty = match v {
                            Value::String(s) => Value::String(s.to_ascii_lowercase()),
                            other => other,
                        };
                        out.insert(key, ty);
                    }
                    // Keyword maps whose keys are property names, not schema keywords.
                    "properties" | "$defs" | "definitions" => {
                        let converted = match v {
                            Value::Object(props) => Value::Object(
                                props
                                    .into_iter()
                                    .map(|(k, s)| (k, openapi_to_json_schema(s)))
                                    .collect(),
                            ),
                            other => other,
                        };
                        out.insert(key, converted);
                    }
                    "enum" | "required" => {
                        out.insert(key, v);
                    }
                    _ => {
                        out.insert(key, openapi_to_json_schema(v));
                    }
                }
            }
            if nullable {
                if let Some(Value::String(ty)) = out.get("type").cloned() {
                    out.insert("type".into(), serde_json::json!([ty, "null"]));
                }
                // In OpenAPI, `nullable` admits null even when an `enum` lists the values.
                if let Some(Value::Array(values)) = out.get_mut("enum") {
                    if !values.contains(&Value::Null) {
                        values.push(Value::Null);
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            Value::Array(items.into_iter().map(openapi_to_json_schema).collect())
        }
        other => other,
    }
}

/// OpenAI `strict: true`: every object allows no extra keys and requires every property,
/// unless the schema says otherwise explicitly.
fn apply_strict(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                let names: Vec<Value> = props.keys().cloned().map(Value::String).collect();
                map.entry("additionalProperties")
                    .or_insert(Value::Bool(false));
                map.entry("required").or_insert(Value::Array(names));
            }
            for (key, child) in map.iter_mut() {
                if key == "properties" || key == "$defs" || key == "definitions" {
                    if let Value::Object(children) = child {
                        children.values_mut().for_each(apply_strict);
                    }
                } else if key != "enum" && key != "const" && key != "required" {
                    apply_strict(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(apply_strict),
        _ => {}
    }
}

/// A hash of a JSON value's structure and content, independent of key order.
/// A fast, fixed-seed hasher: schema keys are hashed on every cache lookup, and SipHash's
/// protection against crafted collisions buys nothing for keys a run compares for equality.
fn schema_hasher() -> impl Hasher {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::default().build_hasher()
}

fn structural_hash(value: &Value) -> u64 {
    let mut hasher = schema_hasher();
    hash_value(value, &mut hasher);
    hasher.finish()
}

fn hash_value(value: &Value, h: &mut impl Hasher) {
    match value {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, b).hash(h),
        Value::Number(n) => {
            2u8.hash(h);
            match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => i.hash(h),
                (None, Some(u)) => u.hash(h),
                _ => n.as_f64().unwrap_or_default().to_bits().hash(h),
            }
        }
        Value::String(s) => (3u8, s).hash(h),
        Value::Array(items) => {
            (4u8, items.len()).hash(h);
            items.iter().for_each(|v| hash_value(v, h));
        }
        Value::Object(map) => {
            // Members hashed apart and summed: the order they are written in does not count.
            let sum = map.iter().fold(0u64, |acc, (k, v)| {
                let mut member = schema_hasher();
                k.hash(&mut member);
                hash_value(v, &mut member);
                acc.wrapping_add(member.finish())
            });
            (5u8, map.len(), sum).hash(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::Loc;
    use serde_json::json;

    fn tool(schema: Value, dialect: SchemaDialect, strict: bool) -> ToolDef {
        ToolDef {
            name: "t".into(),
            schema: Some(SchemaDecl::Value(schema.into())),
            dialect,
            strict,
            builtin: false,
            object_root_required: true,
            loc: Loc::new(0, ""),
            schema_loc: Loc::new(0, ""),
        }
    }

    #[test]
    fn compiles_each_distinct_schema_once() {
        let cache = SchemaCache::default();
        let a = tool(
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            SchemaDialect::JsonSchema,
            false,
        );
        for _ in 0..100 {
            assert!(cache.get(&a).is_some());
        }
        let b = tool(json!({"type": "object"}), SchemaDialect::JsonSchema, false);
        cache.get(&b);
        assert_eq!(cache.len(), 2);
        // The same schema written in another key order is the same entry.
        let a2 = tool(
            json!({"properties": {"a": {"type": "string"}}, "type": "object"}),
            SchemaDialect::JsonSchema,
            false,
        );
        cache.get(&a2);
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn normalises_openapi_types_and_nullable() {
        let schema = openapi_to_json_schema(json!({
            "type": "OBJECT",
            "properties": {"type": {"type": "STRING", "nullable": true}, "n": {"type": "INTEGER"},
                           "u": {"type": "STRING", "enum": ["c", "f"], "nullable": true}},
            "propertyOrdering": ["type", "n"],
            "required": ["n"]
        }));
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {"type": {"type": ["string", "null"]}, "n": {"type": "integer"},
                               "u": {"type": ["string", "null"], "enum": ["c", "f", null]}},
                "required": ["n"]
            })
        );
    }

    #[test]
    fn strict_forbids_extra_keys_and_requires_all() {
        let t = tool(
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "object", "properties": {"c": {"type": "integer"}}}}}),
            SchemaDialect::JsonSchema,
            true,
        );
        let compiled = SchemaCache::default().get(&t).unwrap();
        assert!(compiled
            .violations(&json!({"a": "x", "b": {"c": 1}}))
            .is_empty());
        let v = compiled.violations(&json!({"a": "x", "b": {}, "z": 1}));
        assert_eq!(v.len(), 2, "{v:?}");
    }

    #[test]
    fn reports_meta_schema_problems() {
        let t = tool(
            json!({"type": "object", "properties": {"q": {"type": "strin"}}}),
            SchemaDialect::JsonSchema,
            false,
        );
        let compiled = SchemaCache::default().get(&t).unwrap();
        assert!(compiled
            .meta_problem
            .as_deref()
            .unwrap_or_default()
            .contains("/properties/q/type"));
    }
}
