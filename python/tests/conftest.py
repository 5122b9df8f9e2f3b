"""Shared helpers: the generated records, and the command line's findings for comparison."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Sequence

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import gen  # noqa: E402


def toolcheck_command() -> List[str]:
    """The command line to compare with: the Rust binary when ``TOOLCHECK_BIN`` names it (the
    test script sets it), else the ``toolcheck`` command the package installed."""
    binary = os.environ.get("TOOLCHECK_BIN")
    if binary:
        return [binary]
    script = Path(sys.executable).parent / "toolcheck"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "toolcheck"]


def normalise(d: Dict[str, Any], base: int) -> Dict[str, Any]:
    """A finding without what depends on where its record sits in a file: the path, the
    line, and the byte offsets of fix edits (made relative to the record's first byte)."""
    d = dict(d)
    d.pop("path", None)
    d.pop("line", None)
    d.pop("end_line", None)
    if d.get("fix"):
        fix = dict(d["fix"])
        fix["edits"] = [
            {**e, "start": e["start"] - base, "end": e["end"] - base} for e in fix.get("edits", [])
        ]
        d["fix"] = fix
    return d


def cli_findings(records: Sequence[str], path: Path) -> List[List[Dict[str, Any]]]:
    """``toolcheck lint --output-format json`` on the records as one JSONL file, findings
    mapped back to records by line and normalised."""
    data = "".join(r + "\n" for r in records).encode("utf-8")
    path.write_bytes(data)
    starts = []
    at = 0
    for r in records:
        starts.append(at)
        at += len(r.encode("utf-8")) + 1
    proc = subprocess.run(
        toolcheck_command() + ["lint", "--no-config", "--output-format", "json", "--quiet", str(path)],
        capture_output=True,
    )
    assert proc.returncode in (0, 1), proc.stderr.decode()
    per: List[List[Dict[str, Any]]] = [[] for _ in records]
    for d in json.loads(proc.stdout):
        i = d["line"] - 1
        per[i].append(normalise(d, starts[i]))
    return per


def api_findings(found: Sequence[Sequence[Any]]) -> List[List[Dict[str, Any]]]:
    out = []
    for per in found:
        out.append([normalise(f if isinstance(f, dict) else f.to_dict(), 0) for f in per])
    return out


@pytest.fixture(scope="session")
def small_records() -> List[str]:
    return gen.records(600, seed=7)
