//! Roo Code, a fork of Cline: tasks as Cline keeps them.

use super::{cline, Add, Env};

pub(super) fn locations(env: &Env, add: &mut Add<'_>) {
    cline::tasks(env, "rooveterinaryinc.roo-cline", add);
}
