"""Hugging Face ``datasets`` helpers: findings columns for ``Dataset.map(batched=True)`` and a
predicate for ``Dataset.filter``.

Load the records as text so each row holds a conversation's raw JSON
(``load_dataset("text", data_files=...)`` on JSONL, or any string column); ``load_dataset("json")``
parses records into columns and unifies their schemas, so the text linted would not be the
text saved.

    from datasets import load_dataset
    import toolcheck.datasets as tcd
    ds = load_dataset("text", data_files="conversations/*.jsonl", split="train")
    ds = ds.map(tcd.lint_batch, batched=True, num_proc=8)
    clean = ds.filter(tcd.is_clean, batched=True)
    repaired = ds.map(tcd.fix_batch, batched=True)                  # or repair them
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import toolcheck
from toolcheck.ray import (
    APPLIED_COLUMN,
    CODES_COLUMN,
    COUNT_COLUMN,
    ERRORS_COLUMN,
    FINDINGS_COLUMN,
    FIX_ERROR_COLUMN,
    FIXED_COLUMN,
    _columns,
    _fix_columns,
)


def lint_batch(
    batch: Dict[str, List[Any]],
    *,
    column: str = "text",
    threads: Optional[int] = None,
    **options: Any,
) -> Dict[str, List[Any]]:
    """``Dataset.map(lint_batch, batched=True)``: returns the findings columns
    (``toolcheck_findings`` as JSON text, ``toolcheck_count``, ``toolcheck_errors``,
    ``toolcheck_codes``) for a batch. Pass options with ``fn_kwargs={...}``."""
    opts = toolcheck.options(**options)
    with toolcheck._quiet_gc():
        found = toolcheck._toolcheck.lint_many(opts, batch[column], toolcheck.RECORD_NAME, threads)
    return _columns(found)


def fix_batch(
    batch: Dict[str, List[Any]],
    *,
    column: str = "text",
    unsafe: bool = False,
    threads: Optional[int] = None,
    **options: Any,
) -> Dict[str, List[Any]]:
    """``Dataset.map(fix_batch, batched=True)``: ``column`` becomes each record's repaired text
    (unchanged records keep their value), plus ``toolcheck_applied``, ``toolcheck_fixed``
    (JSON text), ``toolcheck_fix_error`` and the findings columns for what remains. Safe
    fixes only unless ``unsafe=True`` (``fn_kwargs={"unsafe": True}``)."""
    opts = toolcheck.options(**options)
    records = list(batch[column])
    cols = _fix_columns(records, toolcheck.fix_many(records, unsafe=unsafe, options=opts, threads=threads))
    return {column: cols.pop("__records__"), **cols}


def is_clean(batch: Dict[str, List[Any]]) -> List[bool]:
    """``Dataset.filter(is_clean, batched=True)``: rows with no findings."""
    return [int(n) == 0 for n in batch[COUNT_COLUMN]]


def has_no_errors(batch: Dict[str, List[Any]]) -> List[bool]:
    """``Dataset.filter(has_no_errors, batched=True)``: rows with no error-severity findings."""
    return [int(n) == 0 for n in batch[ERRORS_COLUMN]]


__all__ = [
    "lint_batch",
    "fix_batch",
    "APPLIED_COLUMN",
    "FIXED_COLUMN",
    "FIX_ERROR_COLUMN",
    "is_clean",
    "has_no_errors",
    "FINDINGS_COLUMN",
    "COUNT_COLUMN",
    "ERRORS_COLUMN",
    "CODES_COLUMN",
]
