//! Byte-range edits on JSON text that keep the surrounding layout: a removed array element
//! takes its comma with it, an inserted element copies its neighbour's indentation (pretty)
//! or spacing (compact), and nothing outside the edit changes.

use crate::finding::Edit;
use crate::pointer::locate;
use serde_json::Value as Json;

/// Removes the array element at `pointer` (with one adjoining comma).
pub fn remove_element(text: &str, base: usize, pointer: &str) -> Option<Edit> {
    let (parent, index) = split_index(pointer)?;
    let (arr_start, arr_end) = locate(text, base, parent)?;
    let elements = elements(text, arr_start, arr_end)?;
    let &(start, end) = elements.get(index)?;
    let edit = if elements.len() == 1 {
        // The only element: leave `[]`.
        Edit {
            start: arr_start + 1,
            end: arr_end - 1,
            content: String::new(),
        }
    } else if index > 0 {
        // From the end of the previous element: takes the comma before this one.
        Edit {
            start: elements[index - 1].1,
            end,
            content: String::new(),
        }
    } else {
        // The first element: up to the start of the next one.
        Edit {
            start,
            end: elements[1].0,
            content: String::new(),
        }
    };
    Some(edit)
}

/// Inserts `value` into the array at `array_pointer` so that it becomes element `index`.
pub fn insert_element(
    text: &str,
    base: usize,
    array_pointer: &str,
    index: usize,
    value: &Json,
) -> Option<Edit> {
    let (arr_start, arr_end) = locate(text, base, array_pointer)?;
    let elements = elements(text, arr_start, arr_end)?;
    insert_raw(text, arr_start, arr_end, &elements, index, |style| {
        render(value, style)
    })
}

/// Inserts already-rendered JSON text (a moved element, kept byte for byte) as element
/// `index`. Multi-line text is re-indented to its new place.
pub fn insert_text(
    text: &str,
    base: usize,
    array_pointer: &str,
    index: usize,
    element_text: &str,
) -> Option<Edit> {
    let (arr_start, arr_end) = locate(text, base, array_pointer)?;
    let elements = elements(text, arr_start, arr_end)?;
    let dedented = dedent(element_text);
    insert_raw(text, arr_start, arr_end, &elements, index, |_| {
        dedented.clone()
    })
}

/// Moves the elements at `from` (each after `to`, in increasing order) of the array at
/// `array_pointer` to just before element `to`, as one edit: every element keeps its bytes,
/// and the separators between the positions stay where they were.
pub fn move_elements(
    text: &str,
    base: usize,
    array_pointer: &str,
    from: &[usize],
    to: usize,
) -> Option<Edit> {
    let (arr_start, arr_end) = locate(text, base, array_pointer)?;
    let elements = elements(text, arr_start, arr_end)?;
    let last = *from.last()?;
    if from.first().is_none_or(|&f| f <= to)
        || from.windows(2).any(|w| w[0] >= w[1])
        || last >= elements.len()
    {
        return None;
    }
    let span = |i: usize| elements.get(i).and_then(|&(s, e)| text.get(s..e));
    let mut order: Vec<usize> = from.to_vec();
    order.extend((to..=last).filter(|i| !from.contains(i)));
    let mut content = String::new();
    for (k, &index) in order.iter().enumerate() {
        content.push_str(span(index)?);
        if k + 1 < order.len() {
            // The separator that followed position `to + k` in the original.
            let (_, end) = *elements.get(to + k)?;
            let (next, _) = *elements.get(to + k + 1)?;
            content.push_str(text.get(end..next)?);
        }
    }
    let start = elements.get(to)?.0;
    let end = elements.get(last)?.1;
    Some(Edit {
        start,
        end,
        content,
    })
}

/// Strips the indentation every line after the first shares (the element's own depth, which
/// its closing bracket shows), so the text can be indented for its new place.
fn dedent(element_text: &str) -> String {
    let common = element_text
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    let mut lines = element_text.lines();
    let mut out = lines.next().unwrap_or_default().to_string();
    for line in lines {
        out.push('\n');
        out.push_str(line.get(common..).unwrap_or(line.trim_start()));
    }
    out
}

