//! Unified diffs of fixes, with long JSONL lines cropped to the part that changed.

use imara_diff::{Algorithm, Diff, InternedInput};
use similar::{ChangeTag, DiffOp};

use crate::escape;

/// Lines longer than this (in characters) are cropped around what changed.
const LONG_LINE: usize = 240;
/// Characters of context kept on each side of a change inside a long line.
const CONTEXT_CHARS: usize = 60;
/// Unchanged lines shown around each change.
const CONTEXT_LINES: usize = 3;

pub struct DiffStyle {
    pub color: bool,
    /// Crop long lines around what changed (for a reader at a terminal; a diff written to a
    /// file or a pipe stays whole, so it applies as a patch).
    pub crop: bool,
}

/// The lines of both texts (each with its line terminator) and the operations that turn the
/// old lines into the new ones.
struct LineDiff<'a> {
    old: Vec<&'a str>,
    new: Vec<&'a str>,
    ops: Vec<DiffOp>,
}

impl<'a> LineDiff<'a> {
    /// imara-diff's Myers, not similar's: similar's costs the lines times the changed lines
    /// (a fix that inserts a result after each of 16,000 calls of a session took 8 s to
    /// diff); imara-diff first sets aside lines that occur on one side only (each inserted
    /// JSONL record) and bounds the search as git does, 5× faster there. Its histogram
    /// algorithm was slower on such fixes.
    fn new(old: &'a str, new: &'a str) -> LineDiff<'a> {
        let input = InternedInput::new(old, new);
        let mut diff = Diff::compute(Algorithm::Myers, &input);
        diff.postprocess_lines(&input);
        // The same lines imara-diff tokenised: each ends after its `\n`.
        let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
        let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
        let mut ops = Vec::new();
        let (mut at_old, mut at_new) = (0usize, 0usize);
        for hunk in diff.hunks() {
            let (old_start, old_end) = (hunk.before.start as usize, hunk.before.end as usize);
            let (new_start, new_end) = (hunk.after.start as usize, hunk.after.end as usize);
            if old_start > at_old {
                ops.push(DiffOp::Equal {
                    old_index: at_old,
                    new_index: at_new,
                    len: old_start - at_old,
                });
            }
            let (old_len, new_len) = (old_end - old_start, new_end - new_start);
            ops.push(match (old_len, new_len) {
                (_, 0) => DiffOp::Delete {
                    old_index: old_start,
                    old_len,
                    new_index: new_start,
                },
                (0, _) => DiffOp::Insert {
                    old_index: old_start,
                    new_index: new_start,
                    new_len,
                },
                _ => DiffOp::Replace {
                    old_index: old_start,
                    old_len,
                    new_index: new_start,
                    new_len,
                },
            });
            (at_old, at_new) = (old_end, new_end);
        }
        if old_lines.len() > at_old {
            ops.push(DiffOp::Equal {
                old_index: at_old,
                new_index: at_new,
                len: old_lines.len() - at_old,
            });
        }
        LineDiff {
            old: old_lines,
            new: new_lines,
            ops,
        }
    }

    /// The operations in hunks, each with its lines of context; none when nothing changed.
    fn hunks(&self) -> Vec<Vec<DiffOp>> {
        if self.ops.iter().all(|op| matches!(op, DiffOp::Equal { .. })) {
            return Vec::new();
        }
        similar::group_diff_ops(self.ops.clone(), CONTEXT_LINES)
    }

    /// The lines of one operation in the order a unified diff shows them, each with the
    /// line it replaces or is replaced by (the same position on the other side of a
    /// replacement), which a long line is cropped against.
    fn lines(&self, op: &DiffOp) -> Vec<(ChangeTag, &'a str, Option<&'a str>)> {
        let (olds, news) = (
            self.old.get(op.old_range()).unwrap_or_default(),
            self.new.get(op.new_range()).unwrap_or_default(),
        );
        match op {
            DiffOp::Equal { .. } => olds.iter().map(|l| (ChangeTag::Equal, *l, None)).collect(),
            DiffOp::Delete { .. } => olds.iter().map(|l| (ChangeTag::Delete, *l, None)).collect(),
            DiffOp::Insert { .. } => news.iter().map(|l| (ChangeTag::Insert, *l, None)).collect(),
            DiffOp::Replace { .. } => {
                let deleted = olds
                    .iter()
                    .enumerate()
                    .map(|(i, l)| (ChangeTag::Delete, *l, news.get(i).copied()));
                let inserted = news
                    .iter()
                    .enumerate()
                    .map(|(i, l)| (ChangeTag::Insert, *l, olds.get(i).copied()));
                deleted.chain(inserted).collect()
            }
        }
    }
}

/// The `@@ -a,b +c,d @@` line of a hunk.
fn hunk_header(group: &[DiffOp]) -> Option<String> {
    let (first, last) = (group.first()?, group.last()?);
    let old = first.old_range().start..last.old_range().end;
    let new = first.new_range().start..last.new_range().end;
    Some(format!(
        "@@ -{} +{} @@\n",
        hunk_range(old.start, old.len()),
        hunk_range(new.start, new.len())
    ))
}

