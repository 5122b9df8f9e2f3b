//! `toolcheck server`: a language server over stdio. Open and changed `.json`, `.jsonl` and
//! `.ndjson` documents are linted with the settings `lint` would use for their path (the
//! nearest config file), and get the same findings as diagnostics; the fixes of the findings
//! under the cursor are code actions (safe ones preferred quick fixes, unsafe ones said so);
//! hovering a finding shows its rule's documentation. A document toolcheck does not recognise
//! as a conversation gets no diagnostics and no work beyond detecting that.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{CodeActionRequest, HoverRequest, Request as _};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams,
    CodeActionProviderCapability, Diagnostic as LspDiagnostic, DiagnosticSeverity,
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams, Hover,
    HoverContents, HoverParams, HoverProviderCapability, MarkupContent, MarkupKind, NumberOrString,
    Position, PublishDiagnosticsParams, Range, ServerCapabilities, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextEdit, Uri, WorkspaceEdit,
};

use crate::diagnostic::Diagnostic;
use crate::finding::{Applicability, Severity};
use crate::lint::{lint_bytes, Outcome, SourceName};
use crate::settings::Resolver;

use super::output::usage_error;
use super::{EXIT_CLEAN, EXIT_ERROR};

/// An open document: its text, and what the last lint found in it.
struct Document {
    text: String,
    diagnostics: Vec<Diagnostic>,
}

struct Server<'a> {
    connection: &'a Connection,
    resolver: Resolver<'a>,
    documents: HashMap<String, Document>,
}

pub(super) fn server_command() -> u8 {
    // The settings of a plain `toolcheck lint`: config files are found per document.
    let common = match crate::cli::Cli::try_parse_lint_defaults() {
        Ok(common) => common,
        Err(e) => return usage_error(&e),
    };
    let resolver = match Resolver::new(&common, None) {
        Ok(resolver) => resolver,
        Err(e) => return usage_error(&e),
    };
    let (connection, io_threads) = Connection::stdio();
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        ..ServerCapabilities::default()
    };
    let result = serde_json::to_value(capabilities)
        .map_err(|e| e.to_string())
        .and_then(|caps| connection.initialize(caps).map_err(|e| e.to_string()))
        .and_then(|_| {
            let mut server = Server {
                connection: &connection,
                resolver,
                documents: HashMap::new(),
            };
            server.run()
        });
    // Dropping the connection closes the writer, so the I/O threads can end.
    drop(connection);
    let joined = io_threads.join().map_err(|e| e.to_string());
    match result.and(joined) {
        Ok(()) => EXIT_CLEAN,
        Err(e) => {
            eprintln!("toolcheck server: {}", crate::escape::value(&e));
            EXIT_ERROR
        }
    }
}

