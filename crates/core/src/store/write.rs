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
    let written: Vec<(&str, Event)> = snapshot
        .lines
        .iter()
        .zip(snapshot.text.split('\n').zip(fixed.split('\n')))
        .filter(|(_, (old, new))| old != new)
        .map(|(origin, (_, new))| {
            let event = if new.is_empty() {
                Event::Delete
            } else {
                Event::Update
            };
            (origin.table.as_str(), event)
        })
        .collect();
    if let Some(why) = refused_triggers(&tx, &written).map_err(fail)? {
        return Err(why);
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

/// What a fix does to a row: the trigger events it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    Update,
    Delete,
    /// Never what a fix does; a trigger on it never fires.
    Insert,
}

/// Why the fix may not be written because of a trigger: one that the fix's updates or
/// deletes (`written`: each row's table and event) fire and that changes other rows. Such a
/// trigger would change rows `fix` does not show (session titles, audit rows); SQLite cannot
/// turn triggers off for a transaction, so the fix is refused and the trigger named. Let
/// fire: triggers that keep a full-text (FTS3/4/5) index of the table in step, and triggers
/// that update only the row that fired them (`UPDATE t SET updated_at = … WHERE id =
/// new.id`, as Crush stamps its messages), which is a row of the diff.
fn refused_triggers(
    conn: &Connection,
    written: &[(&str, Event)],
) -> rusqlite::Result<Option<String>> {
    let firing: Vec<_> = schema_entries(conn, "trigger")?
        .into_iter()
        .filter(|(_, table, sql)| {
            let event = trigger_event(sql);
            written
                .iter()
                .any(|(w, e)| w.eq_ignore_ascii_case(table) && event.is_none_or(|t| t == *e))
        })
        .collect();
    if firing.is_empty() {
        return Ok(None);
    }
    let indexes: Vec<String> = schema_entries(conn, "table")?
        .into_iter()
        .filter(|(_, _, sql)| is_fts(sql))
        .map(|(name, _, _)| name)
        .collect();
    for (name, table, sql) in &firing {
        let targets = trigger_targets(sql);
        let upkeep = !targets.is_empty()
            && targets
                .iter()
                .all(|t| indexes.iter().any(|i| i.eq_ignore_ascii_case(t)));
        if upkeep || updates_only_its_row(conn, table, sql)? {
            continue;
        }
        let what = if targets.is_empty() {
            String::new()
        } else {
            format!(" (it writes to {})", targets.join(", "))
        };
        return Ok(Some(format!(
            "the table `{table}` has the trigger `{name}`{what}, which would change rows the fix does not show; it was left unchanged (fix a copy, or drop the trigger first if those rows may change)"
        )));
    }
    Ok(None)
}

/// The schema's entries of one `type` (`table`, `trigger`): name, table and SQL text (empty
/// where SQLite keeps none).
fn schema_entries(
    conn: &Connection,
    kind: &str,
) -> rusqlite::Result<Vec<(String, String, String)>> {
    let mut stmt = conn.prepare("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = ?1")?;
    let entries = stmt
        .query_map([kind], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get::<_, Option<String>>(2)?.unwrap_or_default(),
            ))
        })?
        .collect();
    entries
}

/// The event a trigger fires on (`AFTER UPDATE OF … ON`), `None` when it cannot be told.
fn trigger_event(sql: &str) -> Option<Event> {
    let words = sql_words(sql);
    let on = words.iter().position(|w| w == "on")?;
    words
        .get(..on)?
        .iter()
        .rev()
        .find_map(|w| match w.as_str() {
            "update" => Some(Event::Update),
            "delete" => Some(Event::Delete),
            "insert" => Some(Event::Insert),
            _ => None,
        })
}

