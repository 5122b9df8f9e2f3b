//! Input decoding, in one place for `lint` and `fix`: UTF-8 (with or without a byte order
//! mark), and UTF-16 LE or BE with a byte order mark. The text is checked as decoded, so a
//! UTF-16 file's findings (lines, columns, byte offsets in JSON and SARIF output) refer to
//! its decoded text; the byte order mark is kept as U+FEFF at its start, as a UTF-8 one is.
//! `fix` writes a UTF-16 file back in UTF-16 with its byte order mark: every character it
//! did not change comes out as the same bytes.

use std::borrow::Cow;

/// How a file's bytes are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    #[default]
    Utf8,
    Utf16Le,
    Utf16Be,
}

impl Encoding {
    /// `text` in this encoding.
    pub fn encode(self, text: &str) -> Cow<'_, [u8]> {
        let units = text.encode_utf16();
        match self {
            Encoding::Utf8 => Cow::Borrowed(text.as_bytes()),
            Encoding::Utf16Le => Cow::Owned(units.flat_map(u16::to_le_bytes).collect()),
            Encoding::Utf16Be => Cow::Owned(units.flat_map(u16::to_be_bytes).collect()),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Encoding::Utf8 => "UTF-8",
            Encoding::Utf16Le => "UTF-16 LE",
            Encoding::Utf16Be => "UTF-16 BE",
        }
    }
}

/// Why a file's text is not exactly its bytes decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// Invalid UTF-8: the first bad byte and its offset, and the lines (0-based) holding bad
    /// bytes (a JSONL file's other records can still be checked). The text is decoded
    /// lossily, which keeps line breaks, so line numbers still match the bytes.
    BadUtf8 {
        at: usize,
        byte: u8,
        lines: Vec<usize>,
    },
    /// The whole file could not be read as text: a parse error at `at` (an offset in the
    /// text) with this message.
    Undecodable { at: usize, message: String },
}

impl Problem {
    /// The message a parse error shows.
    pub fn message(&self) -> String {
        match self {
            Problem::BadUtf8 { at, byte, .. } => bad_utf8(*byte, *at),
            Problem::Undecodable { message, .. } => message.clone(),
        }
    }

    /// Where the parse error goes, as an offset in the decoded text.
    pub fn offset(&self) -> usize {
        match self {
            Problem::BadUtf8 { at, .. } | Problem::Undecodable { at, .. } => *at,
        }
    }
}

/// What is said of a file that is not valid UTF-8, at its first bad byte.
pub fn bad_utf8(byte: u8, at: usize) -> String {
    format!("file is not valid UTF-8: byte 0x{byte:02x} at offset {at}")
}

/// A file's text.
#[derive(Debug)]
pub struct Decoded {
    pub text: String,
    pub encoding: Encoding,
    /// `Some` when the text is not a faithful decoding (and `fix` must not write it back).
    pub problem: Option<Problem>,
}

/// Decodes a file's bytes; see the module documentation.
pub fn decode(bytes: Vec<u8>) -> Decoded {
    let utf16 = match bytes.get(..2) {
        Some([0xff, 0xfe]) => Some(Encoding::Utf16Le),
        Some([0xfe, 0xff]) => Some(Encoding::Utf16Be),
        _ => None,
    };
    if let Some(encoding) = utf16 {
        return decode_utf16(&bytes, encoding);
    }
    if let Some(problem) = utf16_without_bom_problem(&bytes) {
        return Decoded {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            encoding: Encoding::Utf8,
            problem: Some(problem),
        };
    }
    match utf8_string(bytes) {
        Ok(text) => Decoded {
            text,
            encoding: Encoding::Utf8,
            problem: None,
        },
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let byte = e.as_bytes().get(at).copied().unwrap_or_default();
            let lines = e
                .as_bytes()
                .split(|&b| b == b'\n')
                .enumerate()
                .filter(|(_, line)| std::str::from_utf8(line).is_err())
                .map(|(i, _)| i)
                .collect();
            Decoded {
                text: String::from_utf8_lossy(e.as_bytes()).into_owned(),
                encoding: Encoding::Utf8,
                problem: Some(Problem::BadUtf8 { at, byte, lines }),
            }
        }
    }
}

/// [`decode`] of a text already known to be UTF-8 (a fix round's text): the same result as
/// decoding its bytes, without validating them again. Such a text cannot open with a UTF-16
/// byte order mark (0xFF and 0xFE never occur in UTF-8), so only the check for UTF-16
/// without one remains.
pub fn decode_text(text: String) -> Decoded {
    let problem = utf16_without_bom_problem(text.as_bytes());
    Decoded {
        text,
        encoding: Encoding::Utf8,
        problem,
    }
}

/// The problem of bytes that look like UTF-16 without a byte order mark.
fn utf16_without_bom_problem(bytes: &[u8]) -> Option<Problem> {
    let encoding = utf16_without_bom(bytes)?;
    let message = format!(
        "file looks like UTF-16 without a byte order mark ({}: every other byte is NUL); \
         save it as UTF-8, or as UTF-16 with a byte order mark",
        encoding.name()
    );
    Some(Problem::Undecodable { at: 0, message })
}

