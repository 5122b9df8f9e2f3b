"""Benchmark: what `toolcheck.guard` costs per call on histories of 20, 200 and 2,000
messages with tool calls and a tool schema, beside the cost of serialising the same request
with `json.dumps` (what any HTTP client spends building the body), in one run.

    python python/bench_guard.py [--repeat 200]

Install the package first (`pip install .`, a release build). CPU time per call, best of 5
rounds, one thread; nothing is read or written.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    print("| messages | request bytes | json.dumps µs | guard µs (raise, clean) | guard / json.dumps |")
    print("|---|---|---|---|---|")
    for n in (20, 200, 2000):
        request = history(n)
        assert toolcheck.guard(request, provider="openai") is request
        repeat = max(3, args.repeat * 20 // n)
        dumps = per_call(lambda: json.dumps(request), repeat)
        guard = per_call(lambda: toolcheck.guard(request, provider="openai"), repeat)
        size = len(json.dumps(request))
        print(f"| {n} | {size:,} | {dumps:.0f} | {guard:.0f} | {guard / dumps:.1f}× |")


if __name__ == "__main__":
    main()