/// Whether every statement of the trigger on `table` is `UPDATE table … WHERE key =
/// new.key` (or `old.key`) with `key` the table's rowid or its one-column primary key: it
/// changes only the row that fired it.
fn updates_only_its_row(conn: &Connection, table: &str, sql: &str) -> rusqlite::Result<bool> {
    let words = sql_words(sql);
    let Some(begin) = words.iter().position(|w| w == "begin") else {
        return Ok(false);
    };
    let body = words.get(begin + 1..).unwrap_or_default();
    let mut keys: Vec<String> = ["rowid", "oid", "_rowid_"].map(String::from).to_vec();
    let quoted = table.replace('"', "\"\"");
    let mut stmt = conn.prepare(&format!("PRAGMA table_info(\"{quoted}\")"))?;
    let pk: Vec<String> = stmt
        .query_map([], |r| Ok((r.get::<_, String>(1)?, r.get::<_, i64>(5)?)))?
        .filter_map(|row| row.ok())
        .filter(|(_, pk)| *pk > 0)
        .map(|(name, _)| name.to_lowercase())
        .collect();
    if let [one] = pk.as_slice() {
        keys.push(one.clone());
    }
    let statements: Vec<&[String]> = body
        .split(|w| w == ";")
        .filter(|s| !s.is_empty() && s.first().is_some_and(|w| w != "end"))
        .collect();
    Ok(!statements.is_empty()
        && statements.iter().all(|st| {
            let target = match st.get(1).map(String::as_str) {
                Some("or") => st.get(3),
                _ => st.get(1),
            };
            let n = st.len();
            st.first().is_some_and(|w| w == "update")
                && target.is_some_and(|t| {
                    t.rsplit('.')
                        .next()
                        .unwrap_or(t)
                        .eq_ignore_ascii_case(table)
                })
                && n >= 3
                && st.get(n - 3).is_some_and(|w| w == "where")
                && st.get(n - 2).zip(st.get(n - 1)).is_some_and(|(k, v)| {
                    keys.contains(k) && (*v == format!("new.{k}") || *v == format!("old.{k}"))
                })
        }))
}

/// Whether a table's `CREATE` statement makes an FTS3/4/5 virtual table.
fn is_fts(sql: &str) -> bool {
    let words = sql_words(sql);
    let mut iter = words.iter().map(String::as_str);
    iter.next() == Some("create")
        && iter.next() == Some("virtual")
        && words
            .iter()
            .position(|w| w == "using")
            .and_then(|i| words.get(i + 1))
            .is_some_and(|m| matches!(m.as_str(), "fts3" | "fts4" | "fts5"))
}

/// The tables the statements of a trigger's body insert into, update or delete from.
fn trigger_targets(sql: &str) -> Vec<String> {
    let words = sql_words(sql);
    let Some(begin) = words.iter().position(|w| w == "begin") else {
        return Vec::new();
    };
    let body = words.get(begin + 1..).unwrap_or_default();
    let mut targets = Vec::new();
    let mut statement_start = true;
    let mut i = 0;
    while let Some(word) = body.get(i) {
        if word == ";" {
            statement_start = true;
            i += 1;
            continue;
        }
        if statement_start {
            let target_after = match word.as_str() {
                "insert" | "replace" => body
                    .get(i..)
                    .and_then(|rest| rest.iter().position(|w| w == "into").map(|p| i + p + 1)),
                "update" => Some(match body.get(i + 1).map(String::as_str) {
                    Some("or") => i + 3,
                    _ => i + 1,
                }),
                "delete" => Some(i + 2),
                _ => None,
            };
            if let Some(target) = target_after.and_then(|t| body.get(t)) {
                // `schema.table`: the table is the last part.
                let name = target.rsplit('.').next().unwrap_or(target);
                if !targets.iter().any(|t: &String| t == name) {
                    targets.push(name.to_string());
                }
            }
            statement_start = false;
        }
        i += 1;
    }
    targets
}

