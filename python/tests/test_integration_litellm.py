"""toolcheck.integrations.litellm against the real LiteLLM: a custom provider records the
request LiteLLM hands it, so nothing leaves the machine."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import os
from typing import Any, Dict, List

import pytest

# LiteLLM fetches its model price map at import unless told to use the copy it ships.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from integration_support import SEARCH_PARAMETERS, SYSTEM, TRUNCATED_ARGS, need, no_network  # noqa: E402, F401

litellm = need("litellm")

from litellm import CustomLLM  # noqa: E402
from litellm.caching.dual_cache import DualCache  # noqa: E402
from litellm.proxy._types import UserAPIKeyAuth  # noqa: E402

import toolcheck.integrations.litellm as integration  # noqa: E402
from toolcheck import ToolHistoryError  # noqa: E402
from toolcheck.integrations.litellm import ToolcheckGuard  # noqa: E402

pytestmark = [
    pytest.mark.usefixtures("no_network"),
    # LiteLLM's own types, built lazily by pydantic on the first call.
    pytest.mark.filterwarnings("ignore:Items? .* (is|are) using the `ReadOnly` qualifier:UserWarning"),
]

SEARCH = {"type": "function", "function": {"name": "search", "description": "Search the docs", "parameters": SEARCH_PARAMETERS}}

# A memory window evicted the call but kept its result.
ORPHAN_AT_HEAD = [
    {"role": "system", "content": SYSTEM},
    {"role": "tool", "tool_call_id": "call_evicted", "content": "order A-1: shipped"},
    {"role": "user", "content": "And order A-2?"},
]


def calling(call_id: str, arguments: str, result: str) -> List[Dict[str, Any]]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Search the docs"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "search", "arguments": arguments}}],
        },
        {"role": "tool", "tool_call_id": call_id, "content": result},
        {"role": "user", "content": "Go on"},
    ]


TRUNCATED = calling("call_1", TRUNCATED_ARGS, "interrupted")
EMPTY_ARGS = calling("call_2", "{}", "Error: query is required")
CLEAN = calling("call_3", '{"query": "pricing"}', "3 results")


class Recorder(CustomLLM):
    """A LiteLLM provider that records the messages and parameters it is sent."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: List[Dict[str, Any]] = []

    def _answer(self, messages: list, optional_params: dict) -> Any:
        self.calls.append({"messages": messages, "params": optional_params})
        return litellm.ModelResponse(choices=[{"message": {"role": "assistant", "content": "done"}}], model="recorder")

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        return self._answer(messages, kwargs.get("optional_params") or {})

    async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        return self._answer(messages, kwargs.get("optional_params") or {})


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    model = Recorder()
    monkeypatch.setattr(litellm, "custom_provider_map", [{"provider": "recorder", "custom_handler": model}])
    monkeypatch.setattr(litellm, "callbacks", [])
    litellm.utils.custom_llm_setup()
    return model


def acompletion(**kwargs: Any) -> Any:
    return asyncio.run(litellm.acompletion(model="recorder/m", **kwargs))


def unguarded(recorder: Recorder, **kwargs: Any) -> List[Dict[str, Any]]:
    """What LiteLLM sends without a guard (it drops ``"content": None`` itself)."""
    callbacks = litellm.callbacks
    litellm.callbacks = []
    try:
        acompletion(**kwargs)
    finally:
        litellm.callbacks = callbacks
    return recorder.calls.pop()["messages"]


def test_repair_sends_the_repaired_history(recorder: Recorder) -> None:
    before = copy.deepcopy(ORPHAN_AT_HEAD)
    litellm.callbacks = [ToolcheckGuard(provider="anthropic", mode="repair")]
    answer = acompletion(messages=ORPHAN_AT_HEAD)
    assert answer.choices[0].message.content == "done"
    assert recorder.calls[0]["messages"] == [ORPHAN_AT_HEAD[0], ORPHAN_AT_HEAD[2]]
    assert ORPHAN_AT_HEAD == before, "the caller's list is not modified"


