#!/usr/bin/env bash
# The Node.js half of the tests: installs node/'s pinned devDependencies from npm (`npm ci`,
# from package-lock.json), which builds the addon with cargo through the package's install
# script, and runs `npm test` (node/test: the API, the guard, the AI SDK middleware with the
# `ai` package's mock model, the types with tsc, and the findings against the command line's
# on every fixture). Needs Node.js 18+ and the Rust toolchain.
#
# TOOLCHECK_NODE_PROFILE picks the addon's build: debug here, in the root's target directory
# (CARGO_TARGET_DIR overrides), where the two crates' dev profiles and locked versions agree:
# after the root's `cargo test` only napi, toolcheck (unoptimised) and the addon compile, about
# 25 CPU-seconds, where a release build compiles everything again (about 6 CPU-minutes). The
# parity test uses that directory's debug/toolcheck, built if missing.
set -euo pipefail
cd "$(dirname "$0")/../node"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/../target}"

start=$(date +%s)
node --version
export TOOLCHECK_NODE_PROFILE="${TOOLCHECK_NODE_PROFILE:-debug}"
npm ci --no-audit --no-fund
echo "node: packages and addon ready in $(( $(date +%s) - start ))s"
npm test "$@"
echo "node: tests done in $(( $(date +%s) - start ))s"
