"""Ray Data helpers: add findings columns to a dataset of raw records, and keep clean rows.

Read the records as text (``ray.data.read_text`` on JSONL files, or a string column of a
Parquet file holding each conversation's JSON): ``ray.data.read_json`` parses records into
Arrow columns, and that unifies their schemas (keys missing in one record become nulls,
numbers change spelling, key order is lost) — the findings would be about a different
document. The raw text is what the provider received; lint that.

    import ray, toolcheck.ray
    ds = ray.data.read_text("s3://bucket/conversations/")           # column "text"
    ds = ds.map_batches(toolcheck.ray.lint_batch, fn_kwargs={"select": "TC1"},
                        batch_format="pyarrow")                     # one task per CPU
    ds = ds.map_batches(toolcheck.ray.LintBatches, fn_constructor_kwargs={"select": "TC1"},
                        batch_format="pyarrow",
                        compute=ray.data.ActorPoolStrategy(size=4))  # or actors
    clean = ds.filter(toolcheck.ray.is_clean)

Repair instead of filtering: ``fix_batch`` (or ``FixBatches``) replaces each record with its
repaired text (records with nothing to fix stay byte-identical) and adds what was fixed and
what remains:

    ds = ray.data.read_text("conversations/")
    ds = ds.map_batches(toolcheck.ray.fix_batch, batch_format="pyarrow")
    ds.write_parquet("repaired/")                                    # or write_json
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import toolcheck

#: Columns added to each batch.
FINDINGS_COLUMN = "toolcheck_findings"  # JSON text: the list of findings (JSON output's objects)
COUNT_COLUMN = "toolcheck_count"  # number of findings
ERRORS_COLUMN = "toolcheck_errors"  # number of error-severity findings
CODES_COLUMN = "toolcheck_codes"  # comma-separated codes, in order ("" when clean)
# Added by fix_batch (the columns above then describe what remains after the repair):
APPLIED_COLUMN = "toolcheck_applied"  # number of fixes applied
FIXED_COLUMN = "toolcheck_fixed"  # JSON text: the findings that were repaired
FIX_ERROR_COLUMN = "toolcheck_fix_error"  # why a record with fixes was left unchanged, or null


def _columns(found: Any) -> Dict[str, Any]:
    import json

    findings, counts, errors, codes = [], [], [], []
    for per_record in found:
        findings.append(json.dumps(per_record, ensure_ascii=False))
        counts.append(len(per_record))
        errors.append(sum(1 for d in per_record if d["severity"] == "error"))
        codes.append(",".join(d["code"] for d in per_record))
    return {FINDINGS_COLUMN: findings, COUNT_COLUMN: counts, ERRORS_COLUMN: errors, CODES_COLUMN: codes}


def lint_batch(batch: Any, *, column: str = "text", threads: Optional[int] = 1, **options: Any) -> Any:
    """Adds the findings columns to one batch: a ``pyarrow.Table`` (``batch_format="pyarrow"``,
    read in place), a pandas DataFrame, or a dict of columns (``"numpy"``)."""
    opts = toolcheck.options(**options)
    return _lint_batch(batch, column, opts, threads)


def _lint_batch(batch: Any, column: str, opts: Any, threads: Optional[int]) -> Any:
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover
        pa = None
    if pa is not None and isinstance(batch, pa.Table):
        found = toolcheck._arrow_findings(batch.column(column), opts, threads)
        cols = _columns(found)
        for name, values in cols.items():
            batch = batch.append_column(name, pa.array(values))
        return batch
    records = batch[column]
    records = [r if isinstance(r, (str, bytes)) else str(r) for r in records]
    with toolcheck._quiet_gc():
        found = toolcheck._toolcheck.lint_many(opts, records, toolcheck.RECORD_NAME, threads)
    cols = _columns(found)
    if hasattr(batch, "assign"):  # pandas
        return batch.assign(**cols)
    out = dict(batch)
    try:
        import numpy as np

        for name, values in cols.items():
            out[name] = np.asarray(values, dtype=object if name in (FINDINGS_COLUMN, CODES_COLUMN) else np.int64)
    except ImportError:  # pragma: no cover
        out.update(cols)
    return out


class LintBatches:
    """A callable class for ``Dataset.map_batches``: options are checked once per worker.

    ``ds.map_batches(LintBatches, fn_constructor_kwargs={"column": "text", "select": "TC1"},
    batch_format="pyarrow", compute=ray.data.ActorPoolStrategy(size=N))``
    """

    def __init__(self, *, column: str = "text", threads: Optional[int] = 1, **options: Any) -> None:
        self.column = column
        self.threads = threads
        self.opts = toolcheck.options(**options)

    def __call__(self, batch: Any) -> Any:
        return _lint_batch(batch, self.column, self.opts, self.threads)


def _fix_columns(records: List[Any], done: List[Any]) -> Dict[str, Any]:
    import json

    repaired, applied, fixed, errors = [], [], [], []
    for record, r in zip(records, done):
        if r.text is None:
            repaired.append(record)
        elif isinstance(record, (bytes, bytearray)):
            repaired.append(r.text.encode("utf-8"))
        else:
            repaired.append(r.text)
        applied.append(r.applied)
        fixed.append(json.dumps([f.to_dict() for f in r.fixed], ensure_ascii=False))
        errors.append(r.error)
    cols = _columns([[f.to_dict() for f in r.remaining] for r in done])
    cols.update({APPLIED_COLUMN: applied, FIXED_COLUMN: fixed, FIX_ERROR_COLUMN: errors})
    return {"__records__": repaired, **cols}


def fix_batch(
    batch: Any, *, column: str = "text", unsafe: bool = False, threads: Optional[int] = 1, **options: Any
) -> Any:
    """Repairs one batch: ``column`` is replaced by each record's repaired text (unchanged
    records keep their own value, byte for byte), and the columns ``toolcheck_applied``,
    ``toolcheck_fixed`` (JSON text), ``toolcheck_fix_error`` and the findings columns (what
    remains) are added. Safe fixes only unless ``unsafe=True``; other keyword arguments are
    :func:`toolcheck.options`' (``unpaired="remove-call"``, ``select``, ``target``…)."""
    opts = toolcheck.options(**options)
    return _fix_batch(batch, column, opts, unsafe, threads)


