//! `toolcheck server`: a language server over stdio. Open and changed `.json`, `.jsonl` and
//! `.ndjson` documents are linted with the settings `lint` would use for their path (the
//! nearest config file), and get the same findings as diagnostics; the fixes of the findings
//! under the cursor are code actions (safe ones preferred quick fixes, unsafe ones said so);
//! hovering a finding shows its rule's documentation. A document toolcheck does not recognise
//! as a conversation gets no diagnostics and no work beyond detecting that.

use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

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

/// The largest message body the server reads. A frame declares its size before its body,
/// and lsp-server's own reader allocates whatever is declared: one `Content-Length:
/// 100000000000` aborted the process. Editors stop syncing documents to language servers
/// well below this (VS Code at 50 MB), and escaping a JSON text inside the frame's JSON can
/// nearly double it: 128 MiB leaves that room.
const MAX_FRAME: u64 = 128 << 20;

/// The longest header line read: headers are a name and a number, and a line without end
/// must not grow a buffer without end either.
const MAX_HEADER_LINE: u64 = 1024;

/// An open document at the version last linted: its text and line index, what the lint
/// found in it, and those findings as published (their ranges answer code actions and
/// hovers without placing anything again).
struct Document {
    text: String,
    lines: LineIndex,
    diagnostics: Vec<Diagnostic>,
    published: Vec<LspDiagnostic>,
}

/// A document's newest text, not linted yet: edits queued behind each other are linted
/// once, at the last of them.
struct Pending {
    uri: Uri,
    version: i32,
    text: String,
}

struct Server<'a> {
    connection: &'a Connection,
    resolver: Resolver<'a>,
    documents: HashMap<String, Document>,
    /// In the order the documents first changed, so publishes keep the client's order.
    pending: Vec<Pending>,
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
    // Frames are read here rather than by `Connection::stdio()`, whose reader trusts every
    // declared size; lsp-server gets the messages over its in-memory channels.
    let (connection, client) = Connection::memory();
    let Connection {
        sender: to_server,
        receiver: from_server,
    } = client;
    // The reader's error, set before it hangs up: the server then sees a closed channel, and
    // this is what to report instead.
    let read_failure: Arc<OnceLock<String>> = Arc::default();
    let failure = Arc::clone(&read_failure);
    let reader = std::thread::Builder::new()
        .name("toolcheck-server-reader".to_string())
        .spawn(move || {
            let read = read_messages(&mut std::io::stdin().lock(), |m| to_server.send(m).is_ok());
            if let Err(e) = &read {
                let _ = failure.set(e.clone());
            }
            drop(to_server);
            read
        });
    let writer = std::thread::Builder::new()
        .name("toolcheck-server-writer".to_string())
        .spawn(move || {
            let mut out = std::io::stdout().lock();
            from_server
                .iter()
                .try_for_each(|m| m.write(&mut out))
                .map_err(|e| format!("cannot write to the client: {e}"))
        });
    let (reader, writer) = match (reader, writer) {
        (Ok(reader), Ok(writer)) => (reader, writer),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("toolcheck server: cannot start a thread: {e}");
            return EXIT_ERROR;
        }
    };
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        ..ServerCapabilities::default()
    };
    let served = serde_json::to_value(capabilities)
        .map_err(|e| e.to_string())
        .and_then(|caps| connection.initialize(caps).map_err(|e| e.to_string()))
        .and_then(|_| {
            let mut server = Server {
                connection: &connection,
                resolver,
                documents: HashMap::new(),
                pending: Vec::new(),
            };
            server.run()
        });
    // Dropping the connection ends the writer once it has written what is queued.
    drop(connection);
    let wrote = join(writer);
    let outcome = match read_failure.get() {
        Some(e) => Err(e.clone()),
        // A session that ended well ended at `exit` or at the end of the input, where the
        // reader stops too; after an error it may still be waiting on stdin, and is left.
        None => served.and_then(|()| join(reader)).and(wrote),
    };
    match outcome {
        Ok(()) => EXIT_CLEAN,
        Err(e) => {
            eprintln!("toolcheck server: {}", crate::escape::value(&shortened(&e)));
            EXIT_ERROR
        }
    }
}

