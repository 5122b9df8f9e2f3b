//! `toolcheck tools extract`: the tool definitions recorded in logs and traces, printed as one
//! `--tools` document, so a team can commit the contract its agent runs with and check logs
//! that lack it (traces often record no definitions) against it.

use std::io::Write;

use rayon::prelude::*;
use serde_json::{json, Map, Value as Json};

use crate::cli::{ToolsCommand, ToolsExtractArgs};
use crate::escape;
use crate::format::Format;
use crate::lint::{LintOptions, SourceName, ToolsFound};
use crate::transcript::{SchemaDialect, ToolDef};

use super::output::output_error;
use super::{EXIT_CLEAN, EXIT_ERROR};

pub(super) fn tools_command(command: &ToolsCommand) -> u8 {
    match command {
        ToolsCommand::Extract(args) => extract_command(args),
    }
}

fn extract_command(args: &ToolsExtractArgs) -> u8 {
    let sink = std::sync::Arc::new(ToolsFound::default());
    let opts = LintOptions {
        input_format: args.input_format.as_deref().and_then(Format::from_name),
        tools_found: Some(sink.clone()),
        ..LintOptions::default()
    };
    if args.paths.iter().any(|p| p == "-") {
        eprintln!("error: `tools extract` reads files and folders, not stdin");
        return EXIT_ERROR;
    }
    let walk = crate::discover::WalkOptions {
        excludes: std::sync::Arc::default(),
        no_ignore: false,
        record_skipped: false,
    };
    let found = crate::discover::discover(&args.paths, &walk, None);
    let mut exit = EXIT_CLEAN;
    for error in &found.errors {
        eprintln!(
            "error: {}: {}",
            escape::value(&error.path),
            escape::value(&error.message)
        );
        exit = EXIT_ERROR;
    }
    let failures: Vec<String> = found
        .inputs
        .par_iter()
        .filter_map(|input| {
            // An input that cannot be opened says why, as one that cannot be read does.
            let opened =
                match crate::input::open_input(input, None, crate::read::DEFAULT_MAX_FILE_SIZE) {
                    Ok(opened) => opened,
                    Err(e) => return Some(e.to_string()),
                };
            let name = SourceName {
                name: input.name.clone(),
                path: input.path.clone(),
            };
            crate::input::lint(opened, name, input.explicit, &opts)
                .err()
                .map(|e| e.to_string())
        })
        .collect();
    for message in failures {
        eprintln!("error: {}", escape::value(&message));
        exit = EXIT_ERROR;
    }
    let mut found = sink.take();
    // Files are read in parallel: file order, then the order read within each file.
    found.sort_by(|a, b| a.0.cmp(&b.0));
    let (document, notes) = document(&found);
    for note in notes {
        eprintln!("warning: {}", escape::value(&note));
    }
    let Some(document) = document else {
        eprintln!("error: no tool definitions found");
        return EXIT_ERROR;
    };
    let mut out = crate::stdout::stdout();
    let text = serde_json::to_string_pretty(&document).unwrap_or_default();
    if let Err(e) = writeln!(out, "{text}").and_then(|()| out.flush()) {
        return output_error(&e);
    }
    exit
}

/// The `--tools` document for the definitions found (first definition of each name), and
/// what the user should know: names defined differently elsewhere, definitions left out.
fn document(found: &[(String, ToolDef)]) -> (Option<Json>, Vec<String>) {
    let mut notes = Vec::new();
    let mut kept: Vec<(&str, &ToolDef, Json)> = Vec::new();
    for (file, tool) in found {
        if tool.builtin {
            continue;
        }
        let schema = tool
            .schema
            .as_ref()
            .and_then(|s| s.value())
            .map(|v| v.into_owned());
        match kept.iter().find(|(_, k, _)| k.name == tool.name) {
            Some((first, _, kept_schema)) => {
                let same = schema.as_ref().unwrap_or(&Json::Null) == kept_schema;
                if !same
                    && !notes
                        .iter()
                        .any(|n: &String| n.starts_with(&format!("tool `{}`", tool.name)))
                {
                    notes.push(format!(
                        "tool `{}` is defined differently in {file} than in {first}; the first is kept",
                        tool.name
                    ));
                }
            }
            None => kept.push((file, tool, schema.unwrap_or(Json::Null))),
        }
    }
    let openapi = kept
        .iter()
        .any(|(_, t, _)| t.dialect == SchemaDialect::OpenApi);
    if kept.is_empty() {
        return (None, notes);
    }
    if openapi {
        // Gemini's OpenAPI schemas only fit Gemini's shape, which also holds JSON Schemas
        // (`parametersJsonSchema`): one document for both.
        let strict = kept.iter().filter(|(_, t, _)| t.strict).count();
        if strict > 0 {
            notes.push(format!(
                "{strict} OpenAI `strict` {} dropped: the definitions are written in Gemini's shape, which has none",
                if strict == 1 { "flag" } else { "flags" }
            ));
        }
        let declarations: Vec<Json> = kept
            .iter()
            .map(|(_, t, schema)| {
                let key = match t.dialect {
                    SchemaDialect::OpenApi => "parameters",
                    SchemaDialect::JsonSchema => "parametersJsonSchema",
                };
                declaration(&t.name, key, schema, false)
            })
            .collect();
        return (
            Some(json!([{ "functionDeclarations": declarations }])),
            notes,
        );
    }
    let tools: Vec<Json> = kept
        .iter()
        .map(|(_, t, schema)| {
            json!({
                "type": "function",
                "function": declaration(&t.name, "parameters", schema, t.strict),
            })
        })
        .collect();
    (Some(json!({ "tools": tools })), notes)
}

fn declaration(name: &str, key: &str, schema: &Json, strict: bool) -> Json {
    let mut map = Map::new();
    map.insert("name".into(), Json::String(name.to_string()));
    if !schema.is_null() {
        map.insert(key.into(), schema.clone());
    }
    if strict {
        map.insert("strict".into(), Json::Bool(true));
    }
    Json::Object(map)
}
