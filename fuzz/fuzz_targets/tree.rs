//! bytes → the tree parser against serde_json (see `fuzz/src/tree_check.rs`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| toolcheck_fuzz::tree_check::check(data));
