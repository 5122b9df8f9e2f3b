//! A database as read: one line of text per row, and where each line comes from.

use rusqlite::types::ValueRef;
use rusqlite::Connection;

use super::rows::RowKey;
use super::table::{tables, Table};

/// Where one line of a store's text comes from.
/// Why a row holds no JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RowProblem {
    /// Broken, empty or not text: a parse error.
    Broken(String),
    /// Something toolcheck does not read (a pickled checkpoint): not checked, not broken.
    NotRead(String),
}

impl RowProblem {
    fn broken(why: &str) -> RowProblem {
        RowProblem::Broken(why.to_string())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Origin {
    pub table: String,
    /// An index into the table kinds.
    pub kind: usize,
    pub key: RowKey,
    /// The session, as an index in reading order.
    pub session: usize,
    /// Why the row holds no JSON text, if it does not.
    pub problem: Option<RowProblem>,
    /// The raw line breaks of the row's JSON (offset in the row, the byte), which the
    /// store's text holds as other bytes of the same length.
    pub breaks: Vec<(usize, u8)>,
    /// For tables whose line wraps other columns around the JSON (`table::Wrap`): the
    /// length of the wrapper before it (the line ends with one `}` after it); 0 otherwise.
    pub wrap: usize,
}

impl Origin {
    pub fn place(&self, name: &str) -> String {
        format!("{name}:{}[{}]", self.table, self.key)
    }

    /// The JSON column's text in `line`, this row's line as read (`read`) or as a fix left
    /// it: the line itself, or what the wrapper holds; `None` when a fix changed the
    /// wrapper, which stands for other columns and is never written.
    pub fn column<'t>(&self, read: &str, line: &'t str) -> Option<&'t str> {
        if self.wrap == 0 {
            return Some(line);
        }
        if line.get(..self.wrap) != read.get(..self.wrap) || !line.ends_with('}') {
            return None;
        }
        line.get(self.wrap..line.len() - 1)
    }
}

/// A database as read: its text (one row per line) and where each line comes from.
#[derive(Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub(super) text: String,
    pub(super) lines: Vec<Origin>,
    /// Whether the database has any table toolcheck reads.
    pub(super) has_tables: bool,
}

impl Snapshot {
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The rows a fixed text changes: each row's name (`db:table[rowid=N]`), its JSON as
    /// read and as fixed (each with its line break; empty for a deleted row), for diffs of
    /// the JSON values.
    pub fn changed_rows(&self, name: &str, fixed: &str) -> Vec<(String, String, String)> {
        let line = |l: &str| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{l}\n")
            }
        };
        self.lines
            .iter()
            .zip(self.text.split('\n'))
            .zip(fixed.split('\n'))
            .filter(|((_, old), new)| old != new)
            .map(|((origin, old), new)| {
                let old_json = origin.column(old, old).unwrap_or(old);
                let new = match origin.column(old, new) {
                    Some(json) => restore_breaks(old_json, json, &origin.breaks),
                    None => new.to_string(),
                };
                (
                    origin.place(name),
                    line(&restore(old_json, &origin.breaks)),
                    line(&new),
                )
            })
            .collect()
    }
}

/// Appends a row's JSON to the store's text, raw line breaks replaced so the row stays one
/// line and every byte keeps its offset: a space between tokens, U+0001 inside a string
/// (still invalid there, as the raw break was). Returns where the breaks were.
pub(crate) fn push_flat(text: &mut String, json: &str) -> Vec<(usize, u8)> {
    let mut breaks = Vec::new();
    if !json.contains(['\n', '\r']) {
        text.push_str(json);
        return breaks;
    }
    let mut in_string = false;
    let mut escaped = false;
    text.reserve(json.len());
    for (i, c) in json.char_indices() {
        match c {
            '\n' | '\r' => {
                breaks.push((i, c as u8));
                // A backslash before a raw break escapes nothing valid either.
                escaped = false;
                text.push(if in_string { '\u{1}' } else { ' ' });
                continue;
            }
            '"' if !escaped => in_string = !in_string,
            _ => {}
        }
        escaped = in_string && c == '\\' && !escaped;
        text.push(c);
    }
    breaks
}

