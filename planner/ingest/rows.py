"""Rows of a billing export, as (line or row number, columns by snake-case name): CSV, gzipped CSV or
Parquet (with the ``ingest`` extra)."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from planner.errors import InputError
from planner.files import check_input_file, open_stream, text_lines


def snake(column: str) -> str:
    """``lineItem/UsageType`` and ``line_item_usage_type`` to one name."""
    parts = column.strip().split("/")
    return "_".join(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", p).lower() for p in parts)


READ_COLUMNS = frozenset(
    {
        # Cost and Usage Report (CUR 1 and 2)
        "bill_billing_period_start_date",
        "line_item_line_item_type",
        "line_item_operation",
        "line_item_product_code",
        "line_item_resource_id",
        "line_item_unblended_cost",
        "line_item_unblended_rate",
        "line_item_usage_amount",
        "line_item_usage_type",
        "pricing_public_on_demand_cost",
        "pricing_unit",
        "product_from_region_code",
        "product_region_code",
        # FOCUS 1.x
        "billed_cost",
        "billing_period_start",
        "charge_category",
        "charge_description",
        "consumed_quantity",
        "consumed_unit",
        "list_cost",
        "list_unit_price",
        "region_id",
        "resource_id",
        "service_name",
        "sku_id",
        "x_operation",
        "x_usage_type",
    }
)
"""The columns a bill is read by (snake-case): each may appear once, or which one holds the
figures would be a guess."""


def read_rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """Rows as (line or row number, columns by snake-case name); CSV, gzipped CSV or Parquet. The
    first item, numbered 0, is the header alone: each column's snake-case name to its name in the
    file. A column read twice, or a NUL byte in a row, is an ``InputError`` naming it."""
    name = path.name.lower()
    if name.endswith(".parquet"):
        yield from _parquet_rows(path)
        return
    with open_stream(path, what="CSV export") as raw:  # plain, gzip, bzip2 or zstd; lines bounded
        nul_lines: list[int] = []
        reader = csv.reader(_watch_nul(text_lines(raw, source=str(path), what="CSV export"), nul_lines))
        try:
            header = next(reader)
        except StopIteration:
            raise InputError("the file is empty", source=str(path)) from None
        except (UnicodeDecodeError, csv.Error, OSError) as error:
            raise InputError(f"not a CSV export ({brief(error)})", source=str(path)) from None
        columns = _header(header, path)
        names = [snake(c) for c in header]
        if nul_lines:
            raise InputError("line 1: the header holds a NUL byte (a damaged or binary file)", source=str(path))
        yield 0, columns
        try:
            for row in reader:
                if nul_lines:
                    column = next((header[i] for i, v in enumerate(row) if "\x00" in v and i < len(header)), "?")
                    raise InputError(
                        f"line {reader.line_num}, column {column}: holds a NUL byte (a damaged or binary file)",
                        source=str(path),
                    )
                yield reader.line_num, dict(zip(names, row, strict=False))
        except (UnicodeDecodeError, csv.Error, OSError, EOFError) as error:
            raise InputError(f"unreadable at line {reader.line_num + 1} ({brief(error)})", source=str(path)) from None


def _watch_nul(lines: Iterable[str], found: list[int]) -> Iterator[str]:
    """The lines of a text, noting in ``found`` the first that holds a NUL byte (checked at C speed
    per line, so a clean file costs almost nothing)."""
    for number, line in enumerate(lines, 1):
        if "\x00" in line:
            found.append(number)
        yield line


def _header(header: Iterable[str], path: Path) -> dict[str, str]:
    """Each column's snake-case name to its name in the file; a column the bill is read by that
    appears twice is refused."""
    columns: dict[str, str] = {}
    for position, column in enumerate(header, 1):
        key = snake(column)
        if key in columns and key in READ_COLUMNS:
            raise InputError(
                f"column {column.strip()} appears twice (also as {columns[key]}, before column {position}):"
                " which one holds the figures is unknown",
                source=str(path),
            )
        columns[key] = column.strip()
    return columns


def _parquet_rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(
            "reading Parquet needs pyarrow: pip install 'objstore-planner[ingest]'", source=str(path)
        ) from None
    check_input_file(path, what="Parquet file")  # a FIFO would block pyarrow's open
    try:
        parquet = pq.ParquetFile(path)
    except Exception as error:  # pyarrow raises its own error types for a file that is not Parquet
        raise InputError(f"not a Parquet file ({brief(error)})", source=str(path)) from None
    header = list(parquet.schema_arrow.names)
    yield 0, _header(header, path)
    number = 0
    for batch in parquet.iter_batches(batch_size=65_536):
        columns = [snake(c) for c in batch.schema.names]
        for values in zip(*(col.to_pylist() for col in batch.columns), strict=True):
            number += 1
            texts = ["" if v is None else str(v) for v in values]
            if any("\x00" in v for v in texts):
                column = next(batch.schema.names[i] for i, v in enumerate(texts) if "\x00" in v)
                raise InputError(
                    f"row {number}, column {column}: holds a NUL byte (a damaged or binary file)", source=str(path)
                )
            yield number, dict(zip(columns, texts, strict=True))


def brief(error: BaseException) -> str:
    """An error's message on one line of at most 120 characters (its type where it has none)."""
    return " ".join(str(error).split())[:120] or type(error).__name__
