//! Factory Droid: `~/.factory/sessions/<cwd with / as ->/<id>.jsonl` and side sessions in
//! `sessions/btw/` (`FACTORY_HOME_OVERRIDE` moves the home that holds `.factory`; Windows
//! uses `%USERPROFILE%\.factory`). The `<id>.settings.json` beside each is not a session.

use super::{moved, Add, Env};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    let home = moved(env, &["FACTORY_HOME_OVERRIDE"], env.home.clone());
    add.root(
        home.map(|(d, o)| (d.join(".factory").join("sessions"), o)),
        &["*/*.jsonl"],
    );
}
