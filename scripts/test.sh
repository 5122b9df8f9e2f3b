#!/usr/bin/env bash
# Every test, Rust and Python: `bash scripts/test.sh`. Needs the Rust toolchain and Python 3;
# the Python dependencies come from PyPI into a virtualenv (python/target/venv).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --locked
bash scripts/test-python.sh "$@"
