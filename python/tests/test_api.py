"""The Python API: lint, fix, lint_many, lint_arrow, options, errors, and the command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import toolcheck
from conftest import api_findings, cli_findings, toolcheck_command

ORPHAN = {
    "model": "gpt-4o",
    "messages": [
        {"role": "user", "content": "What's the weather in Lisbon?"},
        {"role": "tool", "tool_call_id": "call_gone", "content": "18C"},
        {"role": "assistant", "content": "It is 18C."},
    ],
}

TRUNCATED_ARGS = {
    "messages": [
        {"role": "user", "content": "Look up order A-1"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "lookup_order", "arguments": '{"order_id": "A-'}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "not found"},
    ]
}


def test_lint_object_finds_orphan():
    found = toolcheck.lint(ORPHAN)
    assert [f.rule for f in found] == ["orphaned-tool-result"]
    f = found[0]
    assert f.code == "TC101" or f.code.startswith("TC")
    assert f.severity in ("error", "warning")
    assert f.pointer == "/messages/1"
    assert f.line == 1 and f.column > 1
    assert f.format == "openai-chat"
    assert f.fix is not None and f.fix["applicability"] in ("safe", "unsafe")
    assert "call_gone" in f.message
    assert f.to_dict()["rule"] == "orphaned-tool-result"


def test_lint_clean_object_and_message_list():
    clean = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
    assert toolcheck.lint(clean) == []
    # A bare message list is a conversation too.
    assert [f.rule for f in toolcheck.lint(ORPHAN["messages"])] == ["orphaned-tool-result"]


def test_lint_text_has_lines_and_columns():
    text = json.dumps(ORPHAN, indent=2)
    (f,) = toolcheck.lint(text)
    lines = text.splitlines()
    assert lines[f.line - 1][f.column - 1 :].lstrip().startswith("{")
    assert f.line > 1
    # bytes give the same findings.
    assert toolcheck.lint(text.encode()) == [f]


def test_lint_matches_cli_json_output(tmp_path: Path):
    text = json.dumps(TRUNCATED_ARGS, indent=2)
    path = tmp_path / "conv.json"
    path.write_text(text)
    proc = subprocess.run(
        toolcheck_command() + ["lint", "--no-config", "--output-format", "json", str(path)], capture_output=True
    )
    assert proc.returncode == 1
    cli = json.loads(proc.stdout)
    api = [f.to_dict() for f in toolcheck.lint(text, name=str(path))]
    assert api == cli
    assert any(d["rule"] == "invalid-arguments-json" for d in api)


def test_jsonl_text_and_parse_errors_are_findings():
    lines = [json.dumps(ORPHAN), '{"messages": [', json.dumps(TRUNCATED_ARGS)]
    found = toolcheck.lint("\n".join(lines) + "\n", name="data.jsonl")
    assert sorted({f.line for f in found}) == [1, 2, 3]
    assert any(f.rule == "parse-error" and f.line == 2 for f in found)
    # Garbage is a finding, not an exception.
    assert [f.rule for f in toolcheck.lint(b"\xff\xfe\x00garbage")]


def test_select_ignore_target_and_options_object():
    assert toolcheck.lint(ORPHAN, select="TC1") != []
    assert toolcheck.lint(ORPHAN, ignore=["orphaned-tool-result"]) == []
    opts = toolcheck.options(ignore="orphaned-tool-result")
    assert toolcheck.lint(ORPHAN, options=opts) == []
    found = toolcheck.lint(ORPHAN, target="anthropic")
    assert found and found[0].rule == "orphaned-tool-result"
    assert toolcheck.lint(ORPHAN, format="openai-chat")


def test_tools_argument(tmp_path: Path):
    conv = {
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ping", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "pong"},
        ]
    }
    tools = [{"type": "function", "function": {"name": "other", "parameters": {"type": "object"}}}]
    with_tools = {f.rule for f in toolcheck.lint(conv, tools=tools)}
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    assert {f.rule for f in toolcheck.lint(conv, tools=path)} == with_tools
    assert {f.rule for f in toolcheck.lint(conv, tools=[str(path)])} == with_tools
    assert "unknown-tool" in with_tools


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"select": "NOPE1"}, "unknown rule selector"),
        ({"ignore": ["TC999x"]}, "unknown rule selector"),
        ({"target": "openaii"}, "unknown target"),
        ({"format": "yaml"}, "unknown input format"),
        ({"tools": {"nothing": 1}}, "tools document 1"),
    ],
)
def test_bad_options_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        toolcheck.lint(ORPHAN, **kwargs)


def test_bad_types_raise_type_error(tmp_path: Path):
    with pytest.raises(TypeError):
        toolcheck.lint(42)
    with pytest.raises(TypeError):
        toolcheck.lint({"x": object()})
    with pytest.raises(TypeError, match="record 1"):
        toolcheck.lint_many(["{}", 3])
    with pytest.raises(ValueError, match="cannot use tools file"):
        toolcheck.lint(ORPHAN, tools=tmp_path / "missing.json")
    with pytest.raises(ValueError, match="unknown unpaired"):
        toolcheck.fix(ORPHAN, unpaired="drop")


def test_fix_object_and_text():
    result = toolcheck.fix(ORPHAN)
    assert result.changed and result.applied >= 1
    assert isinstance(result.value, dict)
    assert len(result.value["messages"]) == 2
    assert toolcheck.lint(result.value) == []
    assert result.remaining == []
    # Unsafe fixes only when asked.
    safe = toolcheck.fix(TRUNCATED_ARGS)
    risky = toolcheck.fix(TRUNCATED_ARGS, unsafe=True)
    assert safe.unsafe_left >= 1 and not safe.changed
    assert risky.changed and risky.unsafe_left == 0
    # Text in, text out, with the layout kept outside the edit.
    text = json.dumps(ORPHAN, indent=2)
    fixed = toolcheck.fix(text)
    assert isinstance(fixed.value, str) and fixed.value.startswith('{\n  "model"')
    assert isinstance(toolcheck.fix(text.encode()).value, bytes)


def test_fix_undecodable_raises():
    with pytest.raises(toolcheck.FixError):
        toolcheck.fix(b'{"messages": ["\xff"]}')


def test_lint_many_matches_cli(small_records, tmp_path: Path):
    api = toolcheck.lint_many(small_records, threads=2)
    assert len(api) == len(small_records)
    assert sum(1 for f in api if f) > 50  # the generator breaks about half the records
    assert api_findings(api) == cli_findings(small_records, tmp_path / "all.jsonl")
    # bytes records, and one thread, give the same.
    assert toolcheck.lint_many([r.encode() for r in small_records[:50]], threads=1) == api[:50]
    assert toolcheck.lint_many(iter(small_records[:5])) == api[:5]


def test_lint_arrow(small_records):
    pa = pytest.importorskip("pyarrow")
    expected = toolcheck.lint_many(small_records)
    for typ in (pa.string(), pa.large_string()):
        arr = pa.array(small_records, type=typ)
        out = toolcheck.lint_arrow(arr)
        assert len(out) == len(small_records)
        assert [[f["code"] for f in row] for row in out.to_pylist()] == [[f.code for f in r] for r in expected]
    # Slices, chunks and nulls.
    arr = pa.array(small_records[:10] + [None] + small_records[10:20])
    out = toolcheck.lint_arrow(arr.slice(5, 10)).to_pylist()
    assert [len(r) for r in out] == [len(r) for r in expected[5:10]][:5] + [0] + [len(r) for r in expected[10:14]]
    chunked = pa.chunked_array([small_records[:7], small_records[7:20]])
    assert [len(r) for r in toolcheck.lint_arrow(chunked).to_pylist()] == [len(r) for r in expected[:20]]
    with pytest.raises(TypeError):
        toolcheck.lint_arrow(pa.array([1, 2]))


def test_command_exit_codes(tmp_path: Path):
    # The command the package installed (not TOOLCHECK_BIN: this tests the Python entry point).
    script = Path(sys.executable).parent / "toolcheck"
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "toolcheck"]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(ORPHAN))
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    run = lambda *a: subprocess.run(cmd + list(a), capture_output=True, text=True)  # noqa: E731
    assert run("lint", "--no-config", str(broken)).returncode == 1
    assert run("lint", "--no-config", str(clean)).returncode == 0
    assert run("lint", "--no-config", str(tmp_path / "missing.json")).returncode == 2
    bad = run("lint", "--bogus-flag")
    assert bad.returncode == 2 and "--bogus-flag" in bad.stderr
    helped = run("--help")
    assert helped.returncode == 0 and "Usage" in helped.stdout
    version = run("--version")
    assert version.returncode == 0 and toolcheck.__version__ in version.stdout
    # Output identical to the Rust binary's when there is one to compare with.
    if os.environ.get("TOOLCHECK_BIN"):
        a = run("lint", "--no-config", "--output-format", "concise", str(broken))
        b = subprocess.run(
            [os.environ["TOOLCHECK_BIN"], "lint", "--no-config", "--output-format", "concise", str(broken)],
            capture_output=True,
            text=True,
        )
        assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)
    # stdin works through the Python command too.
    piped = subprocess.run(
        cmd + ["lint", "--no-config", "--output-format", "json", "-"], input=json.dumps(ORPHAN), capture_output=True, text=True
    )
    assert piped.returncode == 1 and json.loads(piped.stdout)[0]["rule"] == "orphaned-tool-result"


def test_a_path_string_is_not_read_as_json(tmp_path: Path):
    log = tmp_path / "request.json"
    log.write_text(json.dumps(ORPHAN))
    with pytest.raises(ValueError, match="lint_path"):
        toolcheck.lint(str(log))
    # A Path is linted as the file it names; lint_path takes files, folders and lists.
    by_path = toolcheck.lint(log)
    assert [f.code for f in by_path] == ["TC101"]
    assert by_path[0].path == str(log)
    (tmp_path / "notes.json").write_text('{"title": "not a conversation"}')
    assert [f.code for f in toolcheck.lint_path(tmp_path)] == ["TC101"]
    assert [f.code for f in toolcheck.lint_path([log, str(log)])] == ["TC101"]
    with pytest.raises(OSError):
        toolcheck.lint_path(tmp_path / "missing")


def test_lint_many_takes_what_lint_takes():
    as_objects = toolcheck.lint_many([ORPHAN, ORPHAN["messages"]])
    as_text = toolcheck.lint_many([json.dumps(ORPHAN, ensure_ascii=False), json.dumps(ORPHAN["messages"])])
    assert as_objects == as_text
    assert [f.code for f in as_objects[0]] == ["TC101"]


def test_arrow_input_is_read_through_the_capsule_interface():
    pa = pytest.importorskip("pyarrow")
    # The private entry point checks what it is given: no capsule, no read.
    opts = toolcheck.options()
    with pytest.raises(TypeError):
        toolcheck._toolcheck.lint_arrow_capsules(opts, 1, 2, "record.jsonl")
    schema, array = pa.array(["{}"]).__arrow_c_array__()
    with pytest.raises(TypeError):
        toolcheck._toolcheck.lint_arrow_capsules(opts, array, schema, "record.jsonl")
    found = toolcheck._toolcheck.lint_arrow_capsules(opts, schema, array, "record.jsonl")
    assert [[d["code"] for d in row] for row in found] == [[f.code for f in r] for r in toolcheck.lint_many(["{}"])]
    assert not hasattr(toolcheck._toolcheck, "lint_arrow_buffers")


def test_every_fixture_gives_the_command_lines_findings():
    """Issue 27: the Python API reports what `toolcheck lint` does, file by file, on every
    bundled fixture (each file named, so none is skipped; read as text, and by path)."""
    root = Path(__file__).resolve().parents[2]
    files = sorted(p for p in (root / "fixtures").rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl"))
    assert len(files) > 100
    proc = subprocess.run(
        toolcheck_command() + ["lint", "--no-config", "--output-format", "json", "--quiet", *map(str, files)],
        capture_output=True,
        cwd=root,
    )
    assert proc.returncode == 1, proc.stderr.decode()
    key = lambda d: (str(Path(root, d["path"]).resolve()), d["code"], d["pointer"], d["line"], d["column"], d["message"])  # noqa: E731
    cli = [key(d) for d in json.loads(proc.stdout)]
    # By path, all at once (a Strands message file, or an OpenHands V1 event file, names its
    # whole session folder, read once).
    assert [key(f.to_dict()) for f in toolcheck.lint_path(files)] == cli
    # As text, file by file (a session folder's file alone is not its session).
    for path in files:
        if "strands" in path.parts or ("openhands" in path.parts and "events" in path.parts):
            continue
        expected = [k for k in cli if k[0] == str(path.resolve())]
        via_text = toolcheck.lint(path.read_bytes(), name=str(path))
        assert [key(f.to_dict()) for f in via_text] == expected, path


def test_finding_from_dict_is_the_dataclass_built_by_its_constructor():
    import dataclasses

    record = {"messages": [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "c", "content": "x"}]}
    (found,) = toolcheck.lint_many([record])
    assert found
    for finding in found:
        built = toolcheck.Finding(**{f.name: getattr(finding, f.name) for f in dataclasses.fields(toolcheck.Finding)})
        assert finding == built
        assert repr(finding) == repr(built)
        assert set(vars(finding)) == {f.name for f in dataclasses.fields(toolcheck.Finding)}
        assert sys.getsizeof(vars(finding)) <= sys.getsizeof(vars(built))
        assert isinstance(finding.providers, tuple)
        with pytest.raises(dataclasses.FrozenInstanceError):
            finding.code = "TC000"  # type: ignore[misc]


def test_the_cyclic_collector_is_left_as_it_was():
    # lint_many and fix_many pause it while they make findings, and restore it even on error.
    import gc

    assert gc.isenabled()
    toolcheck.lint_many([ORPHAN])
    toolcheck.fix_many([ORPHAN])
    with pytest.raises(TypeError):
        toolcheck.lint_many([ORPHAN, 3.5])
    assert gc.isenabled()
    gc.disable()
    try:
        toolcheck.lint_many([ORPHAN])
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_finding_dicts_are_the_json_output_key_for_key(tmp_path: Path):
    # The native dicts are built field by field: the same keys, in the same order, with the
    # same values as `--output-format json` (optional keys only when set).
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(ORPHAN))
    trunc = tmp_path / "trunc.json"
    trunc.write_text(json.dumps(TRUNCATED_ARGS))
    for p in (path, trunc):
        proc = subprocess.run(
            toolcheck_command() + ["lint", "--no-config", "--output-format", "json", str(p)], capture_output=True
        )
        expected = json.loads(proc.stdout)
        got = toolcheck._toolcheck.lint_text(toolcheck.options(), p.read_text(), str(p))
        assert [list(d) for d in got] == [list(d) for d in expected]
        assert got == expected
    assert any("providers" in d and "tool_call_id" in d for d in expected + got)


def test_thread_counts_out_of_range_are_refused(small_records):
    # A pool of 2**40 threads never returned; the limit is the command line's -j limit.
    for threads in (2**40, 257):
        with pytest.raises(ValueError, match="threads must be from 1 to 256"):
            toolcheck.lint_many(small_records[:2], threads=threads)
        with pytest.raises(ValueError, match="threads must be from 1 to 256"):
            toolcheck.fix_many(small_records[:2], threads=threads)
    assert len(toolcheck.lint_many(small_records[:2], threads=256)) == 2


@pytest.mark.parametrize(
    "fixture",
    ["openinference/broken-phoenix-rest.json", "langfuse/broken-langchain.json", "claude-code/broken-compaction-orphan.jsonl"],
)
def test_trace_spans_and_replays_are_the_command_lines(fixture: str):
    """Issue 41: a trace finding carries its span, and an agent session's its replay, in
    the Python objects as in `--output-format json`, field for field."""
    root = Path(__file__).resolve().parents[2]
    path = root / "fixtures" / fixture
    proc = subprocess.run(
        toolcheck_command() + ["lint", "--no-config", "--output-format", "json", str(path)], capture_output=True
    )
    cli = json.loads(proc.stdout)
    assert cli and any("span" in d or "replay" in d for d in cli)
    api = [f.to_dict() for f in toolcheck.lint_path([str(path)])]
    assert api == cli
    spans = [f.span for f in toolcheck.lint_path([str(path)]) if f.span]
    assert all(set(s) == {"trace_id", "span_id", "attribute"} for s in spans)
