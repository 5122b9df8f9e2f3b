//! bytes → a session folder → lint, fix, write → invariants (see `fuzz/src/folder_check.rs`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| toolcheck_fuzz::folder_check::check(data));
