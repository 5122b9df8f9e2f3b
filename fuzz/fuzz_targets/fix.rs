//! bytes → fix → invariants (see `fuzz/src/fix_check.rs`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| toolcheck_fuzz::fix_check::check(data));
