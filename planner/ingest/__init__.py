"""Workloads from what a user's own account records: bills, inventories and access logs.

The modules, in the order a bill goes through them: ``rows`` (CSV, gzipped CSV and Parquet rows),
``decode`` (CUR and FOCUS columns to usage types), ``bill`` (rows summed into usage groups),
``workloads`` (groups to workload files), ``reconcile`` (groups priced beside the bill);
``inventory`` (an S3 Inventory report to a workload's storage) and ``accesslog`` (server access
logs to its traffic) stand beside them. The names below are the bill's public ones.

Cost and Usage Reports and FOCUS exports:

``read_bill`` streams one or more exports (legacy CUR CSV, CUR 2.0 / Data Exports, either as CSV,
gzipped CSV or Parquet, and FOCUS 1.x CSV) and sums the Amazon S3 rows into usage groups: one per
region (or bucket, where the export has resource ids), usage type and operation class, each with
the rows it came from. ``workloads`` turns the groups into workload files, every figure with its
provenance; ``reconcile`` prices each group with the matching price table and sets planner's
amount beside the bill's own.

How a bill is read (AWS's CUR data dictionary and usage-type names):
- storage ``UsageAmount`` is already GB-months (byte-hours / 2^30 / hours in the month), so a
  month's GB-months are its average stored GB;
- usage types carry a region prefix (``USW2-``; none for us-east-1): it is stripped, and the
  region is taken from ``product/regionCode`` (or ``product/fromRegionCode`` for transfer rows);
- control-plane requests (``ListAllMyBuckets``, bucket configuration) are billed among the
  data-plane ones: they are counted, but not as reads or writes;
- FOCUS rows are decoded to usage types, best first: AWS's FOCUS 1.0 export "with AWS columns"
  carries ``x_UsageType`` and ``x_Operation`` (the CUR's own values; AWS Data Exports table
  dictionary, FOCUS 1.0 with AWS columns), read exactly as a CUR's; otherwise a row's ``SkuId`` is
  looked up in an AWS Price List offer file the user gives (products by SKU, each with its
  ``attributes.usagetype`` and ``operation``); otherwise the row is classed from its
  ``PricingUnit`` and ``ChargeDescription`` (the price list's own wording), which is weaker. The
  notes say how many rows each way decoded.
"""

from __future__ import annotations

from planner.ingest.bill import bill_parts, read_bill
from planner.ingest.decode import GIB, REGION_PREFIXES, classify, sku_usage_types
from planner.ingest.models import (
    BadRow,
    Bill,
    IngestedWorkload,
    Kind,
    ReconcileLine,
    Reconciliation,
    UsageGroup,
)
from planner.ingest.reconcile import TableFinder, reconcile
from planner.ingest.rows import snake
from planner.ingest.workloads import workloads

__all__ = [
    "GIB",
    "REGION_PREFIXES",
    "BadRow",
    "Bill",
    "IngestedWorkload",
    "Kind",
    "ReconcileLine",
    "Reconciliation",
    "TableFinder",
    "UsageGroup",
    "bill_parts",
    "classify",
    "read_bill",
    "reconcile",
    "sku_usage_types",
    "snake",
    "workloads",
]
