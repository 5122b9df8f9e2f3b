//! GitHub Copilot CLI: `$COPILOT_HOME/session-state/<id>/events.jsonl`, and the older
//! `history-session-state/*.json`.

use super::{moved, Add, Env};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    let home = moved(env, &["COPILOT_HOME"], env.home_join(".copilot"));
    add.root(
        home.clone().map(|(d, o)| (d.join("session-state"), o)),
        &["*/events.jsonl"],
    );
    add.root(
        home.map(|(d, o)| (d.join("history-session-state"), o)),
        &["*.json"],
    );
}
