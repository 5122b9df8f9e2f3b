"""Benchmark: what `toolcheck.guard` costs per call on histories of 20, 200 and 2,000
messages with tool calls and a tool schema, beside the cost of serialising the same request
with `json.dumps` (what any HTTP client spends building the body), in one run.

A second table sets each guard integration beside the request building of its framework,
for the frameworks that are installed (`pip install -r python/requirements-integrations.txt`):
LangChain's `convert_to_openai_messages` beside the LangGraph hook's guard of the same message
objects, LiteLLM's OpenAI-to-Anthropic request transformation beside its callback's guard,
Pydantic AI's `ModelMessagesTypeAdapter` dump beside its history processor.

`--targets` prints instead issue 42's two ratios on the clean 20-message history: the guard
beside LiteLLM's own `sanitize_messages_for_tool_calling` (with `litellm.modify_params` on;
off, it returns at once; target ≤ 0.5×), and the Pydantic AI history processor beside
Pydantic AI's own `repair_messages` (target ≤ 2×), then a JSON line of them that the
project's benchmark (benches/corpus.rs) reads (`null` for a framework not installed).

    python python/bench_guard.py [--repeat 200] [--targets]

Install the package first (`pip install .`, a release build). CPU time per call, best of 5
rounds, one thread; nothing is read or written.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator, List, Tuple

# The installed package, not the source folder beside this script (it has no extension).
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import toolcheck  # noqa: E402

SEARCH = {
    "type": "function",
    "function": {
        "name": "search_docs",
        "description": "Search the product documentation",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
            "required": ["query"],
        },
    },
}


def history(n: int) -> dict:
    """A clean request of `n` messages: rounds of user, assistant call, tool result, answer."""
    messages = [{"role": "system", "content": "You are a support agent. Answer from the docs."}]
    i = 0
    while len(messages) < n:
        messages.append({"role": "user", "content": f"How do I configure feature {i}?"})
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{i}",
                        "type": "function",
                        "function": {"name": "search_docs", "arguments": json.dumps({"query": f"feature {i}", "limit": 3})},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": f"Feature {i} is set in settings.toml. " * 4})
        messages.append({"role": "assistant", "content": f"Set feature {i} in settings.toml."})
        i += 1
    return {"model": "gpt-4o", "tools": [SEARCH], "messages": messages[:n]}


def per_call(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(5):
        t = time.process_time()
        for _ in range(repeat):
            fn()
        best = min(best, (time.process_time() - t) / repeat)
    return best * 1e6


# One framework's pair: (framework, what it does, its own step, what the guard does, the guard's step).
Pair = Tuple[str, str, Callable[[], Any], str, Callable[[], Any]]


def langchain_pairs(request: dict) -> Iterator[Pair]:
    """LangChain message objects: LangChain's own conversion to OpenAI messages, and the
    LangGraph pre-model hook's guard of the same objects (a clean history: nothing changes)."""
    from langchain_core.messages import convert_to_messages, convert_to_openai_messages

    from toolcheck.integrations.langgraph import toolcheck_pre_model_hook

    messages = convert_to_messages(request["messages"])
    hook = toolcheck_pre_model_hook(provider="anthropic")
    state = {"messages": messages}
    assert hook(state)["llm_input_messages"] is messages
    own = lambda: convert_to_openai_messages(messages)  # noqa: E731
    yield ("LangChain", "convert_to_openai_messages", own, "pre-model hook", lambda: hook(state))


def litellm_pairs(request: dict) -> Iterator[Pair]:
    """LiteLLM: its transformation of the OpenAI-style request into Anthropic's, and its
    callback's guard of the request against Anthropic's rules."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from litellm.llms.anthropic.chat.transformation import AnthropicConfig

    from toolcheck.integrations.litellm import ToolcheckGuard

    config = AnthropicConfig()
    kwargs = {"model": "anthropic/claude-sonnet-4-5", "messages": request["messages"], "tools": request["tools"]}
    guard = ToolcheckGuard(provider="anthropic")
    assert asyncio.run(guard.async_pre_call_deployment_hook(kwargs, None)) is None

    def transform() -> Any:
        params = {"tools": request["tools"], "max_tokens": 1024}
        return config.transform_request("claude-sonnet-4-5", list(request["messages"]), params, {}, {})

    yield ("LiteLLM", "AnthropicConfig.transform_request", transform, "callback", lambda: guard.guard_request(kwargs))


def pydantic_messages(request: dict) -> List[Any]:
    """The request's messages as Pydantic AI messages."""
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        SystemPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    messages: List[Any] = []
    for m in request["messages"]:
        if m["role"] == "system":
            messages.append(ModelRequest(parts=[SystemPromptPart(m["content"])]))
        elif m["role"] == "user":
            messages.append(ModelRequest(parts=[UserPromptPart(m["content"])]))
        elif m["role"] == "tool":
            messages.append(ModelRequest(parts=[ToolReturnPart("search_docs", m["content"], tool_call_id=m["tool_call_id"])]))
        elif m.get("tool_calls"):
            call = m["tool_calls"][0]
            messages.append(ModelResponse(parts=[ToolCallPart("search_docs", call["function"]["arguments"], call["id"])]))
        else:
            messages.append(ModelResponse(parts=[TextPart(m["content"])]))
    return messages


