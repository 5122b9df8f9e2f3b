//! Hermes Agent: `state.db` in its home (`hermes_constants.py:get_hermes_home`): `$HERMES_HOME`,
//! else `~/.hermes` (`%LOCALAPPDATA%\hermes` on Windows), and one home per profile under
//! `profiles/<name>/` (`hermes -p <name>`).

use super::{moved, Add, Env, Os};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    let default = match env.os {
        Os::Windows => env
            .path("LOCALAPPDATA")
            .map(|d| d.join("hermes"))
            .or_else(|| env.home_join("AppData/Local/hermes")),
        _ => env.home_join(".hermes"),
    };
    add.root(
        moved(env, &["HERMES_HOME"], default),
        &["state.db", "profiles/*/state.db"],
    );
}
