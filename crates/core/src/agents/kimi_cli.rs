//! Kimi Code CLI: `~/.kimi/sessions/<md5 of the work dir>/<id>/context.jsonl` on every OS
//! (`share.py:get_share_dir`; `$KIMI_SHARE_DIR` moves `~/.kimi`), sub-agents' contexts in the
//! session's `subagents/<id>/`, and the legacy `<md5>/<id>.jsonl` the CLI migrates on open.
//! Rotated `context_N.jsonl` files (a revert, a compaction, `/clear`) are not resumed.

use super::{moved, Add, Env};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    let share = moved(env, &["KIMI_SHARE_DIR"], env.home_join(".kimi"));
    add.root(
        share.map(|(d, o)| (d.join("sessions"), o)),
        &["*/*/context.jsonl", "*/*/subagents/*/context.jsonl", "*/*.jsonl"],
    );
}
