#!/usr/bin/env bash
# The Neovim setups of docs/editors.md, checked headless against the debug build: each configuration
# this Neovim can run opens a broken log and must show toolcheck's diagnostics.
# editors/neovim/toolcheck-0.7.lua runs on 0.7 and later; toolcheck.lua needs 0.11.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/target/debug:$PATH"
export TOOLCHECK_FILE="$PWD/fixtures/openai-chat/broken-request.json"
version=$(nvim --version | head -n 1 | sed -E 's/^NVIM v([0-9]+)\.([0-9]+).*/\1 \2/')
read -r major minor <<< "$version"
configs=(editors/neovim/toolcheck-0.7.lua)
if [ "$major" -gt 0 ] || [ "$minor" -ge 11 ]; then
  configs+=(editors/neovim/toolcheck.lua)
fi
for config in "${configs[@]}"; do
  out=$(timeout 60 nvim --headless --clean -u "$config" -c "luafile editors/neovim/check.lua")
  if ! grep -q "TC101" <<< "$out"; then
    echo "neovim $major.$minor, $config: no toolcheck diagnostics" >&2
    echo "$out" >&2
    exit 1
  fi
  echo "neovim $major.$minor, $config: $(grep -c '^[0-9]' <<< "$out") diagnostics"
done
