"""An OpenAI Agents SDK model-input filter that guards the input items of every model call::

    from agents import Agent, RunConfig, Runner
    from toolcheck.integrations.openai_agents import toolcheck_input_filter

    config = RunConfig(call_model_input_filter=toolcheck_input_filter(mode="repair"))
    result = await Runner.run(agent, history, run_config=config)

The filter reads ``ModelInputData.input`` (Responses input items, the SDK's history format)
with the agent's function tools' schemas, so call arguments are checked against them too. The
rules applied are ``provider``'s, by default ``openai-responses`` (the SDK's own API); name
another (``anthropic``, ``gemini``, …) when the agent's model goes elsewhere through LiteLLM or
a chat-completions model.

Needs ``pip install 'toolcheck-lint[openai-agents]'``.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

from . import GuardSettings, require

require("agents", "openai-agents")

from agents import FunctionTool  # noqa: E402
from agents.run_config import CallModelData, ModelInputData  # noqa: E402

__all__ = ["toolcheck_input_filter", "tool_definitions"]


def tool_definitions(agent: Any) -> List[Dict[str, Any]]:
    """The agent's function tools as Responses tool definitions (name and JSON schema), for
    the guard's argument checks."""
    out = []
    for tool in getattr(agent, "tools", None) or ():
        if isinstance(tool, FunctionTool):
            out.append({"type": "function", "name": tool.name, "parameters": tool.params_json_schema})
    return out


def toolcheck_input_filter(
    provider: Optional[str] = "openai-responses",
    mode: str = "raise",
    *,
    everything: bool = False,
    select: Any = None,
    ignore: Any = None,
    on_repair: Optional[Callable[..., None]] = None,
) -> Callable[[CallModelData[Any]], ModelInputData]:
    """A ``RunConfig(call_model_input_filter=…)`` that checks each model call's input items
    with :func:`toolcheck.guard`:

    - ``mode="raise"``: the run raises :class:`toolcheck.ToolHistoryError` listing what the
      provider would reject, before the model is called.
    - ``mode="repair"``: the safe fixes are applied and the model gets the repaired items;
      what no safe fix repairs still raises.
    - ``mode="warn"``: each finding is logged on the ``toolcheck`` logger; the model gets the
      items as they are.

    With nothing to act on, the SDK's own ``ModelInputData`` (the same item objects) is
    returned. ``everything``, ``select``, ``ignore`` and ``on_repair`` are passed to
    :func:`toolcheck.guard`.
    """
    settings = GuardSettings(provider, mode, everything, None, select, ignore, on_repair)

    def toolcheck_guard(data: CallModelData[Any]) -> ModelInputData:
        items = data.model_data.input
        if not items:
            return data.model_data
        guarded = settings.guard(items, format="openai-responses", tools=tool_definitions(data.agent) or None)
        if guarded is items:
            return data.model_data
        return ModelInputData(input=guarded, instructions=data.model_data.instructions)

    return toolcheck_guard