/// The row's JSON as the database holds it: `flat` with its raw line breaks put back.
pub(super) fn restore(flat: &str, breaks: &[(usize, u8)]) -> String {
    let mut bytes = flat.as_bytes().to_vec();
    for &(at, byte) in breaks {
        if let Some(b) = bytes.get_mut(at) {
            *b = byte;
        }
    }
    // Only ASCII bytes were exchanged for ASCII bytes.
    String::from_utf8(bytes).unwrap_or_else(|_| flat.to_string())
}

/// A fixed row's JSON (`new`, derived from `old` as read with its `breaks` replaced), with
/// the raw line breaks put back wherever the fix kept the bytes around them: only what the
/// fix changed differs from the column as read.
pub(super) fn restore_breaks(old: &str, new: &str, breaks: &[(usize, u8)]) -> String {
    if breaks.is_empty() || new.is_empty() {
        return new.to_string();
    }
    let ops =
        similar::capture_diff_slices(similar::Algorithm::Myers, old.as_bytes(), new.as_bytes());
    let mut bytes = new.as_bytes().to_vec();
    for op in ops {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            let first = breaks.partition_point(|&(at, _)| at < old_index);
            for &(at, byte) in breaks.get(first..).unwrap_or_default() {
                if at >= old_index + len {
                    break;
                }
                if let Some(b) = bytes.get_mut(new_index + (at - old_index)) {
                    *b = byte;
                }
            }
        }
    }
    String::from_utf8(bytes).unwrap_or_else(|_| new.to_string())
}

/// One row as read: its table, session key, identity and JSON text (or why there is none).
pub(super) struct RawRow<'a> {
    pub table: &'a Table,
    pub session: Option<String>,
    pub key: RowKey,
    /// The JSON column's text, or (`TableKind::decode`) the JSON it decodes to.
    pub json: Result<std::borrow::Cow<'a, str>, RowProblem>,
    /// The wrapper its line opens with (`table::Wrap`), empty for tables without one.
    pub wrapper: String,
}

impl RawRow<'_> {
    /// Whether `line` (a row's line as read earlier) still stands for this row.
    pub fn is_line(&self, line: &str, breaks: &[(usize, u8)]) -> bool {
        let Ok(json) = &self.json else {
            return false;
        };
        let flat = if self.wrapper.is_empty() {
            Some(line)
        } else {
            line.strip_prefix(self.wrapper.as_str())
                .and_then(|l| l.strip_suffix('}'))
        };
        match flat {
            Some(flat) if breaks.is_empty() => flat == json.as_ref(),
            Some(flat) => restore(flat, breaks) == json.as_ref(),
            None => false,
        }
    }
}

/// A column's value as JSON, for a row's wrapper: JSON text as the value it holds where
/// `json` says the column holds JSON (and it parses), other text as a string.
fn column_value(value: ValueRef<'_>, json: bool) -> serde_json::Value {
    use serde_json::Value as Json;
    match value {
        ValueRef::Null => Json::Null,
        ValueRef::Integer(n) => Json::from(n),
        ValueRef::Real(x) => serde_json::Number::from_f64(x).map_or(Json::Null, Json::Number),
        ValueRef::Text(b) | ValueRef::Blob(b) => {
            let text = String::from_utf8_lossy(b);
            match crate::json::parse_value(&text) {
                Ok(value) if json => value,
                _ => Json::String(text.into_owned()),
            }
        }
    }
}

