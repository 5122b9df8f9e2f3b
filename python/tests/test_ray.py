"""Ray Data on a local cluster: findings columns over 20,000 generated conversations in many
JSONL files equal the command line's on the same records, and the clean-row filter keeps
exactly the records the command line finds nothing in."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import gen
from conftest import cli_findings, normalise

ray = pytest.importorskip("ray")

N = 20_000
FILES = 40


@pytest.fixture(scope="module")
def cluster():
    os.environ.setdefault("RAY_DISABLE_USAGE_STATS", "1")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def test_ray_data_findings_equal_cli(cluster, tmp_path: Path):
    import toolcheck.ray as tcr

    records = gen.records(N, seed=2026)
    data = tmp_path / "data"
    data.mkdir()
    per_file = N // FILES
    for k in range(FILES):
        chunk = records[k * per_file : (k + 1) * per_file]
        (data / f"part-{k:03d}.jsonl").write_text("".join(r + "\n" for r in chunk), encoding="utf-8")
    expected = cli_findings(records, tmp_path / "all.jsonl")
    index = {r: i for i, r in enumerate(records)}
    assert len(index) == N

    # read_text keeps each record's raw text (read_json would parse it into columns).
    ds = ray.data.read_text(str(data))
    linted = ds.map_batches(tcr.lint_batch, batch_format="pyarrow")
    rows = linted.take_all()
    assert len(rows) == N
    seen = set()
    for row in rows:
        i = index[row["text"]]
        seen.add(i)
        found = [normalise(d, 0) for d in json.loads(row[tcr.FINDINGS_COLUMN])]
        assert found == expected[i], f"record {i}"
        assert row[tcr.COUNT_COLUMN] == len(expected[i])
        assert row[tcr.CODES_COLUMN] == ",".join(d["code"] for d in expected[i])
    assert len(seen) == N

    clean = linted.filter(tcr.is_clean)
    assert clean.count() == sum(1 for e in expected if not e)
    assert 0 < clean.count() < N

    # The callable class on an actor, with numpy batches and options given once.
    few = ray.data.read_text(str(data / "part-000.jsonl")).map_batches(
        tcr.LintBatches,
        batch_format="numpy",
        fn_constructor_kwargs={"select": "ALL"},
        compute=ray.data.ActorPoolStrategy(size=1),
    )
    for row in few.take_all():
        assert [normalise(d, 0) for d in json.loads(row[tcr.FINDINGS_COLUMN])] == expected[index[row["text"]]]


def test_ray_data_repairs_and_writes_parquet(cluster, tmp_path: Path):
    """read → fix → write Parquet: every repaired record lints clean of fixable findings, clean
    records come back byte-identical, and the repairs are the command line's."""
    import pyarrow.parquet as pq

    import toolcheck
    import toolcheck.ray as tcr
    from test_fix_many import cli_fix

    records = gen.records(4_000, seed=31)
    data = tmp_path / "data"
    data.mkdir()
    for k in range(4):
        chunk = records[k * 1_000 : (k + 1) * 1_000]
        (data / f"part-{k}.jsonl").write_text("".join(r + "\n" for r in chunk), encoding="utf-8")
    expected = dict(zip(records, cli_fix(records, tmp_path / "all.jsonl")))
    before = {r: f for r, f in zip(records, toolcheck.lint_many(records))}

    ds = ray.data.read_text(str(data)).map_batches(tcr.fix_batch, batch_format="pyarrow")
    ds.write_parquet(str(tmp_path / "out"))
    table = pq.read_table(str(tmp_path / "out"))
    assert table.num_rows == len(records)
    rows = table.to_pylist()
    repaired = [row["text"] for row in rows]
    after = toolcheck.lint_many(repaired)
    fixed = 0
    for row, found in zip(rows, after):
        assert not any(f.fix and f.fix["applicability"] == "safe" for f in found)
        assert row[tcr.COUNT_COLUMN] == len(found)
        assert row[tcr.FIX_ERROR_COLUMN] is None
        fixed += row[tcr.APPLIED_COLUMN] > 0
    assert 0 < fixed < len(records)
    # Map outputs back to inputs through the command line's repair of each record.
    by_output = {}
    for original, want in expected.items():
        by_output.setdefault(want, []).append(original)
    for row in rows:
        originals = by_output[row["text"]]
        if row[tcr.APPLIED_COLUMN] == 0:
            assert row["text"] in originals  # unchanged: the record itself
            assert not any(f.fix and f.fix["applicability"] == "safe" for f in before[row["text"]])
        else:
            assert json.loads(row[tcr.FIXED_COLUMN])

    # Actors, numpy batches, unsafe fixes opted in: nothing fixable is left at all.
    few = ray.data.read_text(str(data / "part-0.jsonl")).map_batches(
        tcr.FixBatches,
        batch_format="numpy",
        fn_constructor_kwargs={"unsafe": True},
        compute=ray.data.ActorPoolStrategy(size=1),
    )
    for found in toolcheck.lint_many([row["text"] for row in few.take_all()]):
        assert not any(f.fix for f in found)
