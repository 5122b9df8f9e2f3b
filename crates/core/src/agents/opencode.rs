//! opencode: its SQLite database in the data directory (`$OPENCODE_DB` names another).

use super::{moved, Add, Env};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    let data = moved(env, &["XDG_DATA_HOME"], env.home_join(".local/share"))
        .map(|(d, o)| (d.join("opencode"), o));
    match env.var("OPENCODE_DB") {
        Some(":memory:") => {}
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
