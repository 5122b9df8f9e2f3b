//! Checking what was read: documents normalised into conversations (or found not to fit the
//! format), the `unread-tool-structures` guard while their trees are alive, every enabled
//! rule on each conversation, the providers that reject each finding, and the fix intents
//! turned into edits by the conversation's adapter.

use super::LintOptions;
use crate::edit::plan::EditContext;
use crate::finding::{Finding, Fix, FixPlan};
use crate::format::Format;
use crate::formats::{self, Adapter};
use crate::json::Doc;
use crate::rules::{self, Context};
use crate::source::SourceFile;
use crate::transcript::Conversation;

/// Normalises documents with `adapter` and runs the rules on every conversation; a document
/// that does not fit the format is an `unknown-format` finding at its start. `jsonl`: the
/// documents are records of a JSONL file (fixes may then add or remove whole lines, and must
/// not add line breaks inside a record). `lossy`: a document was read with lone surrogates
/// replaced, so fixes, which may copy parsed values into the file, are withheld.
/// Returns the format when the documents fit it.
pub(super) fn check_docs(
    adapter: &dyn Adapter,
    docs: &[Doc<'_>],
    source: &SourceFile,
    opts: &LintOptions,
    jsonl: bool,
    lossy: bool,
) -> (Vec<Finding>, Option<Format>, crate::coverage::ReadCounts) {
    check_normalised(
        adapter,
        docs,
        adapter.normalise(docs),
        source,
        opts,
        jsonl,
        lossy,
    )
}

/// Checks one session's records (the lines of a JSONL session, the rows of a store
/// session), one document each with the byte offset it starts at, in order: read together by
/// the adapter's `normalise_records` (its `normalise` where it has none). The records' trees
/// are dropped once their conversations are read, before the rules run, as a document's are:
/// a session's findings never share the memory with the trees of all its records.
pub(crate) fn check_session(
    adapter: &dyn Adapter,
    records: Vec<(usize, crate::tree::Value<'_>)>,
    source: &SourceFile,
    opts: &LintOptions,
    lossy: bool,
) -> (Vec<Finding>, Option<Format>, crate::coverage::ReadCounts) {
    let read = {
        let docs: Vec<Doc<'_>> = records
            .iter()
            .map(|(base, value)| Doc { base: *base, value })
            .collect();
        let normalised = adapter
            .normalise_records(&docs)
            .unwrap_or_else(|| adapter.normalise(&docs));
        read_docs(adapter, &docs, normalised, opts, true)
    };
    drop(records);
    check_read(read, adapter, source, opts, true, lossy)
}

/// Checks one JSONL session's records read one at a time where its adapter reads them so
/// ([`Adapter::normalise_one_by_one`]): besides the first records, parsed to judge the
/// format, no more than one record's tree is alive at a time, and the unread-structure guard
/// scans each while it is. Otherwise as [`check_session`].
pub(super) fn check_session_lines(
    adapter: &dyn Adapter,
    lines: &mut super::read::SessionLines<'_, '_>,
    source: &SourceFile,
    opts: &LintOptions,
) -> (Vec<Finding>, Option<Format>, crate::coverage::ReadCounts) {
    let guarded = opts.selection.is_enabled("TC005");
    let mut guard = crate::coverage::RecordGuard::new(adapter.replays_every_record());
    let normalised = adapter.normalise_one_by_one(lines, &mut |record, doc, conv, mark| {
        if guarded {
            guard.read(record, doc, &conv.since(mark));
        }
    });
    let Some(normalised) = normalised else {
        let records = lines.read_all();
        let lossy = lines.lossy();
        return check_session(adapter, records, source, opts, lossy);
    };
    lines.read_rest();
    let at = lines.first_base().unwrap_or(0);
    let read = read_as(adapter, normalised, at, true, |conversations| {
        guarded
            .then(|| unread_finding(&guard.finish(conversations), adapter.format()))
            .flatten()
    });
    check_read(read, adapter, source, opts, true, lines.lossy())
}

/// [`check_docs`] for documents already normalised.
fn check_normalised(
    adapter: &dyn Adapter,
    docs: &[Doc<'_>],
    normalised: Result<Vec<crate::transcript::Conversation>, String>,
    source: &SourceFile,
    opts: &LintOptions,
    jsonl: bool,
    lossy: bool,
) -> (Vec<Finding>, Option<Format>, crate::coverage::ReadCounts) {
    let read = read_docs(adapter, docs, normalised, opts, jsonl);
    check_read(read, adapter, source, opts, jsonl, lossy)
}

/// What reading documents gave, all that checking them needs (the documents' trees are no
/// longer needed): their conversations and the finding for structures none of them holds,
/// or the finding that they do not fit the format.
pub(super) enum Read {
    Fit {
        conversations: Vec<crate::transcript::Conversation>,
        unread: Option<Finding>,
    },
    Unfit(Finding),
}

/// Reads normalised documents: the coverage guard runs here, while the trees are alive.
pub(super) fn read_docs(
    adapter: &dyn Adapter,
    docs: &[Doc<'_>],
    normalised: Result<Vec<crate::transcript::Conversation>, String>,
    opts: &LintOptions,
    jsonl: bool,
) -> Read {
    let at = docs.first().map_or(0, |d| d.base);
    read_as(adapter, normalised, at, jsonl, |conversations| {
        if !opts.selection.is_enabled("TC005") {
            return None;
        }
        // A session rebuilt from a chain rightly leaves the records off it out (rewound
        // branches); what it did draw on, and every other input, is read whole.
        let drawn;
        let docs = if adapter.replays_every_record() {
            docs
        } else {
            drawn = crate::coverage::drawn_on(docs, conversations);
            &drawn
        };
        unread_finding(
            &crate::coverage::unread(docs, conversations),
            adapter.format(),
        )
    })
}

/// Reads one whole document (at byte `base`) whose adapter takes its messages out of it one
/// at a time ([`Adapter::normalise_taking`]): the unread-structure guard scans each message
/// as it is handed over, and it is dropped then, so the document's tree is never whole
/// beside the transcript. `None` where the adapter reads its documents whole, `value`
/// untouched.
pub(super) fn read_taking(
    adapter: &dyn Adapter,
    base: usize,
    value: &mut crate::tree::Value<'_>,
    opts: &LintOptions,
) -> Option<Read> {
    // A format that replays part of its records holds the guard to what it drew on, which
    // only the whole tree can tell.
    if !adapter.replays_every_record() {
        return None;
    }
    let guarded = opts.selection.is_enabled("TC005");
    let mut guard = crate::coverage::MessageGuard::new(base);
    let normalised = adapter.normalise_taking(base, value, &mut |loc, message, conv, mark| {
        if guarded {
            guard.read(loc, &message, &conv.since(mark));
        }
    })?;
    Some(read_as(adapter, normalised, base, false, |conversations| {
        guarded
            .then(|| unread_finding(&guard.finish(value, conversations), adapter.format()))
            .flatten()
    }))
}

/// What normalising documents (from byte `at`) gave: their conversations with the
/// `unread` guard's finding on them, or the finding that they do not fit the format.
fn read_as(
    adapter: &dyn Adapter,
    normalised: Result<Vec<Conversation>, String>,
    at: usize,
    jsonl: bool,
    unread: impl FnOnce(&[Conversation]) -> Option<Finding>,
) -> Read {
    match normalised {
        Ok(conversations) => Read::Fit {
            unread: unread(&conversations),
            conversations,
        },
        Err(reason) => Read::Unfit(unfit_finding(adapter, at, jsonl, &reason)),
    }
}

/// The `unknown-format` finding for documents (from byte `at`) that do not fit the
/// adapter's format, for `reason`.
fn unfit_finding(adapter: &dyn Adapter, at: usize, jsonl: bool, reason: &str) -> Finding {
    let what = if jsonl { "record" } else { "file" };
    Finding::at_span(
        &rules::UnknownFormat::META,
        at,
        at,
        format!(
            "{what} does not fit the `{}` format: {reason}",
            adapter.format()
        ),
    )
    .help("check the file, or pass the right `--input-format`")
}

/// Runs the rules on what [`read_docs`] read.
pub(super) fn check_read(
    read: Read,
    adapter: &dyn Adapter,
    source: &SourceFile,
    opts: &LintOptions,
    jsonl: bool,
    lossy: bool,
) -> (Vec<Finding>, Option<Format>, crate::coverage::ReadCounts) {
    match read {
        Read::Fit {
            conversations,
            unread,
        } => {
            if let Some(sink) = &opts.tools_found {
                for conv in &conversations {
                    sink.add(&source.name, &conv.tools);
                }
            }
            let mut findings: Vec<Finding> = conversations
                .iter()
                .flat_map(|conv| check_conversation(conv, adapter, source, opts, jsonl))
                .collect();
            if lossy {
                for finding in &mut findings {
                    finding.fix = None;
                }
            }
            findings.extend(unread);
            let counts = crate::coverage::ReadCounts::of(&conversations);
            (findings, Some(adapter.format()), counts)
        }
        Read::Unfit(finding) => (vec![finding], None, crate::coverage::ReadCounts::default()),
    }
}

/// One `unread-tool-structures` finding for the structures no conversation read, at the
/// first of them.
fn unread_finding(unread: &[crate::coverage::Structure], format: Format) -> Option<Finding> {
    let first = unread.first()?;
    let listed: Vec<String> = unread
        .iter()
        .take(4)
        .map(|s| format!("`{}` at {}", s.kind, s.loc.pointer))
        .collect();
    let more = unread.len().saturating_sub(4);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let count = unread.len();
    Some(
        Finding::at(
            &rules::UnreadToolStructures::META,
            &first.loc,
            format!(
                "{count} tool-call or tool-result {} read as `{format}` went unchecked, because no conversation of that format holds {}: {}{more}",
                if count == 1 { "structure" } else { "structures" },
                if count == 1 { "it" } else { "them" },
                listed.join(", ")
            ),
        )
        .help("the file mixes shapes this format does not read; pass the right `--input-format`, or report the shape so toolcheck can read it"),
    )
}

/// Runs every enabled rule on one conversation, and turns their fix intents into edits with
/// the conversation's format adapter.
pub fn check_conversation(
    conv: &Conversation,
    adapter: &dyn Adapter,
    source: &SourceFile,
    opts: &LintOptions,
    jsonl: bool,
) -> Vec<Finding> {
    let recorded = conv.provider.map(|p| [p]);
    use crate::provider::Provider;
    // An OpenAI-shaped request naming another provider's model is sent to that provider.
    let openai_shaped = conv.format.kind() == crate::format::Kind::Sent
        && matches!(
            conv.format.native(),
            [Provider::Openai] | [Provider::OpenaiResponses]
        );
    let by_model = match (&opts.targets, &recorded) {
        (None, None) if openai_shaped => conv
            .model
            .as_deref()
            .and_then(|m| crate::provider::from_model(m).map(|p| ([p], m))),
        _ => None,
    };
    let targets: &[crate::provider::Provider] = match (&opts.targets, &recorded, &by_model) {
        (Some(targets), _, _) => targets,
        (None, Some(recorded), _) => recorded,
        (None, None, Some((inferred, _))) => inferred,
        (None, None, None) => conv.format.native(),
    };
    let cx = Context::new(
        conv,
        &opts.extra_tools,
        &opts.schemas,
        &opts.rule_options,
        targets,
        Some(source),
    )
    .targeted(opts.targets.is_some())
    .schema_checks(
        rules::RULES
            .iter()
            .any(|r| r.checks_schemas() && opts.selection.is_enabled(r.meta().code)),
    );
    let mut findings = Vec::new();
    for rule in rules::RULES {
        if opts.selection.is_enabled(rule.meta().code) {
            rule.check(&cx, conv, &mut findings);
        }
    }
    // Name the providers that reject each finding; an error no target rejects is a warning.
    for finding in &mut findings {
        if !finding.providers.is_empty() {
            continue;
        }
        let rejecting = finding.rule.rejected_by;
        if rejecting.is_empty() {
            continue;
        }
        match cx.judge(rejecting) {
            Some((severity, providers)) => {
                finding.providers = providers;
                if severity == crate::finding::Severity::Warning {
                    finding.severity = severity;
                }
            }
            None if finding.severity == crate::finding::Severity::Error => {
                finding.severity = crate::finding::Severity::Warning;
            }
            None => {}
        }
    }
    if let Some(([provider], model)) = &by_model {
        let said = format!("the request's model is `{model}`");
        // A dialect that already gave the model as its reason says it once.
        for finding in findings
            .iter_mut()
            .filter(|f| f.providers.contains(provider) && !f.message.contains(&said))
        {
            finding.message.push_str(&format!(
                " (held to {provider}: the request's model is `{model}`)"
            ));
        }
    }
    // What the agent sends on resume decides, where its resume is modelled.
    crate::replay::judge(conv, &mut findings);
    if conv.repaired_pairing {
        for finding in findings.iter_mut().filter(|f| f.replay.is_none()) {
            let kept = matches!(&finding.anchor, crate::finding::Anchor::Node(loc) if conv.kept_unpaired.contains(loc));
            if [
                rules::OrphanedToolResult::META.code,
                rules::UnpairedToolCall::META.code,
            ]
            .contains(&finding.rule.code)
                && finding.severity == crate::finding::Severity::Error
                && !kept
            {
                finding.severity = crate::finding::Severity::Warning;
                finding.message.push_str(
                    " (the agent repairs this itself before sending, so its current versions still resume the session; older versions and other tools that replay it fail)",
                );
            }
        }
    }
    // A trace that shows the request succeeded outranks what toolcheck expects of the
    // provider: the defect is real, the rejection did not happen.
    if conv.accepted {
        for finding in &mut findings {
            if finding.severity == crate::finding::Severity::Error && !finding.providers.is_empty()
            {
                finding.severity = crate::finding::Severity::Warning;
                finding.message.push_str(
                    " (a warning here: the trace shows the provider accepted this request)",
                );
            }
        }
    }
    // A trace that shows the request failed says with what, in the provider's own words.
    if let Some(rejection) = conv.rejection.as_deref().filter(|_| !conv.accepted) {
        for finding in &mut findings {
            if finding.severity == crate::finding::Severity::Error {
                finding.message.push_str(&format!(
                    " (the trace records this request failing: {})",
                    crate::finding::quote(rejection, 160)
                ));
            }
        }
    }
    let edit_cx = EditContext::new(source, jsonl);
    crate::source::with_span_cache(source, || {
        for finding in &mut findings {
            finding.format = Some(conv.format);
            // A finding in a trace names the span (and attribute) its node was read from.
            if let (None, crate::finding::Anchor::Node(loc)) = (&finding.span, &finding.anchor) {
                finding.span = crate::transcript::span_at(&conv.origins, loc).cloned();
            }
            // The plan is spent once turned into edits: 100k findings keep only their fixes.
            if let Some(plan) = finding.plan.take() {
                let FixPlan {
                    applicability,
                    message,
                    intent,
                } = *plan;
                match formats::plan(adapter, &intent, &edit_cx) {
                    Ok(edits) => {
                        finding.fix = Some(Fix {
                            applicability,
                            message,
                            edits,
                        })
                    }
                    Err(Some(why)) => note_withheld(finding, why),
                    Err(None) => {}
                }
            }
        }
    });
    findings
}

/// Says in a finding's help why the fix its rule offers is not offered in this format.
pub(crate) fn note_withheld(finding: &mut Finding, why: &str) {
    let note = format!("no automatic fix here: {why}");
    finding.help = Some(match finding.help.take() {
        Some(help) => format!("{help}; {note}"),
        None => note,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::read::SessionLines;

    /// What checking `text`, a session of `format`, finds read one record at a time and read
    /// all at once: findings, format and counts, and the lines that do not parse.
    fn both_ways_as(format: Format, text: &str) -> [String; 2] {
        let source = SourceFile::new(None, "s.jsonl".into(), text.to_string());
        let mut lines = Vec::new();
        let mut base = 0;
        for line in text.split_inclusive('\n') {
            if !line.trim().is_empty() {
                lines.push((base, line.trim_end()));
            }
            base += line.len();
        }
        let opts = LintOptions::default();
        let adapter = format.adapter().expect("an adapter");
        let errors =
            |lines: &SessionLines<'_, '_>| lines.errors.iter().map(|(b, _)| *b).collect::<Vec<_>>();
        let mut one_by_one = SessionLines::new(&lines, Vec::new()).small(false);
        let streamed = check_session_lines(adapter, &mut one_by_one, &source, &opts);
        // A small session's trees are held: the same again.
        let mut small = SessionLines::new(&lines, Vec::new()).small(true);
        let held_small = check_session_lines(adapter, &mut small, &source, &opts);
        assert_eq!(
            format!("{held_small:?} {:?}", errors(&small)),
            format!("{streamed:?} {:?}", errors(&one_by_one))
        );
        let mut together = SessionLines::new(&lines, Vec::new());
        let records = together.read_all();
        let lossy = together.lossy();
        let held = check_session(adapter, records, &source, &opts, lossy);
        [
            format!("{streamed:?} {:?}", errors(&one_by_one)),
            format!("{held:?} {:?}", errors(&together)),
        ]
    }

    fn both_ways(text: &str) -> [String; 2] {
        both_ways_as(Format::ClaudeCode, text)
    }

    fn line(v: serde_json::Value) -> String {
        format!("{v}\n")
    }

    fn rec(
        uuid: &str,
        parent: Option<&str>,
        side: bool,
        role: &str,
        content: serde_json::Value,
    ) -> String {
        let mut message = serde_json::json!({"role": role, "content": content});
        if role == "assistant" {
            message["id"] = serde_json::json!(format!("msg_{uuid}"));
        }
        line(
            serde_json::json!({"parentUuid": parent, "isSidechain": side, "sessionId": "s",
            "type": role, "message": message, "uuid": uuid}),
        )
    }

    #[test]
    fn a_session_read_one_record_at_a_time_is_checked_as_one_read_together() {
        let call = |id: &str| serde_json::json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {}}]);
        let result = |id: &str| serde_json::json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}]);
        // Structures the adapter does not read: one known by the id of a result read from a
        // later record, one known by nothing, one on a record off the chain.
        let known_later = serde_json::json!([{"type": "text", "text": "t",
            "note": {"type": "tool_result", "tool_use_id": "toolu_a"}}]);
        let unknown = serde_json::json!([{"type": "text", "text": "t",
            "note": {"type": "function_call", "call_id": "call_z"}}]);
        let crafted = [
            rec("u1", None, false, "user", known_later),
            rec("a1", Some("u1"), false, "assistant", call("toolu_a")),
            "{\"type\": \"user\", \"broken\n".to_string(),
            rec("r1", Some("a1"), false, "user", result("toolu_a")),
            rec("x1", Some("u1"), false, "user", unknown.clone()),
            rec("u2", Some("r1"), false, "user", unknown),
        ]
        .concat();
        // One off-chain result recovered by two sidechain conversations: read twice.
        let twice = [
            rec("s1", None, true, "user", serde_json::json!("one")),
            rec("t1", None, true, "user", serde_json::json!("two")),
            rec("s2", Some("s1"), true, "assistant", call("toolu_x")),
            rec("t2", Some("t1"), true, "assistant", call("toolu_x")),
            line(serde_json::json!({"parentUuid": "s2", "isSidechain": true, "sessionId": "s",
                "type": "user", "uuid": "rx", "sourceToolAssistantUUID": "t2",
                "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_x", "content": "ok"},
                    {"type": "text", "text": "t", "note": {"type": "tool_use", "id": "toolu_q"}}]}})),
            rec("s3", Some("s2"), true, "user", serde_json::json!("go on")),
            rec("t3", Some("t2"), true, "user", serde_json::json!("go on")),
        ]
        .concat();
        for text in [crafted.as_str(), twice.as_str()] {
            let [streamed, held] = both_ways(text);
            assert_eq!(streamed, held, "{text}");
        }
        // The crafted session does find what it should: the unknown structure on the
        // chain, once, and the broken line.
        let [crafted_found, _] = both_ways(&crafted);
        let one = "1 tool-call or tool-result structure read as `claude-code` went unchecked";
        assert_eq!(crafted_found.matches(one).count(), 1, "{crafted_found}");
        assert!(crafted_found.contains("`function_call` at /message/content/0/note"));
        assert!(
            crafted_found.ends_with("[405]"),
            "the broken line: {crafted_found}"
        );
        let [twice_found, _] = both_ways(&twice);
        assert_eq!(twice_found.matches(one).count(), 1, "{twice_found}");
        assert!(twice_found.contains("`tool_use` at /message/content/1/note"));
        // Both sidechains read the result record.
        assert!(
            twice_found.contains("conversations: 2, calls: 2, results: 2"),
            "{twice_found}"
        );
    }

    /// The formats that read a session one record at a time (`formats::adapter`'s tests
    /// hold the registry to this list).
    const ONE_BY_ONE: [Format; 9] = [
        Format::ClaudeCode,
        Format::Codex,
        Format::Pi,
        Format::CopilotCli,
        Format::QwenCode,
        Format::KimiCli,
        Format::Droid,
        Format::Moltis,
        Format::Mcp,
    ];

    /// The JSONL session fixtures of `format`, sorted.
    fn session_fixtures(format: Format) -> Vec<std::path::PathBuf> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
        let mut paths: Vec<_> = std::fs::read_dir(root.join(format.name()))
            .expect("the format's fixtures")
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        paths.sort();
        paths
    }

    /// Every session fixture of each format that reads records one at a time.
    #[test]
    fn fixtures_read_one_record_at_a_time_are_checked_as_read_together() {
        let mut checked = 0;
        for format in ONE_BY_ONE {
            for path in session_fixtures(format) {
                let text = std::fs::read_to_string(&path).expect("a fixture");
                let [streamed, held] = both_ways_as(format, &text);
                assert_eq!(streamed, held, "{}", path.display());
                checked += 1;
            }
        }
        assert!(checked >= 37, "{checked} fixtures");
    }

    /// Every line of every session fixture, by format (the format's own, then all).
    fn fixture_lines() -> &'static (Vec<Vec<String>>, Vec<String>) {
        static LINES: std::sync::OnceLock<(Vec<Vec<String>>, Vec<String>)> =
            std::sync::OnceLock::new();
        LINES.get_or_init(|| {
            let by_format: Vec<Vec<String>> = ONE_BY_ONE
                .iter()
                .map(|&format| {
                    session_fixtures(format)
                        .iter()
                        .flat_map(|p| {
                            let text = std::fs::read_to_string(p).expect("a fixture");
                            text.lines().map(str::to_string).collect::<Vec<_>>()
                        })
                        .filter(|l| !l.trim().is_empty())
                        .collect()
                })
                .collect();
            let all = by_format.concat();
            (by_format, all)
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]
        /// A session of any of a format's fixture lines — in any order, repeated (ids,
        /// uuids and parents collide), some cut short, a few from other formats — is
        /// checked the same read one record at a time as read together.
        #[test]
        fn sessions_of_fixture_lines_are_checked_as_read_together(
            format in 0..ONE_BY_ONE.len(),
            picks in proptest::collection::vec((0usize..10_000, 0u8..16), 1..48),
        ) {
            let (by_format, all) = fixture_lines();
            let own = &by_format[format];
            let mut text = String::new();
            for (k, how) in picks {
                let pool = if how == 15 { all } else { own };
                let Some(line) = pool.get(k % pool.len().max(1)) else { continue };
                match how {
                    // Cut short, as by a write that was interrupted.
                    0 => text.push_str(line.get(..line.len() / 2).unwrap_or(line)),
                    _ => text.push_str(line),
                }
                text.push('\n');
            }
            let [streamed, held] = both_ways_as(ONE_BY_ONE[format], &text);
            proptest::prop_assert_eq!(streamed, held, "{}", text);
        }
    }

    /// A pi session read one line at a time: the path from the last entry, a branch left
    /// off it, the last compaction's summary and what it keeps (entries from an id, or a
    /// retained tail; v1 by index among the lines that parse, a broken line not counted),
    /// aborted turns, and structures on lines on and off the path.
    #[test]
    fn a_pi_session_read_one_line_at_a_time_is_read_as_together() {
        let entry = |id: &str, parent: Option<&str>, message: serde_json::Value| {
            line(
                serde_json::json!({"type": "message", "id": id, "parentId": parent,
                "timestamp": "t", "message": message}),
            )
        };
        let user = |text: &str| serde_json::json!({"role": "user", "content": text});
        let call = |id: &str, stop: &str| {
            serde_json::json!({"role": "assistant", "stopReason": stop, "content": [
                {"type": "toolCall", "id": id, "name": "bash", "arguments": {"command": "ls"}}]})
        };
        let result = |id: &str| {
            serde_json::json!({"role": "toolResult", "toolCallId": id, "toolName": "bash",
                "content": [{"type": "text", "text": "ok"}], "isError": false})
        };
        let header = line(
            serde_json::json!({"type": "session", "version": 3, "id": "s",
            "timestamp": "t", "cwd": "/w"}),
        );
        let by_id = [
            header.clone(),
            entry("e1", None, user("go")),
            entry("e2", Some("e1"), call("c1", "toolUse")),
            entry("e3", Some("e2"), result("c1")),
            // A branch the path leaves: its unanswered call and unread structure are not sent.
            entry(
                "b1",
                Some("e3"),
                serde_json::json!({"role": "assistant", "content": [
                {"type": "toolCall", "id": "c9", "name": "bash", "arguments": {}},
                {"type": "function_call", "call_id": "lost"}]}),
            ),
            line(
                serde_json::json!({"type": "compaction", "id": "k1", "parentId": "e3",
                "timestamp": "t", "summary": "so far", "firstKeptEntryId": "e2"}),
            ),
            "{\"type\": \"message\", \"id\"\n".to_string(),
            entry("e4", Some("k1"), call("c2", "aborted")),
            entry(
                "e5",
                Some("e4"),
                serde_json::json!({"role": "assistant", "content": [
                {"type": "toolCall", "id": "c3", "name": "bash", "arguments": {}},
                {"type": "tool_use", "id": "toolu_lost"}]}),
            ),
            line(
                serde_json::json!({"type": "label", "id": "e6", "parentId": "e5",
                "timestamp": "t", "label": "x"}),
            ),
            entry("e7", Some("e6"), result("c3")),
        ]
        .concat();
        let tail = [
            header.clone(),
            entry("e1", None, user("go")),
            line(
                serde_json::json!({"type": "compaction", "id": "k1", "parentId": "e1",
                "timestamp": "t", "summary": "so far", "firstKeptEntryId": "e1",
                "retainedTail": [call("c1", "toolUse"), result("c1"),
                    {"role": "user", "content": "more", "note": {"type": "tool_result",
                        "tool_use_id": "x"}}]}),
            ),
            entry("e2", Some("k1"), user("next")),
        ]
        .concat();
        // Version 1: no ids, file order is the path, kept entries by index.
        let v1 = [
            line(serde_json::json!({"type": "session", "id": "s", "timestamp": "t"})),
            line(serde_json::json!({"type": "message", "message": user("go")})),
            "not json\n".to_string(),
            line(serde_json::json!({"type": "message", "message": call("c1", "toolUse")})),
            line(serde_json::json!({"type": "message", "message": result("c1")})),
            line(serde_json::json!({"type": "compaction", "summary": "s",
                "firstKeptEntryIndex": 2})),
            line(serde_json::json!({"type": "message", "message": call("c2", "toolUse")})),
            line(serde_json::json!({"type": "message", "message": user("again")})),
        ]
        .concat();
        for text in [&by_id, &tail, &v1] {
            let [streamed, held] = both_ways_as(Format::Pi, text);
            assert_eq!(streamed, held, "{text}");
        }
        let [found, _] = both_ways_as(Format::Pi, &by_id);
        let one = "1 tool-call or tool-result structure read as `pi` went unchecked";
        assert_eq!(found.matches(one).count(), 1, "{found}");
        assert!(
            found.contains("`tool_use` at /message/content/1"),
            "{found}"
        );
        // The kept call and its result, then the one after the compaction.
        assert!(found.contains("calls: 2, results: 2"), "{found}");
        let [found, _] = both_ways_as(Format::Pi, &tail);
        assert!(
            found.contains("`tool_result` at /retainedTail/2/note"),
            "{found}"
        );
        assert!(found.contains("calls: 1, results: 1"), "{found}");
        let [found, _] = both_ways_as(Format::Pi, &v1);
        // The line that does not parse is not counted: index 2 is the call.
        assert!(found.contains("calls: 2, results: 1"), "{found}");
    }

    /// A Copilot CLI session read one event at a time: each agent's history, the events
    /// before its last successful compaction started left out (structures in their `data`
    /// too), a failed compaction ignored, and every event held to the guard.
    #[test]
    fn a_copilot_session_read_one_event_at_a_time_is_read_as_together() {
        let mut n = 0;
        let mut event = |kind: &str, agent: Option<&str>, data: serde_json::Value| {
            n += 1;
            let mut e = serde_json::json!({"type": kind, "data": data, "id": format!("e{n}"),
                "timestamp": "t", "parentId": if n == 1 { None } else { Some(format!("e{}", n - 1)) }});
            if let Some(agent) = agent {
                e["agentId"] = agent.into();
            }
            line(e)
        };
        let call = |id: &str| {
            serde_json::json!({"content": "", "toolRequests": [
                {"toolCallId": id, "name": "bash", "arguments": {"command": "ls"}}]})
        };
        let done = |id: &str| {
            serde_json::json!({"toolCallId": id, "success": true,
                "result": {"content": "ok"}})
        };
        let text = [
            event(
                "session.start",
                None,
                serde_json::json!({"producer": "copilot-agent",
                "copilotVersion": "1.0.80", "sessionId": "s"}),
            ),
            event("user.message", None, serde_json::json!({"content": "go"})),
            event("assistant.message", None, call("c1")),
            // Left out by the compaction, with the structure it holds.
            event(
                "assistant.message",
                None,
                serde_json::json!({"content": "",
                "toolRequests": [{"toolCallId": "c0", "name": "bash", "arguments": {}}],
                "note": {"type": "tool_use", "id": "toolu_gone"}}),
            ),
            event("tool.execution_complete", Some("sub"), done("c9")),
            event(
                "assistant.message",
                Some("sub"),
                serde_json::json!({"content": "",
                "toolRequests": [{"toolCallId": "c8", "name": "bash", "arguments": {}}],
                "note": {"type": "function_call", "call_id": "lost"}}),
            ),
            event("session.compaction_start", None, serde_json::json!({})),
            event("tool.execution_complete", None, done("c1")),
            "{\"type\": \"user.message\"\n".to_string(),
            event(
                "session.compaction_complete",
                None,
                serde_json::json!({"success": true,
                "summaryContent": "so far"}),
            ),
            event(
                "session.compaction_complete",
                None,
                serde_json::json!({"success": false}),
            ),
            event("assistant.message", None, call("c2")),
            event("tool.execution_complete", None, done("c2")),
        ]
        .concat();
        let [streamed, held] = both_ways_as(Format::CopilotCli, &text);
        assert_eq!(streamed, held);
        let one = "1 tool-call or tool-result structure read as `copilot-cli` went unchecked";
        assert_eq!(streamed.matches(one).count(), 1, "{streamed}");
        assert!(
            streamed.contains("`function_call` at /data/note"),
            "{streamed}"
        );
        assert!(streamed.contains("conversations: 2"), "{streamed}");
    }

    /// A Qwen Code session read one record at a time: the `parentUuid` path from the last
    /// record, records sharing a uuid joined, the last compression checkpoint's history then
    /// later non-system messages; what is off the path, before the checkpoint or UI-only is
    /// left out, and every line is held to the guard.
    #[test]
    fn a_qwen_session_read_one_record_at_a_time_is_read_as_together() {
        let record = |uuid: &str, parent: Option<&str>, kind: &str, rest: serde_json::Value| {
            let mut r = serde_json::json!({"uuid": uuid, "parentUuid": parent,
                "sessionId": "s", "timestamp": "t", "type": kind, "cwd": "/w",
                "version": "0.24.4"});
            if let (Some(r), Some(rest)) = (r.as_object_mut(), rest.as_object()) {
                r.extend(rest.clone());
            }
            line(r)
        };
        let call = |id: &str| {
            serde_json::json!({"message": {"role": "model", "parts": [
                {"functionCall": {"id": id, "name": "run", "args": {}}}]}})
        };
        let answer = |id: &str| {
            serde_json::json!({"message": {"role": "user", "parts": [
                {"functionResponse": {"id": id, "name": "run", "response": {"output": "ok"}}}]},
                "toolCallResult": {"callId": id, "status": "success"}})
        };
        let user = |text: &str| serde_json::json!({"message": {"role": "user", "parts": [{"text": text}]}});
        let text = [
            record("u1", None, "user", user("go")),
            record("a1", Some("u1"), "assistant", call("c1")),
            record("r1", Some("a1"), "tool_result", answer("c1")),
            // Off the path: a rewound branch; its message is left out, not its envelope.
            record("x1", Some("r1"), "assistant", serde_json::json!({"message": {"role": "model",
                "parts": [{"functionCall": {"id": "c9", "name": "run", "args": {}}}]},
                "note": {"type": "tool_use", "id": "toolu_gone"}})),
            record("k1", Some("r1"), "system", serde_json::json!({"subtype": "chat_compression",
                "systemPayload": {"compressedHistory": [
                    {"role": "user", "parts": [{"text": "so far"}]},
                    {"role": "model", "parts": [{"functionCall": {"id": "c2", "name": "run", "args": {}}}]},
                    {"role": "user", "parts": [{"functionResponse": {"id": "c2", "name": "run", "response": {}}}]}]}})),
            "{\"uuid\": \"broken\"\n".to_string(),
            record("t1", Some("k1"), "system", serde_json::json!({"subtype": "ui_telemetry",
                "systemPayload": {"x": 1}, "message": {"role": "user", "parts": [{"text": "no"}]}})),
            record("a2", Some("t1"), "assistant", call("c3")),
            // A second record of the same message, its parts joined to the first's.
            record("a2", Some("t1"), "assistant", serde_json::json!({"message": {"role": "user",
                "parts": [{"functionCall": {"id": "c4", "name": "run", "args": {}}}]},
                "note": {"type": "function_call", "call_id": "lost"}})),
            line(serde_json::json!({"unrelated": {"type": "tool_result", "tool_use_id": "q"}})),
            record("r2", Some("a2"), "tool_result", answer("c3")),
        ]
        .concat();
        let [streamed, held] = both_ways_as(Format::QwenCode, &text);
        assert_eq!(streamed, held);
        let three = "3 tool-call or tool-result structures read as `qwen-code` went unchecked";
        assert_eq!(streamed.matches(three).count(), 1, "{streamed}");
        assert!(
            streamed.contains("`tool_use` at /note, `function_call` at /note"),
            "{streamed}"
        );
        assert!(
            streamed.contains("`tool_result` at /unrelated"),
            "{streamed}"
        );
        // The checkpoint's call and result, then c3 and c4 on the path.
        assert!(streamed.contains("calls: 3, results: 2"), "{streamed}");
    }

    /// Sessions read once each line, in order (Kimi Code CLI, Droid, Moltis, MCP), one line at
    /// a time: a broken line reported, every line held to the guard.
    #[test]
    fn sessions_read_in_order_one_line_at_a_time_are_read_as_together() {
        let lines = |values: &[serde_json::Value]| {
            let mut text: String = values.iter().map(|v| line(v.clone())).collect();
            text.insert_str(text.find('\n').map_or(0, |i| i + 1), "{\"role\": \"us\n");
            text
        };
        let kimi = lines(&[
            serde_json::json!({"role": "_checkpoint", "id": 0}),
            serde_json::json!({"role": "user", "content": "go"}),
            serde_json::json!({"role": "assistant", "content": "", "tool_calls": [
                {"type": "function", "id": "c1", "function": {"name": "f", "arguments": "{}"}}]}),
            serde_json::json!({"role": "tool", "tool_call_id": "c1", "content": "ok",
                "note": {"type": "tool_use", "id": "toolu_lost"}}),
        ]);
        let droid = lines(&[
            serde_json::json!({"type": "session_start", "id": "s", "version": 2}),
            serde_json::json!({"type": "message", "id": "m1", "message": {"role": "user",
                "content": [{"type": "text", "text": "go"}]}}),
            serde_json::json!({"type": "message", "id": "m2", "parentId": "m1", "message": {
                "role": "assistant", "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]}}),
            serde_json::json!({"type": "todo_state", "note": {"type": "function_call",
                "call_id": "lost"}}),
        ]);
        let moltis = lines(&[
            serde_json::json!({"role": "system", "content": "s"}),
            serde_json::json!({"role": "user", "content": "go"}),
            serde_json::json!({"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}),
            serde_json::json!({"role": "notice", "note": {"type": "tool_result",
                "tool_use_id": "lost"}}),
        ]);
        let mcp = lines(&[
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "f", "arguments": {}}}),
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}),
            serde_json::json!({"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"note": {"type": "tool_use", "id": "toolu_lost"}}}),
        ]);
        for (format, text) in [
            (Format::KimiCli, kimi),
            (Format::Droid, droid),
            (Format::Moltis, moltis),
            (Format::Mcp, mcp),
        ] {
            let [streamed, held] = both_ways_as(format, &text);
            assert_eq!(streamed, held, "{text}");
            let one = format!(
                "1 tool-call or tool-result structure read as `{}` went unchecked",
                format.name()
            );
            assert_eq!(streamed.matches(&one).count(), 1, "{streamed}");
            assert!(streamed.contains("/note"), "{streamed}");
            assert!(streamed.contains("calls: 1"), "{streamed}");
            // The broken second line.
            let broken = text.find('\n').map_or(0, |i| i + 1);
            assert!(streamed.ends_with(&format!("[{broken}]")), "{streamed}");
        }
    }

    /// A Codex rollout is held to every line: a structure on a line nothing is read from
    /// is unread, one known by an id read later is not.
    #[test]
    fn a_rollout_read_one_line_at_a_time_is_held_to_every_line() {
        let item = |payload: serde_json::Value| {
            line(serde_json::json!({"timestamp": "t", "type": "response_item", "payload": payload}))
        };
        let text = [
            line(serde_json::json!({"timestamp": "t", "type": "session_meta",
                "payload": {"id": "s", "cli_version": "0.46.0",
                    "note": {"type": "tool_use", "id": "toolu_lost"},
                    "echo": {"type": "function_call_output", "call_id": "call_1"}}})),
            item(serde_json::json!({"type": "message", "role": "user",
                "content": [{"type": "input_text", "text": "go"}]})),
            item(serde_json::json!({"type": "function_call", "name": "shell",
                "arguments": "{}", "call_id": "call_1"})),
            "{\"timestamp\": \"t\", \"type\"\n".to_string(),
            item(
                serde_json::json!({"type": "function_call_output", "call_id": "call_1",
                "output": "ok"}),
            ),
            line(serde_json::json!({"timestamp": "t", "type": "compacted",
                "payload": {"message": "summary", "replacement_history": [
                    {"type": "message", "role": "user",
                        "content": [{"type": "input_text", "text": "go"}]}]}})),
        ]
        .concat();
        let [streamed, held] = both_ways_as(Format::Codex, &text);
        assert_eq!(streamed, held);
        let one = "1 tool-call or tool-result structure read as `codex` went unchecked";
        assert_eq!(streamed.matches(one).count(), 1, "{streamed}");
        assert!(
            streamed.contains("`tool_use` at /payload/note"),
            "{streamed}"
        );
        assert!(streamed.contains("conversations: 2"), "{streamed}");
    }

    /// What checking the document `text` finds with its messages taken out of its tree one
    /// at a time, and with the tree read whole: `None` when it is no document, or its format
    /// reads documents whole.
    fn document_both_ways(text: &str) -> Option<[String; 2]> {
        let parsed = crate::json::parse(text).ok()?;
        document_both_ways_as(formats::detect(&parsed.value)?, text)
    }

    /// [`document_both_ways`], read as `adapter`'s format whatever it looks like.
    fn document_both_ways_as(adapter: &dyn Adapter, text: &str) -> Option<[String; 2]> {
        let opts = LintOptions::default();
        let parsed = crate::json::parse(text).ok()?;
        let check = |read: Read| {
            let source = SourceFile::new(None, "d.json".into(), text.to_string());
            if let Ok(again) = crate::json::parse(text) {
                source.add_spans(0, again.spans);
            }
            format!(
                "{:?}",
                check_read(read, adapter, &source, &opts, false, parsed.lossy)
            )
        };
        let mut tree = crate::json::parse(text).ok()?.value;
        let taken = read_taking(adapter, 0, &mut tree, &opts)?;
        let docs = [Doc {
            base: 0,
            value: &parsed.value,
        }];
        let whole = read_docs(adapter, &docs, adapter.normalise(&docs), &opts, false);
        Some([check(taken), check(whole)])
    }

    #[test]
    fn a_document_read_one_message_at_a_time_is_checked_as_one_read_whole() {
        let call = |id: &str| {
            serde_json::json!({"role": "assistant", "tool_calls": [{"id": id, "type": "function",
                "function": {"name": "f", "arguments": "{}"}}]})
        };
        let result =
            |id: &str| serde_json::json!({"role": "tool", "tool_call_id": id, "content": "ok"});
        // Structures the adapter does not read: blocks of another format inside messages
        // (one known by the id of a call read from a later message), and lists outside the
        // message list, before and after it.
        let blocks = serde_json::json!({"role": "user", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
            {"type": "function_call", "call_id": "call_2", "name": "f", "arguments": "{}"}]});
        let messages = serde_json::json!([
            {"role": "system", "content": "s"}, blocks, call("call_1"), result("call_1"),
            call("call_2"), result("call_2"), result("call_3"),
            {"role": "user", "content": "again", "toolUse": {"toolUseId": "t9"}}]);
        let listed = serde_json::json!([{"id": "call_8", "function": {"name": "g"}}]);
        let docs = [
            serde_json::json!({"before": {"tool_calls": listed}, "model": "m",
                "messages": messages, "after": {"tool_calls": listed}}),
            serde_json::json!({"messages": [{"role": "user", "content": "hi"}]}),
            serde_json::json!({"body": {"messages": messages}, "custom_id": "r1"}),
            serde_json::json!({"input": {"messages": messages}}),
            messages.clone(),
            serde_json::json!({"messages": []}),
        ];
        // Anthropic: a structure inside a block, one outside the list, a result known by
        // its call's id, and a role no Anthropic message has (the document does not fit).
        let anthropic = serde_json::json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
                {"type": "text", "text": "t", "note": {"functionCall": {"name": "g"}}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"},
                {"type": "text", "text": "t", "note": {"type": "tool_result", "tool_use_id": "toolu_1"}}]}]);
        let mut wrong_role = anthropic.clone();
        if let Some(list) = wrong_role.as_array_mut() {
            list.push(serde_json::json!({"role": "narrator", "content": "x"}));
        }
        let docs = docs.into_iter().chain([
            serde_json::json!({"model": "claude-sonnet-4-5", "max_tokens": 10,
                "messages": anthropic, "metadata": {"tool_calls": listed}}),
            serde_json::json!({"model": "claude-sonnet-4-5", "max_tokens": 10,
                "messages": wrong_role}),
        ]);
        let mut compared = 0;
        for doc in docs {
            let text = serde_json::to_string_pretty(&doc).expect("json");
            if let Some([taken, whole]) = document_both_ways(&text) {
                assert_eq!(taken, whole, "{text}");
                compared += 1;
            }
        }
        assert_eq!(
            compared, 8,
            "each document is read as OpenAI Chat or Anthropic"
        );
        // The first document does find what it should, in the order of the whole walk.
        let text = serde_json::to_string(&serde_json::json!({"before": {"tool_calls": listed},
            "messages": messages, "after": {"tool_calls": listed}}))
        .expect("json");
        let [taken, _] = document_both_ways(&text).expect("an OpenAI document");
        let found = "4 tool-call or tool-result structures read as `openai-chat` went unchecked";
        assert!(taken.contains(found), "{taken}");
        let order = [
            "/before/tool_calls/0",
            "/messages/1/content/0",
            "/messages/7/toolUse",
            "/after/tool_calls/0",
        ];
        let at: Vec<usize> = order
            .iter()
            .filter_map(|p| taken.find(&format!("at {p}")))
            .collect();
        assert_eq!(at.len(), 4, "{taken}");
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{taken}");
    }

    /// Every bundled document of a format read one message at a time.
    #[test]
    fn bundled_documents_read_one_message_at_a_time_are_checked_as_read_whole() {
        let mut stack = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures"
        ))];
        let mut compared = 0;
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("fixtures").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "json") {
                    let Ok(text) = std::fs::read_to_string(&path) else {
                        continue;
                    };
                    if let Some([taken, whole]) = document_both_ways(&text) {
                        assert_eq!(taken, whole, "{}", path.display());
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared >= 15, "only {compared} documents compared");
    }

    /// The messages of every bundled document that is read one message at a time, by
    /// format (OpenAI Chat, Anthropic).
    fn fixture_messages() -> &'static [Vec<serde_json::Value>; 2] {
        static MESSAGES: std::sync::OnceLock<[Vec<serde_json::Value>; 2]> =
            std::sync::OnceLock::new();
        MESSAGES.get_or_init(|| {
            let mut by_format = [Vec::new(), Vec::new()];
            for (k, dir) in ["openai-chat", "anthropic"].iter().enumerate() {
                let dir = format!("{}/../../fixtures/{dir}", env!("CARGO_MANIFEST_DIR"));
                for entry in std::fs::read_dir(dir).expect("fixtures").flatten() {
                    let Ok(text) = std::fs::read_to_string(entry.path()) else {
                        continue;
                    };
                    let Ok(doc) = serde_json::from_str::<serde_json::Value>(&text) else {
                        continue;
                    };
                    if let Some(list) = doc.get("messages").and_then(|m| m.as_array()) {
                        by_format[k].extend(list.iter().cloned());
                    }
                }
            }
            by_format
        })
    }

    /// What a document's findings are, told apart by what a tree alone can say (not where
    /// they are in the text, nor the fixes made from it).
    fn found(report: &crate::lint::FileReport) -> Vec<String> {
        let mut found: Vec<String> = report
            .findings
            .iter()
            .map(|f| {
                format!(
                    "{} {:?} {:?} {} {:?}",
                    f.rule.code, f.severity, f.anchor, f.message, f.providers
                )
            })
            .collect();
        found.sort();
        found
    }

    /// The findings of `doc` checked as its built tree and as its compact text.
    fn tree_and_text(doc: &serde_json::Value) -> [Vec<String>; 2] {
        let name = || crate::lint::SourceName {
            name: "<input>.json".into(),
            path: None,
        };
        let opts = LintOptions::default();
        let text = serde_json::to_string(doc).expect("json");
        let of_tree = crate::lint::lint_tree(name(), crate::tree::Value::borrowing(doc), &opts)
            .expect("a document");
        let of_text = crate::lint::lint_bytes(name(), text.into_bytes(), true, &opts);
        [found(&of_tree), found(&of_text)]
    }

    /// Every bundled JSON document, and each as JSONL would name it (which a tree does not
    /// tell: the text is read line by line).
    #[test]
    fn bundled_documents_built_as_trees_find_what_their_text_finds() {
        let mut stack = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures"
        ))];
        let (mut compared, mut clean) = (0, 0);
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("fixtures").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let Some(doc) = std::fs::read_to_string(&path)
                    .ok()
                    .filter(|_| path.extension().is_some_and(|e| e == "json"))
                    .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
                else {
                    continue;
                };
                let [tree, text] = tree_and_text(&doc);
                assert_eq!(tree, text, "{}", path.display());
                compared += 1;
                clean += usize::from(text.is_empty());
            }
        }
        assert!(compared >= 100, "only {compared} documents compared");
        assert!(clean >= 10, "only {clean} clean documents");
        let jsonl = crate::lint::SourceName {
            name: "x.jsonl".into(),
            path: None,
        };
        let doc = serde_json::json!({"messages": []});
        let tree = crate::tree::Value::borrowing(&doc);
        assert!(crate::lint::lint_tree(jsonl, tree, &LintOptions::default()).is_none());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// A document of fixture messages, some of whose strings need escapes or are not
        /// ASCII, some of which carry numbers of every kind and a few of which do not fit
        /// (no role), finds the same built as a
        /// tree (as the guards build one off Python objects) as read from its text.
        #[test]
        fn documents_built_as_trees_find_what_their_text_finds(
            format in 0usize..2,
            picks in proptest::collection::vec((0usize..10_000, 0u8..64), 0..30),
            text in "[a-z\"\\\n\t\u{1}\u{7f}é€😀 ]{0,12}",
            number in proptest::prelude::any::<f64>(),
            int in proptest::prelude::any::<i64>(),
        ) {
            let pool = &fixture_messages()[format];
            let mut messages = Vec::new();
            for (k, how) in picks {
                let Some(message) = pool.get(k % pool.len().max(1)) else { continue };
                let mut message = message.clone();
                if let Some(m) = message.as_object_mut() {
                    match how {
                        0 => { m.insert("content".into(), text.clone().into()); }
                        1 => { m.insert(text.clone(), serde_json::json!([number, int, u64::MAX])); }
                        2 => { m.insert("name".into(), text.clone().into()); }
                        63 => { m.remove("role"); }
                        _ => {}
                    }
                }
                messages.push(message);
            }
            let doc = serde_json::json!({"model": "m", "max_tokens": 10, "temperature": number,
                "messages": messages});
            let [tree, text] = tree_and_text(&doc);
            proptest::prop_assert_eq!(tree, text);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// A document of any of a format's fixture messages — in any order, repeated (ids
        /// collide), some carrying structures the adapter does not read, some of the other
        /// format or without a role, in any of the places a message list is — is checked the
        /// same with its messages taken out one at a time as read whole.
        #[test]
        fn documents_of_fixture_messages_are_checked_as_read_whole(
            format in 0usize..2,
            wrapper in 0u8..4,
            picks in proptest::collection::vec((0usize..10_000, 0u8..64), 0..40),
        ) {
            let pools = fixture_messages();
            let mut messages = Vec::new();
            for (k, how) in picks {
                let pool = &pools[if how == 63 { 1 - format } else { format }];
                let Some(message) = pool.get(k % pool.len().max(1)) else { continue };
                let mut message = message.clone();
                match (how, message.as_object_mut()) {
                    // What no adapter of the format reads, beside what it does.
                    (0, Some(m)) => {
                        m.insert("note".into(), serde_json::json!({"tool_calls": [
                            {"id": "call_x", "function": {"name": "g"}}]}));
                    }
                    (1, Some(m)) => {
                        m.insert("content".into(), serde_json::json!([
                            {"type": "tool_result", "tool_use_id": "toolu_x", "content": "ok"}]));
                    }
                    // A message that does not fit.
                    (2, Some(m)) => {
                        m.remove("role");
                    }
                    _ => {}
                }
                messages.push(message);
            }
            let listed = serde_json::json!([{"id": "call_8", "function": {"name": "g"}}]);
            let doc = match wrapper {
                0 => serde_json::json!({"model": "m", "max_tokens": 10, "messages": messages}),
                1 => serde_json::json!({"body": {"messages": messages}, "custom_id": "r"}),
                2 => serde_json::Value::Array(messages),
                _ => serde_json::json!({"before": {"tool_calls": listed}, "messages": messages,
                    "after": {"tool_calls": listed}}),
            };
            let text = serde_json::to_string_pretty(&doc).expect("json");
            let adapter = [Format::OpenAiChat, Format::Anthropic][format].adapter();
            let [taken, whole] = adapter
                .and_then(|a| document_both_ways_as(a, &text))
                .expect("both formats take their messages out");
            proptest::prop_assert_eq!(taken, whole, "{}", text);
        }
    }
}
