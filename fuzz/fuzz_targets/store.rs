//! bytes → a SQLite store → lint, fix, write → invariants (see `fuzz/src/store_check.rs`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| toolcheck_fuzz::store_check::check(data));