impl Server<'_> {
    fn run(&mut self) -> Result<(), String> {
        for message in &self.connection.receiver {
            match message {
                Message::Request(request) => {
                    if self
                        .connection
                        .handle_shutdown(&request)
                        .map_err(|e| e.to_string())?
                    {
                        return Ok(());
                    }
                    let response = self.respond(request);
                    self.send(Message::Response(response))?;
                }
                Message::Notification(notification) => self.notified(notification)?,
                Message::Response(_) => {}
            }
        }
        Ok(())
    }

    fn send(&self, message: Message) -> Result<(), String> {
        self.connection
            .sender
            .send(message)
            .map_err(|e| e.to_string())
    }

    fn respond(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        let result = match request.method.as_str() {
            CodeActionRequest::METHOD => serde_json::from_value::<CodeActionParams>(request.params)
                .map_err(|e| e.to_string())
                .and_then(|p| to_json(self.code_actions(&p))),
            HoverRequest::METHOD => serde_json::from_value::<HoverParams>(request.params)
                .map_err(|e| e.to_string())
                .and_then(|p| to_json(self.hover(&p))),
            other => return method_not_found(id, other),
        };
        match result {
            Ok(value) => Response::new_ok(id, value),
            Err(e) => Response::new_err(id, lsp_server::ErrorCode::InvalidParams as i32, e),
        }
    }

    fn notified(&mut self, notification: Notification) -> Result<(), String> {
        match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<DidOpenTextDocumentParams>(notification.params)
                {
                    self.changed(p.text_document.uri, p.text_document.text)?;
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<DidChangeTextDocumentParams>(notification.params)
                {
                    // Full synchronisation: the last change is the whole text.
                    if let Some(change) = p.content_changes.into_iter().last() {
                        self.changed(p.text_document.uri, change.text)?;
                    }
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<DidCloseTextDocumentParams>(notification.params)
                {
                    self.documents.remove(p.text_document.uri.as_str());
                    self.publish(p.text_document.uri, Vec::new())?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Lints a document's new text and publishes what it found.
    fn changed(&mut self, uri: Uri, text: String) -> Result<(), String> {
        let Some(path) = file_path(&uri).filter(|p| is_checked_extension(p)) else {
            return Ok(());
        };
        let diagnostics = match self.resolver.for_input(Some(&path)) {
            Ok(settings) => {
                let name = SourceName {
                    name: path.display().to_string(),
                    path: Some(path.clone()),
                };
                // As in a directory walk: a document that is no conversation is passed over,
                // not reported as an unknown format.
                let report = lint_bytes(name, text.clone().into_bytes(), false, &settings.opts);
                if matches!(report.outcome, Outcome::Skipped(_)) {
                    Vec::new()
                } else {
                    let mut placed = crate::diagnostic::place_all(&report.source, report.findings);
                    settings.filter(Some(&path), &mut placed);
                    placed
                }
            }
            // A broken config file: said once, on the document, as the command line says it.
            Err(e) => {
                self.show_error(&e)?;
                Vec::new()
            }
        };
        let lsp = diagnostics.iter().map(|d| to_lsp(&text, d)).collect();
        self.documents
            .insert(uri.as_str().to_string(), Document { text, diagnostics });
        self.publish(uri, lsp)
    }

    fn publish(&self, uri: Uri, diagnostics: Vec<LspDiagnostic>) -> Result<(), String> {
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version: None,
        };
        self.send(Message::Notification(Notification::new(
            PublishDiagnostics::METHOD.to_string(),
            params,
        )))
    }

    fn show_error(&self, message: &str) -> Result<(), String> {
        self.send(Message::Notification(Notification::new(
            "window/showMessage".to_string(),
            serde_json::json!({"type": 1, "message": format!("toolcheck: {message}")}),
        )))
    }

    /// The fixes of the findings that overlap the requested range.
    fn code_actions(&self, params: &CodeActionParams) -> Vec<CodeActionOrCommand> {
        let Some(doc) = self.documents.get(params.text_document.uri.as_str()) else {
            return Vec::new();
        };
        let mut actions = Vec::new();
        for d in &doc.diagnostics {
            let range = lsp_range(&doc.text, d.start, d.end);
            if !overlaps(range, params.range) {
                continue;
            }
            let Some(fix) = &d.fix else {
                continue;
            };
            let safe = fix.applicability == Applicability::Safe;
            let edits: Vec<TextEdit> = fix
                .edits
                .iter()
                .map(|e| TextEdit {
                    range: lsp_range(&doc.text, e.start, e.end),
                    new_text: e.content.clone(),
                })
                .collect();
            // lsp-types keys edits by `Uri`, whose interior cell is a parse cache that does
            // not take part in hashing or equality.
            #[allow(clippy::mutable_key_type)]
            let mut changes = HashMap::new();
            changes.insert(params.text_document.uri.clone(), edits);
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: if safe {
                    format!("{} ({})", fix.message, d.code)
                } else {
                    format!("{} ({}, unsafe: review it)", fix.message, d.code)
                },
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![to_lsp(&doc.text, d)]),
                edit: Some(WorkspaceEdit {
                    changes: Some(changes),
                    ..WorkspaceEdit::default()
                }),
                is_preferred: Some(safe),
                ..CodeAction::default()
            }));
        }
        actions
    }

    /// The documentation of the rules of the findings under the cursor.
    fn hover(&self, params: &HoverParams) -> Option<Hover> {
        let at = &params.text_document_position_params;
        let doc = self.documents.get(at.text_document.uri.as_str())?;
        let here = Range {
            start: at.position,
            end: at.position,
        };
        let mut pages: Vec<String> = Vec::new();
        for d in &doc.diagnostics {
            if !overlaps(lsp_range(&doc.text, d.start, d.end), here) {
                continue;
            }
            let Some(rule) = crate::rules::find(d.code) else {
                continue;
            };
            let m = rule.meta();
            let page = format!(
                "**{}** `{}` ({}; fix: {})\n\n{}",
                m.name,
                m.code,
                m.severity.as_str(),
                m.fix.as_str(),
                m.documentation()
            );
            if !pages.contains(&page) {
                pages.push(page);
            }
        }
        (!pages.is_empty()).then(|| Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: pages.join("\n\n---\n\n"),
            }),
            range: None,
        })
    }
}

