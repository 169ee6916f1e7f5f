"""The workload: what a user stores, reads and writes, and what it must achieve.

- ``parts``: storage, traffic, performance targets, the client and the constraints;
- ``model``: the ``Workload`` and its translation into a provider's billing units (``usage_for``);
- ``uncertain``: inputs given as ranges, their distributions and their draws;
- ``catalog``: the provider and class names a workload may use, given to validation as data;
- ``load``: reading a workload file (``load_workload``, ``parse_workload``);
- ``targets``: target rules that follow from the workload and a class's properties alone.

Every name below is importable from ``planner.workload``.
"""

from __future__ import annotations

from planner.workload.catalog import Catalog, shipped_catalog, with_catalog
from planner.workload.load import check_complete, load_workload, parse_workload
from planner.workload.model import SHARE_FIELDS, SIZE_FIELDS, Workload, at, format_field_value
from planner.workload.parts import (
    DAY_S,
    MAX_COUNT,
    MONTH_S,
    PLACEMENT_TOLERANCE,
    Client,
    CloudLocation,
    Constraints,
    HotObjects,
    Performance,
    RedundancyNeed,
    RequestsPerSecond,
    Share,
    SizeShare,
    Storage,
    Traffic,
    parse_request_rate,
    storage_class_ids,
)
from planner.workload.targets import restore_verdicts
from planner.workload.uncertain import Correlation, Uncertain, draw, find

__all__ = [
    "DAY_S",
    "MAX_COUNT",
    "MONTH_S",
    "PLACEMENT_TOLERANCE",
    "SHARE_FIELDS",
    "SIZE_FIELDS",
    "Catalog",
    "Client",
    "CloudLocation",
    "Constraints",
    "Correlation",
    "HotObjects",
    "Performance",
    "RedundancyNeed",
    "RequestsPerSecond",
    "Share",
    "SizeShare",
    "Storage",
    "Traffic",
    "Uncertain",
    "Workload",
    "at",
    "check_complete",
    "draw",
    "find",
    "format_field_value",
    "load_workload",
    "parse_request_rate",
    "parse_workload",
    "restore_verdicts",
    "shipped_catalog",
    "storage_class_ids",
    "with_catalog",
]
