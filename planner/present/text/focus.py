"""Forecast bills as FOCUS 1.2 rows, written as CSV or Parquet (``planner.costing.focus`` builds the rows).

``cost``, ``recommend`` and ``migrate`` present their bills here with ``--format focus``: a cost or
its projection as it is, a recommendation as every ranked option's month-by-month bill (``x_OptionId``
``provider:class``, with ``@region`` where one was named), a migration plan as the line items the
move itself adds, each in its month, at the side that bills it (``x_OptionId``
``STRATEGY/source/PROVIDER:CLASS`` or ``.../destination/...``).
"""

from __future__ import annotations

import datetime as dt
import io
import re
from collections.abc import Sequence
from decimal import ROUND_HALF_EVEN, Decimal

from planner.costing.bills import CostProjection
from planner.costing.focus import COLUMNS, DATETIME_COLUMNS, DECIMAL_COLUMNS, FocusRow, bill_rows, projection_rows
from planner.decide.migration import MigrationPlan
from planner.decide.recommendation import Recommendation
from planner.errors import InputError
from planner.present.text.tables import csv_text
from planner.pricing.breakdown import CostBreakdown

PARQUET_SCALE = 18
"""Decimal places of the Parquet decimal columns (decimal128(38, 18)): money to a billionth of a
billionth of a dollar, quantities to 10**20 units."""


def cost_rows(result: CostBreakdown | CostProjection, account_name: str) -> list[FocusRow]:
    """A month's bill, or every month of a projection, as FOCUS rows."""
    if isinstance(result, CostProjection):
        return projection_rows(result, account_name=account_name)
    start = result.as_of or dt.date.today()
    return bill_rows(result, start=start, account_name=account_name)


def recommendation_rows(result: Recommendation) -> list[FocusRow]:
    """Every ranked option's bill over the horizon (its first month where it has no projection)."""
    rows: list[FocusRow] = []
    for option in result.ranking:
        option_id = f"{option.provider}:{option.storage_class}" + (f"@{option.region}" if option.region else "")
        if option.projection is not None:
            rows += projection_rows(option.projection, account_name=result.workload.name, option_id=option_id)
        else:
            start = option.cost.as_of or result.as_of
            rows += bill_rows(option.cost, start=start, account_name=result.workload.name, option_id=option_id)
    return rows


_MONTH_SIDE = re.compile(r"^month (\d+), (source|destination): ")


def migration_rows(plan: MigrationPlan) -> list[FocusRow]:
    """The line items the move adds (``plan.one_time``), each in its month at the side that bills it."""
    starts = [month.as_of for month in plan.timeline]
    rows: list[FocusRow] = []
    for item in plan.one_time:
        match = _MONTH_SIDE.match(item.description)
        if match is None:  # every one-time line is labelled "month N, side: ..." by the plan
            raise ValueError(f"a migration line without its month and side: {item.description!r}")
        index, side = int(match.group(1)) - 1, match.group(2)
        endpoint = plan.source if side == "source" else plan.destination
        provider, _, storage_class = endpoint.partition(":")
        start = starts[index]
        bill = CostBreakdown(
            provider=provider,
            storage_class=storage_class,
            table_version=item.table_version,
            as_of=start,
            line_items=[item],
            total_usd=item.amount_usd,
        )
        rows += bill_rows(bill, start=start, account_name=plan.workload, option_id=f"{plan.strategy}/{side}/{endpoint}")
    return rows


def _cell(column: str, value: object) -> object:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, Decimal):
        return format(value, "f")
    return value


def focus_csv(rows: Sequence[FocusRow]) -> str:
    """FOCUS rows as CSV: every column of ``COLUMNS`` in order, a null an empty cell, date-times
    ``YYYY-MM-DDTHH:MM:SSZ``, decimals without exponent or thousands separator."""
    return csv_text(COLUMNS, ([_cell(c, row.get(c)) for c in COLUMNS] for row in rows))


def focus_parquet(rows: Sequence[FocusRow]) -> bytes:
    """FOCUS rows as a Parquet file: decimals as decimal128(38, 18), date-times as UTC timestamps,
    text as strings (needs pyarrow: the ``ingest`` extra)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(
            "writing Parquet needs pyarrow: pip install 'objstore-planner[ingest]', or write CSV (--out FILE.csv)",
            source="--out",
        ) from None
    quantum = Decimal(1).scaleb(-PARQUET_SCALE)
    fields, arrays = [], []
    for column in COLUMNS:
        values: list[object] = [row.get(column) for row in rows]
        if column in DECIMAL_COLUMNS:
            kind = pa.decimal128(38, PARQUET_SCALE)
            values = [v.quantize(quantum, ROUND_HALF_EVEN) if isinstance(v, Decimal) else v for v in values]
        elif column in DATETIME_COLUMNS:
            kind = pa.timestamp("s", tz="UTC")
        else:
            kind = pa.string()
        fields.append(pa.field(column, kind))
        arrays.append(pa.array(values, type=kind))
    table = pa.Table.from_arrays(arrays, schema=pa.schema(fields))
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def focus_file(rows: Sequence[FocusRow], name: str) -> str | bytes:
    """The rows as the file ``name`` asks for: Parquet for ``.parquet``, else CSV."""
    return focus_parquet(rows) if name.lower().endswith(".parquet") else focus_csv(rows) + "\n"
