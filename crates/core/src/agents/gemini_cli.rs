//! Gemini CLI: `~/.gemini/tmp/<project>/chats/` (`$GEMINI_CLI_HOME` moves the home).

use super::{moved, Add, Env};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    let home = moved(env, &["GEMINI_CLI_HOME"], env.home.clone());
    add.root(
        home.map(|(d, o)| (d.join(".gemini").join("tmp"), o)),
        &[
            "*/chats/session-*.jsonl",
            "*/chats/session-*.json",
            "*/chats/*/*.jsonl",
        ],
    );
}
