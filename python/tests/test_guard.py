"""toolcheck.guard: raise, repair or warn before a history is sent to a provider."""

from __future__ import annotations

import copy
import json
import logging

import pytest

import toolcheck
from toolcheck import ToolHistoryError

SYSTEM = {"role": "system", "content": "You are a support agent."}

# A memory window evicted the call but kept its result: the window opens with an orphan.
ORPHAN_AT_HEAD = [
    SYSTEM,
    {"role": "tool", "tool_call_id": "call_evicted", "content": "order A-1: shipped"},
    {"role": "user", "content": "And order A-2?"},
]

# An interrupted stream saved half-received arguments.
TRUNCATED = [
    SYSTEM,
    {"role": "user", "content": "Search the docs"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "search", "arguments": '{"query": "hello wor'}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "interrupted"},
    {"role": "user", "content": "Try again"},
]

SEARCH = {
    "type": "function",
    "function": {
        "name": "search",
        "description": "Search the docs",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    },
}

# A call with empty arguments to a tool whose schema requires some (a warning: it is sent).
EMPTY_ARGS = {
    "model": "gpt-4o",
    "tools": [SEARCH],
    "messages": [
        SYSTEM,
        {"role": "user", "content": "Search"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_2", "type": "function", "function": {"name": "search", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "call_2", "content": "Error: query is required"},
    ],
}

# A tool schema passed as a JSON-encoded string.
DOUBLE_ENCODED_SCHEMA = {
    "model": "gpt-4o",
    "tools": [{"type": "function", "function": {**SEARCH["function"], "parameters": json.dumps(SEARCH["function"]["parameters"])}}],
    "messages": [SYSTEM, {"role": "user", "content": "Search for pricing"}],
}

CLEAN = [
    SYSTEM,
    {"role": "user", "content": "Search the docs"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_3", "type": "function", "function": {"name": "search", "arguments": '{"query": "x"}'}}],
    },
    {"role": "tool", "tool_call_id": "call_3", "content": "3 results"},
]


def test_a_clean_history_passes_unchanged_in_every_mode():
    for mode in ("raise", "repair", "warn"):
        before = copy.deepcopy(CLEAN)
        assert toolcheck.guard(CLEAN, provider="openai", mode=mode) is CLEAN
        assert CLEAN == before


def test_raise_lists_what_the_provider_rejects_with_the_fix():
    with pytest.raises(ToolHistoryError) as err:
        toolcheck.guard(ORPHAN_AT_HEAD, provider="anthropic")
    assert [f.code for f in err.value.findings] == ["TC101"]
    text = str(err.value)
    assert "anthropic would reject" in text and "/1" in text and "fix (safe)" in text


def test_repair_returns_the_repaired_history_and_reports_it(caplog):
    seen = []
    before = copy.deepcopy(ORPHAN_AT_HEAD)
    with caplog.at_level(logging.INFO, logger="toolcheck"):
        repaired = toolcheck.guard(
            ORPHAN_AT_HEAD, provider="openai", mode="repair", on_repair=lambda result, found: seen.append(found)
        )
    assert repaired == [SYSTEM, {"role": "user", "content": "And order A-2?"}]
    assert ORPHAN_AT_HEAD == before, "the caller's list is not modified"
    assert [f.code for f in seen[0]] == ["TC101"]
    assert "TC101" in caplog.text
    assert toolcheck.guard(repaired, provider="openai") is repaired


def test_what_no_safe_fix_repairs_still_raises():
    # Truncated arguments: the only fix discards them (unsafe), so repair refuses.
    with pytest.raises(ToolHistoryError) as err:
        toolcheck.guard(TRUNCATED, provider="openai", mode="repair")
    assert [f.code for f in err.value.findings] == ["TC201"]


def test_warnings_are_left_alone_unless_everything_is_asked_for(caplog):
    assert toolcheck.guard(EMPTY_ARGS, provider="openai") is EMPTY_ARGS
    with pytest.raises(ToolHistoryError) as err:
        toolcheck.guard(EMPTY_ARGS, provider="openai", everything=True)
    assert "TC202" in [f.code for f in err.value.findings]
    with caplog.at_level(logging.WARNING, logger="toolcheck"):
        assert toolcheck.guard(EMPTY_ARGS, provider="openai", mode="warn", everything=True) is EMPTY_ARGS
    assert "TC202" in caplog.text


def test_a_double_encoded_schema_is_decoded():
    repaired = toolcheck.guard(DOUBLE_ENCODED_SCHEMA, provider="openai", mode="repair")
    assert repaired["tools"][0]["function"]["parameters"] == SEARCH["function"]["parameters"]
    assert repaired["messages"] == DOUBLE_ENCODED_SCHEMA["messages"]


def test_the_guard_agrees_with_lint():
    for history in (ORPHAN_AT_HEAD, TRUNCATED, DOUBLE_ENCODED_SCHEMA):
        errors = [f for f in toolcheck.lint(history, target="openai") if f.severity == "error"]
        with pytest.raises(ToolHistoryError) as err:
            toolcheck.guard(history, provider="openai")
        assert err.value.findings == errors


def test_plain_json_reads_plain_values_and_nothing_else():
    # The guards' one-pass reading (issue 42): the same JSON values as json.dumps writes, or
    # None, and the guard takes the json.dumps path.
    from toolcheck import _toolcheck

    class Key(str):
        pass

    plain = [
        CLEAN,
        {"a": [1, -2, 2**63, 1.5, 1e300, -0.0, True, False, None, "é\n\"\x00 😀"], Key("k"): (1, [2])},
        [],
        {},
    ]
    for value in plain:
        text = _toolcheck.plain_json(value)
        assert isinstance(text, bytes)
        assert json.loads(text) == json.loads(json.dumps(value))
    deep: list = []
    for _ in range(300):
        deep = [deep]
    for value in ({1: "int key"}, [float("nan")], [float("inf")], {"b": b"x"}, [2**64], {"s": "\ud800"}, [object()], deep):
        assert _toolcheck.plain_json(value) is None, value


def test_lint_plain_finds_what_lint_finds_in_the_json_text():
    # The guard's one call: the objects read and linted without a `bytes` between, with the
    # same findings as linting the text plain_json writes; None where that text is None.
    from toolcheck import _toolcheck

    opts = toolcheck.options(target="openai")
    for history in (CLEAN, ORPHAN_AT_HEAD, TRUNCATED, DOUBLE_ENCODED_SCHEMA, EMPTY_ARGS):
        text = _toolcheck.plain_json(history)
        assert text is not None
        assert _toolcheck.lint_plain(opts, history, "<input>.json") == _toolcheck.lint_text(opts, text, "<input>.json")
    assert _toolcheck.lint_plain(opts, [float("nan")], "<input>.json") is None


def test_a_clean_history_is_told_off_its_objects_as_from_its_text():
    # The guards' usual case (issue 42): a tree built off the objects, without their text,
    # finds nothing (or nothing a guard acts on) exactly where the text finds nothing, for every bundled document and for
    # histories whose strings need escapes, are not ASCII, or are subclasses, with numbers
    # of every kind; where the tree is not built (a name read as JSONL, more text than it
    # holds, nesting deeper than it goes, not plain JSON) it finds something, and the text
    # decides.
    import collections
    import enum
    from pathlib import Path

    from toolcheck import _toolcheck
    from toolcheck.guard import relevant_findings

    class Role(str, enum.Enum):
        USER = "user"

    root = Path(__file__).resolve().parents[2]
    docs = []
    for path in sorted((root / "fixtures").rglob("*.json")):
        try:
            docs.append(json.loads(path.read_text()))
        except ValueError:
            pass  # the fixtures of files that do not parse
    assert len(docs) > 100
    odd = "é \"quoted\" back\\slash\nline\ttab \x01 \x7f 😀 \u2028"
    docs += [
        CLEAN,
        {"model": "gpt-4o", "temperature": 0.7, "top_p": 1e-300, "seed": 2**63 - 1, "n": -0.0, "messages": [
            {"role": Role.USER, "content": odd},
            collections.OrderedDict(role="assistant", content=odd, name="x" + odd),
        ]},
        {"messages": ({"role": "user", "content": [{"type": "text", "text": odd}]},)},
        {"messages": [{"role": "user", "content": "hi"}], "metadata": {"big": 2**64 - 1, "f": 3.0}},
    ]
    for target in (None, "openai", "anthropic"):
        opts = toolcheck.options(target=target)
        clean = acted_on = ignored = 0
        for doc in docs:
            text = _toolcheck.plain_json(doc)
            assert text is not None
            found = _toolcheck.lint_text(opts, text, "<input>.json")
            assert _toolcheck.clean_plain(opts, doc, "<input>.json", target, True) == (found == []), doc
            # What a guard acts on: nothing relevant to it is told off the objects too.
            relevant = relevant_findings(map(toolcheck.Finding.from_dict, found), target)
            assert _toolcheck.clean_plain(opts, doc, "<input>.json", target, False) == (not relevant), doc
            assert _toolcheck.lint_plain(opts, doc, "<input>.json") == found
            clean += found == []
            acted_on += bool(relevant)
            ignored += bool(found) and not relevant
        assert clean >= 10 and acted_on >= 10 and ignored >= 10, (clean, acted_on, ignored)
    opts = toolcheck.options()
    base = {"messages": CLEAN}
    assert _toolcheck.clean_plain(opts, base, "<input>.json", None, True)
    deep: list = []
    for _ in range(110):
        deep = [deep]
    long = {**base, "long": "x" * (65 << 10)}
    for declined in ({**base, "deep": deep}, long, {**base, "wide": 2**64}, {**base, 1: 2}, [float("nan")]):
        assert not _toolcheck.clean_plain(opts, declined, "<input>.json", None, True), declined
    assert not _toolcheck.clean_plain(opts, base, "<input>.jsonl", None, True)
    assert _toolcheck.lint_plain(opts, long, "<input>.json") == []


def test_options_given_as_strings_or_lists_are_the_same_options():
    # Looked up as given first (a guard asks on every call), and after checking.
    assert toolcheck.options(target="openai") is toolcheck.options(target="openai")
    assert toolcheck.options(target=["openai"]) is toolcheck.options(target="openai")
    assert toolcheck.options(select="TC001, TC002") is toolcheck.options(select=["TC001", "TC002"])
    with pytest.raises(ValueError):
        toolcheck.options(target="no-such-provider")
    with pytest.raises(ValueError):
        toolcheck.options(target="no-such-provider")


def test_tools_given_as_objects_are_found_again_by_their_json(tmp_path):
    # A tools document given as objects is keyed by the JSON toolcheck writes of it: the same
    # document finds the same options, a changed one new options, and a path is read again.
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "required": ["q"]}}}]
    first = toolcheck.options(tools=tools, target="openai")
    assert toolcheck.options(tools=copy.deepcopy(tools), target="openai") is first
    history = {"messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]}
    assert any(f.code == "TC202" for f in toolcheck.lint(history, tools=tools, target="openai"))
    tools[0]["function"]["parameters"]["required"] = []
    assert toolcheck.options(tools=tools, target="openai") is not first
    assert not toolcheck.lint(history, tools=tools, target="openai")
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    assert not toolcheck.lint(history, tools=str(path), target="openai")
    path.write_text(json.dumps([{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "required": ["q"]}}}]))
    assert toolcheck.lint(history, tools=str(path), target="openai")


