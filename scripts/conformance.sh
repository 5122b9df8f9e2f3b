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
# The PyPI agents: one venv each, from conformance/pip/<agent>.lock, with the first Python
# found that the lock's `# python >= X.Y` line allows; without one, that agent's rows are
# skipped and say so.
for lock in conformance/pip/*.lock; do
  name=$(basename "$lock" .lock)
  want=$(sed -n 's/^# python >= \([0-9]*\.[0-9]*\).*/\1/p' "$lock" | head -n 1)
  py=""
  for candidate in python3 python3.13 python3.12 python3.11 "$HOME"/.pyenv/versions/3.*/bin/python3; do
    if command -v "$candidate" > /dev/null 2>&1 && "$candidate" -c \
      "import sys; sys.exit(sys.version_info[:2] < tuple(map(int, '${want:-3.0}'.split('.'))))" 2> /dev/null; then
      py=$candidate
      break
    fi
  done
  if [ -z "$py" ]; then
    echo "conformance: no Python >= ${want} here; the ${name} rows are skipped" >&2
    continue
  fi
  venv="conformance/.venvs/$name"
  [ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$lock"
done
# The fake provider's own rules first: a wrong validator would make every row wrong.
python3 -m unittest conformance/test_fake_provider.py
# CI passes the binary its tests built (TOOLCHECK); run by hand, a release build.
if [ -z "${TOOLCHECK:-}" ]; then
  cargo build --release --locked
  export TOOLCHECK="${CARGO_TARGET_DIR:-$PWD/target}/release/toolcheck"
fi
exec python3 conformance/run.py --check "$@"
