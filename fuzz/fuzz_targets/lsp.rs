//! bytes → LSP messages and garbage frames → `toolcheck server` in a child process →
//! invariants (see `fuzz/src/lsp_check.rs`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(
    // The child the check starts is this executable, which then serves instead of fuzzing.
    init: toolcheck_fuzz::lsp_check::serve_if_asked(),
    |data: &[u8]| toolcheck_fuzz::lsp_check::check(data)
);
