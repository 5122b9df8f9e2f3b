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