/// A complete unified diff of `old` → `new`, uncropped and uncoloured, that `git apply` and
/// `patch -p1` accept; empty when they are equal.
pub fn patch(name: &str, old: &str, new: &str) -> String {
    let mut out = String::new();
    if old == new {
        return out;
    }
    let diff = LineDiff::new(old, new);
    let hunks = diff.hunks();
    if hunks.is_empty() {
        return out;
    }
    let path = name.trim_start_matches('/');
    out.push_str(&format!(
        "--- {}\n+++ {}\n",
        quote_path(&format!("a/{path}")),
        quote_path(&format!("b/{path}"))
    ));
    for group in &hunks {
        let Some(header) = hunk_header(group) else {
            continue;
        };
        out.push_str(&header);
        for op in group {
            for (tag, line, _) in diff.lines(op) {
                out.push_str(sign(tag));
                out.push_str(line);
                if !line.ends_with(['\n', '\r']) {
                    out.push_str("\n\\ No newline at end of file\n");
                }
            }
        }
    }
    out
}

/// A patch header's path as git writes it: as is, or, when it holds a character a terminal
/// acts on (a hostile file or store table name), in double quotes with C escapes, which
/// `git apply` and `patch` read back.
fn quote_path(path: &str) -> std::borrow::Cow<'_, str> {
    if !path.chars().any(escape::is_unsafe) {
        return path.into();
    }
    let mut out = String::from("\"");
    for c in path.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if escape::is_unsafe(c) => {
                let mut bytes = [0; 4];
                for b in c.encode_utf8(&mut bytes).bytes() {
                    out.push_str(&format!("\\{b:03o}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out.into()
}

fn sign(tag: ChangeTag) -> &'static str {
    match tag {
        ChangeTag::Delete => "-",
        ChangeTag::Insert => "+",
        ChangeTag::Equal => " ",
    }
}

/// A unified diff of `old` → `new` for the file `name`; empty when they are equal.
pub fn unified(name: &str, old: &str, new: &str, style: &DiffStyle) -> String {
    let diff = LineDiff::new(old, new);
    let mut out = String::new();
    let groups = diff.hunks();
    if groups.is_empty() {
        return out;
    }
    // `a/` and `b/` prefixes, as git writes them, also before absolute paths.
    // The name and the lines come from the user's files: escape what a terminal acts on.
    let path = escape::value(name.trim_start_matches('/'));
    out.push_str(&paint(&format!("--- a/{path}\n+++ b/{path}\n"), "1", style));
    for group in groups {
        let Some(header) = hunk_header(&group) else {
            continue;
        };
        out.push_str(&paint(&header, "36", style));
        for op in &group {
            for (tag, line, partner) in diff.lines(op) {
                let whole = line.trim_end_matches(['\n', '\r']);
                let body = if style.crop {
                    crop(whole, partner.map(|p| p.trim_end_matches(['\n', '\r'])))
                } else {
                    whole.to_string()
                };
                // Tabs indent pretty-printed JSON; anything else unsafe is escaped.
                let body = escape::layout(&body);
                let color = match tag {
                    ChangeTag::Delete => "31",
                    ChangeTag::Insert => "32",
                    ChangeTag::Equal => "",
                };
                out.push_str(&paint(&format!("{}{body}", sign(tag)), color, style));
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
            &DiffStyle {
                color: false,
                crop: true,
            },
        );
        assert_eq!(
            d,
            "--- a/a.json\n+++ b/a.json\n@@ -1,4 +1,3 @@\n [\n-1,\n-2\n+1\n ]\n"
        );
    }

    #[test]
    fn patch_quotes_names_a_terminal_would_act_on_as_git_does() {
        let d = patch("x\u{1b}]0;t\u{7}\n\"y\u{202e}.db:t[rowid=1]", "1\n", "2\n");
        let quoted = "x\\033]0;t\\007\\n\\\"y\\342\\200\\256.db:t[rowid=1]";
        assert_eq!(
            d,
            format!("--- \"a/{quoted}\"\n+++ \"b/{quoted}\"\n@@ -1 +1 @@\n-1\n+2\n")
        );
        assert!(patch("é \\.json", "1\n", "2\n").starts_with("--- a/é \\.json\n"));
    }

    #[test]
    fn names_and_lines_from_the_file_are_escaped() {
        let d = unified(
            "x\u{1b}]0;t\u{7}\ny.json",
            "{\"a\": \"\u{202e}\u{9b}1\"}\n",
            "{\"a\":\t\"\u{7f}\"}\n",
            &DiffStyle {
                color: false,
                crop: true,
            },
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
        let d = unified(
            "a.jsonl",
            &old,
            &new,
            &DiffStyle {
                color: false,
                crop: true,
            },
        );
        assert!(d.len() < 500, "{d}");
        assert!(
            d.contains("-…[") && d.contains("\"b\": 1}") && d.contains("\"b\": 2}"),
            "{d}"
        );
    }
}
