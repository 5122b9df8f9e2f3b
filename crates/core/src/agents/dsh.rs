//! DeepSeek Harness (`dsh`): `${DSH_HOME:-~/.dsh}/sessions/--<project>--/<id>/session.jsonl.zstd`
//! on every OS (`packages/util/home-paths`: `os.homedir()`, so `%USERPROFILE%\.dsh` on
//! Windows; a blank `DSH_HOME` counts as unset), or `session.jsonl` when dsh is set to
//! `compression: none`. Later releases' formats live beside it as `session.vN.jsonl[.zstd]`;
//! they are found, and said to be not read yet. A `session.jsonl.zstd.<hex>.tmp` left by a
//! crash during a session's first write is not a session.

use super::{moved, Add, Env};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    let home = moved(env, &["DSH_HOME"], env.home_join(".dsh"));
    add.root(
        home.map(|(d, o)| (d.join("sessions"), o)),
        &[
            "--*--/*/session.jsonl.zstd",
            "--*--/*/session.jsonl",
            "--*--/*/session.v*.jsonl.zstd",
            "--*--/*/session.v*.jsonl",
            "_no-cwd/*/session.jsonl.zstd",
            "_no-cwd/*/session.jsonl",
        ],
    );
}
