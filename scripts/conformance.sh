#!/usr/bin/env bash
# Conformance check against the real coding-agent CLIs (see conformance/run.py).
# Installs the pinned agents from conformance/package-lock.json (needs the npm registry),
# builds toolcheck, then runs every agent offline in a loopback-only network namespace
# (needs root for `unshare -n`). Extra arguments go to run.py: --agents, --scenarios, --newest.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ " $* " != *" --newest "* ]]; then
  # `npm ci` when the lock allows it. npm 11 leaves out of the lock the per-platform optional
  # binaries that the registry does not serve for a pinned version (opencode, Kilo, a clipboard
  # module), and `npm ci` then refuses the lock; `npm install --no-save` installs the same
  # locked tree without rewriting it.
  (cd conformance && { npm ci --no-audit --no-fund || npm install --no-save --no-audit --no-fund; })
fi
# The fake provider's own rules first: a wrong validator would make every row wrong.
python3 -m unittest conformance/test_fake_provider.py
# CI passes the binary its tests built (TOOLCHECK); run by hand, a release build.
if [ -z "${TOOLCHECK:-}" ]; then
  cargo build --release --locked
  export TOOLCHECK="${CARGO_TARGET_DIR:-$PWD/target}/release/toolcheck"
fi
exec python3 conformance/run.py --check "$@"
