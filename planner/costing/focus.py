"""planner's forecast bills as FOCUS 1.2 rows (FinOps Open Cost and Usage Specification), so a forecast
loads beside real bills in any FOCUS tool and is reconciled with them line by line.

One row per line item of a month's bill, ``ChargeCategory`` Usage. Each row is a plain mapping from
the FOCUS column name to its value (``Decimal`` money and quantities, ``datetime`` in UTC, text or
None); ``planner.present.text.focus`` writes them as CSV or Parquet. The conventions, from the FOCUS
1.2 column and attribute definitions (https://github.com/FinOps-Open-Cost-and-Usage-Spec/FOCUS_Spec,
``specification/columns`` and ``specification/attributes``, tag v1.2):

- ``PricingUnit`` is the provider's own billing unit in the Unit Format attribute's spelling: a table
  whose GB is 2**30 bytes (AWS, Wasabi: ``billing.units``) bills ``GiB-Months`` and ``GiB``, one whose
  GB is 10**9 bytes ``GB-Months``; a price per 1,000 requests is ``1000 Requests``. ``ConsumedUnit``
  is the same unit without the block (``Requests``), ``ConsumedQuantity`` the count in it.
- ``ListCost`` is ``ListUnitPrice`` x ``PricingQuantity`` at the table's price; ``ContractedCost`` and
  ``ContractedUnitPrice`` carry a negotiated discount (a workload's ``discounts``); ``BilledCost`` and
  ``EffectiveCost`` are the line's amount as the provider's invoice rounds it (no commitment is
  amortised), so the rows' ``BilledCost`` adds up to the bill's total.
- A forecast month is its own billing period: ``BillingPeriodStart`` = ``ChargePeriodStart`` = the
  month's first day, the ends the next month's first day (exclusive), midnight UTC.
- A forecast has no billing account: ``BillingAccountId`` is ``planner-forecast``, its name the
  workload's name. ``SkuId`` names the priced item in planner's tables (provider, region, class and
  line kind), ``SkuPriceId`` that item at the table version and unit price the line used
  (``aws-s3/us-east-1/standard/storage/aws-s3@2025-12-01/0.023``); ``SkuPriceDetails`` is that price's
  properties as a JSON object (KeyValueFormat), its one key provider-defined and so ``x_``-prefixed:
  ``{"x_StorageClass": "standard"}``. FOCUS makes the column mandatory where a provider publishes
  unit prices in a price list, as every table here does.
- ``InvoiceId`` is present (a recommended column) and null on every row: a forecast line belongs to no
  issued or provisional invoice, and FOCUS requires null then.
- planner's own columns are ``x_``-prefixed: ``x_OptionId`` (which option or side of a plan the row
  belongs to), ``x_TableVersion``, ``x_PriceStatus`` (verified-primary, verified-secondary or
  unverified) and ``x_LineCategory`` (planner's category of the line: storage, egress, requests...);
  ``x_PriceField`` (the field of the table version the unit price is), ``x_PriceReadOn`` (the day that
  price's quote was read, YYYY-MM-DD), ``x_PriceQuoted`` (true, or false for a price with no quote) and
  ``x_PriceStale`` (true for a reading older than 12 months on the day the rows are written); all four
  null on a line at no price of a table (a free allowance).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import TypeAlias

from planner.costing.bills import CostProjection, add_months
from planner.errors import PricingError
from planner.pricing import catalog
from planner.pricing.breakdown import CostBreakdown, LineItem, stale_before
from planner.pricing.models import PriceTable

FOCUS_VERSION = "1.2"

MANDATORY_COLUMNS: tuple[str, ...] = (
    "BilledCost",
    "BillingAccountId",
    "BillingAccountName",
    "BillingCurrency",
    "BillingPeriodEnd",
    "BillingPeriodStart",
    "ChargeCategory",
    "ChargeClass",
    "ChargeDescription",
    "ChargePeriodEnd",
    "ChargePeriodStart",
    "ContractedCost",
    "EffectiveCost",
    "InvoiceIssuerName",
    "ListCost",
    "PricingQuantity",
    "PricingUnit",
    "ProviderName",
    "PublisherName",
    "ServiceCategory",
    "ServiceName",
)
"""The 21 columns FOCUS 1.2 makes mandatory (each column file's "Feature level: Mandatory")."""

COLUMNS: tuple[str, ...] = (
    *MANDATORY_COLUMNS,
    # recommended
    "ChargeFrequency",
    "InvoiceId",
    "ServiceSubcategory",
    # conditional: present because a forecast line has them
    "ConsumedQuantity",
    "ConsumedUnit",
    "ContractedUnitPrice",
    "ListUnitPrice",
    "PricingCategory",
    "RegionId",
    "RegionName",
    "SkuId",
    "SkuMeter",
    "SkuPriceDetails",
    "SkuPriceId",
    # planner's own
    "x_OptionId",
    "x_TableVersion",
    "x_PriceStatus",
    "x_LineCategory",
    "x_PriceField",
    "x_PriceReadOn",
    "x_PriceQuoted",
    "x_PriceStale",
)
"""Every column written, in order."""

DECIMAL_COLUMNS = frozenset(
    {
        "BilledCost",
        "ConsumedQuantity",
        "ContractedCost",
        "ContractedUnitPrice",
        "EffectiveCost",
        "ListCost",
        "ListUnitPrice",
        "PricingQuantity",
    }
)
DATETIME_COLUMNS = frozenset({"BillingPeriodEnd", "BillingPeriodStart", "ChargePeriodEnd", "ChargePeriodStart"})

Value: TypeAlias = Decimal | dt.datetime | str | None
FocusRow: TypeAlias = dict[str, Value]

BILLING_ACCOUNT_ID = "planner-forecast"

_METERS: Mapping[str, str] = {
    "storage": "Storage",
    "egress": "Data Transfer Out",
    "transfer": "Inter-Region Data Transfer",
    "requests": "Requests",
    "retrieval": "Data Retrieval",
    "minimum": "Minimum Charge",
    "early_deletion": "Early Deletion",
    "free_allowance": "Free Allowance",
    "other": "Other",
}

_BLOCK = re.compile(r"^(\d[\d,]*)\s+(.+)$")
_TIME_UNITS = {"hour": "Hours", "day": "Days", "month": "Months", "year": "Years"}
_ZERO = Decimal(0)


def _unit_bytes(table: PriceTable) -> dict[str, int]:
    """The bytes of the table's "GB" and "TB": as ``billing.units`` states them, else as its storage
    and egress prices do, else decimal."""
    units = table.billing.units
    if units is not None:
        return {"GB": units.gb_bytes, "TB": units.tb_bytes}
    found = {"GB": 10**9, "TB": 10**12}
    priced = [table.egress.internet, *(c.storage for c in table.classes.values())]
    for price in priced:
        name = price.unit.split("-")[0].strip()
        if name in found:
            found[name] = price.unit_bytes
    return found


_BINARY = {"GB": "GiB", "TB": "TiB", "PB": "PiB", "MB": "MiB", "KB": "KiB"}


def _base_unit(word: str, unit_bytes: Mapping[str, int]) -> str:
    """One base unit in the Unit Format spelling: a data size as the provider bills it (GiB for a
    2**30-byte GB), a time unit plural, a count a capitalised plural noun."""
    if word in unit_bytes:
        return _BINARY[word] if unit_bytes[word] in (2**30, 2**40) else word
    if word in _BINARY.values() or word in _BINARY:
        return word
    lower = word.lower().rstrip("s")
    if lower in _TIME_UNITS:
        return _TIME_UNITS[lower]
    plural = word if word.endswith("s") else word + "s"
    return plural[:1].upper() + plural[1:]


def focus_unit(unit: str, unit_bytes: Mapping[str, int]) -> tuple[str, int]:
    """A line's unit as FOCUS writes it, and its block (``1,000 requests`` is ("1000 Requests", 1000));
    ``GB-month`` at a provider whose GB is 2**30 bytes is ("GiB-Months", 1)."""
    text = unit.strip()
    block = 1
    match = _BLOCK.match(text)
    if match:
        block = int(match.group(1).replace(",", ""))
        text = match.group(2)
    parts = [p.strip() for p in text.split("-") if p.strip()]
    if len(parts) == 2:
        first = _base_unit(parts[0], unit_bytes)
        if first.endswith("s") and first not in _BINARY.values():
            first = first[:-1]  # a compound unit's first part is singular: "Bucket-Months"
        name = f"{first}-{_base_unit(parts[1], unit_bytes)}"
    else:
        name = _base_unit(" ".join(parts), unit_bytes)
    return (f"{block} {name}" if block != 1 else name), block


def _provider_table(provider: str, day: dt.date | None, region: str | None) -> PriceTable:
    """The table that states the provider's billing units and name (the one in force, else its latest)."""
    try:
        return catalog.table_for(provider, day, region)
    except PricingError:
        return catalog.versions(provider, region)[-1]


def _midnight(day: dt.date) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)


