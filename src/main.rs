use std::process::ExitCode;

use clap::Parser;

// Linting allocates many small, short-lived values per record (tree nodes, strings, findings):
// the profile had a fifth of the CPU in malloc and free. mimalloc, with its defaults, takes
// 6-16% off the CPU of the benchmark's corpora and 23% off request-sized records, for about
// 16 MiB more peak memory. (Returning freed pages at once kept the peak down but cost 40% on
// corpora of many files.) Its version 2, not 3: on a 87 MB document 3 peaked at 148 MiB and 2
// at 135 (the heap's own peak is 117), on a dataset of 100,000 records at 127 and 95, for the
// same CPU or up to 7% less.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` of mimalloc.h (v2 and v3), which libmimalloc-sys does not name.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() -> ExitCode {
    let cli = toolcheck::cli::Cli::parse();
    // A purge hands freed memory back to the kernel, which clears it again when it is next
    // touched: a chunk of a dataset, or a big document's tree, refaulted and cleared the same
    // huge pages over and over (a 142 MB document spent 0.95 s of system time, 0.05 s
    // without). A command that runs and exits keeps what it freed (its peak is unchanged);
    // the language server, which lives on, gives it back.
    if !matches!(cli.command, toolcheck::cli::Command::Server) {
        // SAFETY: sets a plain integer option; mimalloc reads options at any time.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    }
    no_huge_pages();
    toolcheck::app::run(cli.command)
}

/// Turns transparent huge pages off for this process. mimalloc asks for them on its arenas
/// where the kernel grants them on request (`madvise` mode, the common default), and a 2 MiB
/// page counts whole in the resident size however little of it is used: a 91 MB document
/// peaked at 186 MiB with them, 167 without, a directory of small files at 50 MiB, 33
/// without, and the kernel's clearing of them made system time swing up to tenfold from run
/// to run. Without them the CPU is the same on directories and datasets; a single big file
/// spends 0.06–0.09 s more on 4 KiB page faults per 80 MB.
fn no_huge_pages() {
    // Best effort: an old kernel without the flag keeps the pages, and nothing else changes.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let _ = rustix::thread::disable_transparent_huge_pages(true);
}

#[cfg(test)]
mod tests {
    /// The number stands for the option it names: its default is the purge delay's (1000 ms
    /// in mimalloc v3, 10 ms in v2), which no option next to it shares.
    #[test]
    fn purge_delay_is_the_option_set() {
        // SAFETY: reads a plain integer option.
        let delay = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert!(delay == 1000 || delay == 10, "option 15 is {delay}");
        }
    }

    /// The flag is the process's own, read back from the kernel.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn huge_pages_are_turned_off() {
        super::no_huge_pages();
        assert_eq!(
            rustix::thread::transparent_huge_pages_are_disabled().ok(),
            Some(true)
        );
    }
}
