//! bytes → toolcheck's tree parser and serde_json: the same verdict and the same value.
//!
//! The tree parser reads every document and record, and the rest of toolcheck trusts it to
//! accept exactly the JSON serde_json accepts (serde_json reports the errors). A document
//! one accepts and the other rejects, or one they read differently, is a crash here.

use toolcheck::tree;

pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // serde_json's `arbitrary_precision` reads an object keyed by this token as a number
    // (and refuses it unless its value is one): a quirk of serde_json, not JSON, which the
    // tree does not copy.
    if text.contains("$serde_json::private::Number") {
        return;
    }
    let theirs = serde_json::from_str::<serde_json::Value>(text);
    match tree::parse(text) {
        // A lone surrogate escape: serde_json refuses it, toolcheck reads it as U+FFFD.
        Ok(t) if t.lossy => assert!(theirs.is_err(), "lossy but serde_json accepts: {text:?}"),
        Ok(t) => match theirs {
            Ok(v) => {
                assert!(t.value.to_serde() == v, "read differently: {text:?}");
                // The compact text (what schemas are keyed by) is the same value.
                let mut compact = String::new();
                t.value.write_compact(&mut compact);
                let again = serde_json::from_str::<serde_json::Value>(&compact);
                assert!(again.is_ok_and(|a| a == v), "compact differs: {text:?}");
            }
            Err(e) => panic!("tree accepts what serde_json rejects ({e}): {text:?}"),
        },
        Err(_) => assert!(
            theirs.is_err(),
            "tree rejects what serde_json accepts: {text:?}"
        ),
    }
    // Decoding part of a string never disagrees with decoding the whole.
    if let Ok(t) = tree::parse(text) {
        if let tree::Value::String(s) = &t.value {
            let blank = s.is_blank();
            let heads = [0, 1, 7, 64].map(|min| s.prefix(min).into_owned());
            let whole = s.as_str();
            assert_eq!(blank, whole.trim().is_empty(), "{text:?}");
            for head in heads {
                assert!(whole.starts_with(&head), "{text:?}");
            }
        }
    }
}
