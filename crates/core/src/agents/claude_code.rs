//! Claude Code: `~/.claude/projects/<project>/<session>.jsonl` (`$CLAUDE_CONFIG_DIR` moves
//! `~/.claude`), sub-agent transcripts beside them.

use super::{moved, Add, Env};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    let dir = moved(env, &["CLAUDE_CONFIG_DIR"], env.home_join(".claude"));
    // Sub-agent transcripts sit in `<project>/<session>/subagents/`.
    let sessions: &[&str] = &["*/*.jsonl", "*/*/subagents/*.jsonl"];
    add.root(dir.map(|(d, o)| (d.join("projects"), o)), sessions);
    // Some 1.0.29–1.0.3x builds (anthropics/claude-code#2277) wrote here.
    let config = moved(env, &["XDG_CONFIG_HOME"], env.home_join(".config"));
    add.root(
        config.map(|(d, o)| (d.join("claude").join("projects"), o)),
        sessions,
    );
}
