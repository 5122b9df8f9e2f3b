//! Trace exports (OpenTelemetry GenAI, OpenInference), end to end through the binary.

use crate::common;

use common::toolcheck;

fn concise(path: &str) -> common::Output {
    toolcheck(&["lint", path, "--output-format", "concise"])
}

/// Two chained model calls (the second's input extends the first's) and two tool spans:
/// one conversation, checked once at its last call, clean.
#[test]
fn otel_clean_chain() {
    let out = toolcheck(&["lint", "-v", "fixtures/otel/clean-parts.json"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

/// One export request per line with base64 ids and enum names (protobuf's JSON mapping):
/// two interleaved conversations kept apart, truncated arguments (a string where the parts
/// form has an object), an orphaned result, an unpaired call. The calls succeeded, so what
/// the provider would reject is a warning that says so.
#[test]
fn otel_interleaved_broken() {
    let out = concise("fixtures/otel/broken-interleaved.jsonl");
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// One export holding two runs of the same prompt, each its own trace and each with a call
/// the next request leaves unanswered: two conversations, both reported (the second run's
/// requests repeat the first's word for word, which once merged them into one).
#[test]
fn otel_two_traces_both_reported() {
    let out = concise("fixtures/otel/broken-two-traces.json");
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stdout.matches("TC102").count(),
        2,
        "{}",
        out.transcript()
    );
    insta::assert_snapshot!(out.transcript());
}

/// Each fixture linted (`-v`, concise) with the exit code it must give, the transcripts
/// one after another.
fn lint_each(fixtures: &[(&str, i32)]) -> String {
    let mut all = String::new();
    for &(fixture, code) in fixtures {
        let out = toolcheck(&["lint", "-v", fixture, "--output-format", "concise"]);
        assert_eq!(out.code, code, "{}", out.transcript());
        all.push_str(&out.transcript());
    }
    all
}

/// Spans as the OpenTelemetry SDK's `ConsoleSpanExporter` prints them (one pretty-printed
/// object per span, one after another), written by the real libraries
/// (`scripts/gen-traces.py --exporter console`): opentelemetry-instrumentation-openai-v2,
/// OpenLLMetry 0.62 (parts form) and 0.53 (flattened), openinference-instrumentation-openai;
/// a clean run and one with an unanswered call whose arguments are empty. Findings sit at
/// the line of the span they are in.
#[test]
fn console_span_exports() {
    let all = lint_each(&[
        ("fixtures/otel/clean-console-openai-v2.json", 0),
        ("fixtures/otel/broken-console-openai-v2.json", 1),
        ("fixtures/otel/clean-console-openllmetry-0.62.json", 0),
        ("fixtures/otel/broken-console-openllmetry-0.62.json", 1),
        ("fixtures/otel/clean-console-openllmetry-0.53.json", 0),
        ("fixtures/otel/broken-console-openllmetry-0.53.json", 1),
        ("fixtures/openinference/clean-console.json", 0),
        ("fixtures/openinference/broken-console.json", 1),
    ]);
    insta::assert_snapshot!(all);
}

/// Logfire's legacy LLM spans (`logfire.instrument_openai(version=1)`, logfire 5.4.0): the
/// request whole in `request_data`, the reply in `response_data`, printed by
/// `ConsoleSpanExporter` and sent by OTLP/HTTP to a collector (protobuf JSON lines).
#[test]
fn logfire_v1_spans() {
    let all = lint_each(&[
        ("fixtures/otel/clean-console-logfire-v1.json", 0),
        ("fixtures/otel/broken-console-logfire-v1.json", 1),
        ("fixtures/otel/broken-otlp-logfire-v1.traces.jsonl", 1),
    ]);
    insta::assert_snapshot!(all);
}

/// A tool whose `parameters` was passed as a JSON-encoded string, as each family that
/// records tool definitions records it (OpenLLMetry 0.62 `gen_ai.tool.definitions`, 0.53
/// `llm.request.functions.0.parameters`, OpenInference `llm.tools.0.tool.json_schema`), in
/// a request the provider rejected (HTTP 400, recorded on the span): `invalid-tool-schema`,
/// quoting the rejection.
#[test]
fn tool_schema_passed_as_a_string() {
    let mut all = String::new();
    for fixture in [
        "fixtures/otel/broken-console-openllmetry-0.62-schema-string.json",
        "fixtures/otel/broken-console-openllmetry-0.53-schema-string.json",
        "fixtures/openinference/broken-console-schema-string.json",
        "fixtures/otel/broken-console-logfire-v1-schema-string.json",
    ] {
        let out = concise(fixture);
        assert_eq!(out.code, 1, "{}", out.transcript());
        assert!(out.stdout.contains("TC303"), "{}", out.transcript());
        all.push_str(&out.transcript());
    }
    insta::assert_snapshot!(all);
}

/// Printed spans saved as `.jsonl`, or cut off while the exporter was writing: read as the
/// same spans, the cut one a parse error where it is.
#[test]
fn console_spans_named_jsonl_or_cut_off() {
    let text =
        std::fs::read_to_string("fixtures/openinference/broken-console.json").expect("fixture");
    let dir = tempfile::tempdir().expect("tempdir");
    let jsonl = dir.path().join("spans.jsonl");
    std::fs::write(&jsonl, &text).expect("write");
    let as_jsonl = concise(jsonl.to_str().unwrap_or_default());
    let as_json = concise("fixtures/openinference/broken-console.json");
    // Count findings by their `: TCnnn` heads: a temporary directory's random name may
    // itself contain "TC".
    assert_eq!(
        as_jsonl.stdout.matches(": TC").count(),
        as_json.stdout.matches(": TC").count(),
        "{}",
        as_jsonl.transcript()
    );
    let cut = dir.path().join("spans.json");
    let keep = text.len().saturating_sub(200);
    std::fs::write(&cut, text.get(..keep).unwrap_or_default()).expect("write");
    let out = concise(cut.to_str().unwrap_or_default());
    assert_eq!(out.code, 1);
    let lines = text.get(..keep).unwrap_or_default().lines().count();
    assert!(
        out.stdout.contains("TC001") && out.stdout.contains(&format!("spans.json:{lines}:")),
        "{}",
        out.transcript()
    );
}

/// OpenLLMetry's flattened attributes: the same failing call three times; the tool's
/// `parameters` is JSON inside a string by design, not an invalid schema.
#[test]
fn openllmetry_flattened_repeated_failure() {
    let out = concise("fixtures/otel/openllmetry-repeated-failure.json");
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// An export without model calls is not a conversation: skipped in a walk, unknown-format
/// when named.
#[test]
fn non_genai_export() {
    let out = concise("fixtures/otel/not-genai-http.json");
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::copy(
        "fixtures/otel/not-genai-http.json",
        dir.path().join("trace.json"),
    )
    .expect("copy");
    let walked = toolcheck(&["lint", "-v", dir.path().to_str().unwrap_or_default()]);
    assert_eq!(walked.code, 0, "{}", walked.transcript());
    assert!(
        walked
            .stderr
            .contains("OpenTelemetry (OTLP) export with no GenAI")
            || walked
                .stdout
                .contains("OpenTelemetry (OTLP) export with no GenAI"),
        "{}",
        walked.transcript()
    );
}

#[test]
fn openinference_clean() {
    let out = concise("fixtures/openinference/clean.json");
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn openinference_broken() {
    let out = concise("fixtures/openinference/broken.json");
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// `--target` still overrides the provider the trace names.
#[test]
fn target_overrides_recorded_provider() {
    let out = toolcheck(&[
        "lint",
        "fixtures/openinference/broken.json",
        "--target",
        "anthropic",
        "--output-format",
        "concise",
    ]);
    assert!(out.stdout.contains("TC102"), "{}", out.transcript());
}

/// A trace records requests already sent: nothing to repair, and the file is left alone.
#[test]
fn fix_offers_nothing() {
    let out = common::fix_leaves_alone("openinference/broken.json", "trace.json");
    insta::assert_snapshot!(out.transcript());
}

/// The 1.28–1.36 log-event form, one export request per line: the events of one span are
/// one model call; a call the next request leaves unanswered.
#[test]
fn otel_log_events_unpaired() {
    let out = toolcheck(&[
        "lint",
        "-v",
        "fixtures/otel/log-events-unpaired.jsonl",
        "--output-format",
        "concise",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// Older OpenInference Anthropic spans write calls without ids and every `tool_result`
/// block of a message to one `message.content` key; the request in `input.value` is read
/// instead, so parallel results are not reported unpaired.
#[test]
fn openinference_anthropic_lossy_keys() {
    let out = toolcheck(&[
        "lint",
        "-v",
        "fixtures/openinference/anthropic-lossy-keys.json",
    ]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

/// Forced, either trace format says why an export without model calls, or a file that is
/// not an export, does not fit.
#[test]
fn forced_format_on_other_files() {
    let out = toolcheck(&[
        "lint",
        "--input-format",
        "otel",
        "--output-format",
        "concise",
        "fixtures/otel/not-genai-http.json",
        "fixtures/openinference/clean.json",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// A Langfuse trace (`GET /api/public/traces/{id}`) from the OpenAI integration: two chained
/// GENERATIONs (`{messages, tools}` input), one conversation, clean.
#[test]
fn langfuse_clean_trace() {
    let out = toolcheck(&["lint", "-v", "fixtures/langfuse/clean-trace.json"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

/// A Langfuse observation list from the LangChain handler: tool definitions appended to the
/// input as tool messages are read as definitions (so the schema check runs), two traces
/// interleaved stay apart, input written as a JSON string is read, and a GENERATION at
/// `level: ERROR` keeps its rejection an error.
#[test]
fn langfuse_langchain_broken() {
    let out = concise("fixtures/langfuse/broken-langchain.json");
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// A LangSmith run tree (`read_run(..., load_child_runs=True)`): LangChain `dumpd` messages
/// in `inputs.messages[0]` and `outputs.generations[0][0].message`, tools from
/// `extra.invocation_params.tools`; one conversation, clean.
#[test]
fn langsmith_clean_run_tree() {
    let out = toolcheck(&["lint", "-v", "fixtures/langsmith/clean-run-tree.json"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

/// `wrap_openai` runs, one per line: truncated arguments, and a result sent twice in the
/// run that failed.
#[test]
fn langsmith_wrap_openai_broken() {
    let out = concise("fixtures/langsmith/broken-wrap-openai.jsonl");
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// The semconv ≤ 1.27 span events (`gen_ai.content.prompt` / `.completion` with a JSON
/// string in `gen_ai.prompt` / `gen_ai.completion`) as early OpenAI instrumentations wrote
/// them: the assistant message that made calls as the bare list of its calls, a completion
/// whose content is its calls. Two chained calls, one conversation, clean.
#[test]
fn otel_span_events_clean() {
    let out = toolcheck(&["lint", "-v", "fixtures/otel/clean-span-events.json"]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

/// The 1.28–1.36 message events recorded as span events (the body in
/// `gen_ai.event.content`) rather than log records: truncated arguments, a call left
/// unanswered, a result sent twice.
#[test]
fn otel_span_message_events_broken() {
    let out = concise("fixtures/otel/broken-span-message-events.json");
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// Langfuse `TOOL` observations carry no call id: matched to the calls of the GENERATION
/// before them by name and order, their `level: "ERROR"` marks the results the history
/// carries (and supplies the last call's result), so three identical failing deploys are a
/// repeated failing call although no result text says it failed.
#[test]
fn langfuse_tool_observations_supply_errors() {
    let out = concise("fixtures/langfuse/broken-tool-observations.json");
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// Arize Phoenix's REST span page (`GET /v1/projects/{id}/spans`: flat dotted attributes,
/// `span_kind` popped out of them, newest span first): three chained model calls and two
/// TOOL spans, one conversation, clean.
#[test]
fn phoenix_rest_clean() {
    let out = toolcheck(&[
        "lint",
        "-v",
        "fixtures/openinference/clean-phoenix-rest.json",
    ]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

/// The same container broken: truncated arguments, a result for a call never made, a call
/// left unanswered, and one deploy failing three times with the same arguments, which only
/// the TOOL spans (`status_code: "ERROR"`) say failed.
#[test]
fn phoenix_rest_broken() {
    let out = concise("fixtures/openinference/broken-phoenix-rest.json");
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
    // The repeated failure is known from the TOOL spans alone: with them succeeding, it goes.
    let text = std::fs::read_to_string("fixtures/openinference/broken-phoenix-rest.json")
        .expect("fixture")
        .replace("\"status_code\": \"ERROR\"", "\"status_code\": \"OK\"");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("spans.json");
    std::fs::write(&path, text).expect("write");
    let ok = concise(path.to_str().unwrap_or_default());
    assert!(!ok.stdout.contains("TC401"), "{}", ok.transcript());
    assert!(ok.stdout.contains("TC101"), "{}", ok.transcript());
}

/// Phoenix's `/spans/otlpv1` page: bare OTLP spans in snake_case (`string_value`, the unset
/// AnyValue members `null`, `status.code` an integer).
#[test]
fn phoenix_otlpv1_clean() {
    let out = toolcheck(&[
        "lint",
        "-v",
        "fixtures/openinference/clean-phoenix-otlpv1.json",
    ]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.transcript());
}

#[test]
fn phoenix_otlpv1_broken() {
    let out = concise("fixtures/openinference/broken-phoenix-otlpv1.json");
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// `get_spans_dataframe()` rows saved with `to_json(orient="records")`: lists not flattened
/// (`attributes.llm.input_messages` a list of `{"message.role", …}`), numbers as floats,
/// missing columns `null`; two traces interleaved in time stay two conversations.
#[test]
fn phoenix_dataframe_clean() {
    let out = toolcheck(&[
        "lint",
        "-v",
        "fixtures/openinference/clean-phoenix-dataframe.json",
    ]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    assert!(
        out.stderr.contains("2 conversations") || out.stdout.contains("2 conversations"),
        "{}",
        out.transcript()
    );
    insta::assert_snapshot!(out.transcript());
}

/// The rows saved one per line (`lines=True`): read together as one export.
#[test]
fn phoenix_dataframe_broken() {
    let out = concise("fixtures/openinference/broken-phoenix-dataframe.jsonl");
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
}

/// Near-misses: a page of another Phoenix list API, and spans (a REST page, dataframe rows
/// whose model-call columns are `null`) without a model call. Named, they are
/// unknown-format; in a walk, skipped.
#[test]
fn phoenix_near_misses() {
    let out = toolcheck(&[
        "lint",
        "--output-format",
        "concise",
        "fixtures/openinference/not-spans-phoenix-datasets-page.json",
        "fixtures/openinference/not-llm-phoenix-tool-spans.json",
        "fixtures/openinference/not-llm-phoenix-dataframe-rows.json",
    ]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.transcript());
    let dir = tempfile::tempdir().expect("tempdir");
    for name in [
        "not-spans-phoenix-datasets-page.json",
        "not-llm-phoenix-tool-spans.json",
        "not-llm-phoenix-dataframe-rows.json",
    ] {
        std::fs::copy(
            format!("fixtures/openinference/{name}"),
            dir.path().join(name),
        )
        .expect("copy");
    }
    let walked = toolcheck(&["lint", dir.path().to_str().unwrap_or_default()]);
    assert_eq!(walked.code, 0, "{}", walked.transcript());
    assert!(
        walked.transcript().contains("3 skipped"),
        "{}",
        walked.transcript()
    );
}

/// `tools extract` gives the tools a Phoenix export recorded, and they check it clean.
#[test]
fn phoenix_tools_extract_round_trips() {
    let out = toolcheck(&[
        "tools",
        "extract",
        "fixtures/openinference/broken-phoenix-dataframe.jsonl",
    ]);
    assert_eq!(out.code, 0, "{}", out.transcript());
    insta::assert_snapshot!(out.stdout);
    let dir = tempfile::tempdir().expect("tempdir");
    let tools = dir.path().join("tools.json");
    std::fs::write(&tools, &out.stdout).expect("write");
    let with = toolcheck(&[
        "lint",
        "--no-config",
        "--quiet",
        "--tools",
        tools.to_str().unwrap_or_default(),
        "fixtures/openinference/clean-phoenix-rest.json",
    ]);
    assert_eq!(with.code, 0, "{}", with.transcript());
}

/// Dataframe rows are in no set order: a JSONL file whose first lines are all TOOL and
/// CHAIN rows is still one export, its model calls rebuilt into one conversation (not each
/// row linted on its own, which would repeat every finding).
#[test]
fn phoenix_dataframe_model_calls_after_the_first_lines() {
    let text = std::fs::read_to_string("fixtures/openinference/broken-phoenix-dataframe.jsonl")
        .expect("fixture");
    let (llm, other): (Vec<&str>, Vec<&str>) = text
        .lines()
        .partition(|l| l.contains("\"span_kind\": \"LLM\""));
    let mut lines: Vec<&str> = other.iter().cycle().take(20).copied().collect();
    lines.extend(llm);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("rows.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").expect("write");
    let out = concise(path.to_str().unwrap_or_default());
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("Found 4 findings"),
        "{}",
        out.transcript()
    );
}

/// Every finding in a trace names the span it is in (trace id, span id, attribute) beside
/// its line and pointer: whole in the JSON output, briefly in the human ones.
#[test]
fn findings_name_their_span() {
    let fixture = "fixtures/otel/broken-two-traces.json";
    let json = toolcheck(&["lint", fixture, "--output-format", "json"]);
    assert_eq!(json.code, 1, "{}", json.transcript());
    let findings: serde_json::Value = serde_json::from_str(&json.stdout).unwrap_or_default();
    let spans: Vec<&serde_json::Value> = findings
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f.get("span"))
        .collect();
    assert_eq!(spans.len(), 2, "{}", json.stdout);
    insta::assert_snapshot!("findings_name_their_span_json", json.stdout);
    let jsonl = toolcheck(&["lint", fixture, "--output-format", "jsonl"]);
    assert_eq!(jsonl.stdout.matches("\"span\":{\"trace_id\":").count(), 2);
    // SARIF carries it in each result's properties.
    let sarif = toolcheck(&["lint", fixture, "--output-format", "sarif"]);
    let log: serde_json::Value = serde_json::from_str(&sarif.stdout).unwrap_or_default();
    let span = log
        .pointer("/runs/0/results/0/properties/span/span_id")
        .and_then(serde_json::Value::as_str);
    assert_eq!(span, Some("5b8efff798038102"), "{}", sarif.stdout);
    // The full report, on spans as `ConsoleSpanExporter` prints them (`0x` ids), and on
    // Langfuse observations (ids of their own, the `input` field).
    let full = toolcheck(&["lint", "fixtures/otel/broken-console-openai-v2.json"]);
    insta::assert_snapshot!("findings_name_their_span_full", full.transcript());
    let langfuse = toolcheck(&["lint", "fixtures/langfuse/broken-langchain.json"]);
    insta::assert_snapshot!("findings_name_their_span_langfuse", langfuse.transcript());
    // Findings outside traces name none.
    let chat = toolcheck(&[
        "lint",
        "fixtures/openai-chat/broken-request.json",
        "--output-format",
        "json",
    ]);
    assert!(!chat.stdout.contains("\"span\""), "{}", chat.stdout);
}

/// An agent loop recorded through opentelemetry-util-genai 1.3b0's `TelemetryHandler` (an
/// `invoke_agent` span with the tool definitions, an `execute_tool` span per call, no model
/// call's messages), as `ConsoleSpanExporter` prints it and as OTLP/HTTP sends it: the empty
/// arguments of each `execute_tool` span, and the loop of three failing runs, each at its span.
#[test]
fn util_genai_agent_spans() {
    let all = lint_each(&[
        ("fixtures/otel/clean-console-util-genai-agent.json", 0),
        ("fixtures/otel/broken-console-util-genai-agent.json", 1),
        ("fixtures/otel/broken-otlp-util-genai-agent.traces.jsonl", 1),
    ]);
    assert_eq!(all.matches("TC202").count(), 6, "{all}");
    assert_eq!(all.matches("TC401").count(), 2, "{all}");
    assert_eq!(
        all.matches("gen_ai.tool.call.arguments)").count(),
        6,
        "{all}"
    );
    insta::assert_snapshot!(all);
}

/// A request the provider rejected, sent through the `anthropic` SDK with OpenLLMetry's
/// Anthropic instrumentation 0.53.4: the library never ends (so never exports) the span of a
/// call that raised, and what the export holds is the SDK's own span, without content. No
/// conversation: named, it is `unknown-format` saying so; in a walk, skipped as such.
#[test]
fn openllmetry_anthropic_rejected_leaves_no_span() {
    let fixture = "fixtures/otel/not-content-console-openllmetry-0.53-anthropic-rejected.json";
    let out = concise(fixture);
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(
        out.stdout.contains("TC002") && out.stdout.contains("`ConsoleSpanExporter`"),
        "{}",
        out.transcript()
    );
    insta::assert_snapshot!(out.transcript());
}

/// The `anthropic` SDK's own tracing (2.16.0, content mode) around its tool runner, printed
/// by `ConsoleSpanExporter`: a `chat` span per request, an `execute_tool` span per call. The
/// recorded tool results drop `is_error`, so a failed run is read from its `execute_tool`
/// span's `ERROR` status: three identical failing `deploy` calls are a loop. On the runner's
/// default message thread each request records only what is new since the one before; the
/// turns are joined into one history (no result is orphaned) and give the same loop.
#[test]
fn anthropic_sdk_spans_loops_and_threads() {
    let all = lint_each(&[
        ("fixtures/otel/clean-console-anthropic-sdk.json", 0),
        ("fixtures/otel/clean-console-anthropic-sdk-threads.json", 0),
        ("fixtures/otel/broken-console-anthropic-sdk-loop.json", 1),
        (
            "fixtures/otel/broken-console-anthropic-sdk-loop-threads.json",
            1,
        ),
    ]);
    assert_eq!(all.matches("TC401").count(), 2, "{all}");
    assert!(!all.contains("TC101"), "{all}");
    insta::assert_snapshot!(all);
}