def test_a_history_read_off_the_objects_is_checked_as_its_json():
    # NaN is no JSON: json.dumps writes it, and the guard reports that text as it always did.
    from toolcheck.guard import relevant_findings

    nan = copy.deepcopy(EMPTY_ARGS)
    nan["messages"][-1]["content"] = float("nan")
    found = relevant_findings(toolcheck.lint(nan, target="openai"), "openai", True)
    assert found
    with pytest.raises(ToolHistoryError) as err:
        toolcheck.guard(nan, provider="openai", everything=True)
    assert err.value.findings == found
    for history in (ORPHAN_AT_HEAD, TRUNCATED, DOUBLE_ENCODED_SCHEMA):
        with pytest.raises(ToolHistoryError) as err:
            toolcheck.guard(history, provider="openai")
        assert err.value.findings == [f for f in toolcheck.lint(history, target="openai") if f.severity == "error"]


def test_bad_mode():
    with pytest.raises(ValueError, match="guard mode"):
        toolcheck.guard(CLEAN, mode="fix")


def test_langchain_messages_come_back_as_langchain_messages():
    messages = pytest.importorskip("langchain_core.messages")
    history = [
        messages.SystemMessage("You are a support agent."),
        messages.ToolMessage("order A-1: shipped", tool_call_id="call_evicted"),
        messages.HumanMessage("And order A-2?"),
    ]
    with pytest.raises(ToolHistoryError):
        toolcheck.guard(history, provider="anthropic")
    repaired = toolcheck.guard(history, provider="anthropic", mode="repair")
    assert [type(m).__name__ for m in repaired] == ["SystemMessage", "HumanMessage"]
    assert repaired[1].content == "And order A-2?"
    clean = [messages.HumanMessage("hi"), messages.AIMessage("hello")]
    assert toolcheck.guard(clean, provider="anthropic") is clean


def test_kimi_is_moonshot():
    # Findings name the provider `moonshot`; a guard for `kimi` must act on them.
    unpaired = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        },
        {"role": "user", "content": "again"},
    ]
    with pytest.raises(ToolHistoryError) as raised:
        toolcheck.guard(unpaired, provider="kimi")
    found = [(f.code, f.providers) for f in raised.value.findings]
    assert ("TC102", ("moonshot",)) in found
    assert all(providers == ("moonshot",) for _, providers in found)
