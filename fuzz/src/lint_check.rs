//! The `lint` target's check: bytes → lint → every output format. Nothing may panic, and the
//! machine formats (JSON, JSONL, SARIF, statistics) must be valid JSON.

use toolcheck::lint::lint_bytes;
use toolcheck::report::{
    place_all, write_diagnostics, write_statistics, Diagnostic, FullRenderer, OutputFormat,
};

const FORMATS: [OutputFormat; 8] = [
    OutputFormat::Full,
    OutputFormat::Concise,
    OutputFormat::Json,
    OutputFormat::Jsonl,
    OutputFormat::Github,
    OutputFormat::Sarif,
    OutputFormat::Gitlab,
    OutputFormat::Junit,
];

thread_local! {
    static RENDERERS: [FullRenderer; 2] = [FullRenderer::new(false), FullRenderer::new(true)];
}

/// Runs the `lint` target's check on one input (two option bytes, then the file).
pub fn check(data: &[u8]) {
    let Some((options, file)) = super::split_input(data) else {
        return;
    };
    let setup = super::lint_setup(options);
    super::trace(&setup);
    let report = lint_bytes(
        setup.source_name(),
        file.to_vec(),
        setup.explicit,
        &setup.opts,
    );

    let diagnostics: Vec<Diagnostic> = report
        .findings
        .iter()
        .cloned()
        .map(|f| Diagnostic::resolve(&report.source, f.unlocated()))
        .collect();
    // Placed as the command line places them (`place_all`, inside a span cache that reads
    // the spans the parser recorded), the findings land where a scan of the text puts them.
    let at = |d: &Diagnostic| (d.start, d.code, d.message.clone(), d.end, d.line, d.column);
    let mut scanned: Vec<_> = diagnostics.iter().map(at).collect();
    scanned.sort();
    let mut cached: Vec<_> = place_all(&report.source, report.findings.clone())
        .iter()
        .map(at)
        .collect();
    cached.sort();
    assert_eq!(
        cached, scanned,
        "placed from recorded spans, findings moved"
    );
    // Linted with no spans recorded (every lookup scans), the same findings at the same
    // places with the same fixes: the spans change how fixes are planned, not what they are.
    #[cfg(fuzzing)]
    let unrecorded = toolcheck::spans::without_spans(|| {
        lint_bytes(
            setup.source_name(),
            file.to_vec(),
            setup.explicit,
            &setup.opts,
        )
    });
    #[cfg(fuzzing)]
    let placed = |r: &toolcheck::lint::FileReport| {
        serde_json::to_string(&place_all(&r.source, r.findings.clone())).unwrap_or_default()
    };
    #[cfg(fuzzing)]
    assert_eq!(
        placed(&report),
        placed(&unrecorded),
        "with recorded spans, findings or fixes changed"
    );
    for d in &diagnostics {
        assert!(
            d.start <= d.end,
            "{}: span {}..{} is reversed",
            d.code,
            d.start,
            d.end
        );
        assert!(
            d.line >= 1 && d.column >= 1,
            "{}: line/column are 1-based",
            d.code
        );
        assert!(
            (d.line, d.column) <= (d.end_line, d.end_column),
            "{}: end {}:{} before start {}:{}",
            d.code,
            d.end_line,
            d.end_column,
            d.line,
            d.column
        );
    }

    built_as_tree(&setup, file);

    RENDERERS.with(|renderers| {
        for renderer in renderers {
            for d in &diagnostics {
                let text = renderer.render(&report.source, d);
                assert!(!text.is_empty());
            }
        }
    });

    for format in FORMATS {
        if format != OutputFormat::Full {
            let mut out = Vec::new();
            write_diagnostics(&mut out, format, &diagnostics).expect("writing to a Vec");
            check_output(format, &out, diagnostics.len());
        }
        let mut out = Vec::new();
        write_statistics(&mut out, format, &diagnostics).expect("writing to a Vec");
        if !format.is_human() {
            let stats: serde_json::Value = serde_json::from_slice(&out)
                .unwrap_or_else(|e| panic!("--statistics {format:?} is not JSON: {e}"));
            assert!(stats.is_array());
        }
    }
}
fn check_output(format: OutputFormat, out: &[u8], count: usize) {
    let text = std::str::from_utf8(out).expect("output is UTF-8");
    match format {
        OutputFormat::Json => {
            let v: serde_json::Value =
                serde_json::from_str(text).unwrap_or_else(|e| panic!("json output: {e}"));
            assert_eq!(
                v.as_array().map(Vec::len),
                Some(count),
                "json output: one item per finding"
            );
        }
        OutputFormat::Jsonl => {
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), count, "jsonl output: one line per finding");
            for line in lines {
                let v: serde_json::Value = serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("jsonl output line {line:?}: {e}"));
                assert!(v.is_object());
            }
        }
        OutputFormat::Sarif => {
            let v: serde_json::Value =
                serde_json::from_str(text).unwrap_or_else(|e| panic!("sarif output: {e}"));
            let results = v["runs"][0]["results"].as_array().map(Vec::len);
            assert_eq!(results, Some(count), "sarif output: one result per finding");
        }
        OutputFormat::Github => {
            // Workflow commands are one line each: a message must not break out of its line.
            assert_eq!(
                text.lines().count(),
                count,
                "github output: one line per finding"
            );
        }
        OutputFormat::Gitlab => {
            let v: serde_json::Value =
                serde_json::from_str(text).unwrap_or_else(|e| panic!("gitlab output: {e}"));
            assert_eq!(
                v.as_array().map(Vec::len),
                Some(count),
                "gitlab output: one issue per finding"
            );
        }
        OutputFormat::Junit => {
            // Markup from the log is escaped: the only elements are the report's own.
            assert_eq!(
                text.matches("<failure ").count(),
                count,
                "junit output: one failure per finding"
            );
            assert_eq!(text.matches("</failure>").count(), count);
        }
        OutputFormat::Concise | OutputFormat::Full => {}
    }
}

/// A JSON document built as a tree (as the Python guards build one off their objects, with
/// no text) finds what its compact text finds: the same rules at the same nodes with the same
/// messages (`lint::lint_tree`, which a clean guard verdict rests on).
fn built_as_tree(setup: &super::Setup, file: &[u8]) {
    let Ok(text) = std::str::from_utf8(file) else {
        return;
    };
    // serde_json's `arbitrary_precision` token (see `tree_check`), and the lint's `explicit`
    // run, which is the guards' (an unknown format is a finding).
    if !setup.explicit || text.contains("$serde_json::private::Number") {
        return;
    }
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(text) else {
        return;
    };
    let tree = toolcheck::tree::Value::borrowing(&doc);
    let Some(of_tree) = toolcheck::lint::lint_tree(setup.source_name(), tree, &setup.opts) else {
        return;
    };
    let compact = serde_json::to_string(&doc).unwrap_or_default();
    let of_text = lint_bytes(setup.source_name(), compact.into_bytes(), true, &setup.opts);
    let found = |r: &toolcheck::lint::FileReport| {
        let mut found: Vec<String> = r
            .findings
            .iter()
            .map(|f| {
                format!(
                    "{} {:?} {} {:?}",
                    f.rule.code, f.anchor, f.message, f.providers
                )
            })
            .collect();
        found.sort();
        found
    };
    assert_eq!(
        found(&of_tree),
        found(&of_text),
        "built as a tree, the document finds something else: {text:?}"
    );
}
