"""toolcheck.integrations without the frameworks: importing the package imports none of them,
and a module whose framework is missing says which extra installs it."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

MODULES = {
    "litellm": ("litellm", "litellm"),
    "pydantic_ai": ("pydantic_ai", "pydantic-ai"),
    "langgraph": ("langgraph.prebuilt", "langgraph"),
    "openai_agents": ("agents", "openai-agents"),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_missing_framework_names_the_extra(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    framework, extra = MODULES[name]
    # `None` in sys.modules makes the import fail as if the framework were not installed.
    monkeypatch.setitem(sys.modules, framework, None)
    monkeypatch.delitem(sys.modules, f"toolcheck.integrations.{name}", raising=False)
    with pytest.raises(ImportError, match=rf"pip install 'toolcheck-lint\[{extra}\]'"):
        importlib.import_module(f"toolcheck.integrations.{name}")
    monkeypatch.delitem(sys.modules, f"toolcheck.integrations.{name}", raising=False)


def test_the_package_imports_no_framework() -> None:
    code = (
        "import sys, toolcheck, toolcheck.integrations\n"
        "loaded = [m for m in ('litellm', 'pydantic_ai', 'langgraph', 'agents') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