def pydantic_ai_pairs(request: dict) -> Iterator[Pair]:
    """Pydantic AI: its own dump of the history (``ModelMessagesTypeAdapter``), and the
    history processor (which reads the messages themselves, and dumps only a history with
    findings)."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    from toolcheck.integrations.pydantic_ai import toolcheck_history_processor

    messages = pydantic_messages(request)
    processor = toolcheck_history_processor(provider="anthropic")
    assert processor(None, messages) is messages  # type: ignore[arg-type]
    yield (
        "Pydantic AI",
        "ModelMessagesTypeAdapter.dump_python",
        lambda: ModelMessagesTypeAdapter.dump_python(messages, mode="json"),
        "history processor",
        lambda: processor(None, messages),  # type: ignore[arg-type]
    )


def frameworks(request: dict) -> List[Pair]:
    pairs: List[Pair] = []
    for make in (langchain_pairs, litellm_pairs, pydantic_ai_pairs):
        try:
            pairs.extend(make(request))
        except ImportError as e:
            print(f"({make.__name__}: skipped, {e})", file=sys.stderr)
    return pairs


def targets(repeat: int) -> None:
    """Issue 42's two guard targets, on the clean 20-message history, and their JSON line."""
    messages = history(20)["messages"]
    assert toolcheck.guard(messages, provider="openai") is messages
    out: dict = {"guard_vs_litellm": None, "processor_vs_repair": None}
    guard = per_call(lambda: toolcheck.guard(messages, provider="openai"), repeat)
    try:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm
        from litellm.litellm_core_utils.prompt_templates.factory import sanitize_messages_for_tool_calling

        litellm.modify_params = True
        # It returns a new list and leaves its input alone.
        own = per_call(lambda: sanitize_messages_for_tool_calling(messages), repeat)
        out["guard_vs_litellm"] = guard / own
        print(f"toolcheck.guard {guard:.1f} µs, LiteLLM sanitize_messages_for_tool_calling {own:.1f} µs: {guard / own:.2f}× (target ≤ 0.5×)")
    except ImportError as e:
        print(f"(LiteLLM: skipped, {e})", file=sys.stderr)
    try:
        from pydantic_ai.messages import repair_messages

        from toolcheck.integrations.pydantic_ai import toolcheck_history_processor

        history_ = pydantic_messages(history(20))
        processor = toolcheck_history_processor(provider="openai")
        assert processor(None, history_) is history_  # type: ignore[arg-type]
        ours = per_call(lambda: processor(None, history_), repeat)  # type: ignore[arg-type]
        own = per_call(lambda: repair_messages(history_), repeat)
        out["processor_vs_repair"] = ours / own
        print(f"Pydantic AI history processor {ours:.1f} µs, Pydantic AI repair_messages {own:.1f} µs: {ours / own:.2f}× (target ≤ 2×)")
    except ImportError as e:
        print(f"(Pydantic AI: skipped, {e})", file=sys.stderr)
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--targets", action="store_true", help="only issue 42's two guard ratios, and their JSON line")
    args = parser.parse_args()
    if args.targets:
        targets(args.repeat * 10)
        return
    print("| messages | request bytes | json.dumps µs | guard µs (raise, clean) | guard / json.dumps |")
    print("|---|---|---|---|---|")
    rows = []
    for n in (20, 200, 2000):
        request = history(n)
        assert toolcheck.guard(request, provider="openai") is request
        repeat = max(3, args.repeat * 20 // n)
        dumps = per_call(lambda: json.dumps(request), repeat)
        guard = per_call(lambda: toolcheck.guard(request, provider="openai"), repeat)
        size = len(json.dumps(request))
        print(f"| {n} | {size:,} | {dumps:.0f} | {guard:.0f} | {guard / dumps:.1f}× |")
        for framework, own, own_fn, integration, guard_fn in frameworks(request):
            own_us = per_call(own_fn, repeat)
            guard_us = per_call(guard_fn, repeat)
            rows.append(f"| {framework} | {n} | {own} {own_us:.0f} | {integration} {guard_us:.0f} | {guard_us / own_us:.1f}× |")
    if rows:
        print()
        print("| framework | messages | framework's own step µs | guard integration µs (clean) | guard / own |")
        print("|---|---|---|---|---|")
        print("\n".join(rows))


if __name__ == "__main__":
    main()