fn to_json<T: serde::Serialize>(value: T) -> Result<serde_json::Value, String> {
    serde_json::to_value(value).map_err(|e| e.to_string())
}

fn method_not_found(id: RequestId, method: &str) -> Response {
    Response::new_err(
        id,
        lsp_server::ErrorCode::MethodNotFound as i32,
        format!("toolcheck server does not handle {method}"),
    )
}

/// A finding as an LSP diagnostic, in the document's UTF-16 positions.
fn to_lsp(text: &str, d: &Diagnostic) -> LspDiagnostic {
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    LspDiagnostic {
        range: lsp_range(text, d.start, d.end),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("toolcheck".to_string()),
        message: format!("{message} [{}]", d.rule),
        ..LspDiagnostic::default()
    }
}

/// Byte offsets as an LSP range: lines, and columns in UTF-16 code units (the protocol's
/// default encoding).
fn lsp_range(text: &str, start: usize, end: usize) -> Range {
    Range {
        start: position(text, start),
        end: position(text, end.max(start)),
    }
}

fn position(text: &str, offset: usize) -> Position {
    // Back to a character boundary, should an offset land inside one.
    let offset = crate::source::floor_char_boundary(text, offset);
    let before = text.get(..offset).unwrap_or_default();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count();
    let column: usize = before
        .get(line_start..)
        .unwrap_or_default()
        .chars()
        .map(char::len_utf16)
        .sum();
    Position {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        character: u32::try_from(column).unwrap_or(u32::MAX),
    }
}

fn overlaps(a: Range, b: Range) -> bool {
    let key = |p: Position| (p.line, p.character);
    key(a.start) <= key(b.end) && key(b.start) <= key(a.end)
}

fn is_checked_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "json" | "jsonl" | "ndjson"))
}

/// The file a `file:` URI names (documents of other schemes, unsaved buffers, are not
/// linted: settings are found by path).
fn file_path(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file://host/path`: only the local host.
    let path = match rest.strip_prefix("localhost") {
        Some(p) => p,
        None => rest,
    };
    if !path.starts_with('/') {
        return None;
    }
    let decoded = percent_encoding::percent_decode_str(path)
        .decode_utf8()
        .ok()?
        .into_owned();
    // `file:///C:/x` on Windows is `C:/x`.
    if cfg!(windows) {
        let trimmed = decoded.trim_start_matches('/');
        if trimmed.get(1..2) == Some(":") {
            return Some(PathBuf::from(trimmed));
        }
    }
    Some(PathBuf::from(decoded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_from_the_line_start() {
        let text = "{\n  \"a\": \"é😀x\"\n}";
        let x = text.find('x').expect("x");
        assert_eq!(
            position(text, x),
            Position {
                line: 1,
                character: 11
            }
        );
        assert_eq!(position(text, 0), Position::default());
        assert_eq!(position(text, text.len() + 10).line, 2);
    }

    #[test]
    fn file_uris_become_paths() {
        let uri: Uri = "file:///tmp/my%20logs/a.json".parse().expect("uri");
        assert_eq!(file_path(&uri), Some(PathBuf::from("/tmp/my logs/a.json")));
        let untitled: Uri = "untitled:Untitled-1".parse().expect("uri");
        assert_eq!(file_path(&untitled), None);
    }
}
