"""Rows of a billing export, as (line or row number, columns by snake-case name): CSV, gzipped CSV or
Parquet (with the ``ingest`` extra)."""

from __future__ import annotations

import csv
import gzip
import io
import re
from collections.abc import Iterator
from pathlib import Path

from planner.errors import InputError


def snake(column: str) -> str:
    """``lineItem/UsageType`` and ``line_item_usage_type`` to one name."""
    parts = column.strip().split("/")
    return "_".join(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", p).lower() for p in parts)


def read_rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """Rows as (line or row number, columns by snake-case name); CSV, gzipped CSV or Parquet. The
    first item, numbered 0, is the header alone (every column empty)."""
    name = path.name.lower()
    if name.endswith(".parquet"):
        yield from _parquet_rows(path)
        return
    with (
        gzip.open(path, "rb") if name.endswith(".gz") else path.open("rb") as raw,
        io.TextIOWrapper(raw, encoding="utf-8-sig", newline="") as text,
    ):
        reader = csv.reader(text)
        try:
            header = next(reader)
        except StopIteration:
            raise InputError("the file is empty", source=str(path)) from None
        except (UnicodeDecodeError, csv.Error, OSError) as error:
            raise InputError(f"not a CSV export ({brief(error)})", source=str(path)) from None
        names = [snake(c) for c in header]
        yield 0, dict.fromkeys(names, "")
        try:
            for row in reader:
                yield reader.line_num, dict(zip(names, row, strict=False))
        except (UnicodeDecodeError, csv.Error, OSError, EOFError) as error:
            raise InputError(f"unreadable at line {reader.line_num + 1} ({brief(error)})", source=str(path)) from None


def _parquet_rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(
            "reading Parquet needs pyarrow: pip install 'objstore-planner[ingest]'", source=str(path)
        ) from None
    try:
        parquet = pq.ParquetFile(path)
    except Exception as error:  # pyarrow raises its own error types for a file that is not Parquet
        raise InputError(f"not a Parquet file ({brief(error)})", source=str(path)) from None
    yield 0, dict.fromkeys((snake(c) for c in parquet.schema_arrow.names), "")
    number = 0
    for batch in parquet.iter_batches(batch_size=65_536):
        columns = [snake(c) for c in batch.schema.names]
        for values in zip(*(col.to_pylist() for col in batch.columns), strict=True):
            number += 1
            yield number, {c: "" if v is None else str(v) for c, v in zip(columns, values, strict=True)}


def brief(error: BaseException) -> str:
    """An error's message on one line of at most 120 characters (its type where it has none)."""
    return " ".join(str(error).split())[:120] or type(error).__name__
