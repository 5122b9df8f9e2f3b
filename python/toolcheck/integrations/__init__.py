"""Guards for agent frameworks: each module checks the history a framework is about to send to
a model with :func:`toolcheck.guard` (``mode="raise"``, ``"repair"`` or ``"warn"``), at the place
the framework lets you change the request.

- :mod:`toolcheck.integrations.litellm`: a LiteLLM callback for the SDK and the proxy
  (``pip install 'toolcheck-lint[litellm]'``).
- :mod:`toolcheck.integrations.pydantic_ai`: a Pydantic AI history processor
  (``pip install 'toolcheck-lint[pydantic-ai]'``).
- :mod:`toolcheck.integrations.langgraph`: a LangGraph ``create_react_agent`` pre-model hook
  (``pip install 'toolcheck-lint[langgraph]'``).
- :mod:`toolcheck.integrations.openai_agents`: an OpenAI Agents SDK model-input filter
  (``pip install 'toolcheck-lint[openai-agents]'``).

Importing this package imports none of those libraries; each module imports its own, and
raises an ImportError naming the extra to install when it is missing.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Optional

from ..guard import MODES, clean_off_the_objects, guard

__all__ = ["require", "GuardSettings"]


def require(module: str, extra: str) -> ModuleType:
    """Imports ``module`` for an integration, or raises an ImportError that says which pip
    extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f"toolcheck's {extra} integration needs `{module}`: pip install 'toolcheck-lint[{extra}]'"
        ) from e


@dataclass(frozen=True)
class GuardSettings:
    """What an integration passes to :func:`toolcheck.guard` for every request: the provider
    whose rules apply (``None``: the one the integration finds, else the history's own), the
    mode (``raise``, ``repair`` or ``warn``), and ``everything``, ``tools``, ``select``,
    ``ignore`` and ``on_repair`` as :func:`toolcheck.guard` takes them."""

    provider: Optional[str] = None
    mode: str = "raise"
    everything: bool = False
    tools: Any = None
    select: Any = None
    ignore: Any = None
    on_repair: Optional[Callable[..., None]] = None

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown guard mode {self.mode!r}; expected one of {', '.join(MODES)}")

    def clean_off_the_objects(
        self, history: Any, *, format: str = "auto", provider: Optional[str] = None, tools: Any = None
    ) -> Optional[bool]:
        """:func:`toolcheck.guard.clean_off_the_objects` with these settings, as :meth:`guard`
        passes them: ``None`` when the history is not plain JSON."""
        return clean_off_the_objects(
            history,
            provider=self.provider if self.provider is not None else provider,
            everything=self.everything,
            format=format,
            tools=self.tools if self.tools is not None else tools,
            select=self.select,
            ignore=self.ignore,
        )

    def guard(self, history: Any, *, format: str = "auto", provider: Optional[str] = None, tools: Any = None) -> Any:
        """:func:`toolcheck.guard` with these settings; ``provider`` and ``tools`` stand in
        for unset ones (what the integration found in the request)."""
        return guard(
            history,
            provider=self.provider if self.provider is not None else provider,
            mode=self.mode,
            everything=self.everything,
            format=format,
            tools=self.tools if self.tools is not None else tools,
            select=self.select,
            ignore=self.ignore,
            on_repair=self.on_repair,
        )
