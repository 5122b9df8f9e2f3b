"""``fix_many``: records repaired in parallel as the command line repairs a JSONL file's
lines, unchanged records passed back as themselves, one bad record never stopping the rest."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import toolcheck
from conftest import toolcheck_command

ORPHAN = {
    "messages": [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "gone", "content": "evicted"},
        {"role": "assistant", "content": "ok"},
    ]
}
TRUNCATED = (
    '{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":'
    '[{"id":"c1","type":"function","function":{"name":"search","arguments":"{\\"query\\": \\"hello wor"}}]},'
    '{"role":"tool","tool_call_id":"c1","content":"x"}]}'
)
CLEAN = '{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}'


def cli_fix(records, path: Path, *extra: str):
    """``toolcheck fix --write`` on the records as one JSONL file: the repaired lines."""
    path.write_text("".join(r + "\n" for r in records), encoding="utf-8")
    proc = subprocess.run(
        toolcheck_command() + ["fix", "--write", "--no-config", "--quiet", *extra, str(path)], capture_output=True
    )
    assert proc.returncode in (0, 1), proc.stderr.decode()
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def test_kinds_come_back_as_given_and_unchanged_records_are_themselves():
    text = json.dumps(ORPHAN)
    done = toolcheck.fix_many([ORPHAN, text, text.encode(), CLEAN, None])
    obj, as_str, as_bytes, clean, none = done
    assert obj.changed and isinstance(obj.value, dict)
    assert [m["role"] for m in obj.value["messages"]] == ["user", "assistant"]
    assert as_str.value == obj.text and isinstance(as_str.value, str)
    assert as_bytes.value == obj.text.encode() and isinstance(as_bytes.value, bytes)
    assert [f.code for f in obj.fixed] == ["TC101"] and obj.remaining == [] and obj.applied == 1
    assert not clean.changed and clean.value is CLEAN and clean.text is None
    assert not none.changed and none.value is None and none.remaining == []
    assert ORPHAN["messages"][1]["role"] == "tool"  # the caller's object is not modified


def test_unsafe_fixes_are_opt_in_and_counted():
    safe, = toolcheck.fix_many([TRUNCATED])
    assert not safe.changed and safe.unsafe_left == 1
    assert [f.code for f in safe.remaining] == ["TC201"]
    risky, = toolcheck.fix_many([TRUNCATED], unsafe=True)
    assert risky.changed and [f.code for f in risky.fixed] == ["TC201"]
    assert "\n" not in risky.text
    assert toolcheck.lint(risky.text, select="TC2") == []


def test_a_bad_record_is_reported_not_raised():
    broken = '{"messages": [{"role": "tool"'
    done = toolcheck.fix_many([broken, json.dumps(ORPHAN)])
    assert not done[0].changed and done[0].value is broken
    assert [f.code for f in done[0].remaining] == ["TC001"]
    assert done[1].changed


def test_equals_the_command_line_on_generated_records(small_records, tmp_path: Path):
    expected = cli_fix(small_records, tmp_path / "data.jsonl")
    done = toolcheck.fix_many(small_records, threads=2)
    assert len(done) == len(small_records) == len(expected)
    changed = 0
    for i, (record, r, want) in enumerate(zip(small_records, done, expected)):
        got = r.text if r.changed else record
        assert got == want, f"record {i}"
        assert "\n" not in got
        changed += r.changed
        if not r.changed:
            assert r.value is record
    assert 0 < changed < len(small_records)
    # What is left has no safe fix, and is what lint_many finds in the repaired records.
    repaired = [r.text if r.changed else rec for rec, r in zip(small_records, done)]
    again = toolcheck.lint_many(repaired)
    for i, (r, found) in enumerate(zip(done, again)):
        assert [f.code for f in r.remaining] == [f.code for f in found], f"record {i}"
        assert not any(f.fix and f.fix["applicability"] == "safe" for f in found), f"record {i}"


def test_many_batches_keep_their_order():
    # More records than one batch (4,096) is copied out and checked at a time: each result
    # lands at its record's index, across the batch boundaries, from a list or an iterator.
    orphan = json.dumps(ORPHAN)
    records = [orphan if i % 1000 == 7 else (None if i % 1000 == 8 else CLEAN) for i in range(9000)]
    done = toolcheck.fix_many(iter(records), threads=2)
    assert len(done) == len(records)
    assert [i for i, r in enumerate(done) if r.changed] == [i for i, r in enumerate(records) if r == orphan]
    assert all(r.value is None for i, r in enumerate(done) if records[i] is None)
    found = toolcheck.lint_many(r or CLEAN for r in records)
    assert len(found) == len(records)
    assert [i for i, f in enumerate(found) if f] == [i for i, r in enumerate(records) if r == orphan]
