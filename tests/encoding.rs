//! UTF-16 input: read when it has a byte order mark, written back as UTF-16 by `fix`, and
//! named when it has none.

use crate::common;

use std::path::Path;

use common::{root, toolcheck_in};

fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    std::iter::once(0xfeff)
        .chain(text.encode_utf16())
        .flat_map(|u| {
            if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            }
        })
        .collect()
}

fn fixture() -> String {
    std::fs::read_to_string(root().join("fixtures/openai-chat/broken-request.json"))
        .expect("fixture")
}

fn concise(dir: &Path, file: &str) -> common::Output {
    toolcheck_in(
        dir,
        &["lint", file, "--output-format", "concise", "--no-config"],
        None,
    )
}

#[test]
fn utf16_with_a_bom_is_linted_like_its_utf8_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.json"), fixture()).expect("write");
    let utf8 = concise(dir.path(), "a.json");
    assert_eq!(utf8.code, 1, "{}", utf8.transcript());
    for (big_endian, name) in [(false, "le.json"), (true, "be.json")] {
        std::fs::write(dir.path().join(name), utf16(&fixture(), big_endian)).expect("write");
        let out = concise(dir.path(), name);
        // Same findings at the same lines and columns of the decoded text.
        assert_eq!(
            out.transcript(),
            utf8.transcript().replace("a.json", name),
            "{name}"
        );
    }
    let le = concise(dir.path(), "le.json");
    insta::assert_snapshot!(le.transcript());
}

#[test]
fn fix_writes_utf16_back_as_utf16_with_its_bom() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.json"), fixture()).expect("write");
    for (big_endian, name) in [(false, "le.json"), (true, "be.json")] {
        std::fs::write(dir.path().join(name), utf16(&fixture(), big_endian)).expect("write");
    }
    for name in ["a.json", "le.json", "be.json"] {
        let out = toolcheck_in(
            dir.path(),
            &["fix", name, "--write", "--no-config", "-q"],
            None,
        );
        assert_eq!(
            out.code,
            1,
            "findings without a fix remain: {}",
            out.transcript()
        );
    }
    let fixed = std::fs::read_to_string(dir.path().join("a.json")).expect("read");
    assert_ne!(fixed, fixture(), "something was fixed");
    for (big_endian, name) in [(false, "le.json"), (true, "be.json")] {
        let bytes = std::fs::read(dir.path().join(name)).expect("read");
        assert_eq!(
            bytes,
            utf16(&fixed, big_endian),
            "{name}: the UTF-8 fix, in UTF-16 with the BOM"
        );
    }
}

#[test]
fn utf16_without_a_bom_is_named_and_fix_leaves_it_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bytes: Vec<u8> = fixture()
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let path = dir.path().join("nobom.json");
    std::fs::write(&path, &bytes).expect("write");
    let out = concise(dir.path(), "nobom.json");
    insta::assert_snapshot!(out.transcript());
    let fix = toolcheck_in(
        dir.path(),
        &["fix", "nobom.json", "--write", "--no-config"],
        None,
    );
    assert_eq!(fix.code, 2, "{}", fix.transcript());
    assert!(
        fix.stderr
            .contains("looks like UTF-16 without a byte order mark"),
        "{}",
        fix.stderr
    );
    assert_eq!(std::fs::read(&path).expect("read"), bytes, "left unchanged");
}

#[test]
fn broken_utf16_is_a_parse_error_and_fix_leaves_it_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut bytes = utf16("{\"messages\": []}", false);
    bytes.extend([0x00, 0xd8, b'}', 0]);
    let path = dir.path().join("broken.json");
    std::fs::write(&path, &bytes).expect("write");
    let out = concise(dir.path(), "broken.json");
    assert_eq!(out.code, 1, "{}", out.transcript());
    assert!(
        out.stdout
            .contains("TC001 [parse-error] file is not valid UTF-16 LE: unpaired surrogate 0xd800"),
        "{}",
        out.transcript()
    );
    let fix = toolcheck_in(dir.path(), &["fix", "broken.json", "--write"], None);
    assert_eq!(fix.code, 2, "{}", fix.transcript());
    assert_eq!(std::fs::read(&path).expect("read"), bytes, "left unchanged");
}
