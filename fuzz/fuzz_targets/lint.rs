//! bytes → lint → every output format (see `fuzz/src/lint_check.rs`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| toolcheck_fuzz::lint_check::check(data));
