//! Unified diffs of fixes, with long JSONL lines cropped to the part that changed.

use similar::{ChangeTag, DiffOp, TextDiff};

use crate::escape;

/// Lines longer than this (in characters) are cropped around what changed.
const LONG_LINE: usize = 240;
/// Characters of context kept on each side of a change inside a long line.
const CONTEXT_CHARS: usize = 60;

pub struct DiffStyle {
    pub color: bool,
}

/// A complete unified diff of `old` → `new`, uncropped and uncoloured, that `git apply` and
/// `patch -p1` accept; empty when they are equal.
pub fn patch(name: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let path = name.trim_start_matches('/');
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// A unified diff of `old` → `new` for the file `name`; empty when they are equal.
pub fn unified(name: &str, old: &str, new: &str, style: &DiffStyle) -> String {
    let diff = TextDiff::from_lines(old, new);
    let mut out = String::new();
    let groups = diff.grouped_ops(3);
    if groups.is_empty() {
        return out;
    }
    // `a/` and `b/` prefixes, as git writes them, also before absolute paths.
    // The name and the lines come from the user's files: escape what a terminal acts on.
    let path = escape::value(name.trim_start_matches('/'));
    out.push_str(&paint(&format!("--- a/{path}\n+++ b/{path}\n"), "1", style));
    for group in groups {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        out.push_str(&paint(
            &format!(
                "@@ -{} +{} @@\n",
                hunk_range(old_range.start, old_range.len()),
                hunk_range(new_range.start, new_range.len())
            ),
            "36",
            style,
        ));
        for op in &group {
            let changes: Vec<(ChangeTag, &str)> = diff
                .iter_changes(op)
                .map(|c| (c.tag(), c.value()))
                .collect();
            let (olds, news): (Vec<&str>, Vec<&str>) = match op {
                DiffOp::Replace { .. } => (
                    changes
                        .iter()
                        .filter(|c| c.0 == ChangeTag::Delete)
                        .map(|c| c.1)
                        .collect(),
                    changes
                        .iter()
                        .filter(|c| c.0 == ChangeTag::Insert)
                        .map(|c| c.1)
                        .collect(),
                ),
                _ => (Vec::new(), Vec::new()),
            };
            for (tag, line) in &changes {
                let partner = match tag {
                    ChangeTag::Delete => olds
                        .iter()
                        .position(|l| std::ptr::eq(*l, *line))
                        .and_then(|i| news.get(i)),
                    ChangeTag::Insert => news
                        .iter()
                        .position(|l| std::ptr::eq(*l, *line))
                        .and_then(|i| olds.get(i)),
                    ChangeTag::Equal => None,
                };
                let body = crop(
                    line.trim_end_matches(['\n', '\r']),
                    partner.map(|p| p.trim_end_matches(['\n', '\r'])),
                );
                // Tabs indent pretty-printed JSON; anything else unsafe is escaped.
                let body = escape::layout(&body);
                let (sign, color) = match tag {
                    ChangeTag::Delete => ('-', "31"),
                    ChangeTag::Insert => ('+', "32"),
                    ChangeTag::Equal => (' ', ""),
                };
                out.push_str(&paint(&format!("{sign}{body}"), color, style));
                out.push('\n');
                if !line.ends_with('\n') {
                    out.push_str("\\ No newline at end of file\n");
                }
            }
        }
    }
    out
}

fn hunk_range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

fn paint(text: &str, code: &str, style: &DiffStyle) -> String {
    if style.color && !code.is_empty() {
        let body = text.trim_end_matches('\n');
        let tail = text.get(body.len()..).unwrap_or_default();
        format!("\x1b[{code}m{body}\x1b[0m{tail}")
    } else {
        text.to_string()
    }
}

/// A long line cropped to the window where it differs from `partner` (or its head).
fn crop(line: &str, partner: Option<&str>) -> String {
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= LONG_LINE {
        return line.to_string();
    }
    let (from, to) = match partner {
        Some(other) => {
            let other: Vec<char> = other.chars().collect();
            let prefix = chars.iter().zip(&other).take_while(|(a, b)| a == b).count();
            let suffix = chars
                .iter()
                .rev()
                .zip(other.iter().rev())
                .take_while(|(a, b)| a == b)
                .count()
                .min(chars.len() - prefix);
            (
                prefix.saturating_sub(CONTEXT_CHARS),
                (chars.len() - suffix + CONTEXT_CHARS).min(chars.len()),
            )
        }
        None => (0, LONG_LINE),
    };
    let mut out = String::new();
    if from > 0 {
        out.push_str(&format!("…[{from} chars]"));
    }
    out.extend(chars.get(from..to).unwrap_or_default());
    if to < chars.len() {
        out.push_str(&format!("…[{} chars]", chars.len() - to));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_unified_diff() {
        let d = unified(
            "a.json",
            "[\n1,\n2\n]\n",
            "[\n1\n]\n",
            &DiffStyle { color: false },
        );
        assert_eq!(
            d,
            "--- a/a.json\n+++ b/a.json\n@@ -1,4 +1,3 @@\n [\n-1,\n-2\n+1\n ]\n"
        );
    }

    #[test]
    fn names_and_lines_from_the_file_are_escaped() {
        let d = unified(
            "x\u{1b}]0;t\u{7}\ny.json",
            "{\"a\": \"\u{202e}\u{9b}1\"}\n",
            "{\"a\":\t\"\u{7f}\"}\n",
            &DiffStyle { color: false },
        );
        assert_eq!(
            d,
            "--- a/x\\u{1b}]0;t\\u{7}\\u{a}y.json\n+++ b/x\\u{1b}]0;t\\u{7}\\u{a}y.json\n\
             @@ -1 +1 @@\n-{\"a\": \"\\u{202e}\\u{9b}1\"}\n+{\"a\":\t\"\\u{7f}\"}\n"
        );
    }

    #[test]
    fn long_lines_are_cropped_to_the_change() {
        let old = format!("{{\"a\": \"{}\", \"b\": 1}}\n", "x".repeat(1000));
        let new = format!("{{\"a\": \"{}\", \"b\": 2}}\n", "x".repeat(1000));
        let d = unified("a.jsonl", &old, &new, &DiffStyle { color: false });
        assert!(d.len() < 500, "{d}");
        assert!(
            d.contains("-…[") && d.contains("\"b\": 1}") && d.contains("\"b\": 2}"),
            "{d}"
        );
    }
}