def _line_class(bill: CostBreakdown, item: LineItem, table: PriceTable) -> str:
    """The storage class a line bills: the bill's, or in a placement's bill ("standard + glacier-ir")
    the class the line's description names (``planner.costing.bills`` names it on every line)."""
    classes = [c.strip() for c in bill.storage_class.split("+")]
    if len(classes) == 1:
        return classes[0]
    named = [c for c in classes if c in table.classes and table.classes[c].name in item.description]
    # the longest name wins: "S3 Standard-IA" holds "S3 Standard"
    return max(named, key=lambda c: len(table.classes[c].name)) if named else bill.storage_class.replace(" ", "")


def _sku(bill: CostBreakdown, item: LineItem, region: str, storage_class: str) -> str:
    """planner's name for the priced item: provider/region/class/kind (a request line adds its class)."""
    kind = item.category.replace("_", "-")
    if item.category == "requests" and " requests" in item.description:
        request_class = item.description.split(" requests")[0].rsplit(": ", 1)[-1].strip()
        kind = f"{kind}/{request_class.replace(' ', '-')}"
    return f"{bill.provider}/{region}/{storage_class}/{kind}"


def focus_names(provider: str, table: PriceTable) -> tuple[str, str]:
    """ProviderName and ServiceName of ``provider``'s rows: as its tables' ``display.focus`` gives them (AWS's
    own FOCUS export names S3 "Amazon Simple Storage Service"), else the table's provider_name for both."""
    shown = catalog.display(provider)
    if shown is None or shown.focus is None:
        return table.provider_name, table.provider_name
    return shown.focus.provider, shown.focus.service


