//! Writing a fixed store back: one transaction that changes exactly the rows a fix changed.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::rows::RowKey;
use super::snapshot::{restore_breaks, scan, Snapshot};
use super::table::{tables, Table};

/// Whether the session tables `found` of the database at `conn` still hold exactly what
/// `snapshot` read, compared row by row without a second copy of the text.
fn unchanged(conn: &Connection, found: &[Table], snapshot: &Snapshot) -> rusqlite::Result<bool> {
    let mut lines = snapshot.lines.iter().zip(snapshot.text.split('\n'));
    let mut same = true;
    scan(conn, found, |row| {
        if !same {
            return Ok(());
        }
        same = match lines.next() {
            Some((origin, flat)) => {
                origin.table == row.table.name
                    && origin.key == row.key
                    && match (&row.json, &origin.problem) {
                        (Ok(_), None) => row.is_line(flat, &origin.breaks),
                        (Err(now), Some(then)) => now == then,
                        _ => false,
                    }
            }
            None => false,
        };
        Ok(())
    })?;
    Ok(same && lines.next().is_none() && found.is_empty() != snapshot.has_tables)
}

/// Writes a fixed text back to the database in one transaction: refused, with the database
/// untouched, when it is read-only, locked or changed since `snapshot` was read. Each edited
/// row is parsed again before it is written, keeps the raw line breaks the fix did not touch,
/// and is found by its rowid; an emptied row is deleted. Every statement must change exactly
/// one row, or nothing is written.
pub fn write(path: &Path, name: &str, snapshot: &Snapshot, fixed: &str) -> Result<(), String> {
    let fail = |e: rusqlite::Error| match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
            "it is locked by another connection; it was left unchanged".to_string()
        }
        _ => format!("{e}; it was left unchanged"),
    };
    // As for text files: a file without write permission is not written, even by root.
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot stat it: {e}"))?;
    if meta.permissions().readonly() {
        return Err(
            "the database is read-only; it was not written (make it writable to apply fixes)"
                .into(),
        );
    }
    let mut conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(fail)?;
    // Refuse at once rather than wait for another writer.
    conn.busy_timeout(std::time::Duration::ZERO).map_err(fail)?;
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(fail)?;
    let tables = tables(&tx).map_err(fail)?;
    if !unchanged(&tx, &tables, snapshot).map_err(fail)? {
        return Err("it changed since it was read; it was left unchanged".into());
    }
    let old_lines = snapshot.text.split('\n');
    let new_lines = fixed.split('\n');
    for ((origin, old), new) in snapshot.lines.iter().zip(old_lines).zip(new_lines) {
        if old == new {
            continue;
        }
        let place = origin.place(name);
        let (RowKey::Rowid(id), Some(rowid)) = (
            origin.key,
            tables
                .iter()
                .find(|t| t.name == origin.table)
                .and_then(|t| t.rowid),
        ) else {
            return Err(format!(
                "internal error: {place} has no rowid to find it by; it was left unchanged"
            ));
        };
        if super::table::kind(origin.kind).decode.is_some() {
            return Err(format!(
                "internal error: {place} is decoded from another serialisation and cannot be written; it was left unchanged"
            ));
        }
        let quoted = origin.table.replace('"', "\"\"");
        let changed = if new.is_empty() {
            tx.execute(
                &format!("DELETE FROM \"{quoted}\" WHERE {rowid} = ?1"),
                [id],
            )
            .map_err(fail)?
        } else {
            let (Some(old), Some(new)) = (origin.column(old, old), origin.column(old, new)) else {
                return Err(format!(
                    "internal error: the fix of {place} changes columns other than its JSON; it was left unchanged"
                ));
            };
            let new = restore_breaks(old, new, &origin.breaks);
            if let Err(e) = crate::json::parse(&new) {
                return Err(format!(
                    "internal error: the fix of {place} is not valid JSON ({e}); it was left unchanged"
                ));
            }
            tx.execute(
                &format!(
                    "UPDATE \"{quoted}\" SET {} = ?1 WHERE {rowid} = ?2",
                    super::table::kind(origin.kind).json
                ),
                rusqlite::params![new, id],
            )
            .map_err(fail)?
        };
        if changed != 1 {
            // Dropping the transaction rolls back what it did.
            return Err(format!(
                "internal error: the statement for {place} would change {changed} rows, not 1; it was left unchanged"
            ));
        }
    }
    tx.commit().map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;
    use std::path::Path;

    fn agents_db(path: &Path) -> Connection {
        let conn = Connection::open(path).expect("create");
        conn.execute_batch(
            "CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, message_data TEXT NOT NULL);
             INSERT INTO agent_messages (session_id, message_data) VALUES
               ('s', '{\"role\": \"user\", \"content\": \"hi\"}'),
               ('s', '{\"type\": \"function_call_output\", \"call_id\": \"x\", \"output\": \"ok\"}');",
        )
        .expect("fill");
        conn
    }

    #[test]
    fn write_refuses_a_database_changed_since_it_was_read() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("s.db");
        let conn = agents_db(&path);
        let snapshot = super::super::read(&path, "s.db").expect("read");
        conn.execute(
            "UPDATE agent_messages SET message_data = '{\"role\": \"user\", \"content\": \"hello\"}' WHERE id = 1",
            [],
        )
        .expect("change");
        let fixed = snapshot.text().replacen("{\"type\"", "", 1);
        let err = write(&path, "s.db", &snapshot, &fixed).expect_err("refused");
        assert!(err.contains("changed since it was read"), "{err}");
        let left: i64 = conn
            .query_row("SELECT count(*) FROM agent_messages", [], |r| r.get(0))
            .expect("count");
        assert_eq!(left, 2);
    }
}
