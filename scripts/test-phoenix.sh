#!/usr/bin/env bash
# The Phoenix source against a real Arize Phoenix server (tests/phoenix/live.py): installs the
# pinned arize-phoenix, OpenInference instrumentation and openai SDK of
# tests/phoenix/requirements.lock into target/phoenix-venv (needs PyPI and a Python >= 3.11),
# then runs the test, in a loopback-only network namespace when it can (`unshare -n`, root):
# Phoenix, the fake provider and toolcheck talk over 127.0.0.1 and nothing leaves the machine.
# TOOLCHECK is the binary to test (default: target/debug/toolcheck).
set -euo pipefail
cd "$(dirname "$0")/.."
lock=tests/phoenix/requirements.lock
want=$(sed -n 's/^# python >= \([0-9]*\.[0-9]*\).*/\1/p' "$lock" | head -n 1)
py=""
for candidate in python3 python3.13 python3.12 python3.11; do
  if command -v "$candidate" > /dev/null 2>&1 && "$candidate" -c \
    "import sys; sys.exit(sys.version_info[:2] < tuple(map(int, '$want'.split('.'))))" 2> /dev/null; then
    py=$candidate
    break
  fi
done
if [ -z "$py" ]; then
  echo "phoenix live: no Python >= $want here; the live Phoenix test did not run" >&2
  exit 0
fi
venv=target/phoenix-venv
# The lock's hash marks an install that is complete and current.
stamp="$venv/.lock-$(sha256sum "$lock" | cut -c1-16)"
if [ ! -e "$stamp" ]; then
  rm -rf "$venv"
  "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$lock"
  touch "$stamp"
fi
toolcheck=$(realpath "${TOOLCHECK:-target/debug/toolcheck}")
run=("$venv/bin/python" tests/phoenix/live.py "$toolcheck")
# No proxy may route the loopback calls elsewhere.
unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy ALL_PROXY all_proxy
if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null && command -v ip > /dev/null; then
  exec unshare -n sh -c 'ip link set lo up && exec "$@"' sh "${run[@]}"
fi
exec "${run[@]}"
