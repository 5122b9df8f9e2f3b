"""toolcheck.integrations.langgraph against the real LangGraph: ``create_react_agent`` with a
chat model that records the messages it is called with, so nothing leaves the machine."""

from __future__ import annotations

import copy
import logging
from typing import Any, List

import pytest

from integration_support import SYSTEM, TRUNCATED_ARGS, need, no_network  # noqa: F401

need("langgraph.prebuilt")

from langchain_core.language_models.chat_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatResult  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langchain_core.utils.function_calling import convert_to_openai_tool  # noqa: E402
from langgraph.prebuilt import create_react_agent  # noqa: E402

from toolcheck import ToolHistoryError  # noqa: E402
from toolcheck.integrations.langgraph import guard_messages, toolcheck_pre_model_hook  # noqa: E402

pytestmark = [
    pytest.mark.usefixtures("no_network"),
    # `create_react_agent` is the pinned LangGraph's prebuilt agent (deprecated for LangChain v1's).
    pytest.mark.filterwarnings("ignore:create_react_agent has been moved"),
]


class Recorder(BaseChatModel):
    """A chat model that records the messages of each call and answers "done"."""

    seen: List[List[BaseMessage]] = []

    def _generate(self, messages: List[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.seen.append(messages)
        return ChatResult(generations=[ChatGeneration(message=AIMessage("done"))])

    def bind_tools(self, tools: Any, **kwargs: Any) -> "Recorder":
        return self

    @property
    def _llm_type(self) -> str:
        return "recorder"


@tool
def search(query: str) -> str:
    """Search the docs."""
    return "3 results"


def run(history: List[BaseMessage], **options: Any) -> "tuple[Recorder, Any]":
    model = Recorder(seen=[])
    agent = create_react_agent(model, [search], pre_model_hook=toolcheck_pre_model_hook(**options))
    return model, agent.invoke({"messages": history})


# A memory window evicted the call but kept its result.
ORPHAN_AT_HEAD = [
    SystemMessage(SYSTEM),
    ToolMessage("order A-1: shipped", tool_call_id="call_evicted"),
    HumanMessage("And order A-2?"),
]
# An interrupted stream: LangChain keeps arguments it could not parse as an invalid tool call.
TRUNCATED = [
    HumanMessage("Search the docs"),
    AIMessage(
        "",
        invalid_tool_calls=[
            {"type": "invalid_tool_call", "name": "search", "args": TRUNCATED_ARGS, "id": "call_1", "error": None}
        ],
    ),
    ToolMessage("interrupted", tool_call_id="call_1"),
    HumanMessage("Go on"),
]
EMPTY_ARGS = [
    HumanMessage("Search the docs"),
    AIMessage("", tool_calls=[{"name": "search", "args": {}, "id": "call_2"}]),
    ToolMessage("Error: query is required", tool_call_id="call_2"),
    HumanMessage("Go on"),
]
CLEAN = [
    SystemMessage(SYSTEM),
    HumanMessage("Search the docs"),
    AIMessage("", tool_calls=[{"name": "search", "args": {"query": "pricing"}, "id": "call_3"}]),
    ToolMessage("3 results", tool_call_id="call_3"),
    HumanMessage("Go on"),
]


def test_repair_calls_the_model_with_the_repaired_messages() -> None:
    model, out = run(ORPHAN_AT_HEAD, provider="anthropic", mode="repair")
    sent = model.seen[0]
    assert [type(m).__name__ for m in sent] == ["SystemMessage", "HumanMessage"]
    assert [m.content for m in sent] == [SYSTEM, "And order A-2?"]
    # The state keeps the history as it was; only the model's input is repaired.
    assert [type(m).__name__ for m in out["messages"]] == ["SystemMessage", "ToolMessage", "HumanMessage", "AIMessage"]


def test_persist_writes_the_repaired_history_back() -> None:
    model, out = run(ORPHAN_AT_HEAD, provider="anthropic", mode="repair", persist=True)
    assert [type(m).__name__ for m in out["messages"]] == ["SystemMessage", "HumanMessage", "AIMessage"]
    assert [m.id for m in out["messages"][:2]] == [m.id for m in model.seen[0]]


def test_raise_stops_the_graph_with_the_finding() -> None:
    with pytest.raises(ToolHistoryError) as err:
        run(ORPHAN_AT_HEAD, provider="anthropic")
    assert [f.code for f in err.value.findings] == ["TC101"]
    assert "/1" in str(err.value)


def test_truncated_arguments_have_no_safe_repair() -> None:
    with pytest.raises(ToolHistoryError) as err:
        run(TRUNCATED, provider="anthropic", mode="repair")
    assert [f.code for f in err.value.findings] == ["TC201"]


def test_empty_arguments_are_checked_against_the_tool_schemas(caplog: Any) -> None:
    tools = [convert_to_openai_tool(search)]
    with pytest.raises(ToolHistoryError) as err:
        run(EMPTY_ARGS, provider="openai", everything=True, tools=tools)
    assert [f.code for f in err.value.findings] == ["TC202"]
    with caplog.at_level(logging.WARNING, logger="toolcheck"):
        model, _ = run(EMPTY_ARGS, provider="openai", mode="warn", everything=True, tools=tools)
    assert "TC202" in caplog.text
    assert all(a is b for a, b in zip(model.seen[0], EMPTY_ARGS))


def test_a_clean_history_passes_unchanged() -> None:
    for mode in ("raise", "repair", "warn"):
        before = copy.deepcopy(CLEAN)
        model, _ = run(CLEAN, provider="anthropic", mode=mode)
        sent = model.seen[0]
        # LangGraph gives each message an id as it enters the state (in place); nothing else changes.
        assert [m.model_dump(exclude={"id"}) for m in sent] == [m.model_dump(exclude={"id"}) for m in before]
        assert all(a is b for a, b in zip(sent, CLEAN)), "the same message objects reach the model"


def test_guard_messages() -> None:
    assert guard_messages(CLEAN, "anthropic") is CLEAN
    assert guard_messages([], "anthropic") == []
    repaired = guard_messages(ORPHAN_AT_HEAD, "anthropic", "repair")
    assert [m.content for m in repaired] == [SYSTEM, "And order A-2?"]


def test_bad_mode() -> None:
    with pytest.raises(ValueError, match="guard mode"):
        toolcheck_pre_model_hook(mode="fix")