def line_row(
    bill: CostBreakdown,
    item: LineItem,
    *,
    start: dt.date,
    end: dt.date,
    account_name: str,
    option_id: str,
    table: PriceTable | None = None,
) -> FocusRow:
    """One line item of ``bill`` as a FOCUS row for the forecast month [start, end)."""
    table = table or _provider_table(bill.provider, bill.as_of, bill.region)
    provider_name, service_name = focus_names(bill.provider, table)
    pricing_unit, block = focus_unit(item.unit, _unit_bytes(table))
    consumed_unit = pricing_unit.split(" ", 1)[1] if block != 1 else pricing_unit
    # the bill's own product (quantity x unit price, less the discount) where it has one, so that
    # without a discount ListCost and ContractedCost are the same number to the last digit
    contracted_price = item.unit_price_usd * (1 - item.discount) if item.discount else item.unit_price_usd
    exact = item.amount_unrounded_usd
    contracted = exact if exact is not None else item.quantity * contracted_price
    list_cost = contracted if exact is not None and not item.discount else item.quantity * item.unit_price_usd
    region = bill.region or table.region
    storage_class = _line_class(bill, item, table)
    sku = _sku(bill, item, region, storage_class)
    period_start, period_end = _midnight(start), _midnight(end)
    row: FocusRow = {
        "BilledCost": item.amount_usd,
        "BillingAccountId": BILLING_ACCOUNT_ID,
        "BillingAccountName": account_name,
        "BillingCurrency": bill.currency,
        "BillingPeriodEnd": period_end,
        "BillingPeriodStart": period_start,
        "ChargeCategory": "Usage",
        "ChargeClass": None,
        "ChargeDescription": item.description,
        "ChargePeriodEnd": period_end,
        "ChargePeriodStart": period_start,
        "ContractedCost": contracted,
        "EffectiveCost": item.amount_usd,
        "InvoiceIssuerName": provider_name,
        "ListCost": list_cost,
        "PricingQuantity": item.quantity,
        "PricingUnit": pricing_unit,
        "ProviderName": provider_name,
        "PublisherName": provider_name,
        "ServiceCategory": "Storage",
        "ServiceName": service_name,
        "ChargeFrequency": "Usage-Based",
        "InvoiceId": None,
        "ServiceSubcategory": "Object Storage",
        "ConsumedQuantity": item.quantity * block,
        "ConsumedUnit": consumed_unit,
        "ContractedUnitPrice": contracted_price,
        "ListUnitPrice": item.unit_price_usd,
        "PricingCategory": "Standard",
        "RegionId": region,
        "RegionName": region,
        "SkuId": sku,
        "SkuMeter": _METERS.get(item.category, "Other"),
        "SkuPriceDetails": json.dumps({"x_StorageClass": storage_class}),
        "SkuPriceId": f"{sku}/{item.table_version}/{format(item.unit_price_usd, 'f')}",
        "x_OptionId": option_id,
        "x_TableVersion": item.table_version,
        "x_PriceStatus": item.price_status.value,
        "x_LineCategory": item.category,
        **_reading(item),
    }
    return row


