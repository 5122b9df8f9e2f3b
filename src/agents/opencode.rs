//! opencode: its SQLite database in the data directory (`$OPENCODE_DB` names another).

use super::{moved, Add, Env};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    let data = moved(env, &["XDG_DATA_HOME"], env.home_join(".local/share"))
        .map(|(d, o)| (d.join("opencode"), o));
    match env.vars.get("OPENCODE_DB").filter(|v| !v.is_empty()) {
        Some(db) if db == ":memory:" => {}
        Some(db) => {
            let db = env.expand(db);
            // A relative `OPENCODE_DB` is relative to the data directory.
            let db = match &data {
                Some((d, _)) if db.is_relative() => d.join(db),
                _ => db,
            };
            add.root(Some((db, "$OPENCODE_DB".to_string())), &[""]);
        }
        // The default database and the dev channels' `opencode-<channel>.db`.
        None => add.root(data, &["opencode.db", "opencode-*.db"]),
    }
}
