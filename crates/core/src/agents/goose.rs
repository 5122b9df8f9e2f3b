//! Goose: `sessions.db` (and older JSONL sessions) in its data directory
//! (`$GOOSE_PATH_ROOT/data`; `%APPDATA%\Block\goose\data` on Windows).

use super::{moved, Add, Env, Os};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    let data = moved(env, &["GOOSE_PATH_ROOT"], None)
        .map(|(d, o)| (d.join("data"), o))
        .or_else(|| match env.os {
            Os::Windows => env
                .path("APPDATA")
                .map(|d| (d.join("Block").join("goose").join("data"), "default".into())),
            _ => moved(env, &["XDG_DATA_HOME"], env.home_join(".local/share"))
                .map(|(d, o)| (d.join("goose"), o)),
        });
    add.root(
        data.map(|(d, o)| (d.join("sessions"), o)),
        &["sessions.db", "*.jsonl"],
    );
}
