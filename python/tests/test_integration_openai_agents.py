"""toolcheck.integrations.openai_agents against the real OpenAI Agents SDK: a ``Model`` that
records the input it is given answers every call, so nothing leaves the machine."""

from __future__ import annotations

import asyncio
import copy
import logging
from typing import Any, List

import pytest

from integration_support import SYSTEM, TRUNCATED_ARGS, need, no_network  # noqa: F401

need("agents")

from agents import Agent, RunConfig, Runner, function_tool, set_tracing_disabled  # noqa: E402
from agents.items import ModelResponse  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from agents.usage import Usage  # noqa: E402
from openai.types.responses import ResponseOutputMessage, ResponseOutputText  # noqa: E402

from toolcheck import ToolHistoryError  # noqa: E402
from toolcheck.integrations.openai_agents import tool_definitions, toolcheck_input_filter  # noqa: E402

pytestmark = pytest.mark.usefixtures("no_network")


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    set_tracing_disabled(True)


class Recorder(Model):
    """A model that records the input items of each call and answers "done"."""

    def __init__(self) -> None:
        self.inputs: List[Any] = []

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        self.inputs.append(input)
        text = ResponseOutputText(type="output_text", text="done", annotations=[])
        message = ResponseOutputMessage(id="msg_1", type="message", role="assistant", status="completed", content=[text])
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


@function_tool
def search(query: str) -> str:
    """Search the docs."""
    return "3 results"


def run(history: List[Any], **options: Any) -> Recorder:
    model = Recorder()
    agent = Agent(name="support", instructions=SYSTEM, model=model, tools=[search])
    config = RunConfig(call_model_input_filter=toolcheck_input_filter(**options), tracing_disabled=True)
    result = asyncio.run(Runner.run(agent, history, run_config=config))
    assert result.final_output == "done"
    return model


# A memory window evicted the call but kept its result.
ORPHAN_AT_HEAD = [
    {"type": "function_call_output", "call_id": "call_evicted", "output": "order A-1: shipped"},
    {"role": "user", "content": "And order A-2?"},
]


def calling(call_id: str, arguments: str, output: str) -> List[Any]:
    return [
        {"role": "user", "content": "Search the docs"},
        {"type": "function_call", "call_id": call_id, "name": "search", "arguments": arguments},
        {"type": "function_call_output", "call_id": call_id, "output": output},
        {"role": "user", "content": "Go on"},
    ]


TRUNCATED = calling("call_1", TRUNCATED_ARGS, "interrupted")
EMPTY_ARGS = calling("call_2", "{}", "Error: query is required")
CLEAN = calling("call_3", '{"query": "pricing"}', "3 results")


def test_repair_sends_the_repaired_items() -> None:
    before = copy.deepcopy(ORPHAN_AT_HEAD)
    model = run(ORPHAN_AT_HEAD, mode="repair")
    assert model.inputs == [[{"role": "user", "content": "And order A-2?"}]]
    assert ORPHAN_AT_HEAD == before


def test_raise_stops_the_run_with_the_finding() -> None:
    with pytest.raises(ToolHistoryError) as err:
        run(ORPHAN_AT_HEAD)
    assert [f.code for f in err.value.findings] == ["TC101"]
    assert err.value.provider == "openai-responses"


def test_truncated_arguments_depend_on_the_provider() -> None:
    # The Responses API takes arguments as an opaque string (a warning); Anthropic, reached
    # through LiteLLM or a chat model, rejects them, and no safe fix repairs them.
    run(TRUNCATED)
    with pytest.raises(ToolHistoryError) as err:
        run(TRUNCATED, everything=True)
    assert [f.code for f in err.value.findings] == ["TC201"]
    with pytest.raises(ToolHistoryError) as err:
        run(TRUNCATED, provider="anthropic", mode="repair")
    assert [f.code for f in err.value.findings] == ["TC201"]


def test_empty_arguments_are_checked_against_the_agent_tools(caplog: Any) -> None:
    assert tool_definitions(Agent(name="a", tools=[search])) == [
        {"type": "function", "name": "search", "parameters": search.params_json_schema}
    ]
    with pytest.raises(ToolHistoryError) as err:
        run(EMPTY_ARGS, everything=True)
    assert [f.code for f in err.value.findings] == ["TC202"]
    assert "requires \"query\"" in str(err.value)
    with caplog.at_level(logging.WARNING, logger="toolcheck"):
        model = run(EMPTY_ARGS, mode="warn", everything=True)
    assert "TC202" in caplog.text
    assert model.inputs[0] == EMPTY_ARGS


def test_a_clean_history_passes_unchanged() -> None:
    for mode in ("raise", "repair", "warn"):
        before = copy.deepcopy(CLEAN)
        guard = toolcheck_input_filter(mode=mode, provider="anthropic")
        given: List[Any] = []

        def spy(data: Any) -> Any:
            given.append(data.model_data.input)
            return guard(data)

        model = Recorder()
        agent = Agent(name="support", instructions=SYSTEM, model=model, tools=[search])
        asyncio.run(Runner.run(agent, CLEAN, run_config=RunConfig(call_model_input_filter=spy, tracing_disabled=True)))
        assert model.inputs[0] == before
        # The SDK copies the items before its filter; the guard hands on the ones it was given.
        assert all(a is b for a, b in zip(model.inputs[0], given[0])), "the same item objects reach the model"


def test_the_filter_returns_the_sdk_input_when_nothing_changes() -> None:
    from agents.run_config import CallModelData, ModelInputData

    data = CallModelData(model_data=ModelInputData(input=list(CLEAN), instructions=SYSTEM), agent=Agent(name="a"), context=None)
    assert toolcheck_input_filter()(data) is data.model_data
    empty = CallModelData(model_data=ModelInputData(input=[], instructions=None), agent=Agent(name="a"), context=None)
    assert toolcheck_input_filter()(empty) is empty.model_data


def test_bad_mode() -> None:
    with pytest.raises(ValueError, match="guard mode"):
        toolcheck_input_filter(mode="fix")

