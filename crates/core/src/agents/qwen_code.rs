//! Qwen Code: `~/.qwen/projects/<project>/chats/*.jsonl`.

use super::{Add, Env};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    add.root(
        env.home_join(".qwen/projects")
            .map(|d| (d, "default".to_string())),
        &["*/chats/*.jsonl"],
    );
}