def _reading(item: LineItem) -> FocusRow:
    """The price a line rests on and when its quote was read (all null for a line at no price of a table)."""
    if item.price_field is None:
        return {"x_PriceField": None, "x_PriceReadOn": None, "x_PriceQuoted": None, "x_PriceStale": None}
    read = item.price_read_on
    stale = None if read is None else str(read < stale_before(dt.date.today())).lower()
    return {
        "x_PriceField": item.price_field,
        "x_PriceReadOn": None if read is None else read.isoformat(),
        "x_PriceQuoted": "true" if read is not None else "false",
        "x_PriceStale": stale,
    }


def bill_rows(
    bill: CostBreakdown,
    *,
    start: dt.date,
    account_name: str,
    option_id: str | None = None,
) -> list[FocusRow]:
    """Every line item of one month's bill as FOCUS rows, in the calendar month that holds ``start``: a
    provider bills calendar months, from the 1st at midnight UTC to the next month's 1st (a forecast
    month that begins on the 6th is billed in the period of the month it begins in)."""
    table = _provider_table(bill.provider, bill.as_of, bill.region)
    option = option_id or f"{bill.provider}:{bill.storage_class.replace(' ', '')}"
    first = start.replace(day=1)
    last = add_months(first, 1)
    return [
        line_row(bill, item, start=first, end=last, account_name=account_name, option_id=option, table=table)
        for item in bill.line_items
    ]


def projection_rows(projection: CostProjection, *, account_name: str, option_id: str | None = None) -> list[FocusRow]:
    """Every month of a projection as FOCUS rows, each in its calendar month."""
    rows: list[FocusRow] = []
    for month in projection.months:
        rows += bill_rows(month.cost, start=month.as_of, account_name=account_name, option_id=option_id)
    return rows


__all__ = [
    "COLUMNS",
    "FOCUS_VERSION",
    "MANDATORY_COLUMNS",
    "FocusRow",
    "bill_rows",
    "focus_unit",
    "line_row",
    "projection_rows",
]
