//! The borrowed tree parser against serde_json: the same JSON accepted, the same values read.

use proptest::prelude::*;
use serde_json::Value;
use toolcheck::{json, tree};

/// serde_json's verdict and value; `None` when it rejects.
fn serde(text: &str) -> Option<Value> {
    serde_json::from_str(text).ok()
}

fn agrees(text: &str) {
    match tree::parse(text) {
        Ok(t) if t.lossy => {
            // A lone surrogate: serde_json refuses it, toolcheck reads it as U+FFFD.
            assert!(serde(text).is_none(), "{text:?}");
        }
        Ok(t) => {
            let expected = serde(text);
            assert!(
                expected.is_some(),
                "tree accepts what serde_json rejects: {text:?}"
            );
            assert_eq!(Some(t.value.to_serde()), expected, "{text:?}");
        }
        Err(_) => {
            assert!(
                serde(text).is_none(),
                "tree rejects what serde_json accepts: {text:?}"
            );
            // The error is serde_json's, so positions and kinds are unchanged.
            assert!(json::parse(text).is_err());
        }
    }
}

/// JSON-ish text: valid documents, broken ones, and everything between.
fn jsonish() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("{".to_string()),
        Just("}".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just(",".to_string()),
        Just(":".to_string()),
        Just("\"".to_string()),
        Just("\\".to_string()),
        Just("\"k\"".to_string()),
        Just("\"a\\nb\"".to_string()),
        Just("\"\\ud83d\\ude00\"".to_string()),
        Just("\"\\ud83d\"".to_string()),
        Just("\\u00e9".to_string()),
        Just("\\u12".to_string()),
        Just("true".to_string()),
        Just("tru".to_string()),
        Just("null".to_string()),
        Just(" ".to_string()),
        Just("\n".to_string()),
        Just("\u{1}".to_string()),
        Just("é".to_string()),
        "-?[0-9]{0,3}(\\.[0-9]{0,2})?([eE][+-]?[0-9]{0,2})?",
    ];
    prop::collection::vec(token, 0..24).prop_map(|t| t.concat())
}

/// Valid JSON built by serde_json, pretty or compact.
fn document() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    let tree = leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((".{0,6}", inner), 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    (tree, any::<bool>()).prop_map(|(v, pretty)| {
        if pretty {
            serde_json::to_string_pretty(&v).unwrap_or_default()
        } else {
            v.to_string()
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn agrees_on_jsonish_text(text in jsonish()) {
        agrees(&text);
    }

    #[test]
    fn reads_every_document_as_serde_json_does(text in document()) {
        agrees(&text);
    }

    #[test]
    fn agrees_on_truncated_documents(text in document(), cut in 0usize..200) {
        let at = (0..=cut.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        agrees(text.get(..at).unwrap_or_default());
    }
}

#[test]
fn agrees_at_the_edges() {
    for text in [
        "0",
        "-0",
        "-0.0e-0",
        "1E5",
        "[]",
        "{}",
        " [ ] ",
        "\"\"",
        "\"\\/\"",
        "[1,[2,[3]]]",
        "{\"a\":{\"a\":1},\"a\":2}",
        "\u{feff}{}",
        "01",
        "[01]",
        "-",
        "1.e3",
        "\"\\u0000\"",
        "\"\u{7f}\"",
        "\"\\uD800\\uDC00\"",
        "\"\\uDC00\\uD800\"",
        "{\"a\"}",
        "[,]",
        "\t\r\n1",
    ] {
        agrees(text);
    }
    for depth in [1, 126, 127, 128, 129, 500] {
        agrees(&format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
        agrees(&format!("{}{}", "{\"a\":".repeat(depth), "}".repeat(depth)).replace(":}", ":1}"));
    }
}
