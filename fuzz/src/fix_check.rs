//! The `fix` target's check: bytes → fix → invariants. `FixError::Undecodable` is an accepted
//! outcome; `Unparseable` and `DidNotConverge` are internal errors. On success, for valid
//! UTF-8 input: (a) if the input had no parse error (TC001), the fixed text has none either;
//! (b) no finding left in the result has a fix that applies under these settings; (c) fixing
//! the fixed text again returns it unchanged; (d) the same text compressed into Zstandard
//! frames (the first line alone, then three lines a frame) is fixed to the same text, its text
//! as read rewrites to the same bytes, and its fix rewrites to frames that decompress to the
//! fixed text, the frames before an appended one byte for byte.

use toolcheck::fix::diff::{unified, DiffStyle};
use toolcheck::fix::{applies, fix_bytes, FileFix, FixError};
use toolcheck::lint::{lint_bytes, FileReport};
use toolcheck::rules::ParseError;

fn parse_errors(report: &FileReport) -> usize {
    report
        .findings
        .iter()
        .filter(|f| f.rule.code == ParseError::META.code)
        .count()
}

/// The codes of the findings left in a fix's result whose fix applies under these settings.
pub fn applicable_left(fixed: &FileFix, unsafe_fixes: bool) -> Vec<&'static str> {
    fixed
        .report
        .findings
        .iter()
        .filter(|f| applies(f, unsafe_fixes))
        .map(|f| f.rule.code)
        .collect()
}

/// Runs the `fix` target's check on one input (two option bytes, then the file).
pub fn check(data: &[u8]) {
    let Some((options, file)) = super::split_input(data) else {
        return;
    };
    let setup = super::fix_setup(options);
    super::trace(&setup);
    let name = setup.source_name();
    let unsafe_fixes = setup.unsafe_fixes;

    let fixed = match fix_bytes(
        &name,
        file.to_vec(),
        setup.explicit,
        &setup.opts,
        unsafe_fixes,
    ) {
        Ok(fixed) => fixed,
        // Not decodable faithfully (invalid UTF-8 or UTF-16): left alone, by design.
        Err(FixError::Undecodable(_)) => return,
        Err(
            e @ (FixError::Unparseable { .. }
            | FixError::DidNotConverge { .. }
            | FixError::Unrecoverable),
        ) => {
            panic!("fix_bytes failed ({}): {e}", setup.describe())
        }
    };
    // `original` is the decoded text: the input itself when it is UTF-8 (a UTF-16 file with a
    // byte order mark is decoded, and written back as UTF-16).
    if std::str::from_utf8(file).is_ok() {
        assert_eq!(
            fixed.original_text().as_bytes(),
            file,
            "FileFix::original_text is the input"
        );
    }

    // (a) No new parse errors in a file that parsed.
    let before = lint_bytes(
        setup.source_name(),
        file.to_vec(),
        setup.explicit,
        &setup.opts,
    );
    let errors_before = parse_errors(&before);
    let errors_after = parse_errors(&fixed.report);
    if errors_before == 0 {
        assert!(
            errors_after <= errors_before,
            "fixing added {errors_after} parse error(s) to a file that parsed ({})",
            setup.describe()
        );
    }

    // (b) Nothing applicable is left.
    let left = applicable_left(&fixed, unsafe_fixes);
    assert!(
        left.is_empty(),
        "applicable fixes left after fixing: {left:?}"
    );
    assert_eq!(fixed.changed(), fixed.original_text() != fixed.fixed_text());
    if fixed.applied == 0 {
        assert!(!fixed.changed(), "text changed with no fix applied");
    }

    // The diff the CLI prints must not panic either.
    let diff = unified(
        &name.name,
        &fixed.original_text(),
        fixed.fixed_text(),
        &DiffStyle {
            color: false,
            crop: true,
        },
    );
    assert_eq!(
        diff.is_empty(),
        !fixed.changed(),
        "a diff exactly when the text changed"
    );

    // (c) Fixing is idempotent.
    match fix_bytes(
        &name,
        fixed.fixed_text().as_bytes().to_vec(),
        setup.explicit,
        &setup.opts,
        unsafe_fixes,
    ) {
        Ok(again) => assert!(
            again.fixed_text() == fixed.fixed_text(),
            "fixing the fixed text changed it again ({} more fixes; {})",
            again.applied,
            setup.describe()
        ),
        Err(e) => panic!("fixing the fixed text failed ({}): {e}", setup.describe()),
    }

    // (d) The compressed log's fix and its rewrite.
    if let Ok(text) = std::str::from_utf8(file) {
        compressed(&setup, text, fixed.fixed_text());
    }
}

/// (d): `text` compressed into frames, fixed through `zstd_log::Log` (which must agree with
/// the plain fix, `plain`, when the log can be written back) and written back frame by frame.
fn compressed(setup: &super::Setup, text: &str, plain: &str) {
    use toolcheck::zstd_log;
    let mut frames = Vec::new();
    let mut chunk = String::new();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        chunk.push_str(line);
        if i % 3 == 0 {
            frames.push(std::mem::take(&mut chunk));
        }
    }
    frames.push(chunk);
    let mut bytes = Vec::new();
    for frame in frames.iter().filter(|f| !f.is_empty()) {
        bytes.extend(zstd_log::compress(frame, true).expect("compresses"));
    }
    if bytes.is_empty() {
        return;
    }
    let limit = 1 << 24;
    let log = zstd_log::decode_file(bytes.clone(), limit).expect("within the limit");
    let writable = log.unwritable().is_none();
    if writable {
        assert_eq!(
            log.rewrite(log.bytes()).expect("the text as read rewrites"),
            bytes
        );
    }
    let fixed = log
        .fix(
            &setup.source_name(),
            setup.explicit,
            &setup.opts,
            setup.unsafe_fixes,
        )
        .unwrap_or_else(|e| {
            panic!(
                "the compressed log's fix failed ({}): {e}",
                setup.describe()
            )
        });
    if !fixed.changed() {
        return;
    }
    assert!(writable, "a log that cannot be written back was changed");
    assert_eq!(
        fixed.fixed_text(),
        plain,
        "the compressed log's fix is the plain one"
    );
    let new = fixed.fixed_text();
    match log.rewrite(new.as_bytes()) {
        Ok(out) => {
            let again = zstd_log::decode(&out, limit).expect("within the limit");
            assert_eq!(
                again.bytes(),
                new.as_bytes(),
                "the rewrite decompresses to the fix"
            );
            if new.starts_with(text) {
                assert!(
                    out.starts_with(&bytes),
                    "an append keeps every frame before it"
                );
            }
        }
        // Frames hold whole lines: a fixed text that ends inside one is refused, not written.
        Err(why) => assert!(!new.ends_with('\n'), "the rewrite was refused: {why}"),
    }
}
