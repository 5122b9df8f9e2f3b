"""toolcheck.integrations.pydantic_ai against the real Pydantic AI: an agent whose
``FunctionModel`` records the messages of each request, so nothing leaves the machine."""

from __future__ import annotations

import asyncio
import copy
import logging
from typing import Any, List

import pytest

from integration_support import SEARCH_PARAMETERS, SYSTEM, TRUNCATED_ARGS, need, no_network  # noqa: F401

need("pydantic_ai")

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.capabilities import ProcessHistory  # noqa: E402
from pydantic_ai.messages import (  # noqa: E402
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402

from toolcheck import ToolHistoryError  # noqa: E402
from toolcheck.integrations.pydantic_ai import toolcheck_history_processor  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_network")


class Recorder:
    """The function behind a ``FunctionModel``: records each request's messages, answers "done"."""

    def __init__(self) -> None:
        self.seen: List[List[ModelMessage]] = []

    def __call__(self, messages: List[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.seen.append(messages)
        return ModelResponse(parts=[TextPart("done")])


def keep_last_three(messages: List[ModelMessage]) -> List[ModelMessage]:
    """A memory window, as users write them: it may cut a call and keep its return."""
    return messages[-3:]


def run(history: List[ModelMessage], prompt: str = "Go on", window: bool = False, **options: Any) -> Recorder:
    recorder = Recorder()
    processors = [ProcessHistory(toolcheck_history_processor(**options))]
    if window:
        processors.insert(0, ProcessHistory(keep_last_three))
    agent = Agent(FunctionModel(recorder), capabilities=processors)
    result = asyncio.run(agent.run(prompt, message_history=history))
    assert result.output == "done"
    return recorder


def parts(messages: List[ModelMessage]) -> List[List[str]]:
    return [[p.part_kind for p in m.parts] for m in messages]


# The memory window keeps the last three messages: the call is evicted, its return kept.
ORPHAN_AT_HEAD: List[ModelMessage] = [
    ModelRequest(parts=[UserPromptPart("Where is order A-1?")]),
    ModelResponse(parts=[ToolCallPart(tool_name="search", args={"query": "A-1"}, tool_call_id="call_evicted")]),
    ModelRequest(parts=[ToolReturnPart(tool_name="search", content="order A-1: shipped", tool_call_id="call_evicted")]),
    ModelResponse(parts=[TextPart("Order A-1 has shipped.")]),
]


def calling(call_id: str, args: Any, content: str) -> List[ModelMessage]:
    return [
        ModelRequest(parts=[SystemPromptPart(SYSTEM), UserPromptPart("Search the docs")]),
        ModelResponse(parts=[ToolCallPart(tool_name="search", args=args, tool_call_id=call_id)]),
        ModelRequest(parts=[ToolReturnPart(tool_name="search", content=content, tool_call_id=call_id)]),
        ModelResponse(parts=[TextPart("Searched.")]),
    ]


TRUNCATED = calling("call_1", TRUNCATED_ARGS, "interrupted")
EMPTY_ARGS = calling("call_2", {}, "Error: query is required")
CLEAN = calling("call_3", {"query": "pricing"}, "3 results")
SEARCH = {"type": "function", "function": {"name": "search", "parameters": SEARCH_PARAMETERS}}


def test_repair_sends_the_repaired_messages() -> None:
    before = copy.deepcopy(ORPHAN_AT_HEAD)
    seen: List[Any] = []
    recorder = run(
        ORPHAN_AT_HEAD, "And order A-2?", True, provider="anthropic", mode="repair", on_repair=lambda r, f: seen.extend(f)
    )
    assert [f.code for f in seen] == ["TC101"]
    sent = recorder.seen[0]
    assert parts(sent) == [["text"], ["user-prompt"]]
    assert sent[0].parts[0].content == "Order A-1 has shipped."
    assert ORPHAN_AT_HEAD == before


def test_raise_stops_the_run_with_the_finding() -> None:
    recorder = Recorder()
    with pytest.raises(ToolHistoryError) as err:
        processors = [ProcessHistory(keep_last_three), ProcessHistory(toolcheck_history_processor(provider="anthropic"))]
        asyncio.run(Agent(FunctionModel(recorder), capabilities=processors).run("And A-2?", message_history=ORPHAN_AT_HEAD))
    assert [f.code for f in err.value.findings] == ["TC101"]
    assert recorder.seen == []


class AnthropicFunctionModel(FunctionModel):
    """A scripted model that says it talks to Anthropic, as ``AnthropicModel`` does."""

    @property
    def system(self) -> str:
        return "anthropic"


def test_the_provider_comes_from_the_model() -> None:
    processor = ProcessHistory(toolcheck_history_processor())
    for model, provider in ((FunctionModel(Recorder()), None), (AnthropicFunctionModel(Recorder()), "anthropic")):
        with pytest.raises(ToolHistoryError) as err:
            asyncio.run(Agent(model, capabilities=[processor]).run("Go on", message_history=TRUNCATED))
        assert err.value.provider == provider
        assert [f.code for f in err.value.findings] == ["TC201"]


def test_truncated_arguments_have_no_safe_repair() -> None:
    with pytest.raises(ToolHistoryError) as err:
        run(TRUNCATED, provider="anthropic", mode="repair")
    assert [f.code for f in err.value.findings] == ["TC201"]


def test_empty_arguments_are_checked_against_tool_schemas(caplog: Any) -> None:
    with pytest.raises(ToolHistoryError) as err:
        run(EMPTY_ARGS, provider="openai", everything=True, tools=[SEARCH])
    assert [f.code for f in err.value.findings] == ["TC202"]
    with caplog.at_level(logging.WARNING, logger="toolcheck"):
        recorder = run(EMPTY_ARGS, provider="openai", mode="warn", everything=True, tools=[SEARCH])
    assert "TC202" in caplog.text
    assert recorder.seen[0][:4] == EMPTY_ARGS


def test_a_clean_history_passes_unchanged() -> None:
    for mode in ("raise", "repair", "warn"):
        before = copy.deepcopy(CLEAN)
        recorder = run(CLEAN, provider="anthropic", mode=mode)
        sent = recorder.seen[0]
        assert sent[:4] == before
        assert all(a is b for a, b in zip(sent, CLEAN)), "the same message objects reach the model"


def test_the_processor_returns_its_own_list_when_nothing_changes() -> None:
    processor = toolcheck_history_processor(provider="anthropic")
    messages = list(CLEAN)
    assert processor(None, messages) is messages  # type: ignore[arg-type]


def test_a_clean_history_is_read_in_one_pass(monkeypatch: Any) -> None:
    # A clean history is linted from Pydantic's JSON bytes: never dumped to Python values
    # (issue 42); one with findings still is, and is reported as before.
    from toolcheck.integrations import pydantic_ai as integration

    dumps: List[int] = []
    original = integration.ModelMessagesTypeAdapter.dump_python

    class Counting:
        def __getattr__(self, name: str) -> Any:
            return getattr(original.__self__, name)

        def dump_python(self, *args: Any, **kwargs: Any) -> Any:
            dumps.append(1)
            return original(*args, **kwargs)

    monkeypatch.setattr(integration, "ModelMessagesTypeAdapter", Counting())
    processor = toolcheck_history_processor(provider="anthropic")
    messages = list(CLEAN)
    assert processor(None, messages) is messages  # type: ignore[arg-type]
    assert dumps == []
    with pytest.raises(ToolHistoryError):
        toolcheck_history_processor(provider="openai", everything=True, tools=[SEARCH])(None, EMPTY_ARGS)  # type: ignore[arg-type]
    assert dumps == [1]


def test_pydantic_ai_drops_an_orphaned_return_at_the_head_of_its_own_history() -> None:
    # Pydantic AI removes orphaned returns itself before the processors run, and again after
    # them: a window cut is the case the guard sees; this pins that behaviour of the version.
    recorder = Recorder()
    agent = Agent(FunctionModel(recorder), capabilities=[ProcessHistory(keep_last_three)])
    asyncio.run(agent.run("And A-2?", message_history=ORPHAN_AT_HEAD))
    assert parts(recorder.seen[0]) == [["text"], ["user-prompt"]]


def test_bad_mode() -> None:
    with pytest.raises(ValueError, match="guard mode"):
        toolcheck_history_processor(mode="fix")