/// Whether `bytes` are UTF-8: SIMD-validated (std's validator goes a character at a time
/// through non-ASCII text, where most logs in other languages spend their bytes).
pub fn is_utf8(bytes: &[u8]) -> bool {
    simdutf8::basic::from_utf8(bytes).is_ok()
}

/// `bytes` as a `String`, validated as [`is_utf8`] does; std's error (with its position)
/// when they are not UTF-8.
pub fn utf8_string(bytes: Vec<u8>) -> Result<String, std::string::FromUtf8Error> {
    if is_utf8(&bytes) {
        // SAFETY: `is_utf8` has just validated these very bytes: simdutf8's `from_utf8`
        // accepts exactly the valid UTF-8 that `str::from_utf8` accepts.
        Ok(unsafe { String::from_utf8_unchecked(bytes) })
    } else {
        String::from_utf8(bytes)
    }
}

fn decode_utf16(bytes: &[u8], encoding: Encoding) -> Decoded {
    let units = bytes.chunks_exact(2).map(|pair| match (encoding, pair) {
        (Encoding::Utf16Be, [a, b]) => u16::from_be_bytes([*a, *b]),
        (_, [a, b]) => u16::from_le_bytes([*a, *b]),
        _ => 0,
    });
    let mut text = String::with_capacity(bytes.len() / 2);
    let mut problem = None;
    for decoded in char::decode_utf16(units) {
        match decoded {
            Ok(c) => text.push(c),
            Err(e) => {
                problem.get_or_insert_with(|| Problem::Undecodable {
                    at: text.len(),
                    message: format!(
                        "file is not valid {}: unpaired surrogate 0x{:04x} after {} characters",
                        encoding.name(),
                        e.unpaired_surrogate(),
                        text.chars().count()
                    ),
                });
                text.push(char::REPLACEMENT_CHARACTER);
            }
        }
    }
    if bytes.len() % 2 == 1 && problem.is_none() {
        problem = Some(Problem::Undecodable {
            at: text.len(),
            message: format!(
                "file is not valid {}: it has an odd number of bytes ({})",
                encoding.name(),
                bytes.len()
            ),
        });
    }
    Decoded {
        text,
        encoding,
        problem,
    }
}

