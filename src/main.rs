use std::process::ExitCode;

use clap::Parser;

// Linting allocates many small, short-lived values per record (tree nodes, strings, findings);
// mimalloc serves them in about half the time the system allocator takes (issue 25's profile:
// a fifth of the CPU in malloc and free).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_arena_eager_commit` and `mi_option_purge_delay` (the order of
/// `mi_option_e` in the bundled v3 `mimalloc.h`; libmimalloc-sys leaves them unnamed).
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keeps peak memory where the system allocator had it: by default mimalloc commits whole
/// arenas and holds freed pages for a second, which doubled the peak of a run over small
/// records for no speed.
fn tune_allocator() {
    // SAFETY: plain integer options, set before any other thread exists.
    unsafe {
        libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 0);
    }
}

fn main() -> ExitCode {
    tune_allocator();
    let cli = toolcheck::cli::Cli::parse();
    toolcheck::app::run(cli.command)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allocator_options_are_the_ones_meant() {
        // The defaults identify the options (`options.c`): a 1000 ms purge delay, and arenas
        // committed eagerly only on overcommit systems (2).
        // SAFETY: reading integer options.
        let (purge, eager) = unsafe {
            (
                libmimalloc_sys::mi_option_get(PURGE_DELAY),
                libmimalloc_sys::mi_option_get(ARENA_EAGER_COMMIT),
            )
        };
        assert_eq!((purge, eager), (1000, 2));
    }
}
