#!/usr/bin/env bash
# Every test, Rust, Python and Node.js: `bash scripts/test.sh`. Needs the Rust toolchain,
# Python 3 and Node.js 18+; the Python dependencies come from PyPI into a virtualenv
# (python/target/venv), the Node ones from npm into node/node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --locked
bash scripts/test-python.sh "$@"
bash scripts/test-node.sh
