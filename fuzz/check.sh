#!/usr/bin/env bash
# Type-checks the fuzz targets on stable Rust, for CI: no nightly, no C++ compiler needed
# (`--no-default-features` leaves out linking libFuzzer, whose C++ sources only
# `cargo fuzz build` compiles). Running the targets needs nightly: see docs/contributing.md, "Fuzzing".
set -euo pipefail
cd "$(dirname "$0")/.."
# `--cfg fuzzing`, as cargo-fuzz builds them: the checks only the fuzzer runs are checked too.
RUSTFLAGS="${RUSTFLAGS:-} --cfg fuzzing" cargo check --manifest-path fuzz/Cargo.toml --locked --no-default-features --bins --lib
