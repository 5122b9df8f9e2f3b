"""A Pydantic AI history processor that guards the messages of every model request::

    from pydantic_ai import Agent
    from pydantic_ai.capabilities import ProcessHistory
    from toolcheck.integrations.pydantic_ai import toolcheck_history_processor

    agent = Agent("anthropic:claude-sonnet-4-5",
                  capabilities=[ProcessHistory(toolcheck_history_processor(mode="repair"))])

(Pydantic AI versions that still take ``Agent(history_processors=[…])`` accept the same
function there.) Put it last among your history processors, so it sees the history as it will
be sent, after any trimming or summarising.

The messages are read as toolcheck's ``pydantic-ai`` format (the
``ModelMessagesTypeAdapter`` JSON dump) and a repaired history is validated back into
``ModelMessage`` objects. The provider whose rules apply is ``provider`` when given, else the
one the run's model talks to (``anthropic``, ``google-gla``, ``bedrock``, …), else OpenAI's.

Needs ``pip install 'toolcheck-lint[pydantic-ai]'``.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

from . import GuardSettings, require

require("pydantic_ai", "pydantic-ai")

from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter  # noqa: E402
from pydantic_ai.tools import RunContext  # noqa: E402

__all__ = ["toolcheck_history_processor", "PROVIDERS"]

#: Pydantic AI's model provider names (``Model.system``) and the toolcheck provider whose
#: rules apply to them.
PROVIDERS: Dict[str, str] = {
    "openai": "openai",
    "azure": "openai",
    "anthropic": "anthropic",
    "google-gla": "gemini",
    "google-vertex": "gemini-vertex",
    "bedrock": "bedrock",
    "mistral": "mistral",
    "deepseek": "deepseek",
    "moonshotai": "moonshot",
}


def toolcheck_history_processor(
    provider: Optional[str] = None,
    mode: str = "raise",
    *,
    everything: bool = False,
    tools: Any = None,
    select: Any = None,
    ignore: Any = None,
    on_repair: Optional[Callable[..., None]] = None,
) -> Callable[[RunContext[Any], List[ModelMessage]], List[ModelMessage]]:
    """A history processor (``(ctx, messages) -> messages``) that checks the messages of each
    model request with :func:`toolcheck.guard`:

    - ``mode="raise"``: the run raises :class:`toolcheck.ToolHistoryError` listing what the
      provider would reject, before the request is sent.
    - ``mode="repair"``: the safe fixes are applied and the repaired messages are sent (and
      kept in the run's history); what no safe fix repairs still raises.
    - ``mode="warn"``: each finding is logged on the ``toolcheck`` logger; the messages are
      sent as they are.

    A history with nothing to act on is returned as the same list of the same objects.
    ``tools`` (tool definitions, e.g. OpenAI-style ``{"type": "function", "function": {…}}``)
    lets the guard check call arguments against their schemas. ``everything``, ``select``,
    ``ignore`` and ``on_repair`` are passed to :func:`toolcheck.guard`.
    """
    settings = GuardSettings(provider, mode, everything, tools, select, ignore, on_repair)

    def toolcheck_guard(ctx: RunContext[Any], messages: List[ModelMessage]) -> List[ModelMessage]:
        system = getattr(getattr(ctx, "model", None), "system", None)
        dumped = ModelMessagesTypeAdapter.dump_python(messages, mode="json")
        guarded = settings.guard(
            dumped, format="pydantic-ai", provider=PROVIDERS.get(system) if isinstance(system, str) else None
        )
        if guarded is dumped:
            return messages
        return ModelMessagesTypeAdapter.validate_python(guarded)

    return toolcheck_guard