/// The wrapper a row's line opens with: `{"key": value, ..., "<json column>": `.
fn wrapper(table: &Table, row: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<String> {
    if table.wrap.is_empty() {
        return Ok(String::new());
    }
    let quote = |s: &str| serde_json::Value::from(s).to_string();
    let mut out = String::from("{");
    for (i, (wrap, _)) in table.wrap.iter().enumerate() {
        let value = column_value(row.get_ref(first + i)?, wrap.json);
        out.push_str(&quote(wrap.key));
        out.push(':');
        out.push_str(&value.to_string());
        out.push(',');
    }
    out.push_str(&quote(table.kind().json));
    out.push(':');
    Ok(out)
}

/// Reads the session tables `found` of an open database, row by row in reading order,
/// without holding more than one row's text.
pub(super) fn scan(
    conn: &Connection,
    found: &[Table],
    mut each: impl FnMut(RawRow<'_>) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    for table in found {
        let column = table.kind().json;
        let quoted = table.name.replace('"', "\"\"");
        let key = table
            .session
            .iter()
            .map(|c| format!("CAST(t.{c} AS TEXT)"))
            .collect::<Vec<_>>()
            .join(" || char(31) || ");
        let rowid = table.rowid.map_or("NULL".into(), |r| format!("t.{r}"));
        let wrapped: String = table
            .wrap
            .iter()
            .map(|(_, c)| format!(", {}", c.as_deref().unwrap_or("NULL")))
            .collect();
        let decode = table.kind().decode.as_ref();
        let null_json = table.kind().null_json;
        let kind_column = decode.map_or(String::new(), |d| format!(", t.{}", d.kind));
        let session: Vec<String> = table.session.iter().map(|c| format!("t.{c}")).collect();
        let sql = format!(
            "SELECT {key}, {rowid}, t.{column}{wrapped}{kind_column} FROM \"{quoted}\" AS t{}{} ORDER BY {}, {}",
            table.join,
            table.only,
            session.join(", "),
            table.order
        );
        let mut stmt = conn.prepare(&sql)?;
        let mut rows = stmt.query([])?;
        let mut ordinal = 0;
        while let Some(r) = rows.next()? {
            ordinal += 1;
            let key = match (table.rowid, r.get_ref(1)?) {
                (Some(_), ValueRef::Integer(id)) => RowKey::Rowid(id),
                _ => RowKey::Ordinal(ordinal),
            };
            let json = match (r.get_ref(2)?, decode) {
                (ValueRef::Text(b) | ValueRef::Blob(b), Some(d)) => {
                    let kind = r.get_ref(3 + table.wrap.len())?;
                    (d.decode)(kind.as_str().ok(), b)
                        .map(std::borrow::Cow::Owned)
                        .map_err(|e| match e {
                            crate::formats::Undecoded::Broken(why) => RowProblem::Broken(why),
                            crate::formats::Undecoded::NotRead(why) => RowProblem::NotRead(why),
                        })
                }
                (ValueRef::Text(b) | ValueRef::Blob(b), None) => std::str::from_utf8(b)
                    .map_err(|_| RowProblem::broken("the column is not valid UTF-8"))
                    .and_then(|s| {
                        if s.trim().is_empty() {
                            Err(RowProblem::broken("the column is empty"))
                        } else {
                            Ok(std::borrow::Cow::Borrowed(s))
                        }
                    }),
                (ValueRef::Null, _) if null_json => Ok(std::borrow::Cow::Borrowed("null")),
                (ValueRef::Null, _) => Err(RowProblem::broken("the column is NULL")),
                _ => Err(RowProblem::broken(
                    "the column holds a number, not JSON text",
                )),
            };
            each(RawRow {
                table,
                session: r.get(0)?,
                key,
                json,
                wrapper: wrapper(table, r, 3)?,
            })?;
        }
    }
    Ok(())
}

/// Reads every session table of an open database.
pub(super) fn snapshot(conn: &Connection) -> rusqlite::Result<Snapshot> {
    let mut text = String::new();
    let mut lines: Vec<Origin> = Vec::new();
    let mut session = 0;
    let mut last: Option<(String, Option<String>)> = None;
    let found = tables(conn)?;
    scan(conn, &found, |row| {
        let id = (row.table.name.clone(), row.session);
        if last.as_ref() != Some(&id) {
            if last.is_some() {
                session += 1;
            }
            last = Some(id);
        }
        let (problem, breaks, wrap) = match &row.json {
            Ok(json) if row.wrapper.is_empty() => (None, push_flat(&mut text, json), 0),
            Ok(json) => {
                text.push_str(&row.wrapper);
                let breaks = push_flat(&mut text, json);
                text.push('}');
                (None, breaks, row.wrapper.len())
            }
            Err(problem) => (Some(problem.clone()), Vec::new(), 0),
        };
        text.push('\n');
        lines.push(Origin {
            table: row.table.name.clone(),
            kind: row.table.kind,
            key: row.key,
            session,
            problem,
            breaks,
            wrap,
        });
        Ok(())
    })?;
    Ok(Snapshot {
        text,
        lines,
        has_tables: !found.is_empty(),
    })
}