def test_raise_stops_the_call_with_the_finding(recorder: Recorder) -> None:
    litellm.callbacks = [ToolcheckGuard(provider="anthropic")]
    with pytest.raises(ToolHistoryError) as err:
        acompletion(messages=ORPHAN_AT_HEAD)
    assert [f.code for f in err.value.findings] == ["TC101"]
    assert "/messages/1" in str(err.value)
    assert recorder.calls == []


def test_truncated_arguments_have_no_safe_repair(recorder: Recorder) -> None:
    litellm.callbacks = [ToolcheckGuard(provider="anthropic", mode="repair")]
    with pytest.raises(ToolHistoryError) as err:
        acompletion(messages=TRUNCATED)
    assert [f.code for f in err.value.findings] == ["TC201"]
    assert recorder.calls == []


def test_empty_arguments_are_a_warning_checked_against_the_request_tools(recorder: Recorder, caplog: Any) -> None:
    as_sent = unguarded(recorder, messages=EMPTY_ARGS, tools=[SEARCH])
    litellm.callbacks = [ToolcheckGuard(provider="openai")]
    acompletion(messages=EMPTY_ARGS, tools=[SEARCH])
    assert recorder.calls[-1]["messages"] == as_sent
    litellm.callbacks = [ToolcheckGuard(provider="openai", everything=True)]
    with pytest.raises(ToolHistoryError) as err:
        acompletion(messages=EMPTY_ARGS, tools=[SEARCH])
    assert "TC202" in [f.code for f in err.value.findings]
    litellm.callbacks = [ToolcheckGuard(provider="openai", mode="warn", everything=True)]
    with caplog.at_level(logging.WARNING, logger="toolcheck"):
        acompletion(messages=EMPTY_ARGS, tools=[SEARCH])
    assert "TC202" in caplog.text
    assert recorder.calls[-1]["messages"] == as_sent


def test_a_double_encoded_schema_is_decoded_before_sending(recorder: Recorder) -> None:
    encoded = {"type": "function", "function": {**SEARCH["function"], "parameters": json.dumps(SEARCH_PARAMETERS)}}
    as_sent = unguarded(recorder, messages=CLEAN, tools=[SEARCH])
    litellm.callbacks = [ToolcheckGuard(provider="openai")]
    with pytest.raises(ToolHistoryError):
        acompletion(messages=CLEAN, tools=[encoded])
    litellm.callbacks = [ToolcheckGuard(provider="openai", mode="repair")]
    acompletion(messages=CLEAN, tools=[encoded])
    assert recorder.calls[-1]["params"]["tools"][0]["function"]["parameters"] == SEARCH_PARAMETERS
    assert recorder.calls[-1]["messages"] == as_sent


def test_a_clean_history_passes_unchanged(recorder: Recorder) -> None:
    as_sent = unguarded(recorder, messages=CLEAN, tools=[SEARCH])
    before = copy.deepcopy(CLEAN)
    for mode in ("raise", "repair", "warn"):
        guard = ToolcheckGuard(provider="anthropic", mode=mode)
        request = {"model": "recorder/m", "messages": CLEAN, "tools": [SEARCH]}
        assert asyncio.run(guard.async_pre_call_deployment_hook(request, None)) is None, "LiteLLM keeps its request"
        litellm.callbacks = [guard]
        acompletion(messages=CLEAN, tools=[SEARCH])
        assert recorder.calls[-1]["messages"] == as_sent
        assert CLEAN == before


def test_the_synchronous_path(recorder: Recorder) -> None:
    guard = ToolcheckGuard(provider="anthropic", mode="repair")
    guard.completion(model="recorder/m", messages=ORPHAN_AT_HEAD)
    assert recorder.calls[-1]["messages"] == [ORPHAN_AT_HEAD[0], ORPHAN_AT_HEAD[2]]
    with pytest.raises(ToolHistoryError):
        ToolcheckGuard(provider="anthropic").completion(model="recorder/m", messages=ORPHAN_AT_HEAD)
    request = {"model": "recorder/m", "messages": CLEAN}
    assert guard.guard_request(request) is request


