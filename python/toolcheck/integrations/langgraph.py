"""A LangGraph pre-model hook that guards the messages of every model call of a
``create_react_agent`` agent::

    from langgraph.prebuilt import create_react_agent
    from toolcheck.integrations.langgraph import toolcheck_pre_model_hook

    agent = create_react_agent(model, tools,
                               pre_model_hook=toolcheck_pre_model_hook(provider="anthropic", mode="repair"))

The hook returns ``{"llm_input_messages": …}``: the model is called with the guarded messages
and the graph's ``messages`` state is left as it is (``persist=True`` also writes a repaired
history back to the state). To trim or summarise as well, call :func:`guard_messages` on your
own hook's result. :func:`guard_messages` also suits any other place that holds a list of
LangChain messages (a custom graph node, LangChain v1 agent middleware's ``before_model``).

Needs ``pip install 'toolcheck-lint[langgraph]'``.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

from . import GuardSettings, require

require("langgraph.prebuilt", "langgraph")

from langchain_core.messages import BaseMessage, RemoveMessage  # noqa: E402
from langgraph.graph.message import REMOVE_ALL_MESSAGES  # noqa: E402

from ..guard import guard  # noqa: E402

__all__ = ["toolcheck_pre_model_hook", "guard_messages"]


def guard_messages(
    messages: Sequence[BaseMessage],
    provider: Optional[str] = None,
    mode: str = "raise",
    **options: Any,
) -> List[BaseMessage]:
    """LangChain messages checked with :func:`toolcheck.guard` (``options``: ``everything``,
    ``tools``, ``select``, ``ignore``, ``on_repair``): the same list when there is nothing to
    act on, else the repaired messages as new LangChain messages."""
    history = list(messages) if not isinstance(messages, list) else messages
    if not history:
        return history
    return guard(history, provider=provider, mode=mode, format="langchain", **options)


def toolcheck_pre_model_hook(
    provider: Optional[str] = None,
    mode: str = "raise",
    *,
    persist: bool = False,
    everything: bool = False,
    tools: Any = None,
    select: Any = None,
    ignore: Any = None,
    on_repair: Optional[Callable[..., None]] = None,
) -> Callable[[Any], Dict[str, Any]]:
    """A ``pre_model_hook`` for ``create_react_agent`` that checks the messages of each model
    call with :func:`toolcheck.guard` against ``provider``'s rules:

    - ``mode="raise"``: the graph raises :class:`toolcheck.ToolHistoryError` listing what the
      provider would reject, before the model is called.
    - ``mode="repair"``: the safe fixes are applied and the model is called with the repaired
      messages; with ``persist=True`` they also replace the graph's ``messages`` state. What no
      safe fix repairs still raises.
    - ``mode="warn"``: each finding is logged on the ``toolcheck`` logger; the model gets the
      messages as they are.

    A history with nothing to act on reaches the model as the same message objects.
    ``tools`` (tool definitions, e.g. ``[convert_to_openai_tool(t) for t in tools]``) lets the
    guard check call arguments against their schemas.
    """
    settings = GuardSettings(provider, mode, everything, tools, select, ignore, on_repair)

    def toolcheck_guard(state: Any) -> Dict[str, Any]:
        messages = state.get("messages") if isinstance(state, dict) else getattr(state, "messages", None)
        if messages is None:
            raise ValueError(f"the pre-model hook expected a `messages` key in the state, got {state!r}")
        history = messages if isinstance(messages, list) else list(messages)
        guarded = settings.guard(history, format="langchain") if history else history
        if persist and guarded is not history:
            return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *guarded], "llm_input_messages": guarded}
        return {"llm_input_messages": guarded}

    return toolcheck_guard
