"""A seeded generator of tool-calling conversations, clean and broken, for the tests and the
benchmark: OpenAI chat completions and Anthropic messages, one JSON document per record."""

from __future__ import annotations

import json
import random
from typing import List

TOOLS = {
    "get_weather": {"city": "string"},
    "lookup_order": {"order_id": "string"},
    "convert_units": {"value": "number", "unit": "string"},
}
CITIES = ["Lisbon", "Osaka", "Quito", "Tromsø", "Nairobi", "Halifax"]
# Ways a record can be broken; "clean" appears most often, as in real data.
KINDS = ["clean"] * 6 + ["orphan", "unpaired", "truncated", "bad_json", "unknown_tool"]


def _args(rng: random.Random, tool: str) -> dict:
    if tool == "get_weather":
        return {"city": rng.choice(CITIES)}
    if tool == "lookup_order":
        return {"order_id": f"A-{rng.randrange(10**6):06d}"}
    return {"value": round(rng.uniform(-40, 120), 2), "unit": rng.choice(["C", "F", "km", "mi"])}


def _schema(props: dict) -> dict:
    return {
        "type": "object",
        "properties": {k: {"type": v} for k, v in props.items()},
        "required": list(props),
    }


def openai_record(rng: random.Random, i: int, kind: str) -> dict:
    calls = rng.randint(1, 3)
    messages: list = [{"role": "system", "content": "You are a helpful assistant."}]
    messages.append({"role": "user", "content": f"Question {i}: can you help?"})
    for turn in range(calls):
        tool = rng.choice(list(TOOLS))
        cid = f"call_{i}_{turn}"
        args = json.dumps(_args(rng, tool))
        if kind == "truncated" and turn == calls - 1:
            args = args[: max(1, len(args) // 2)]
        if kind == "unknown_tool" and turn == 0:
            tool = "delete_everything"
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": cid, "type": "function", "function": {"name": tool, "arguments": args}}],
            }
        )
        if kind == "unpaired" and turn == calls - 1:
            break
        messages.append({"role": "tool", "tool_call_id": cid, "content": f"result {rng.randrange(1000)}"})
    if kind == "orphan":
        messages.append({"role": "tool", "tool_call_id": f"call_{i}_ghost", "content": "late result"})
    messages.append({"role": "assistant", "content": "Done."})
    # Messages first: a record cut short (bad_json) still holds its unique question.
    return {
        "model": "gpt-4o",
        "messages": messages,
        "tools": [
            {"type": "function", "function": {"name": n, "parameters": _schema(p)}} for n, p in TOOLS.items()
        ],
    }


def anthropic_record(rng: random.Random, i: int, kind: str) -> dict:
    calls = rng.randint(1, 3)
    messages: list = [{"role": "user", "content": f"Task {i}, please."}]
    for turn in range(calls):
        tool = rng.choice(list(TOOLS))
        tid = f"toolu_{i:07d}{turn}"
        if kind == "unknown_tool" and turn == 0:
            tool = "format_disk"
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Let me check."},
                    {"type": "tool_use", "id": tid, "name": tool, "input": _args(rng, tool)},
                ],
            }
        )
        if kind == "unpaired" and turn == calls - 1:
            messages.append({"role": "user", "content": "Never mind."})
            break
        messages.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": "ok"}]}
        )
    if kind == "orphan":
        messages.append(
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_ghost", "content": "?"}]}
        )
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "All done."}]})
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": messages,
        "tools": [{"name": n, "input_schema": _schema(p)} for n, p in TOOLS.items()],
    }


def records(n: int, seed: int = 14) -> List[str]:
    """``n`` records as compact one-line JSON texts."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        kind = rng.choice(KINDS)
        if kind == "bad_json":
            # The record itself is cut off: a parse error.
            text = json.dumps(openai_record(rng, i, "clean"), ensure_ascii=False)
            out.append(text[: len(text) * 2 // 3])
            continue
        make = openai_record if rng.random() < 0.5 else anthropic_record
        kind = "orphan" if make is anthropic_record and kind == "truncated" else kind
        out.append(json.dumps(make(rng, i, kind), ensure_ascii=False))
    return out