/// An error cut to its first [`MAX_ERROR_CHARS`]: lsp-server's protocol errors quote the
/// message they did not expect, which can hold a whole document.
fn shortened(error: &str) -> std::borrow::Cow<'_, str> {
    match error.char_indices().nth(MAX_ERROR_CHARS) {
        Some((cut, _)) => format!("{}…", error.get(..cut).unwrap_or_default()).into(),
        None => error.into(),
    }
}

const MAX_ERROR_CHARS: usize = 500;

fn join(thread: std::thread::JoinHandle<Result<(), String>>) -> Result<(), String> {
    thread
        .join()
        .unwrap_or_else(|_| Err("an I/O thread panicked".to_string()))
}

/// Reads LSP frames from `input` and hands each message to `deliver` (false: nobody is
/// listening any more) until the input ends or after `exit`.
fn read_messages(
    input: &mut impl BufRead,
    mut deliver: impl FnMut(Message) -> bool,
) -> Result<(), String> {
    while let Some(message) = read_frame(input)? {
        let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
        if !deliver(message) || exit {
            break;
        }
    }
    Ok(())
}

/// One frame: `Content-Length: N` (other headers are ignored), a blank line, N bytes of
/// JSON. `None` at the end of the input between frames. The size is checked before anything
/// is allocated for it, and the body is read only as far as it arrives.
fn read_frame(input: &mut impl BufRead) -> Result<Option<Message>, String> {
    let mut length = None;
    let mut line = Vec::new();
    let mut first = true;
    loop {
        line.clear();
        input
            .by_ref()
            .take(MAX_HEADER_LINE + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| format!("cannot read a message header: {e}"))?;
        if line.is_empty() && first {
            return Ok(None);
        }
        first = false;
        let Some(header) = line.strip_suffix(b"\r\n") else {
            let shown = String::from_utf8_lossy(line.get(..64).unwrap_or(&line));
            return Err(if line.is_empty() {
                "the input ended inside a message header".to_string()
            } else if line.len() as u64 > MAX_HEADER_LINE {
                format!("a message header is longer than {MAX_HEADER_LINE} bytes: {shown:?}…")
            } else {
                format!("malformed message header {shown:?}: headers end with \\r\\n")
            });
        };
        if header.is_empty() {
            break;
        }
        let text = String::from_utf8_lossy(header);
        let Some((name, value)) = text.split_once(':') else {
            return Err(format!(
                "malformed message header {text:?}: no `name: value`"
            ));
        };
        if name.trim().eq_ignore_ascii_case("Content-Length") {
            length = Some(content_length(value.trim())?);
        }
    }
    let Some(length) = length else {
        return Err("a message has no Content-Length header".to_string());
    };
    // Capacity for what is declared is bounded by now; the body is read as it comes.
    let mut body = Vec::with_capacity(usize::try_from(length).unwrap_or(0));
    input
        .by_ref()
        .take(length)
        .read_to_end(&mut body)
        .map_err(|e| format!("cannot read a message: {e}"))?;
    if (body.len() as u64) < length {
        return Err(format!(
            "the input ended inside a message ({} of its {length} bytes)",
            body.len()
        ));
    }
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| format!("malformed message (not a JSON-RPC message): {e}"))
}

/// A Content-Length value, within [`MAX_FRAME`].
fn content_length(value: &str) -> Result<u64, String> {
    let too_big = || {
        format!(
            "a message declares Content-Length: {value}, over the limit of {} MiB",
            MAX_FRAME >> 20
        )
    };
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "malformed Content-Length header {value:?}: not a number"
        ));
    }
    // All digits: a value too long for a u64 is too big as well.
    let length: u64 = value.parse().map_err(|_| too_big())?;
    if length > MAX_FRAME {
        return Err(too_big());
    }
    Ok(length)
}

