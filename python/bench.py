"""Benchmark: toolcheck from Python against the command line, Python's own JSON parsing, and
Ray on 1 vs 2 CPUs, on the same generated records, in one run.

    python python/bench.py [--records 100000] [--cli target/release/toolcheck] [--no-ray]

Install the package first (`pip install .`, a release build). Prints a table and the ratios;
per-core throughput feeds docs/scale.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "tests"))

import gen  # noqa: E402

import toolcheck  # noqa: E402


def best_of(n: int, fn) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def ray_run(num_cpus: int, data_dir: str, expected_findings: int) -> float:
    import ray

    import toolcheck.ray as tcr

    ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        def run() -> None:
            ds = ray.data.read_text(data_dir)
            ds = ds.map_batches(tcr.LintBatches, batch_format="pyarrow", concurrency=num_cpus, batch_size=4096)
            total = ds.sum(tcr.COUNT_COLUMN)
            assert total == expected_findings, (total, expected_findings)

        run()  # warm-up: worker start-up and imports are not the steady state
        return best_of(2, run)
    finally:
        ray.shutdown()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--cli", default=os.environ.get("TOOLCHECK_BIN") or "target/release/toolcheck")
    ap.add_argument("--no-ray", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    records = gen.records(args.records, seed=args.seed)
    total_bytes = sum(len(r.encode()) for r in records)
    tmp = Path(tempfile.mkdtemp(prefix="toolcheck-bench-"))
    jsonl = tmp / "all.jsonl"
    jsonl.write_text("".join(r + "\n" for r in records), encoding="utf-8")
    parts = tmp / "parts"
    parts.mkdir()
    per = max(1, len(records) // 50)
    for k in range(0, len(records), per):
        (parts / f"part-{k // per:03d}.jsonl").write_text("".join(r + "\n" for r in records[k : k + per]))

    rows = []

    def row(name: str, seconds: float) -> float:
        rows.append((name, seconds))
        print(f"{name}: {seconds:.3f}s", flush=True)
        return seconds

    import resource

    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    batch = records[:4096]
    toolcheck.lint_many(batch, threads=2)
    rss_batch = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    found = toolcheck.lint_many(records, threads=2)
    rss_all = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    n_findings = sum(len(f) for f in found)
    t_many2 = row("lint_many, 2 threads", best_of(args.repeat, lambda: toolcheck.lint_many(records, threads=2)))
    t_many1 = row("lint_many, 1 thread", best_of(args.repeat, lambda: toolcheck.lint_many(records, threads=1)))
    def parse_all() -> None:
        for r in records:
            try:
                json.loads(r)
            except ValueError:
                pass

    t_json = row("json.loads loop (parse only)", best_of(args.repeat, parse_all))

    t_cli = None
    cli = shutil.which(args.cli) or (args.cli if os.path.exists(args.cli) else None)
    if cli:
        cmd = [cli, "lint", "--no-config", "--output-format", "json", "--quiet", "--exit-zero", str(jsonl)]

        def run_cli() -> None:
            out = subprocess.run(cmd, stdout=subprocess.PIPE, check=True).stdout
            assert len(json.loads(out)) == n_findings

        t_cli = row("CLI on the same JSONL (json output, 2 threads)", best_of(args.repeat, run_cli))

    t_ray1 = t_ray2 = None
    if not args.no_ray:
        t_ray1 = row("Ray Data, num_cpus=1", ray_run(1, str(parts), n_findings))
        t_ray2 = row("Ray Data, num_cpus=2", ray_run(2, str(parts), n_findings))

    n = len(records)
    print(f"\n{n} records, {total_bytes / 1e6:.1f} MB, {n_findings} findings, {os.cpu_count()} CPUs\n")
    print(f"| {'run':<48} | {'seconds':>8} | {'records/s':>10} |")
    print(f"|{'-' * 50}|{'-' * 10}|{'-' * 12}|")
    for name, s in rows:
        print(f"| {name:<48} | {s:>8.3f} | {n / s:>10,.0f} |")
    print()
    if t_cli:
        print(f"lint_many (2 threads) / CLI time:       {t_many2 / t_cli:.2f}x  (target <= 1.2)")
    print(f"json.loads / lint_many (2 threads) time: {t_json / t_many2:.2f}x  (target > 1: toolcheck faster)")
    print(f"lint_many 1 thread / 2 threads:          {t_many1 / t_many2:.2f}x")
    if t_ray1 and t_ray2:
        print(f"Ray 1 CPU / 2 CPUs:                      {t_ray1 / t_ray2:.2f}x  (target >= 1.7)")
    print(f"per-core throughput (lint_many, 1 thread): {n / t_many1:,.0f} records/s, {total_bytes / t_many1 / 1e6:.1f} MB/s")
    print(
        f"peak RSS: {rss_before / 1024:.0f} MB with the records loaded; +{(rss_batch - rss_before) / 1024:.0f} MB "
        f"for a 4096-record batch; +{(rss_all - rss_before) / 1024:.0f} MB for all {n} at once"
    )
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
