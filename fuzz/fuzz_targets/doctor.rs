//! bytes → a home of agents' sessions → `doctor` (and `doctor --fix`) → invariants (see
//! `fuzz/src/doctor_check.rs`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| toolcheck_fuzz::doctor_check::check(data));