/// JSON whitespace, which a member's neighbourhood may hold.
const WS: [char; 4] = [' ', '\t', '\r', '\n'];

/// Adds `"key": value_text` as the first member of the object at `pointer`, spaced like the
/// member it goes before (its line and indentation in a pretty object).
pub fn insert_member(
    text: &str,
    base: usize,
    pointer: &str,
    key: &str,
    value_text: &str,
) -> Option<Edit> {
    let (start, end) = locate(text, base, pointer)?;
    let object = text.get(start..end)?;
    let inner = object.strip_prefix('{')?.strip_suffix('}')?;
    let spaced = object.contains("\": ") || !object.contains("\":");
    let member = format!(
        "{}{}{value_text}",
        serde_json::to_string(key).ok()?,
        if spaced { ": " } else { ":" }
    );
    if inner.trim_matches(WS).is_empty() {
        return Some(Edit {
            start: start + 1,
            end: end - 1,
            content: member,
        });
    }
    let lead = inner.len() - inner.trim_start_matches(WS).len();
    let gap = match inner.get(..lead)? {
        "" if spaced => " ",
        ws => ws,
    };
    let at = start + 1 + lead;
    Some(Edit {
        start: at,
        end: at,
        content: format!("{member},{gap}"),
    })
}

/// Removes the member `key` of the object at `pointer`, with one adjoining comma.
pub fn remove_member(text: &str, base: usize, pointer: &str, key: &str) -> Option<Edit> {
    let token = key.replace('~', "~0").replace('/', "~1");
    let (value_start, value_end) = locate(text, base, &format!("{pointer}/{token}"))?;
    let key_json = serde_json::to_string(key).ok()?;
    let before = text.get(..value_start)?.trim_end_matches(WS);
    let before = before.strip_suffix(':')?.trim_end_matches(WS);
    let key_start = before.strip_suffix(key_json.as_str())?.len();
    let after = text.get(value_end..)?;
    let rest = after.trim_start_matches(WS);
    if let Some(next) = rest.strip_prefix(',') {
        // Up to the next member: its own layout stays.
        let next_start = text.len() - next.trim_start_matches(WS).len();
        return Some(Edit {
            start: key_start,
            end: next_start,
            content: String::new(),
        });
    }
    // The last member: from the comma before it, or alone in its object.
    let prefix = text.get(..key_start)?.trim_end_matches(WS);
    let start = prefix.strip_suffix(',').map_or(key_start, str::len);
    Some(Edit {
        start,
        end: value_end,
        content: String::new(),
    })
}

/// Replaces the value at `pointer` with `new_text`.
pub fn replace_value(text: &str, base: usize, pointer: &str, new_text: String) -> Option<Edit> {
    let (start, end) = locate(text, base, pointer)?;
    Some(Edit {
        start,
        end,
        content: new_text,
    })
}

/// The text of the value at `pointer`.
pub fn value_text<'t>(text: &'t str, base: usize, pointer: &str) -> Option<&'t str> {
    let (start, end) = locate(text, base, pointer)?;
    text.get(start..end)
}

/// How to lay out an inserted value so it matches its neighbours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Style {
    /// One line; `spaced` means `", "` and `": "` separators.
    Compact { spaced: bool },
    /// Several lines: the element's indentation and one indentation step.
    Pretty { indent: String, step: String },
}