impl Server<'_> {
    fn run(&mut self) -> Result<(), String> {
        while let Ok(message) = self.connection.receiver.recv() {
            // What is queued behind a notification is taken with it, up to and including
            // the next request: edits of a document made while it was being linted are
            // linted once, at their newest text, and a request is answered after every
            // message before it, as it was sent.
            let mut batch = vec![message];
            while !matches!(batch.last(), Some(Message::Request(_))) {
                match self.connection.receiver.try_recv() {
                    Ok(next) => batch.push(next),
                    Err(_) => break,
                }
            }
            let mut request = None;
            for message in batch {
                match message {
                    Message::Request(r) => request = Some(r),
                    Message::Notification(notification) => self.notified(notification)?,
                    Message::Response(_) => {}
                }
            }
            self.lint_pending()?;
            let Some(request) = request else {
                continue;
            };
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

    /// A document notification: opened and changed texts wait in `pending` for
    /// [`Server::lint_pending`]; a closed document's diagnostics are cleared at once.
    fn notified(&mut self, notification: Notification) -> Result<(), String> {
        match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<DidOpenTextDocumentParams>(notification.params)
                {
                    let doc = p.text_document;
                    self.changed(doc.uri, doc.version, doc.text);
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<DidChangeTextDocumentParams>(notification.params)
                {
                    // Full synchronisation: the last change is the whole text.
                    if let Some(change) = p.content_changes.into_iter().last() {
                        let doc = p.text_document;
                        self.changed(doc.uri, doc.version, change.text);
                    }
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<DidCloseTextDocumentParams>(notification.params)
                {
                    let uri = p.text_document.uri;
                    self.pending.retain(|q| q.uri != uri);
                    self.documents.remove(uri.as_str());
                    self.publish(uri, None, Vec::new())?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Records a document's new text; a text still waiting for its lint is replaced.
    fn changed(&mut self, uri: Uri, version: i32, text: String) {
        match self.pending.iter_mut().find(|q| q.uri == uri) {
            Some(queued) => {
                queued.version = version;
                queued.text = text;
            }
            None => self.pending.push(Pending { uri, version, text }),
        }
    }

    fn lint_pending(&mut self) -> Result<(), String> {
        for Pending { uri, version, text } in std::mem::take(&mut self.pending) {
            self.lint(uri, version, text)?;
        }
        Ok(())
    }

    /// Lints a document's text and publishes what it found.
    fn lint(&mut self, uri: Uri, version: i32, text: String) -> Result<(), String> {
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
        let lines = LineIndex::new(&text);
        let published: Vec<LspDiagnostic> = diagnostics
            .iter()
            .map(|d| to_lsp(&lines, &text, d))
            .collect();
        self.publish(uri.clone(), Some(version), published.clone())?;
        self.documents.insert(
            uri.as_str().to_string(),
            Document {
                text,
                lines,
                diagnostics,
                published,
            },
        );
        Ok(())
    }

    fn publish(
        &self,
        uri: Uri,
        version: Option<i32>,
        diagnostics: Vec<LspDiagnostic>,
    ) -> Result<(), String> {
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
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
        for (d, published) in doc.diagnostics.iter().zip(&doc.published) {
            if !overlaps(published.range, params.range) {
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
                    range: doc.lines.range(&doc.text, e.start, e.end),
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
                diagnostics: Some(vec![published.clone()]),
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
        for (d, published) in doc.diagnostics.iter().zip(&doc.published) {
            if !overlaps(published.range, here) {
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
fn to_lsp(lines: &LineIndex, text: &str, d: &Diagnostic) -> LspDiagnostic {
    let mut message = d.message.clone();
    // A finding in a trace names its span, as the concise line does.
    message.push_str(&d.span_suffix());
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    LspDiagnostic {
        range: lines.range(text, d.start, d.end),
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

/// How far apart [`LineIndex`]'s column checkpoints are, in bytes: a position counts at most
/// this much text, and the checkpoints of a 7 MB document take 110 KB.
const CHECKPOINT_BYTES: usize = 1024;

/// Byte offsets → LSP positions (lines, and columns in UTF-16 code units: the protocol's
/// default encoding) for one version of a document. Built once per version: finding each
/// position by rescanning the text made publishing 20,000 findings take a minute. Lines
/// break at `\n` only, as everywhere in toolcheck (a `\r` before it ends its line's columns).
struct LineIndex {
    /// Where each line starts.
    starts: Vec<usize>,
    /// A byte offset every [`CHECKPOINT_BYTES`] or so (on a char boundary) and its column:
    /// a compact JSON document is one line, and counting from the line's start would make
    /// each position cost the line up to it.
    checkpoints: Vec<(usize, usize)>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        let mut checkpoints = Vec::with_capacity(text.len() / CHECKPOINT_BYTES);
        let (mut at, mut column) = (0, 0);
        loop {
            let next = crate::source::ceil_char_boundary(text, at + CHECKPOINT_BYTES);
            if next >= text.len() {
                break;
            }
            let chunk = text.get(at..next).unwrap_or_default();
            column = match memchr::memrchr(b'\n', chunk.as_bytes()) {
                Some(i) => utf16_len(chunk.get(i + 1..).unwrap_or_default()),
                None => column + utf16_len(chunk),
            };
            checkpoints.push((next, column));
            at = next;
        }
        LineIndex {
            starts: crate::source::line_starts(text),
            checkpoints,
        }
    }

    /// Byte offsets as an LSP range; an end before the start is the start.
    fn range(&self, text: &str, start: usize, end: usize) -> Range {
        Range {
            start: self.position(text, start),
            end: self.position(text, end.max(start)),
        }
    }

    /// The position of a byte offset of `text` (the text this index was built for). An
    /// offset inside a character counts as that character, one past the end as the end.
    fn position(&self, text: &str, offset: usize) -> Position {
        let offset = crate::source::floor_char_boundary(text, offset);
        let line = crate::source::line_index(&self.starts, offset);
        let line_start = self.starts.get(line).copied().unwrap_or(0);
        // The last checkpoint at or before the offset, if it is on the offset's line.
        let nearest = self.checkpoints.partition_point(|&(at, _)| at <= offset);
        let (from, column) = match nearest.checked_sub(1).and_then(|i| self.checkpoints.get(i)) {
            Some(&(at, column)) if at >= line_start => (at, column),
            _ => (line_start, 0),
        };
        let column = column + utf16_len(text.get(from..offset).unwrap_or_default());
        Position {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            character: u32::try_from(column).unwrap_or(u32::MAX),
        }
    }
}

/// UTF-16 code units of a text: one per character, two for one outside the Basic
/// Multilingual Plane. Counted on bytes (a character's first byte, and the lead byte of a
/// four-byte sequence once more), which the compiler vectorises.
fn utf16_len(text: &str) -> usize {
    text.bytes()
        .map(|b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
        .sum()
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

    fn position(text: &str, offset: usize) -> Position {
        LineIndex::new(text).position(text, offset)
    }

    /// What the index must agree with: the line and UTF-16 column counted from the text's
    /// start (the server's former way).
    fn rescanned(text: &str, offset: usize) -> Position {
        let offset = crate::source::floor_char_boundary(text, offset);
        let before = text.get(..offset).unwrap_or_default();
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column: usize = before
            .get(line_start..)
            .unwrap_or_default()
            .chars()
            .map(char::len_utf16)
            .sum();
        Position {
            line: u32::try_from(before.matches('\n').count()).unwrap_or(u32::MAX),
            character: u32::try_from(column).unwrap_or(u32::MAX),
        }
    }

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
    fn line_index_positions() {
        let at = |line, character| Position { line, character };
        // ASCII: columns are bytes.
        let ascii = "ab\ncd";
        assert_eq!(position(ascii, 1), at(0, 1));
        assert_eq!(position(ascii, 3), at(1, 0));
        // Two- and three-byte characters are one unit each; an offset inside one is it.
        let multi = "é€x";
        assert_eq!(position(multi, 2), at(0, 1));
        assert_eq!(position(multi, 5), at(0, 2));
        assert_eq!(position(multi, 4), at(0, 1));
        // A character outside the BMP is two units.
        let astral = "😀x\n😀😀y";
        assert_eq!(position(astral, 4), at(0, 2));
        assert_eq!(position(astral, astral.len() - 1), at(1, 4));
        // CRLF: the `\r` is the line's last column, the next line starts after the `\n`.
        let crlf = "ab\r\ncd\r\n";
        assert_eq!(position(crlf, 2), at(0, 2));
        assert_eq!(position(crlf, 3), at(0, 3));
        assert_eq!(position(crlf, 4), at(1, 0));
        // The end of the text, with and without a final newline, and past it.
        assert_eq!(position(crlf, crlf.len()), at(2, 0));
        assert_eq!(position(ascii, ascii.len()), at(1, 2));
        assert_eq!(position(ascii, ascii.len() + 5), at(1, 2));
        assert_eq!(position("", 0), at(0, 0));
    }

    #[test]
    fn line_index_agrees_with_a_rescan_across_checkpoints() {
        // Lines longer than several checkpoints and short ones, characters of every width
        // (some straddling a checkpoint), CRLF endings: every offset, as a rescan places it.
        let mut text = String::new();
        for i in 0..3000 {
            text.push_str(["a", "é", "€", "😀", "\r\n", "\n", "bc"][i * 7 % 11 % 7]);
            if i % 900 == 0 {
                text.push_str(&"x😀".repeat(700));
            }
        }
        let index = LineIndex::new(&text);
        assert!(index.checkpoints.len() > 5);
        for offset in 0..=text.len() + 1 {
            assert_eq!(
                index.position(&text, offset),
                rescanned(&text, offset),
                "offset {offset}"
            );
        }
    }

    #[test]
    fn frames_are_read_within_their_bounds() {
        let message = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
        let exit = r#"{"jsonrpc":"2.0","method":"exit"}"#;
        let read = |input: &str| {
            let mut got = Vec::new();
            let result = read_messages(&mut input.as_bytes(), |m| {
                got.push(m);
                true
            });
            (result, got)
        };
        // Two frames (another header beside the size); nothing after `exit` is read.
        let two = format!(
            "{}Content-Type: application/vscode-jsonrpc\r\n{}{}",
            message(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#),
            message(exit),
            "garbage"
        );
        let (result, got) = read(&two);
        assert_eq!(result, Ok(()));
        assert_eq!(got.len(), 2);
        // The end of the input between frames is the end of the session.
        let (result, got) = read("");
        assert_eq!(result, Ok(()));
        assert!(got.is_empty());
        for (input, error) in [
            ("Content-Length: 100000000000\r\n\r\n", "over the limit"),
            (
                "Content-Length: 99999999999999999999999\r\n\r\n",
                "over the limit",
            ),
            ("Content-Length: -1\r\n\r\n", "not a number"),
            ("Content-Length: 10\n\n", "end with"),
            ("Content-Type: x\r\n\r\n{}", "no Content-Length"),
            ("Content-Length: 20\r\n\r\n{}", "ended inside a message"),
            ("Content-Length: 2\r\n\r\n{}", "not a JSON-RPC message"),
            ("Content-Length: 2\r\n", "ended inside a message header"),
        ] {
            let (result, got) = read(input);
            let e = result.expect_err(input);
            assert!(e.contains(error), "{input:?}: {e}");
            assert!(got.is_empty());
        }
        let long = format!("X-Padding: {}\r\n", "x".repeat(5000));
        let (result, _) = read(&long);
        assert!(result.is_err_and(|e| e.contains("longer than")));
    }

    #[test]
    fn long_errors_are_cut() {
        assert_eq!(shortened("short"), "short");
        let long = "é".repeat(MAX_ERROR_CHARS + 10);
        let cut = shortened(&long);
        assert_eq!(cut.chars().count(), MAX_ERROR_CHARS + 1);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn file_uris_become_paths() {
        let uri: Uri = "file:///tmp/my%20logs/a.json".parse().expect("uri");
        assert_eq!(file_path(&uri), Some(PathBuf::from("/tmp/my logs/a.json")));
        let untitled: Uri = "untitled:Untitled-1".parse().expect("uri");
        assert_eq!(file_path(&untitled), None);
    }
}
