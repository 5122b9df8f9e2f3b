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
from types import ModuleType

__all__ = ["require"]


def require(module: str, extra: str) -> ModuleType:
    """Imports ``module`` for an integration, or raises an ImportError that says which pip
    extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f"toolcheck's {extra} integration needs `{module}`: pip install 'toolcheck-lint[{extra}]'"
        ) from e