/// `sql` as lowercase words: names unquoted (`"x"`, `` `x` ``, `[x]`), `;` a word of its
/// own, string literals and punctuation dropped.
fn sql_words(sql: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ';' => words.push(";".to_string()),
            '\'' => {
                // A string literal: skipped, `''` inside it included.
                while let Some(d) = chars.next() {
                    if d == '\'' && chars.next_if_eq(&'\'').is_none() {
                        break;
                    }
                }
            }
            '"' | '`' | '[' => {
                // A quoted name, its close doubled inside it (`"mess""ages"`) standing for
                // itself; `[…]` has no escape. A `.` inside one reads as a schema's: the
                // name then matches no table, which refuses the write rather than allow it.
                let close = if c == '[' { ']' } else { c };
                let mut name = String::new();
                while let Some(d) = chars.next() {
                    if d == close && (c == '[' || chars.next_if_eq(&close).is_none()) {
                        break;
                    }
                    name.push(d);
                }
                // `schema."table"` continues the word before it.
                match words.last_mut() {
                    Some(last) if last.ends_with('.') => last.push_str(&name.to_lowercase()),
                    _ => words.push(name.to_lowercase()),
                }
            }
            c if c.is_alphanumeric() || c == '_' => {
                let mut word = c.to_lowercase().to_string();
                while let Some(d) = chars.next_if(|d| d.is_alphanumeric() || *d == '_' || *d == '.')
                {
                    word.extend(d.to_lowercase());
                }
                words.push(word);
            }
            _ => {}
        }
    }
    words
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

    /// A quoted name's doubled quote is part of the name (the fuzz `store` target's finding:
    /// a self-stamping trigger on `mess"ages` was read as writing to `mess`).
    #[test]
    fn quoted_names_keep_their_doubled_quotes() {
        let sql = r#"CREATE TRIGGER "mess""ages updated" AFTER UPDATE ON "mess""ages" BEGIN UPDATE "mess""ages" SET n = 1 WHERE id = new.id; END"#;
        assert_eq!(trigger_targets(sql), vec![r#"mess"ages"#.to_string()]);
        assert_eq!(
            sql_words("[a]]b] `x``y`"),
            ["a", "b", "x`y"].map(String::from).to_vec()
        );
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

    fn fix_first_row(path: &Path) -> Result<(), String> {
        let snapshot = super::super::read(path, "s.db").expect("read");
        let fixed = snapshot.text().replacen("\"hi\"", "\"hello\"", 1);
        assert_ne!(fixed, snapshot.text());
        write(path, "s.db", &snapshot, &fixed)
    }

    #[test]
    fn a_trigger_that_would_change_other_rows_refuses_the_write() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("s.db");
        let conn = agents_db(&path);
        conn.execute_batch(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, updated INTEGER);
             INSERT INTO sessions VALUES ('s', 1);
             CREATE TRIGGER \"touch session\" AFTER UPDATE ON agent_messages BEGIN
               UPDATE sessions SET updated = updated + 1 WHERE id = NEW.session_id;
             END;",
        )
        .expect("trigger");
        let err = fix_first_row(&path).expect_err("refused");
        assert!(
            err.contains("the trigger `touch session` (it writes to sessions)"),
            "{err}"
        );
        let updated: i64 = conn
            .query_row("SELECT updated FROM sessions", [], |r| r.get(0))
            .expect("read");
        assert_eq!(updated, 1);
    }

    #[test]
    fn a_trigger_that_keeps_a_full_text_index_may_fire() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("s.db");
        let conn = agents_db(&path);
        conn.execute_batch(
            "CREATE VIRTUAL TABLE messages_fts USING fts5(message_data, content='agent_messages', content_rowid='id');
             INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
             CREATE TRIGGER messages_au AFTER UPDATE ON agent_messages BEGIN
               INSERT INTO messages_fts(messages_fts, rowid, message_data) VALUES ('delete', old.id, old.message_data);
               INSERT INTO messages_fts(rowid, message_data) VALUES (new.id, new.message_data);
             END;",
        )
        .expect("fts");
        fix_first_row(&path).expect("written");
        let found: i64 = conn
            .query_row(
                "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'hello'",
                [],
                |r| r.get(0),
            )
            .expect("search");
        assert_eq!(found, 1);
    }

    #[test]
    fn a_trigger_that_stamps_the_row_it_fired_on_may_fire() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("s.db");
        let conn = agents_db(&path);
        conn.execute_batch(
            "ALTER TABLE agent_messages ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
             CREATE TABLE sessions (id TEXT PRIMARY KEY, message_count INTEGER);
             INSERT INTO sessions VALUES ('s', 2);
             CREATE TRIGGER stamp AFTER UPDATE ON agent_messages BEGIN
               UPDATE agent_messages SET updated_at = 7 WHERE id = new.id;
             END;
             CREATE TRIGGER counted AFTER INSERT ON agent_messages BEGIN
               UPDATE sessions SET message_count = message_count + 1 WHERE id = new.session_id;
             END;",
        )
        .expect("triggers");
        fix_first_row(&path).expect("written");
        let stamps: Vec<i64> = conn
            .prepare("SELECT updated_at FROM agent_messages ORDER BY id")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .expect("read");
        assert_eq!(stamps, [7, 0]);
    }

    #[test]
    fn trigger_bodies_name_what_they_write() {
        assert_eq!(
            trigger_targets(
                "CREATE TRIGGER t AFTER DELETE ON m BEGIN DELETE FROM main.\"a b\" WHERE x = 'it''s; update z'; INSERT OR REPLACE INTO [c] VALUES (1); UPDATE OR IGNORE d SET y = 1; SELECT 1; END"
            ),
            ["a b", "c", "d"]
        );
        assert!(is_fts("CREATE VIRTUAL TABLE f USING FTS5(x)"));
        assert!(!is_fts("CREATE TABLE fts5 (x)"));
    }
}
