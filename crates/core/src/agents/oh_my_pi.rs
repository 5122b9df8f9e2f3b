//! oh-my-pi, a fork of pi: its sessions as pi keeps them, under `~/.omp/agent`
//! (`$OMP_CODING_AGENT_DIR`).

use super::{moved, pi, Add, Env};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    let dir = moved(env, &["OMP_CODING_AGENT_DIR"], env.home_join(".omp/agent"));
    pi::agent_dir(dir, None, add);
}
