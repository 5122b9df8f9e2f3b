"""What the integration tests share: the seed defects, and importing a framework that may be
missing (a skip, unless ``TOOLCHECK_REQUIRE_INTEGRATIONS`` is set, as CI sets it: then a
missing framework fails the run)."""

from __future__ import annotations

import importlib
import os
import socket
from types import ModuleType
from typing import Any, Iterator

import pytest


def need(module: str) -> ModuleType:
    """Imports a framework a test module needs, or skips the module when it is not installed
    (fails instead when ``TOOLCHECK_REQUIRE_INTEGRATIONS`` is set)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("TOOLCHECK_REQUIRE_INTEGRATIONS"):
            raise
        pytest.skip(
            f"{module} is not installed (pip install -r python/requirements-integrations.txt)", allow_module_level=True
        )
        raise  # unreachable: pytest.skip raises


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fails any attempt to open a network connection or resolve a name during a test."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"a test tried to reach the network: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    yield


SYSTEM = "You are a support agent."
#: The truncated arguments an interrupted stream saved.
TRUNCATED_ARGS = '{"query": "hello wor'
SEARCH_PARAMETERS = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
