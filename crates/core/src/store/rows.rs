//! Where each row of a store sits in the run's text: a finding's place as
//! `db:table[rowid=N]/pointer`, and which fixes a database can carry out.

use crate::diagnostic::Diagnostic;
use crate::finding::Finding;
use crate::source::SourceFile;

/// How a row is named and found again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKey {
    /// SQLite's rowid.
    Rowid(i64),
    /// The row's place (from 1) in its table's reading order, where the table has no rowid
    /// toolcheck can name (`WITHOUT ROWID`, or columns that shadow every name of it): such a
    /// row is read, never written.
    Ordinal(usize),
}

impl std::fmt::Display for RowKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RowKey::Rowid(id) => write!(f, "rowid={id}"),
            RowKey::Ordinal(n) => write!(f, "row {n}"),
        }
    }
}

/// One row's JSON in the store's text.
#[derive(Debug, Clone)]
pub struct Row {
    pub table: String,
    pub key: RowKey,
    /// The line's byte range in the store's text.
    pub start: usize,
    pub end: usize,
    /// The JSON column's byte range in the store's text: the line's, or the part a wrapper
    /// holds (`table::Wrap`). Edits of a fix must stay inside it.
    pub json: (usize, usize),
}

/// Where each row of a linted database sits in its text.
#[derive(Debug, Default)]
pub struct Rows {
    /// The database as named on the command line.
    pub name: String,
    pub rows: Vec<Row>,
}

impl Rows {
    /// The row holding byte `at` of the store's text.
    pub(super) fn row_at(&self, at: usize) -> Option<&Row> {
        let i = self.rows.partition_point(|r| r.start <= at);
        self.rows.get(i.checked_sub(1)?)
    }

    /// The place of a store location: `db:table[rowid=N]`.
    pub fn place(&self, at: usize) -> Option<String> {
        let row = self.row_at(at)?;
        Some(format!("{}:{}[{}]", self.name, row.table, row.key))
    }

    /// Rules name other records of a session by their line (`line 6`); in a store's text the
    /// line is a row, named as `table[rowid=N]`.
    fn name_lines(&self, message: &str) -> String {
        name_lines(message, |i| {
            self.rows
                .get(i)
                .map(|row| format!("{}[{}]", row.table, row.key))
        })
    }
}

/// `message` with each `line N` (a record of a session, as rules name it) replaced by what
/// `name_of(N - 1)` calls it, where it names it (store rows, a session folder's files).
pub(crate) fn name_lines(message: &str, name_of: impl Fn(usize) -> Option<String>) -> String {
    {
        let mut out = String::with_capacity(message.len());
        let mut rest = message;
        while let Some(at) = rest.find("line ") {
            let (before, after) = rest.split_at(at);
            out.push_str(before);
            let digits = after
                .get(5..)
                .unwrap_or_default()
                .bytes()
                .take_while(u8::is_ascii_digit)
                .count();
            let number = after
                .get(5..5 + digits)
                .and_then(|n| n.parse::<usize>().ok());
            let named = number.and_then(|n| n.checked_sub(1)).and_then(&name_of);
            match named {
                Some(named) if digits > 0 => {
                    out.push_str(&named);
                    rest = after.get(5 + digits..).unwrap_or_default();
                }
                _ => {
                    out.push_str("line ");
                    rest = after.get(5..).unwrap_or_default();
                }
            }
        }
        out.push_str(rest);
        out
    }
}

impl Rows {
    /// Names each diagnostic's row: `location` is `db:table[rowid=N]/pointer`, and line,
    /// column and the edits of a fix inside the row count in the row's JSON (one line).
    pub fn relocate(&self, source: &SourceFile, diagnostics: &mut [Diagnostic]) {
        for d in diagnostics {
            let Some(row) = self.row_at(d.start) else {
                continue;
            };
            let column = |at: usize| {
                source
                    .text
                    .get(row.start..at.clamp(row.start, row.end))
                    .map_or(0, |s| s.chars().count())
                    + 1
            };
            d.location = Some(format!(
                "{}:{}[{}]{}",
                self.name, row.table, row.key, d.pointer
            ));
            d.line = 1;
            d.end_line = 1;
            d.column = column(d.start);
            d.end_column = column(d.end);
            // A fix's edits inside the row are byte offsets in the row's JSON column
            // (removing the row takes its line break, which is not in the database).
            if let Some(fix) = &mut d.fix {
                let (from, to) = row.json;
                for edit in &mut fix.edits {
                    if edit.start >= from && edit.end <= to {
                        edit.start -= from;
                        edit.end -= from;
                    } else if edit.start >= row.start && edit.end <= row.end + 1 {
                        edit.start -= row.start;
                        edit.end = edit.end.min(row.end) - row.start;
                    }
                }
            }
            d.message = self.name_lines(&d.message);
        }
    }
}

impl Rows {
    /// Keeps a fix only if a database can carry it out: edits inside one row's JSON, or the
    /// removal of whole rows (made an emptied line, so lines stay rows), in rows toolcheck
    /// can find again by rowid. A new row cannot be placed between others (rows are read
    /// back by id or timestamp), so fixes that insert records are dropped.
    pub(super) fn keep_row_fixes(&self, finding: &mut Finding) {
        let Some(fix) = &mut finding.fix else {
            return;
        };
        let mut ok = true;
        for edit in &mut fix.edits {
            let inside = self.row_at(edit.start).filter(|r| {
                edit.start >= r.json.0 && edit.end <= r.json.1 && !edit.content.contains('\n')
            });
            // A removed JSONL record takes the line break after it, or the one before it.
            let removed = [edit.start, edit.start + 1]
                .into_iter()
                .filter_map(|at| self.row_at(at))
                .find(|r| {
                    edit.content.is_empty()
                        && ((edit.start == r.start && edit.end == r.end + 1)
                            || (edit.start + 1 == r.start && edit.end == r.end))
                });
            match (inside, removed) {
                (_, Some(row)) if matches!(row.key, RowKey::Rowid(_)) => {
                    edit.start = row.start;
                    edit.end = row.end;
                }
                (Some(row), None) if matches!(row.key, RowKey::Rowid(_)) => {}
                _ => ok = false,
            }
        }
        if !ok {
            finding.fix = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_references_name_rows() {
        let rows = Rows {
            name: "s.db".into(),
            rows: vec![
                Row {
                    table: "t".into(),
                    key: RowKey::Rowid(7),
                    start: 0,
                    end: 2,
                    json: (0, 2),
                },
                Row {
                    table: "t".into(),
                    key: RowKey::Rowid(9),
                    start: 3,
                    end: 5,
                    json: (3, 5),
                },
            ],
        };
        assert_eq!(
            rows.name_lines("continues at line 2, not line 30 or line x"),
            "continues at t[rowid=9], not line 30 or line x"
        );
        assert_eq!(rows.place(4).as_deref(), Some("s.db:t[rowid=9]"));
    }
}