fn insert_raw(
    text: &str,
    arr_start: usize,
    arr_end: usize,
    elements: &[(usize, usize)],
    index: usize,
    render_with: impl Fn(&Style) -> String,
) -> Option<Edit> {
    // Only pretty layouts need the line ending; finding it in a one-line file would scan the
    // whole file for every insert.
    if elements.is_empty() {
        let inner = &text[arr_start + 1..arr_end - 1];
        let style = if inner.contains('\n') {
            let indent = line_indent(text, arr_start);
            Style::Pretty {
                step: "  ".into(),
                indent: format!("{indent}  "),
            }
        } else {
            Style::Compact { spaced: true }
        };
        let content = match &style {
            Style::Pretty { indent, .. } => {
                let eol = line_ending(text);
                let closing = line_indent(text, arr_start);
                format!(
                    "{eol}{indent}{}{eol}{closing}",
                    reindent(&render_with(&style), indent, eol)
                )
            }
            Style::Compact { .. } => render_with(&style),
        };
        return Some(Edit {
            start: arr_start + 1,
            end: arr_end - 1,
            content,
        });
    }
    let neighbour = elements[index.min(elements.len() - 1)];
    let style = style_of(text, arr_start, elements, neighbour);
    let separator = separator(text, arr_start, elements);
    let mut rendered = render_with(&style);
    if let Style::Pretty { indent, .. } = &style {
        rendered = reindent(&rendered, indent, line_ending(text));
    }
    if index == 0 {
        Some(Edit {
            start: elements[0].0,
            end: elements[0].0,
            content: format!("{rendered},{separator}"),
        })
    } else {
        let after = elements.get(index - 1)?.1;
        Some(Edit {
            start: after,
            end: after,
            content: format!(",{separator}{rendered}"),
        })
    }
}

/// Byte ranges of the elements of the array spanning `start..end`.
pub fn elements(text: &str, start: usize, end: usize) -> Option<std::rc::Rc<Vec<(usize, usize)>>> {
    crate::pointer::element_spans(text, start, end)
}

/// What goes between two elements: the whitespace after the first comma, or a space.
fn separator(text: &str, arr_start: usize, elements: &[(usize, usize)]) -> String {
    if elements.len() >= 2 {
        let between = &text[elements[0].1..elements[1].0];
        let after_comma = between.split_once(',').map_or(" ", |(_, ws)| ws);
        return after_comma.to_string();
    }
    // One element: copy the whitespace that precedes it after `[`.
    let before = &text[arr_start + 1..elements[0].0];
    match before.rfind('\n') {
        // From the line break, with its `\r` in CRLF files.
        Some(newline) => before[..newline].strip_suffix('\r').map_or_else(
            || before[newline..].to_string(),
            |head| before[head.len()..].to_string(),
        ),
        None => " ".to_string(),
    }
}

fn style_of(
    text: &str,
    arr_start: usize,
    elements: &[(usize, usize)],
    (start, end): (usize, usize),
) -> Style {
    let element = &text[start..end];
    let before = &text[arr_start + 1..elements[0].0];
    let array_is_pretty = before.contains('\n');
    // Pretty-printed elements open with a bracket and a line break; a hand layout such as
    // `{"role": "user", "content": [` followed by nested lines is written compactly.
    let opens_with_newline = element
        .get(1..)
        .is_some_and(|rest| rest.trim_start_matches([' ', '\t', '\r']).starts_with('\n'));
    if array_is_pretty && opens_with_newline {
        let indent = line_indent(text, start);
        // The step: how much deeper the element's second line is indented.
        let step = element
            .lines()
            .nth(1)
            .map(|l| {
                let ws: String = l.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
                ws.strip_prefix(indent.as_str()).unwrap_or("  ").to_string()
            })
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "  ".to_string());
        Style::Pretty { indent, step }
    } else {
        Style::Compact {
            spaced: element.contains(": ") || element.contains(", ") || !element.contains(':'),
        }
    }
}

/// The leading whitespace of the line holding `offset`.
fn line_indent(text: &str, offset: usize) -> String {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// Prefixes every line but the first with `indent`, joining lines with `eol`.
fn reindent(rendered: &str, indent: &str, eol: &str) -> String {
    let mut lines = rendered.lines();
    let mut out = lines.next().unwrap_or_default().to_string();
    for line in lines {
        out.push_str(eol);
        out.push_str(indent);
        out.push_str(line);
    }
    out
}

/// The file's line ending: CRLF when its first line break is one.
pub fn line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// Serialises `value` in `style` (pretty output starts at indentation zero).
pub fn render(value: &Json, style: &Style) -> String {
    let mut out = Vec::new();
    let written = match style {
        Style::Compact { spaced: false } => serde_json::to_writer(&mut out, value),
        Style::Compact { spaced: true } => {
            let mut ser = serde_json::Serializer::with_formatter(&mut out, SpacedFormatter);
            serde::Serialize::serialize(value, &mut ser)
        }
        Style::Pretty { step, .. } => {
            let formatter = serde_json::ser::PrettyFormatter::with_indent(step.as_bytes());
            let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
            serde::Serialize::serialize(value, &mut ser)
        }
    };
    match written {
        Ok(()) => String::from_utf8(out).unwrap_or_default(),
        Err(_) => value.to_string(),
    }
}

/// One line with `", "` and `": "`, as Python's `json.dumps` writes it.
struct SpacedFormatter;

impl serde_json::ser::Formatter for SpacedFormatter {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }
}

