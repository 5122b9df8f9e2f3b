#!/usr/bin/env bash
# The Python half of the tests: builds the wheel from this checkout, installs it into a fresh
# virtualenv with the test dependencies and the agent frameworks the guard integrations are
# tested against (from PyPI), and runs pytest (python/tests).
# Needs only Python 3 and the Rust toolchain. Set TOOLCHECK_VENV to reuse a virtualenv.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${TOOLCHECK_VENV:-python/target/venv}"
python="${PYTHON:-python3}"
start=$(date +%s)
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
# One resolution for both files: langgraph shares requirements-test.txt's langchain-core pin.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  -r python/requirements-test.txt -r python/requirements-integrations.txt
echo "python: test and integration dependencies installed in $(( $(date +%s) - start ))s"
# `pip install .`'s path: pip fetches maturin into an isolated build environment, maturin
# builds the wheel (release, in python/target), which is checked and then installed with its
# `toolcheck` command.
wheels="python/target/wheels"
rm -rf "$wheels"
"$venv/bin/python" -m pip wheel --quiet --disable-pip-version-check --no-deps --wheel-dir "$wheels" .
wheel=$(ls "$wheels"/toolcheck_lint-*.whl)
# The wheel carries the module, its type stubs and the `toolcheck` command.
"$venv/bin/python" - "$wheel" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
need = ["toolcheck/__init__.py", "toolcheck/_toolcheck.pyi", "toolcheck/py.typed", "toolcheck/integrations/__init__.py"]
need += [f"toolcheck/integrations/{m}.py" for m in ("litellm", "pydantic_ai", "langgraph", "openai_agents")]
missing = [n for n in need if n not in names]
if not any(n.startswith("toolcheck/_toolcheck") and n.endswith((".so", ".pyd")) for n in names):
    missing.append("toolcheck/_toolcheck extension module")
entry = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
scripts = zipfile.ZipFile(sys.argv[1]).read(entry[0]).decode() if entry else ""
if "toolcheck=toolcheck._cli:main" not in scripts.replace(" ", ""):
    missing.append("the toolcheck console script")
if missing:
    sys.exit(f"{sys.argv[1]} lacks: {', '.join(missing)}")
PY
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheel"
"$venv/bin/toolcheck" --version
echo "python: venv and wheel $(basename "$wheel") ready in $(( $(date +%s) - start ))s"

# Compare with the Rust binary when one is built (cargo test builds target/debug/toolcheck).
if [ -z "${TOOLCHECK_BIN:-}" ] && [ -x target/debug/toolcheck ]; then
  export TOOLCHECK_BIN="$PWD/target/debug/toolcheck"
fi
export RAY_DISABLE_USAGE_STATS=1 HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1
# A missing framework fails its integration tests here instead of skipping them; LiteLLM uses
# the model price map it ships instead of fetching one; the Agents SDK gets no key.
export TOOLCHECK_REQUIRE_INTEGRATIONS=1 LITELLM_LOCAL_MODEL_COST_MAP=True
unset OPENAI_API_KEY
set +e
# From the repository root: with python/ as the working directory, the source package (no
# extension module) would shadow the installed one.
"$venv/bin/python" -m pytest python/tests -q -p no:cacheprovider "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests" >&2
  exit 1
fi
echo "python: tests done in $(( $(date +%s) - start ))s (exit $status)"
exit "$status"