def test_mock_response_with_the_provider_taken_from_the_model(recorder: Recorder) -> None:
    # `anthropic/…` is judged by Anthropic's rules; LiteLLM's mock answers without a request.
    litellm.callbacks = [ToolcheckGuard()]
    with pytest.raises(ToolHistoryError) as err:
        asyncio.run(litellm.acompletion(model="anthropic/claude-sonnet-4-5", messages=ORPHAN_AT_HEAD, mock_response="ok"))
    assert err.value.provider == "anthropic"
    answer = asyncio.run(litellm.acompletion(model="anthropic/claude-sonnet-4-5", messages=CLEAN, mock_response="ok"))
    assert answer.choices[0].message.content == "ok"


def test_provider_for_follows_litellm_routing() -> None:
    guard = ToolcheckGuard()
    assert guard.provider_for({"model": "anthropic/claude-sonnet-4-5"}) == "anthropic"
    assert guard.provider_for({"model": "bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0"}) == "bedrock"
    assert guard.provider_for({"model": "gemini/gemini-2.5-pro"}) == "gemini"
    assert guard.provider_for({"model": "gpt-4o"}) == "openai"
    assert guard.provider_for({"model": "no-such-provider/x"}) is None
    assert ToolcheckGuard(provider="mistral").provider_for({"model": "gpt-4o"}) == "mistral"


def test_the_proxy_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    data = {"model": "claude", "messages": ORPHAN_AT_HEAD, "metadata": {"user": "u1"}}

    def hook(guard: ToolcheckGuard, data: Dict[str, Any]) -> Any:
        return asyncio.run(
            guard.async_pre_call_hook(user_api_key_dict=UserAPIKeyAuth(), cache=DualCache(), data=data, call_type="acompletion")
        )

    repaired = hook(ToolcheckGuard(provider="anthropic", mode="repair"), data)
    assert repaired["messages"] == [ORPHAN_AT_HEAD[0], ORPHAN_AT_HEAD[2]]
    assert repaired["metadata"] == {"user": "u1"}
    with pytest.raises(ToolHistoryError) as err:
        hook(ToolcheckGuard(provider="anthropic"), data)
    assert err.value.status_code == 400  # type: ignore[attr-defined]
    clean = {"model": "claude", "messages": CLEAN}
    assert hook(ToolcheckGuard(provider="anthropic"), clean) is clean

    monkeypatch.setenv("TOOLCHECK_GUARD_MODE", "repair")
    monkeypatch.setenv("TOOLCHECK_GUARD_PROVIDER", "anthropic")
    configured = integration._from_env()
    assert (configured.mode, configured.provider) == ("repair", "anthropic")
    # How the proxy resolves `callbacks: toolcheck.integrations.litellm.proxy_handler_instance`.
    from litellm.proxy.types_utils.utils import get_instance_fn

    named = "toolcheck.integrations.litellm.proxy_handler_instance"
    assert get_instance_fn(named, config_file_path="/nonexistent/config.yaml") is integration.proxy_handler_instance


def test_responses_input_items(recorder: Recorder) -> None:
    items = [
        {"type": "function_call_output", "call_id": "call_evicted", "output": "order A-1: shipped"},
        {"role": "user", "content": "And order A-2?"},
    ]
    seen: List[Any] = []
    litellm.callbacks = [ToolcheckGuard(mode="repair", on_repair=lambda result, found: seen.append(result.value["input"]))]
    asyncio.run(litellm.aresponses(model="openai/gpt-4o", input=items, mock_response="ok"))
    assert seen == [[items[1]]]
    litellm.callbacks = [ToolcheckGuard()]
    with pytest.raises(ToolHistoryError) as err:
        asyncio.run(litellm.aresponses(model="openai/gpt-4o", input=items, mock_response="ok"))
    assert err.value.provider == "openai-responses"
    assert "/input/0" in str(err.value)


def test_bad_mode() -> None:
    with pytest.raises(ValueError, match="guard mode"):
        ToolcheckGuard(mode="fix")