/// Splits `/a/b/3` into (`/a/b`, 3).
pub fn split_index(pointer: &str) -> Option<(&str, usize)> {
    let (parent, last) = pointer.rsplit_once('/')?;
    Some((parent, last.parse().ok()?))
}

/// Applies non-overlapping edits to `text` (sorted by start, inserts before replacements at
/// the same offset).
pub fn apply(text: &str, edits: &[Edit]) -> String {
    place(text, edits).apply(text)
}

/// An edit as placed in the text it applies to: the range it replaces there, and the range
/// its content fills in the text it makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    pub old: std::ops::Range<usize>,
    pub new: std::ops::Range<usize>,
}

/// Edits placed in a text, in order: what [`apply`] does, before it is done.
#[derive(Debug)]
pub struct Placed<'e> {
    edits: Vec<&'e Edit>,
    /// Where each edit goes, in order.
    pub replaced: Vec<Replaced>,
    len: usize,
}

/// Places `edits` in `text`. An edit that overlaps one placed before it, or does not fall
/// on the text's character boundaries, is left out.
pub fn place<'e>(text: &str, edits: &'e [Edit]) -> Placed<'e> {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.start, e.end));
    let mut placed = Placed {
        edits: Vec::with_capacity(sorted.len()),
        replaced: Vec::with_capacity(sorted.len()),
        len: text.len(),
    };
    let (mut pos, mut new) = (0, 0);
    for edit in sorted {
        let within =
            text.get(pos..edit.start).is_some() && text.get(edit.start..edit.end).is_some();
        if edit.start < pos || edit.end < edit.start || !within {
            continue;
        }
        let at = new + (edit.start - pos);
        new = at + edit.content.len();
        placed.replaced.push(Replaced {
            old: edit.start..edit.end,
            new: at..new,
        });
        placed.edits.push(edit);
        pos = edit.end;
    }
    placed.len = new + (text.len() - pos);
    placed
}

