"""The pre-commit hooks (`.pre-commit-hooks.yaml`) run the Python package's `toolcheck`
command: each hook's entry, with staged files appended as pre-commit passes them, behaves as
the hook promises."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def hooks():
    """`id` → the hook's fields, read from the YAML without a YAML library (flat scalars)."""
    found = {}
    current = None
    for line in (ROOT / ".pre-commit-hooks.yaml").read_text().splitlines():
        m = re.match(r"^- id: (\S+)$", line)
        if m:
            current = found.setdefault(m.group(1), {})
            continue
        m = re.match(r"^  (\w+): (.+)$", line)
        if m and current is not None:
            current[m.group(1)] = m.group(2).strip()
    return found


def command():
    """The installed console script, next to this interpreter."""
    script = Path(sys.executable).with_name("toolcheck")
    if not script.exists():
        found = shutil.which("toolcheck")
        if not found:
            pytest.skip("the toolcheck console script is not installed")
        script = Path(found)
    return str(script)


def run_hook(hook, files, cwd):
    entry = shlex.split(hook["entry"])
    assert entry[0] == "toolcheck", hook
    return subprocess.run(
        [command(), *entry[1:], *files],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )


def project(tmp_path):
    (tmp_path / "package.json").write_text(json.dumps({"name": "demo"}))
    shutil.copy(ROOT / "fixtures/openai-chat/broken-request.json", tmp_path / "request.json")
    shutil.copy(ROOT / "fixtures/openai-chat/clean-request.json", tmp_path / "clean.json")
    return tmp_path


def test_hooks_install_the_python_package():
    for name, hook in hooks().items():
        assert hook.get("language") == "python", (name, hook)
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(r"^locked = true$", text, re.M), "the wheel is built with Cargo.lock"


def test_lint_hook_fails_a_broken_log_and_skips_other_json(tmp_path):
    dir = project(tmp_path)
    hook = hooks()["toolcheck"]
    assert re.search(hook["files"], "logs/a.jsonl") and not re.search(hook["files"], "a.py")
    broken = run_hook(hook, ["package.json", "request.json"], dir)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "request.json:" in broken.stdout
    assert "package.json" not in broken.stdout
    clean = run_hook(hook, ["package.json", "clean.json"], dir)
    assert clean.returncode == 0, clean.stdout + clean.stderr


def test_fix_hook_repairs_in_place(tmp_path):
    dir = project(tmp_path)
    before = (dir / "request.json").read_text()
    run_hook(hooks()["toolcheck-fix"], ["package.json", "request.json"], dir)
    after = (dir / "request.json").read_text()
    assert after != before, "the safe fixes were applied"
    again = run_hook(hooks()["toolcheck-fix"], ["request.json"], dir)
    assert (dir / "request.json").read_text() == after, again.stdout + again.stderr
    assert (dir / "package.json").read_text() == json.dumps({"name": "demo"})