def _fix_batch(batch: Any, column: str, opts: Any, unsafe: bool, threads: Optional[int]) -> Any:
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover
        pa = None
    if pa is not None and isinstance(batch, pa.Table):
        records = batch.column(column).to_pylist()
        cols = _fix_columns(records, toolcheck.fix_many(records, unsafe=unsafe, options=opts, threads=threads))
        repaired = pa.array(cols.pop("__records__"), type=batch.schema.field(column).type)
        batch = batch.set_column(batch.schema.get_field_index(column), column, repaired)
        for name, values in cols.items():
            kind = pa.string() if name in (FIX_ERROR_COLUMN, FIXED_COLUMN, FINDINGS_COLUMN, CODES_COLUMN) else pa.int64()
            batch = batch.append_column(name, pa.array(values, type=kind))
        return batch
    records = list(batch[column])
    cols = _fix_columns(records, toolcheck.fix_many(records, unsafe=unsafe, options=opts, threads=threads))
    repaired = cols.pop("__records__")
    if hasattr(batch, "assign"):  # pandas
        return batch.assign(**{column: repaired}, **cols)
    out = dict(batch)
    try:
        import numpy as np

        out[column] = np.asarray(repaired, dtype=object)
        for name, values in cols.items():
            out[name] = np.asarray(values, dtype=np.int64 if name in (COUNT_COLUMN, ERRORS_COLUMN, APPLIED_COLUMN) else object)
    except ImportError:  # pragma: no cover
        out[column] = repaired
        out.update(cols)
    return out


class FixBatches:
    """A callable class for ``Dataset.map_batches`` that repairs: options are checked once per
    worker. ``ds.map_batches(FixBatches, fn_constructor_kwargs={"unsafe": False},
    batch_format="pyarrow", compute=ray.data.ActorPoolStrategy(size=N))``
    """

    def __init__(self, *, column: str = "text", unsafe: bool = False, threads: Optional[int] = 1, **options: Any) -> None:
        self.column = column
        self.unsafe = unsafe
        self.threads = threads
        self.opts = toolcheck.options(**options)

    def __call__(self, batch: Any) -> Any:
        return _fix_batch(batch, self.column, self.opts, self.unsafe, self.threads)


def is_clean(row: Dict[str, Any]) -> bool:
    """``Dataset.filter`` predicate: the row has no findings."""
    return int(row[COUNT_COLUMN]) == 0


def has_no_errors(row: Dict[str, Any]) -> bool:
    """``Dataset.filter`` predicate: the row has no error-severity findings (warnings allowed)."""
    return int(row[ERRORS_COLUMN]) == 0