impl Placed<'_> {
    /// Whether applying the edits would leave `text` as it is.
    pub fn changes_nothing(&self, text: &str) -> bool {
        self.edits
            .iter()
            .zip(&self.replaced)
            .all(|(edit, r)| text.get(r.old.clone()) == Some(edit.content.as_str()))
    }

    /// The text the edits make of `text` (the text they were placed in).
    pub fn apply(&self, text: &str) -> String {
        let mut out = String::with_capacity(self.len);
        let mut pos = 0;
        for (edit, r) in self.edits.iter().zip(&self.replaced) {
            out.push_str(text.get(pos..r.old.start).unwrap_or_default());
            out.push_str(&edit.content);
            pos = r.old.end;
        }
        out.push_str(text.get(pos..).unwrap_or_default());
        out
    }

    /// [`Placed::apply`] in `text`'s own buffer, so a big text is not held twice: the bytes
    /// kept move once, those moving left in order and those moving right in reverse order
    /// (neither overwrites bytes still to move), then the edits' content fills the gaps.
    /// `None` only if the result is not UTF-8, which edits on character boundaries rule out.
    pub fn apply_in_place(&self, text: String) -> Option<String> {
        let mut bytes = text.into_bytes();
        let old_len = bytes.len();
        // The stretches kept: (start in the text, length, start in the result).
        let mut kept = Vec::with_capacity(self.replaced.len() + 1);
        let (mut pos, mut new) = (0, 0);
        for r in &self.replaced {
            kept.push((pos, r.old.start.checked_sub(pos)?, new));
            (pos, new) = (r.old.end, r.new.end);
        }
        kept.push((pos, old_len.checked_sub(pos)?, new));
        if self.len > old_len {
            bytes.reserve_exact(self.len - old_len);
            bytes.resize(self.len, 0);
        }
        let shift = |bytes: &mut Vec<u8>, &(from, len, to): &(usize, usize, usize)| {
            let fits = from + len <= bytes.len() && to + len <= bytes.len();
            fits.then(|| bytes.copy_within(from..from + len, to))
        };
        for stretch in kept.iter().filter(|k| k.2 < k.0) {
            shift(&mut bytes, stretch)?;
        }
        for stretch in kept.iter().rev().filter(|k| k.2 > k.0) {
            shift(&mut bytes, stretch)?;
        }
        for (edit, r) in self.edits.iter().zip(&self.replaced) {
            bytes
                .get_mut(r.new.clone())?
                .copy_from_slice(edit.content.as_bytes());
        }
        bytes.truncate(self.len);
        crate::encoding::utf8_string(bytes).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn after(text: &str, edit: Option<Edit>) -> String {
        apply(text, &[edit.expect("an edit")])
    }

    #[test]
    fn inserts_a_member_laid_out_like_the_next_one() {
        let compact = r#"{"m": {"role": "assistant", "content": null}}"#;
        assert_eq!(
            after(
                compact,
                insert_member(compact, 0, "/m", "reasoning_content", "\"\"")
            ),
            r#"{"m": {"reasoning_content": "", "role": "assistant", "content": null}}"#
        );
        let tight = r#"{"role":"assistant"}"#;
        assert_eq!(
            after(tight, insert_member(tight, 0, "", "k", "1")),
            r#"{"k":1,"role":"assistant"}"#
        );
        let pretty = "{\r\n    \"role\": \"model\"\r\n}";
        assert_eq!(
            after(pretty, insert_member(pretty, 0, "", "k", "1")),
            "{\r\n    \"k\": 1,\r\n    \"role\": \"model\"\r\n}"
        );
        assert_eq!(
            after("{ }", insert_member("{ }", 0, "", "k", "1")),
            r#"{"k": 1}"#
        );
        assert!(insert_member("[1]", 0, "", "k", "1").is_none());
    }

    #[test]
    fn removes_a_member_with_one_comma() {
        let t = r#"{"type": "reasoning", "id": "rs_1", "summary": []}"#;
        assert_eq!(
            after(t, remove_member(t, 0, "", "id")),
            r#"{"type": "reasoning", "summary": []}"#
        );
        assert_eq!(
            after(t, remove_member(t, 0, "", "summary")),
            r#"{"type": "reasoning", "id": "rs_1"}"#
        );
        assert_eq!(
            after(t, remove_member(t, 0, "", "type")),
            r#"{"id": "rs_1", "summary": []}"#
        );
        let pretty = "{\n  \"id\": \"rs_1\",\n  \"x\": 1\n}";
        assert_eq!(
            after(pretty, remove_member(pretty, 0, "", "id")),
            "{\n  \"x\": 1\n}"
        );
        let alone = r#"{"id": "rs_1"}"#;
        assert_eq!(after(alone, remove_member(alone, 0, "", "id")), "{}");
        assert!(remove_member(t, 0, "", "missing").is_none());
    }

    #[test]
    fn removes_elements_with_their_comma() {
        let t = "[\n  1,\n  2,\n  3\n]";
        assert_eq!(after(t, remove_element(t, 0, "/1")), "[\n  1,\n  3\n]");
        assert_eq!(after(t, remove_element(t, 0, "/0")), "[\n  2,\n  3\n]");
        assert_eq!(after(t, remove_element(t, 0, "/2")), "[\n  1,\n  2\n]");
        let one = r#"{"a": [ {"x": 1} ]}"#;
        assert_eq!(after(one, remove_element(one, 0, "/a/0")), r#"{"a": []}"#);
    }

    #[test]
    fn inserts_compact_elements_like_their_neighbours() {
        let t = r#"[{"a": 1}, {"b": 2}]"#;
        let v = json!({"c": [3, 4]});
        assert_eq!(
            after(t, insert_element(t, 0, "", 1, &v)),
            r#"[{"a": 1}, {"c": [3, 4]}, {"b": 2}]"#
        );
        let tight = r#"[{"a":1},{"b":2}]"#;
        assert_eq!(
            after(tight, insert_element(tight, 0, "", 2, &v)),
            r#"[{"a":1},{"b":2},{"c":[3,4]}]"#
        );
        assert_eq!(
            after(tight, insert_element(tight, 0, "", 0, &v)),
            r#"[{"c":[3,4]},{"a":1},{"b":2}]"#
        );
    }

    #[test]
    fn inserts_pretty_elements_with_the_same_indentation() {
        let t = "{\n    \"m\": [\n        {\n            \"a\": 1\n        },\n        {\n            \"b\": 2\n        }\n    ]\n}";
        let got = after(t, insert_element(t, 0, "/m", 1, &json!({"c": 3})));
        assert_eq!(
            got,
            "{\n    \"m\": [\n        {\n            \"a\": 1\n        },\n        {\n            \"c\": 3\n        },\n        {\n            \"b\": 2\n        }\n    ]\n}"
        );
        // One-line elements in a pretty array stay one line.
        let lines = "[\n  {\"a\": 1},\n  {\"b\": 2}\n]";
        assert_eq!(
            after(lines, insert_element(lines, 0, "", 2, &json!({"c": 3}))),
            "[\n  {\"a\": 1},\n  {\"b\": 2},\n  {\"c\": 3}\n]"
        );
    }

    #[test]
    fn follows_crlf_line_endings() {
        let t = "{\r\n  \"m\": [\r\n    {\r\n      \"a\": 1\r\n    }\r\n  ]\r\n}";
        let got = after(t, insert_element(t, 0, "/m", 1, &json!({"b": 2})));
        assert_eq!(
            got,
            "{\r\n  \"m\": [\r\n    {\r\n      \"a\": 1\r\n    },\r\n    {\r\n      \"b\": 2\r\n    }\r\n  ]\r\n}"
        );
        let empty = "{\r\n  \"m\": [\r\n  ]\r\n}";
        let got = after(empty, insert_element(empty, 0, "/m", 0, &json!({"b": 2})));
        assert!(!got.replace("\r\n", "").contains('\n'), "{got:?}");
    }

    #[test]
    fn moved_pretty_elements_are_reindented() {
        let t = "{\n  \"a\": [\n    {\n      \"x\": 1\n    }\n  ],\n  \"b\": [\n    {\n      \"y\": 2\n    }\n  ]\n}";
        let moved = value_text(t, 0, "/a/0").expect("element");
        let got = after(t, insert_text(t, 0, "/b", 0, moved));
        assert!(
            got.contains("\"b\": [\n    {\n      \"x\": 1\n    },\n    {"),
            "{got}"
        );
    }

    #[test]
    fn moves_elements_before_another_keeping_separators() {
        let t = "[\n  {\"a\": 1},\n  {\"t\": 1},\n  {\"b\": 2},\n  {\"t\": 2}\n]";
        let got = after(t, move_elements(t, 0, "", &[3], 1));
        assert_eq!(
            got,
            "[\n  {\"a\": 1},\n  {\"t\": 2},\n  {\"t\": 1},\n  {\"b\": 2}\n]"
        );
        let compact = r#"[1,2,3,4,5]"#;
        assert_eq!(
            after(compact, move_elements(compact, 0, "", &[2, 4], 1)),
            "[1,3,5,2,4]"
        );
        assert!(move_elements(compact, 0, "", &[1], 1).is_none());
        assert!(move_elements(compact, 0, "", &[9], 1).is_none());
    }

    #[test]
    fn keeps_untouched_bytes() {
        let t = "{\"x\": \"\\u00e9\", \"n\": 1.0, \"a\": [ 1 ,2 ]}";
        let got = after(t, remove_element(t, 0, "/a/1"));
        assert_eq!(got, "{\"x\": \"\\u00e9\", \"n\": 1.0, \"a\": [ 1 ]}");
    }
}
