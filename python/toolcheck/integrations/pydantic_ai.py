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


# What toolcheck's `pydantic-ai` reader reads of a part besides its `part_kind`
# (crates/core/src/formats/pydantic_ai.rs); a part has those its class has.
_READ = ("tool_name", "args", "tool_call_id", "content", "outcome")
_MISSING = object()


def _read(messages: List[ModelMessage]) -> Optional[List[Dict[str, Any]]]:
    """The history as ``dump_json`` writes it, reduced to what toolcheck reads: each message's
    ``kind`` and each part's ``part_kind`` and :data:`_READ` fields, in the same places. ``None``
    when a message is not a request or response: the caller dumps such a history whole (as it
    does one whose values are not plain JSON: bytes, a file, a date, NaN)."""
    out = []
    for message in messages:
        kind = getattr(message, "kind", None)
        parts = getattr(message, "parts", None)
        if kind not in ("request", "response") or not isinstance(parts, (list, tuple)):
            return None
        read = []
        for part in parts:
            part_kind = getattr(part, "part_kind", None)
            if not isinstance(part_kind, str):
                return None
            fields = {"part_kind": part_kind}
            for name in _READ:
                value = getattr(part, name, _MISSING)
                if value is not _MISSING:
                    fields[name] = value
            read.append(fields)
        out.append({"kind": kind, "parts": read})
    return out


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
        provider = PROVIDERS.get(system) if isinstance(system, str) else None
        # The usual case, a clean history, without Pydantic's serialiser (most of the cost):
        # what toolcheck reads of each part, read off the objects. Only a history with
        # findings (or values that are not plain JSON) is dumped, and reported or repaired as
        # before. Warnings (`everything`) may come from what the reading leaves out.
        if not settings.everything:
            read = _read(messages)
            if read is not None and settings.clean_off_the_objects(read, format="pydantic-ai", provider=provider):
                return messages
        dumped = ModelMessagesTypeAdapter.dump_python(messages, mode="json")
        guarded = settings.guard(dumped, format="pydantic-ai", provider=provider)
        if guarded is dumped:
            return messages
        return ModelMessagesTypeAdapter.validate_python(guarded)

    return toolcheck_guard
