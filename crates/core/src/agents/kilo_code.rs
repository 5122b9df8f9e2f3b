//! Kilo Code: tasks as Cline keeps them, and (Kilo ≥ 7.2.21 and the Kilo CLI) an opencode
//! database, `kilo.db` (`$KILO_DB`).

use super::{cline, moved, Add, Env};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    cline::tasks(env, "kilocode.kilo-code", add);
    let db = moved(env, &["KILO_DB"], None).or_else(|| {
        moved(env, &["XDG_DATA_HOME"], env.home_join(".local/share"))
            .map(|(d, o)| (d.join("kilo").join("kilo.db"), o))
    });
    add.root(db, &[""]);
}
