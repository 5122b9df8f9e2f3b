//! Codex CLI: rollouts under `$CODEX_HOME/sessions/YYYY/MM/DD/`, archived ones beside.

use super::{moved, Add, Env};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    let home = moved(env, &["CODEX_HOME"], env.home_join(".codex"));
    add.root(
        home.clone().map(|(d, o)| (d.join("sessions"), o)),
        &["*/*/*/rollout-*.jsonl"],
    );
    add.root(
        home.map(|(d, o)| (d.join("archived_sessions"), o)),
        &["rollout-*.jsonl"],
    );
}
