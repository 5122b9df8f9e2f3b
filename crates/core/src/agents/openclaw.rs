//! OpenClaw (formerly Clawdbot, Moltbot): `~/.openclaw/agents/<agent>/sessions/*.jsonl` and
//! its SQLite agent store; `$OPENCLAW_STATE_DIR` or `$OPENCLAW_HOME` move it.

use super::{moved, Add, Env};

/// OpenClaw's artifacts beside transcripts (`artifacts.ts`): pre-compaction twins,
/// renamed-away copies, trajectories and locks.
const SKIP: &[&str] = &[
    ".bak.*",
    ".reset.*",
    ".deleted.*",
    ".checkpoint.*.jsonl",
    ".trajectory.jsonl",
    ".trajectory-path.json",
    ".jsonl.lock",
];

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    let state = moved(env, &["OPENCLAW_STATE_DIR", "CLAWDBOT_STATE_DIR"], None).or_else(|| {
        let home = env.path("OPENCLAW_HOME").or_else(|| env.home.clone())?;
        // `~/.openclaw`, else the first legacy state dir that exists.
        let dirs = [".openclaw", ".clawdbot", ".moldbot", ".moltbot"];
        let found = dirs
            .iter()
            .map(|d| home.join(d))
            .find(|d| d.is_dir())
            .unwrap_or_else(|| home.join(".openclaw"));
        let origin = if env.path("OPENCLAW_HOME").is_some() {
            "$OPENCLAW_HOME"
        } else {
            "default"
        };
        Some((found, origin.to_string()))
    });
    add.root_skipping(
        state.map(|(root, origin)| (root.join("agents"), origin)),
        &["*/sessions/*.jsonl", "*/agent/openclaw-agent.sqlite"],
        SKIP,
    );
}
