use super::{declare_rule, Context, Rule, RuleMeta};
use crate::finding::{quote, Applicability, Finding, FixIntent};
use crate::transcript::{Conversation, SchemaDecl, SchemaDialect};
use serde_json::Value as Json;

declare_rule! {
    /// ## What it does
    /// Reports a declared tool whose schema is not usable: a JSON-encoded string instead of
    /// an object (double-encoded), not a valid JSON Schema (checked against its meta-schema,
    /// and compiled), or a root that is not an object type where the provider requires one.
    /// The finding points at the tool definition's schema. A schema beyond toolcheck's size or
    /// `$ref` depth limits is not compiled and not called invalid: `input-not-checked` reports
    /// it. A Gemini schema whose `type` is written as its protobuf enum number (`6` for OBJECT,
    /// `1` for STRING), which protobuf's JSON mapping allows and Vertex AI accepts (HTTP 200),
    /// is read as that type.
    ///
    /// ## Why it matters
    /// A schema passed as a string, or one the provider cannot read, means the model never
    /// sees the tool's parameters: it calls the tool with empty or invented arguments, or the
    /// provider rejects the request (`input_schema.type: Input should be 'object'`).
    ///
    /// ## Example
    /// ```json
    /// {"tools": [{"name": "bash", "input_schema":
    ///   "{\"type\": \"object\", \"properties\": {\"command\": {\"type\": \"string\"}}}"}]}
    /// ```
    ///
    /// ## Fix
    /// Safe for the double-encoded case: decode the string one level. None otherwise.
    pub struct InvalidToolSchema {
        code: "TC303",
        name: "invalid-tool-schema",
        severity: Error,
        fix: Sometimes,
        summary: "a tool's schema is not valid JSON Schema, is a JSON-encoded string, or its root is not an object",
    }
}

impl Rule for InvalidToolSchema {
    fn meta(&self) -> &'static RuleMeta {
        &Self::META
    }

    fn check(&self, cx: &Context<'_>, conv: &Conversation, out: &mut Vec<Finding>) {
        for tool in &conv.tools {
            let Some(decl) = &tool.schema else {
                continue;
            };
            // The decoded schema text, when the declaration is a string holding an object
            // (compacted if multi-line, so a JSONL record stays one line).
            let decode = match decl {
                SchemaDecl::Encoded(text) => serde_json::from_str::<Json>(text)
                    .ok()
                    .filter(Json::is_object)
                    .map(|v| {
                        if text.contains('\n') {
                            v.to_string()
                        } else {
                            text.clone()
                        }
                    }),
                SchemaDecl::Value(_) => None,
            };
            let problem = match decl {
                SchemaDecl::Encoded(text) if decode.is_some() => Some((
                    format!(
                        "schema of tool `{}` is a JSON-encoded string, not an object: {}",
                        tool.name,
                        quote(text, 60)
                    ),
                    "decode the string one level, so the schema is the object itself",
                )),
                SchemaDecl::Encoded(text) => Some((
                    format!(
                        "schema of tool `{}` is a string, not a JSON Schema object: {}",
                        tool.name,
                        quote(text, 60)
                    ),
                    "declare the parameters as a JSON Schema object",
                )),
                SchemaDecl::Value(value) => root_problem(tool.name.as_str(), value, tool.object_root_required, tool.dialect)
                    .map(|m| (m, "the parameters schema must be an object schema: `{\"type\": \"object\", \"properties\": {...}}`"))
                    .or_else(|| {
                        // A schema beyond toolcheck's limits is unchecked, not invalid:
                        // `input-not-checked` reports it.
                        let detail = cx.compiled(tool)?.invalid.clone()?;
                        Some((
                            format!("schema of tool `{}` is not a valid JSON Schema: {detail}", tool.name),
                            "correct the schema; providers reject or silently drop schemas they cannot read",
                        ))
                    }),
            };
            if let Some((message, help)) = problem {
                let mut finding = Finding::at(&Self::META, &tool.schema_loc, message).help(help);
                if let Some(text) = decode {
                    finding = finding.fix(
                        Applicability::Safe,
                        "decode the schema one level",
                        FixIntent::Replace {
                            at: tool.schema_loc.clone(),
                            text,
                        },
                    );
                }
                out.push(finding);
            }
        }
    }
}

fn root_problem(
    name: &str,
    schema: &Json,
    object_required: bool,
    dialect: SchemaDialect,
) -> Option<String> {
    let Json::Object(map) = schema else {
        return Some(format!(
            "schema of tool `{name}` is {}, not an object schema",
            super::json_kind(schema)
        ));
    };
    if !object_required {
        return None;
    }
    // Gemini's `Type` enum may be written as its protobuf number (`6` is OBJECT).
    let numbered = match map.get("type") {
        Some(Json::Number(n)) if dialect == SchemaDialect::OpenApi => n
            .as_u64()
            .and_then(crate::schema::openapi_type_number)
            .map(|name| Json::String(name.into())),
        _ => None,
    };
    match numbered.as_ref().or(map.get("type")) {
        Some(Json::String(ty)) if ty.eq_ignore_ascii_case("object") => None,
        Some(Json::String(ty)) if dialect == SchemaDialect::OpenApi || ty == &ty.to_ascii_lowercase() => Some(format!(
            "schema of tool `{name}` has root type \"{ty}\"; tool parameters must be an object"
        )),
        Some(other @ (Json::String(_) | Json::Array(_))) => Some(format!(
            "schema of tool `{name}` has root type {other}; tool parameters must be the single type \"object\""
        )),
        _ => None,
    }
}
