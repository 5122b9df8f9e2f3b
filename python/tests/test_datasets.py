"""Hugging Face datasets, locally and offline: ``map(batched=True, num_proc=2)`` adds findings
equal to the command line's, and ``filter`` keeps the clean rows."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"

import gen  # noqa: E402
from conftest import cli_findings, normalise  # noqa: E402

datasets = pytest.importorskip("datasets")

N = 20_000
FILES = 8


def test_datasets_map_and_filter(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))
    import toolcheck.datasets as tcd

    records = gen.records(N, seed=99)
    files = []
    per_file = N // FILES
    for k in range(FILES):
        path = tmp_path / f"part-{k}.jsonl"
        path.write_text("".join(r + "\n" for r in records[k * per_file : (k + 1) * per_file]), encoding="utf-8")
        files.append(str(path))
    expected = cli_findings(records, tmp_path / "all.jsonl")

    # The "text" loader keeps each record's raw JSON in a string column.
    ds = datasets.load_dataset("text", data_files=files, split="train", cache_dir=str(tmp_path / "cache"))
    assert len(ds) == N
    linted = ds.map(tcd.lint_batch, batched=True, num_proc=2, fn_kwargs={"threads": 1})
    assert linted["text"] == records  # order kept
    for i, found in enumerate(linted[tcd.FINDINGS_COLUMN]):
        assert [normalise(d, 0) for d in json.loads(found)] == expected[i], f"record {i}"
    clean = linted.filter(tcd.is_clean, batched=True, num_proc=2)
    assert len(clean) == sum(1 for e in expected if not e)

    # Records from Python objects work the same way.
    small = datasets.Dataset.from_list([{"text": r} for r in records[:300]])
    out = small.map(tcd.lint_batch, batched=True, batch_size=64, fn_kwargs={"select": "ALL"})
    assert [[normalise(d, 0) for d in json.loads(f)] for f in out[tcd.FINDINGS_COLUMN]] == expected[:300]


def test_datasets_fix_batch_repairs_as_the_command_line(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))
    import toolcheck.datasets as tcd
    from test_fix_many import cli_fix

    records = gen.records(2_000, seed=5)
    path = tmp_path / "part.jsonl"
    path.write_text("".join(r + "\n" for r in records), encoding="utf-8")
    expected = cli_fix(records, tmp_path / "all.jsonl")
    ds = datasets.load_dataset("text", data_files=[str(path)], split="train", cache_dir=str(tmp_path / "cache"))
    fixed = ds.map(tcd.fix_batch, batched=True, num_proc=2, fn_kwargs={"threads": 1})
    assert fixed["text"] == expected
    changed = [n > 0 for n in fixed[tcd.APPLIED_COLUMN]]
    assert 0 < sum(changed) < len(records)
    for was, now, did in zip(records, fixed["text"], changed):
        assert did or was == now
