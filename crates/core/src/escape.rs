//! Makes text from logs safe to print on a terminal.
//!
//! Tool names, ids, keys, file names and source lines come from files that anyone can
//! write. Printed raw, an escape sequence in them recolours or retitles the terminal, plants
//! a hyperlink, moves the cursor over earlier lines, a bidi override reorders what is shown,
//! and a newline forges an output line (a fake `::error` workflow command, a fake finding).
//! Every human-readable output passes such text through here, which shows each of these
//! characters as a visible `\u{1b}`-style escape instead.

use std::borrow::Cow;

/// Whether to keep `\n` and `\t`: they are layout between the lines of a source snippet or
/// a diff, but inside a value a newline would start a forged output line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Escape every control character (names, ids, paths, messages).
    Nothing,
    /// Keep newlines and tabs (multi-line text whose line breaks are the layout).
    Layout,
}

/// Whether a terminal (or a reader) would act on `c` instead of showing it: C0 and C1
/// controls and DEL, bidi embeddings, overrides, isolates and marks, and the Unicode line
/// and paragraph separators.
pub fn is_unsafe(c: char) -> bool {
    // `is_control` is the Cc category: U+0000–U+001F, U+007F (DEL), U+0080–U+009F (C1).
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// Appends `c` to `out`, escaped if it is unsafe.
pub fn push_char(out: &mut String, c: char, keep: Keep) {
    if is_unsafe(c) && !(keep == Keep::Layout && matches!(c, '\n' | '\t')) {
        out.extend(c.escape_unicode());
    } else {
        out.push(c);
    }
}

/// `text` with every unsafe character escaped, borrowed when there is none.
pub fn escape(text: &str, keep: Keep) -> Cow<'_, str> {
    let needs = |c: char| is_unsafe(c) && !(keep == Keep::Layout && matches!(c, '\n' | '\t'));
    if !text.chars().any(needs) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        push_char(&mut out, c, keep);
    }
    Cow::Owned(out)
}

/// A value printed on one line: a name, id, path or message.
pub fn value(text: &str) -> Cow<'_, str> {
    escape(text, Keep::Nothing)
}

/// Multi-line text whose newlines and tabs are layout.
pub fn layout(text: &str) -> Cow<'_, str> {
    escape(text, Keep::Layout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_and_bidi_visibly() {
        assert_eq!(
            value("a\u{1b}[31mb\u{7}c\rd\ne\u{7f}f\u{9b}g\u{202e}h\u{2066}i\ttab"),
            "a\\u{1b}[31mb\\u{7}c\\u{d}d\\u{a}e\\u{7f}f\\u{9b}g\\u{202e}h\\u{2066}i\\u{9}tab"
        );
        assert_eq!(
            value("\u{200e}\u{200f}\u{61c}\u{2028}"),
            "\\u{200e}\\u{200f}\\u{61c}\\u{2028}"
        );
    }

    #[test]
    fn layout_keeps_newlines_and_tabs_only() {
        assert_eq!(
            layout("a\n\tb\r\u{1b}]0;t\u{7}"),
            "a\n\tb\\u{d}\\u{1b}]0;t\\u{7}"
        );
    }

    #[test]
    fn plain_text_is_borrowed_unchanged() {
        let text = "search_docs é 你好 😀 \\u{1b} `x`";
        assert!(matches!(value(text), Cow::Borrowed(t) if t == text));
    }
}
