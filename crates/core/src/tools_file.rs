//! `--tools FILE`: tool definitions supplied by the user, in any provider's shape.
//!
//! Accepted: an OpenAI `tools` array (or legacy `functions`), an Anthropic `tools` array,
//! Gemini `functionDeclarations` (or a `tools` array holding them), a Bedrock `toolConfig`,
//! an MCP `tools/list` result (`{"tools": [{"name", "inputSchema"}]}`, bare or inside a
//! JSON-RPC response), or a whole request that declares tools. Provider shapes are read by
//! the format adapters themselves, so a shape is understood the same way in a log and here.

use crate::format::Format;
use crate::json::Doc;
use crate::transcript::{Loc, ToolDef};
use serde_json::{json, Value as Json};

/// Reads the tool definitions of one `--tools` file.
pub fn load(path: &std::path::Path) -> Result<Vec<ToolDef>, String> {
    // A tools file is a schema list, never a log: a FIFO or a huge file here is a mistake.
    let text = crate::read::read_regular_to_string(path, 64 << 20)?;
    let value: Json = crate::json::parse_value(&text)
        .map_err(|e| format!("not valid JSON: {e} at line {} column {}", e.line, e.column))?;
    let tools = parse(&value)?;
    if tools.is_empty() {
        return Err("it declares no tools".into());
    }
    Ok(tools)
}

/// The tool definitions in a `--tools` document.
pub fn parse(value: &Json) -> Result<Vec<ToolDef>, String> {
    match value {
        Json::Array(items) => parse_array(items),
        Json::Object(map) => {
            if let Some(result) = map.get("result") {
                return parse(result);
            }
            // Bedrock's `toolConfig` holds `tools`; Gemini's holds only calling options.
            if let Some(config) = map.get("toolConfig").filter(|c| c.get("tools").is_some()) {
                return via(
                    Format::BedrockConverse,
                    json!({"messages": [], "toolConfig": config}),
                );
            }
            if map.contains_key("functionDeclarations") || map.contains_key("function_declarations")
            {
                return via(Format::Gemini, json!({"contents": [], "tools": [value]}));
            }
            if let Some(Json::Array(items)) = map.get("tools") {
                return parse_array(items);
            }
            if let Some(Json::Array(items)) = map.get("functions") {
                return via(
                    Format::OpenAiChat,
                    json!({"messages": [], "functions": items}),
                );
            }
            Err("expected a tools array, or an object with `tools`, `functionDeclarations` or `toolConfig`".into())
        }
        _ => Err("expected a JSON array or object of tool definitions".into()),
    }
}

fn parse_array(items: &[Json]) -> Result<Vec<ToolDef>, String> {
    let Some(first) = items.first() else {
        return Ok(Vec::new());
    };
    let has = |key: &str| items.iter().any(|t| t.get(key).is_some());
    if has("function")
        || first.get("type").and_then(Json::as_str) == Some("function") && has("function")
    {
        via(Format::OpenAiChat, json!({"messages": [], "tools": items}))
    } else if has("input_schema") {
        via(Format::Anthropic, json!({"messages": [], "tools": items}))
    } else if has("inputSchema") {
        Ok(mcp_tools(items))
    } else if has("functionDeclarations") || has("function_declarations") {
        via(Format::Gemini, json!({"contents": [], "tools": items}))
    } else if has("toolSpec") {
        via(
            Format::BedrockConverse,
            json!({"messages": [], "toolConfig": {"tools": items}}),
        )
    } else if has("parameters") && upper_case_types(items) {
        via(
            Format::Gemini,
            json!({"contents": [], "tools": [{"functionDeclarations": items}]}),
        )
    } else if has("parameters") {
        via(
            Format::OpenAiChat,
            json!({"messages": [], "functions": items}),
        )
    } else {
        Err("the array's items are not tool definitions of a known shape (`function`, `input_schema`, `inputSchema`, `functionDeclarations` or `toolSpec`)".into())
    }
}

/// Gemini declarations use OpenAPI's upper-case types (`OBJECT`).
fn upper_case_types(items: &[Json]) -> bool {
    items.iter().any(|t| {
        t.pointer("/parameters/type")
            .and_then(Json::as_str)
            .is_some_and(|ty| ty.chars().all(|c| c.is_ascii_uppercase()))
    })
}

/// Reads the tools of a synthetic request with the format's own adapter.
fn via(format: Format, doc: Json) -> Result<Vec<ToolDef>, String> {
    let adapter = format
        .adapter()
        .ok_or_else(|| format!("`{format}` tool definitions are not supported by this build"))?;
    let tree = crate::tree::Value::from_serde(&doc);
    let conversations = adapter.normalise(&[Doc {
        base: 0,
        value: &tree,
    }])?;
    Ok(conversations.into_iter().flat_map(|c| c.tools).collect())
}

/// MCP `tools/list` entries: `{name, description?, inputSchema}`.
fn mcp_tools(items: &[Json]) -> Vec<ToolDef> {
    items
        .iter()
        .enumerate()
        .filter_map(|(i, tool)| {
            let name = tool.get("name")?.as_str()?;
            let loc = Loc::new(0, format!("/tools/{i}"));
            let schema_loc = loc.child("inputSchema");
            Some(ToolDef::declared(
                name,
                tool.get("inputSchema")
                    .map(crate::tree::Value::from_serde)
                    .as_ref(),
                loc,
                schema_loc,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: Json) -> Vec<String> {
        parse(&v)
            .unwrap_or_default()
            .into_iter()
            .map(|t| t.name)
            .collect()
    }

    #[test]
    fn reads_each_shape() {
        let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
        assert_eq!(
            names(json!([{"type": "function", "function": {"name": "a", "parameters": schema}}])),
            ["a"]
        );
        assert_eq!(names(json!([{"name": "b", "input_schema": schema}])), ["b"]);
        assert_eq!(
            names(json!({"tools": [{"name": "c", "inputSchema": schema}]})),
            ["c"]
        );
        assert_eq!(
            names(
                json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "d", "inputSchema": schema}]}})
            ),
            ["d"]
        );
        assert_eq!(
            names(json!({"functions": [{"name": "e", "parameters": schema}]})),
            ["e"]
        );
    }

    #[test]
    fn rejects_what_is_not_tools() {
        assert!(parse(&json!({"name": "pkg"})).is_err());
        assert!(parse(&json!([1, 2])).is_err());
    }
}
