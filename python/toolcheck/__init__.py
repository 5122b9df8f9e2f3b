"""toolcheck: lint and repair tool calls in saved LLM conversation logs.

The Rust library does all the work; this module converts Python values to text and findings
back to Python objects. Findings have the fields of ``toolcheck lint --output-format json``.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _toolcheck
from ._toolcheck import FixError, __version__

__all__ = [
    "Finding",
    "FixResult",
    "FixError",
    "lint",
    "lint_path",
    "guard",
    "ToolHistoryError",
    "lint_many",
    "lint_arrow",
    "fix",
    "fix_many",
    "RecordFix",
    "options",
    "__version__",
]

#: The name a text or object is linted under when none is given. Its extension decides
#: JSON or JSONL as on the command line; a ``.json`` text that is really JSONL (one
#: document per line) is read as JSONL.
DEFAULT_NAME = "<input>.json"
#: The name each record of :func:`lint_many` is linted under: a one-record JSONL file, so a
#: record's findings are exactly those ``toolcheck lint`` reports for its line of a JSONL file.
RECORD_NAME = "<record>.jsonl"


#: Finding's fields as from_dict sets them (providers apart), and the setter a frozen
#: dataclass's own __init__ uses.
_FINDING_FIELDS = (
    "code",
    "rule",
    "severity",
    "message",
    "help",
    "path",
    "format",
    "line",
    "column",
    "end_line",
    "end_column",
    "pointer",
    "fix",
    "tool_call_id",
)
_set = object.__setattr__


@dataclass(frozen=True)
class Finding:
    """One finding: the object ``toolcheck lint --output-format json`` prints."""

    code: str
    rule: str
    severity: str
    message: str
    help: Optional[str]
    path: str
    format: Optional[str]
    line: int
    column: int
    end_line: int
    end_column: int
    pointer: str
    fix: Optional[Dict[str, Any]]
    tool_call_id: Optional[str] = None
    providers: Tuple[str, ...] = field(default_factory=tuple)
    #: What the agent that resumes the session does about it, for agent sessions.
    replay: Optional[Dict[str, Any]] = None
    #: The span of a trace the finding is in: ``{"trace_id", "span_id", "attribute"}``.
    span: Optional[Dict[str, Optional[str]]] = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Finding":
        # The fields are set one by one, as the frozen dataclass's __init__ sets them (so the
        # object keeps CPython's compact shared-key attributes: half the memory of a
        # __dict__ filled at once), without __init__'s keyword call: 1.5 µs instead of 2.4,
        # for each finding of a dataset lint_many reads.
        finding = object.__new__(cls)
        for key in _FINDING_FIELDS:
            _set(finding, key, d.get(key))
        _set(finding, "providers", tuple(d.get("providers", ())))
        _set(finding, "replay", d.get("replay"))
        _set(finding, "span", d.get("span"))
        return finding

    def to_dict(self) -> Dict[str, Any]:
        """The finding as the JSON output's object (``tool_call_id``, ``providers``,
        ``replay`` and ``span`` only when set, as there)."""
        d: Dict[str, Any] = {
            "code": self.code,
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "help": self.help,
            "path": self.path,
            "format": self.format,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "pointer": self.pointer,
            "fix": self.fix,
        }
        if self.tool_call_id is not None:
            d["tool_call_id"] = self.tool_call_id
        if self.providers:
            d["providers"] = list(self.providers)
        if self.replay is not None:
            d["replay"] = self.replay
        if self.span is not None:
            d["span"] = self.span
        return d


@dataclass(frozen=True)
class FixResult:
    """What :func:`fix` did."""

    #: The repaired input, of the type given: a dict/list for an object, else str or bytes.
    value: Any
    #: The repaired text.
    text: str
    #: Whether anything changed.
    changed: bool
    #: Fixes applied (over all rounds of the fix loop).
    applied: int
    #: Fixes not applied because they are unsafe and ``unsafe`` was false.
    unsafe_left: int
    #: Findings the repaired text still has.
    remaining: List[Finding]


@dataclass(frozen=True)
class RecordFix:
    """What :func:`fix_many` did to one record."""

    #: The record, repaired: of the type given (a dict/list is parsed from the repaired
    #: text), or the record itself, untouched, when nothing changed.
    value: Any
    #: The repaired text; ``None`` when nothing changed (the record's own text stands).
    text: Optional[str]
    #: Whether anything changed.
    changed: bool
    #: Fixes applied (over all rounds of the fix loop).
    applied: int
    #: Fixes not applied because they are unsafe and ``unsafe`` was false.
    unsafe_left: int
    #: The record's findings that a fix repaired (as linted before fixing).
    fixed: List[Finding]
    #: Findings the record still has.
    remaining: List[Finding]
    #: Why a record with fixes was left unchanged (undecodable text, or an internal error of
    #: the fix loop); ``None`` otherwise.
    error: Optional[str]


_Names = Union[None, str, Iterable[str]]


def _names(value: _Names, what: str) -> List[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    try:
        items = list(value)
    except TypeError:
        raise TypeError(f"{what} must be a string or a list of strings, not {type(value).__name__}") from None
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{what} must hold strings, not {type(item).__name__}")
    return [v.strip() for v in items]


def _tool_docs(tools: Any) -> List[str]:
    """``tools`` as JSON texts: a path (like ``--tools FILE``), a dict/list tools document,
    or a list of paths."""
    if tools is None:
        return []
    if isinstance(tools, (str, os.PathLike)):
        path = os.fspath(tools)
        try:
            with open(path, encoding="utf-8") as f:
                return [f.read()]
        except OSError as e:
            raise ValueError(f"cannot use tools file {path}: {e.strerror or e}") from None
    if isinstance(tools, (bytes, bytearray)):
        return [bytes(tools).decode("utf-8")]
    if _names_paths(tools):
        return [doc for t in tools for doc in _tool_docs(t)]
    if isinstance(tools, (dict, list)):
        return [json.dumps(tools, ensure_ascii=False)]
    raise TypeError(
        f"tools must be a path, a list of paths, or a dict/list of tool definitions, not {type(tools).__name__}"
    )


def options(
    *,
    format: str = "auto",
    tools: Any = None,
    target: _Names = None,
    select: _Names = None,
    ignore: _Names = None,
    unpaired: Optional[str] = None,
) -> "_toolcheck.Options":
    """Checks options once, for reuse across calls (``options=`` of every function).

    Raises ``ValueError`` for an unknown format, target or rule, or an unusable tools file.
    """
    if not isinstance(format, str):
        raise TypeError(f"format must be a string, not {type(format).__name__}")
    # Settings given as they usually are (tools as objects or none, names as strings or
    # tuples) are looked up as given, before they are split and checked: a guard asks on
    # every model call.
    tools_key = _tools_key(tools)
    given: Optional[tuple] = None
    if tools_key is not None:
        given = (_GIVEN, format, tools_key, target, select, ignore, unpaired)
        try:
            found = _OPTIONS.get(given)
        except TypeError:  # a list of names: looked up once checked
            given = None
        else:
            if found is not None:
                return found
    # A document given as objects is written as JSON text only to build new options.
    docs = _tool_docs(tools) if tools_key is None else None
    key = (
        format,
        tools_key if docs is None else tuple(docs),
        tuple(_names(target, "target")),
        tuple(_names(select, "select")),
        tuple(_names(ignore, "ignore")),
        unpaired,
    )
    # Options hold the compiled tool schemas: calls with the same settings share one, so a
    # schema is compiled once per process, not on every lint() or guard() call.
    found = _OPTIONS.get(key)
    if found is None:
        if docs is None:
            docs = _tool_docs(tools)
        found = _toolcheck.Options(format, docs, list(key[2]), list(key[3]), list(key[4]), unpaired)
        if len(_OPTIONS) >= _OPTIONS_KEPT:
            _OPTIONS.clear()
        _OPTIONS[key] = found
    if given is not None:
        _OPTIONS[given] = found
    return found


def _tools_key(tools: Any) -> Optional[tuple]:
    """What options are found again by for ``tools`` without reading it as a tools file:
    ``()`` for none, and for a tools document given as objects, its JSON written off the
    objects by toolcheck (``json.dumps`` of a one-tool document cost a guard call a fifth of
    its time). ``None`` for paths, whose files are read on every call (they may have
    changed), and for objects that are not plain JSON."""
    if tools is None:
        return ()
    if not isinstance(tools, (dict, list)) or _names_paths(tools):
        return None
    written = _toolcheck.plain_json(tools)
    return None if written is None else (written,)


def _names_paths(tools: Any) -> bool:
    """Whether ``tools`` is a list of tools file names rather than a tools document."""
    return isinstance(tools, list) and bool(tools) and all(isinstance(t, (str, os.PathLike)) for t in tools)


#: Marks a key of settings as given (see `options`), which no checked key is.
_GIVEN = object()


#: Options built so far, by their settings (the tools documents' text included, so an edited
#: tools file gives new options; a document given as objects is keyed by its JSON), and by
#: the settings as given when no tools file is read; a bounded cache that starts over when
#: full.
_OPTIONS: Dict[tuple, "_toolcheck.Options"] = {}
_OPTIONS_KEPT = 64


def _looks_like_a_path(text: str) -> bool:
    """Whether a str is a file or folder name rather than JSON text: one line, not starting
    like JSON, naming something that exists."""
    # JSON text (every guard call's) is told apart without copying it to strip it.
    if text[:1] in ("{", "[", '"'):
        return False
    stripped = text.strip()
    if not stripped or "\n" in stripped or stripped[0] in "{[\"" or len(stripped) > 4096:
        return False
    try:
        return os.path.exists(stripped)
    except (OSError, ValueError):
        return False


def _text(obj: Any) -> Tuple[Union[str, bytes], str]:
    """The text to lint, and what kind of input it was: ``object``, ``str`` or ``bytes``."""
    if isinstance(obj, str):
        if _looks_like_a_path(obj):
            raise ValueError(
                f"{obj!r} names a file or folder, and lint() reads JSON text: "
                f"use toolcheck.lint_path({obj!r}) (or pass a pathlib.Path)"
            )
        return obj, "str"
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return bytes(obj), "bytes"
    if isinstance(obj, (dict, list)):
        try:
            return json.dumps(obj, ensure_ascii=False), "object"
        except (TypeError, ValueError) as e:
            raise TypeError(f"the object is not JSON-serialisable: {e}") from None
    raise TypeError(
        f"expected a dict, a list, or JSON/JSONL text as str or bytes, not {type(obj).__name__}"
    )


def _opts(opts: Optional["_toolcheck.Options"], **kwargs: Any) -> "_toolcheck.Options":
    if opts is not None:
        if any(v not in (None, "auto") for v in kwargs.values()):
            raise ValueError("give either options= or the individual options, not both")
        if not isinstance(opts, _toolcheck.Options):
            raise TypeError("options= must come from toolcheck.options()")
        return opts
    return options(**kwargs)


def lint(
    obj: Any,
    *,
    format: str = "auto",
    tools: Any = None,
    target: _Names = None,
    select: _Names = None,
    ignore: _Names = None,
    name: Optional[str] = None,
    options: Optional["_toolcheck.Options"] = None,
) -> List[Finding]:
    """Lints one conversation (or a JSONL file's worth of them).

    ``obj`` is a dict or list (a request body, a message list, a session's records), or JSON
    or JSONL text as ``str``/``bytes``. Objects are serialised with ``json.dumps``, so their
    findings' ``line``/``column`` refer to that text: use ``pointer`` for objects.
    """
    opts = _opts(options, format=format, tools=tools, target=target, select=select, ignore=ignore)
    if isinstance(obj, os.PathLike):
        return lint_path(obj, options=opts)
    text, _ = _text(obj)
    return [Finding.from_dict(d) for d in _toolcheck.lint_text(opts, text, name or DEFAULT_NAME)]


def lint_path(
    path: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]],
    *,
    format: str = "auto",
    tools: Any = None,
    target: _Names = None,
    select: _Names = None,
    ignore: _Names = None,
    threads: Optional[int] = None,
    options: Optional["_toolcheck.Options"] = None,
) -> List[Finding]:
    """Lints files and folders as ``toolcheck lint PATH...`` does: a folder is walked for
    ``.json``, ``.jsonl``, ``.ndjson`` files and session databases (hidden and ignored entries
    skipped, files that hold no conversation skipped); a file named is always checked.
    Findings carry their file in ``path``. Config files (``toolcheck.toml``) are not read:
    the options given are the whole setting. A path that cannot be read raises ``OSError``.
    """
    opts = _opts(options, format=format, tools=tools, target=target, select=select, ignore=ignore)
    if isinstance(path, (str, os.PathLike)):
        paths = [os.fspath(path)]
    else:
        paths = [os.fspath(p) for p in path]
    found = _toolcheck.lint_paths(opts, paths, threads)
    return [Finding.from_dict(d) for d in found]


def _record(index: int, record: Any) -> Union[str, bytes]:
    """One record of ``lint_many``: text as it is, anything else as ``lint`` takes it."""
    if isinstance(record, (str, bytes)):
        return record
    try:
        text, _ = _text(record)
    except TypeError as e:
        raise TypeError(f"record {index}: {e}") from None
    return text


def lint_many(
    records: Iterable[Any],
    *,
    format: str = "auto",
    tools: Any = None,
    target: _Names = None,
    select: _Names = None,
    ignore: _Names = None,
    threads: Optional[int] = None,
    options: Optional["_toolcheck.Options"] = None,
) -> List[List[Finding]]:
    """Lints many records, one conversation each (a dict or list, or a JSON document as
    ``str``/``bytes``), on all cores (or
    ``threads``), without holding the GIL. Returns one list of findings per record, in order.

    Each record is checked as a one-record JSONL file: its findings are those ``toolcheck
    lint`` reports for that line of a JSONL file (with ``line`` 1).
    """
    opts = _opts(options, format=format, tools=tools, target=target, select=select, ignore=ignore)
    # dicts and lists are serialised as lint() serialises them; text passes through as is.
    records = [_record(i, r) for i, r in enumerate(records)]
    with _quiet_gc():
        raw = _toolcheck.lint_many(opts, records, RECORD_NAME, threads)
        return [[Finding.from_dict(d) for d in found] for found in raw]


@contextlib.contextmanager
def _quiet_gc():
    """Many small objects are made at once (findings as dicts, then as ``Finding`` objects):
    the cyclic collector would scan every live object again and again while they are made,
    and none of them can form a cycle. Left on around the native call, it was a tenth of
    ``lint_many``'s CPU on 200,000 records."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _arrow_findings(array: Any, opts: "_toolcheck.Options", threads: Optional[int]) -> List[List[Dict[str, Any]]]:
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        out: List[List[Dict[str, Any]]] = []
        for chunk in array.chunks:
            out.extend(_arrow_findings(chunk, opts, threads))
        return out
    if not (
        pa.types.is_string(array.type)
        or pa.types.is_binary(array.type)
        or pa.types.is_large_string(array.type)
        or pa.types.is_large_binary(array.type)
    ):
        raise TypeError(f"expected a string or large_string array, not {array.type}")
    # The Arrow PyCapsule interface: Rust reads the buffers in place while the capsules,
    # which own the export, are alive.
    schema, exported = array.__arrow_c_array__()
    with _quiet_gc():
        return _toolcheck.lint_arrow_capsules(opts, schema, exported, RECORD_NAME, threads)


def lint_arrow(
    array: Any,
    *,
    format: str = "auto",
    tools: Any = None,
    target: _Names = None,
    select: _Names = None,
    ignore: _Names = None,
    threads: Optional[int] = None,
    options: Optional["_toolcheck.Options"] = None,
) -> Any:
    """Lints a pyarrow ``string``/``large_string`` array (or chunked array) of records, read
    in place. Returns a ``pyarrow`` list array with one entry per record: the list of its
    findings as structs (the JSON output's fields; ``fix`` as JSON text). Null records get
    an empty list.
    """
    import pyarrow as pa

    opts = _opts(options, format=format, tools=tools, target=target, select=select, ignore=ignore)
    found = _arrow_findings(array, opts, threads)
    return pa.array(
        [[_arrow_row(d) for d in per_record] for per_record in found],
        type=pa.list_(FINDING_ARROW_TYPE()),
    )


def FINDING_ARROW_TYPE() -> Any:
    """The pyarrow struct type of one finding in :func:`lint_arrow`'s output."""
    import pyarrow as pa

    return pa.struct(
        [
            ("code", pa.string()),
            ("rule", pa.string()),
            ("severity", pa.string()),
            ("message", pa.string()),
            ("help", pa.string()),
            ("format", pa.string()),
            ("line", pa.int64()),
            ("column", pa.int64()),
            ("end_line", pa.int64()),
            ("end_column", pa.int64()),
            ("pointer", pa.string()),
            ("tool_call_id", pa.string()),
            ("fix", pa.string()),
        ]
    )


def _arrow_row(d: Mapping[str, Any]) -> Dict[str, Any]:
    return {
        "code": d["code"],
        "rule": d["rule"],
        "severity": d["severity"],
        "message": d["message"],
        "help": d.get("help"),
        "format": d.get("format"),
        "line": d["line"],
        "column": d["column"],
        "end_line": d["end_line"],
        "end_column": d["end_column"],
        "pointer": d["pointer"],
        "tool_call_id": d.get("tool_call_id"),
        "fix": None if d.get("fix") is None else json.dumps(d["fix"], ensure_ascii=False),
    }


def fix(
    obj: Any,
    *,
    unsafe: bool = False,
    unpaired: Optional[str] = None,
    format: str = "auto",
    tools: Any = None,
    target: _Names = None,
    select: _Names = None,
    ignore: _Names = None,
    name: Optional[str] = None,
    options: Optional["_toolcheck.Options"] = None,
) -> FixResult:
    """Repairs what :func:`lint` finds, as ``toolcheck fix --write`` does (``unsafe=True``:
    ``--unsafe-fixes``; ``unpaired="remove-call"``: ``--unpaired remove-call``).

    Returns the repaired value (same kind as ``obj``: an object comes back as an object,
    parsed from the repaired text) and what was done. Raises :class:`FixError` when the
    text could not be fixed (it is left unchanged).
    """
    opts = _opts(
        options, format=format, tools=tools, target=target, select=select, ignore=ignore, unpaired=unpaired
    )
    text, kind = _text(obj)
    fixed, changed, applied, unsafe_left, remaining = _toolcheck.fix_text(
        opts, text, name or DEFAULT_NAME, bool(unsafe)
    )
    value: Any
    if kind == "object":
        value = json.loads(fixed) if changed else obj
    elif kind == "bytes":
        value = fixed.encode("utf-8")
    else:
        value = fixed
    return FixResult(
        value=value,
        text=fixed,
        changed=changed,
        applied=applied,
        unsafe_left=unsafe_left,
        remaining=[Finding.from_dict(d) for d in remaining],
    )


def fix_many(
    records: Iterable[Any],
    *,
    unsafe: bool = False,
    unpaired: Optional[str] = None,
    format: str = "auto",
    tools: Any = None,
    target: _Names = None,
    select: _Names = None,
    ignore: _Names = None,
    threads: Optional[int] = None,
    options: Optional["_toolcheck.Options"] = None,
) -> List[RecordFix]:
    """Repairs many records (one conversation each: a dict or list, or a JSON document as
    ``str``/``bytes``; ``None`` is passed over) on all cores (or ``threads``), without
    holding the GIL, as :func:`fix` repairs one. Each record is read as :func:`lint_many`
    reads it. Returns one :class:`RecordFix` per record, in order.

    A record with nothing to fix costs one lint and comes back as itself; a record on one
    line stays on one line, so the text can go back into a JSONL file. A record that cannot
    be fixed is left unchanged with ``error`` saying why (no exception: one bad record does
    not stop a dataset).
    """
    opts = _opts(
        options, format=format, tools=tools, target=target, select=select, ignore=ignore, unpaired=unpaired
    )
    records = list(records)
    texts = [None if r is None else _record(i, r) for i, r in enumerate(records)]
    out: List[RecordFix] = []
    with _quiet_gc():
        raw = _toolcheck.fix_many(opts, texts, RECORD_NAME, bool(unsafe), threads)
        for record, (text, applied, unsafe_left, fixed, remaining, error) in zip(records, raw):
            value: Any = record
            if text is not None:
                if isinstance(record, (dict, list)):
                    value = json.loads(text)
                elif isinstance(record, (bytes, bytearray, memoryview)):
                    value = text.encode("utf-8")
                else:
                    value = text
            out.append(
                RecordFix(
                    value=value,
                    text=text,
                    changed=text is not None,
                    applied=applied,
                    unsafe_left=unsafe_left,
                    fixed=[Finding.from_dict(d) for d in fixed],
                    remaining=[Finding.from_dict(d) for d in remaining],
                    error=error,
                )
            )
    return out


def _record_findings_json(found: Sequence[Finding]) -> str:
    return json.dumps([f.to_dict() for f in found], ensure_ascii=False)


# The guard builds on lint() and fix() above.
from .guard import ToolHistoryError, guard  # noqa: E402