/// Whether the bytes look like UTF-16 without a byte order mark: in their first 512 bytes,
/// at least nine pairs in ten have a NUL high byte and a non-NUL low byte (JSON is mostly
/// ASCII). Returns the byte order it looks like.
fn utf16_without_bom(bytes: &[u8]) -> Option<Encoding> {
    let head = bytes.get(..bytes.len().min(512))?;
    // Both byte orders need NUL bytes: text without one (nearly every file, and every call
    // of a guard) is answered without counting.
    memchr::memchr(0, head)?;
    let pairs = head.len() / 2;
    if pairs < 2 {
        return None;
    }
    let (mut le, mut be) = (0usize, 0usize);
    for pair in head.chunks_exact(2) {
        if let [a, b] = pair {
            le += usize::from(*a != 0 && *b == 0);
            be += usize::from(*a == 0 && *b != 0);
        }
    }
    let mostly = |count: usize| count * 10 >= pairs * 9;
    if mostly(le) {
        Some(Encoding::Utf16Le)
    } else if mostly(be) {
        Some(Encoding::Utf16Be)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::Just;
    use proptest::strategy::Strategy;

    fn utf16(text: &str, encoding: Encoding) -> Vec<u8> {
        encoding.encode(text).into_owned()
    }

    #[test]
    fn utf16_with_a_bom_round_trips() {
        for encoding in [Encoding::Utf16Le, Encoding::Utf16Be] {
            let text = "\u{feff}{\"a\": \"é 😀\"}\n";
            let bytes = utf16(text, encoding);
            let decoded = decode(bytes.clone());
            assert_eq!(decoded.text, text);
            assert_eq!(decoded.encoding, encoding);
            assert_eq!(decoded.problem, None);
            assert_eq!(decoded.encoding.encode(&decoded.text), bytes.as_slice());
        }
    }

    #[test]
    fn broken_utf16_is_a_problem() {
        let mut bytes = utf16("\u{feff}[1]", Encoding::Utf16Le);
        bytes.extend([0x00, 0xd8]); // a lone high surrogate
        let decoded = decode(bytes);
        assert!(
            decoded
                .problem
                .as_ref()
                .is_some_and(|p| p.message().contains("unpaired surrogate")),
            "{decoded:?}"
        );
        let odd = decode(vec![0xff, 0xfe, b'[', 0, b']']);
        assert!(odd
            .problem
            .is_some_and(|p| p.message().contains("odd number")));
    }

    #[test]
    fn utf16_without_a_bom_is_recognised_and_ascii_is_not() {
        let le = decode(utf16("{\"messages\": []}", Encoding::Utf16Le));
        assert!(le.problem.is_some_and(|p| p
            .message()
            .contains("looks like UTF-16 without a byte order mark (UTF-16 LE")));
        let be = decode(utf16("{\"messages\": []}", Encoding::Utf16Be));
        assert!(be
            .problem
            .is_some_and(|p| p.message().contains("(UTF-16 BE")));
        assert_eq!(decode(b"{\"a\": 1}".to_vec()).problem, None);
        assert_eq!(decode(b"{}".to_vec()).problem, None);
    }

    #[test]
    fn bad_utf8_lists_its_lines() {
        let decoded = decode(b"{}\n{\"a\": \"\xff\"}\n{}\n".to_vec());
        assert_eq!(
            decoded.problem,
            Some(Problem::BadUtf8 {
                at: 10,
                byte: 0xff,
                lines: vec![1]
            })
        );
    }

    #[test]
    fn utf8_strings_are_validated_as_std_validates_them() {
        let text = "größe データ 🙂 naïve";
        assert_eq!(
            utf8_string(text.as_bytes().to_vec()).ok().as_deref(),
            Some(text)
        );
        let mut bad = text.as_bytes().to_vec();
        bad.insert(7, 0xff);
        let theirs = String::from_utf8(bad.clone()).map_err(|e| e.utf8_error());
        assert_eq!(utf8_string(bad).map_err(|e| e.utf8_error()), theirs);
    }

    proptest::proptest! {
        /// The SIMD validator accepts exactly what std accepts, and the text is the bytes.
        #[test]
        fn utf8_string_agrees_with_std(bytes in proptest::collection::vec(
            proptest::prop_oneof![proptest::num::u8::ANY, 0x80u8..0xC0, 0xE0u8..0xF5],
            0..200,
        )) {
            let theirs = String::from_utf8(bytes.clone()).map_err(|e| e.utf8_error());
            proptest::prop_assert_eq!(is_utf8(&bytes), theirs.is_ok());
            proptest::prop_assert_eq!(utf8_string(bytes).map_err(|e| e.utf8_error()), theirs);
        }

        /// The count of NUL-high and NUL-low pairs, skipped for text without a NUL, gives
        /// what counting every pair of the head gives.
        #[test]
        fn utf16_guess_agrees_with_counting_every_pair(bytes in proptest::prop_oneof![
            proptest::collection::vec(
                proptest::prop_oneof![Just(0u8), Just(b'{'), proptest::num::u8::ANY],
                0..600,
            ),
            // Text that looks like UTF-16 of either byte order, a few of its bytes changed.
            (
                proptest::collection::vec(proptest::num::u8::ANY, 0..300),
                proptest::bool::ANY,
                proptest::collection::vec((0usize..600, proptest::num::u8::ANY), 0..30),
            )
                .prop_map(|(text, le, noise)| {
                    let mut bytes: Vec<u8> = text
                        .iter()
                        .flat_map(|&c| if le { [c | 1, 0] } else { [0, c | 1] })
                        .collect();
                    for (at, b) in noise {
                        if let Some(slot) = bytes.get_mut(at) {
                            *slot = b;
                        }
                    }
                    bytes
                }),
        ]) {
            let head = &bytes[..bytes.len().min(512)];
            let pairs: Vec<(u8, u8)> = head.chunks_exact(2).map(|p| (p[0], p[1])).collect();
            let mostly = |count: usize| pairs.len() >= 2 && count * 10 >= pairs.len() * 9;
            let le = pairs.iter().filter(|(a, b)| *a != 0 && *b == 0).count();
            let be = pairs.iter().filter(|(a, b)| *a == 0 && *b != 0).count();
            let counted = if mostly(le) {
                Some(Encoding::Utf16Le)
            } else if mostly(be) {
                Some(Encoding::Utf16Be)
            } else {
                None
            };
            proptest::prop_assert_eq!(utf16_without_bom(&bytes), counted);
        }

        /// A text decodes as its bytes do: a fix round may skip validating them again.
        #[test]
        fn decode_text_is_decode_of_a_texts_bytes(text in proptest::prop_oneof![
            proptest::prelude::any::<String>(),
            proptest::collection::vec(proptest::prop_oneof![Just('\0'), Just('{'), Just('a')], 0..40)
                .prop_map(|chars| chars.into_iter().collect::<String>()),
        ]) {
            let theirs = decode(text.clone().into_bytes());
            let ours = decode_text(text);
            proptest::prop_assert_eq!(&ours.text, &theirs.text);
            proptest::prop_assert_eq!(ours.encoding, theirs.encoding);
            proptest::prop_assert_eq!(ours.problem, theirs.problem);
        }

        #[test]
        fn utf8_string_keeps_valid_text(text in proptest::prelude::any::<String>()) {
            proptest::prop_assert_eq!(utf8_string(text.clone().into_bytes()).ok(), Some(text));
        }
    }
}
