//! pi (`@mariozechner/pi-coding-agent`): JSONL sessions under `~/.pi/agent/sessions/`
//! (`$PI_CODING_AGENT_DIR`, `$PI_CODING_AGENT_SESSION_DIR`), or an opt-in SQLite store.

use super::{moved, Add, Env};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    let dir = moved(env, &["PI_CODING_AGENT_DIR"], env.home_join(".pi/agent"));
    let sessions = moved(env, &["PI_CODING_AGENT_SESSION_DIR"], None);
    agent_dir(dir, sessions, add);
}

/// The sessions of pi and its forks, from the agent directory (and a sessions directory
/// moved on its own).
pub(super) fn agent_dir(
    dir: Option<(std::path::PathBuf, String)>,
    sessions: Option<(std::path::PathBuf, String)>,
    add: &mut Add<'_>,
) {
    let sessions = sessions.or_else(|| dir.clone().map(|(d, o)| (d.join("sessions"), o)));
    add.root(sessions, &["*.jsonl", "*/*.jsonl"]);
    // Opt-in SQLite sessions (`PERSISTENT_STORE=sqlite`).
    add.root(dir, &["sessions.sqlite"]);
}
