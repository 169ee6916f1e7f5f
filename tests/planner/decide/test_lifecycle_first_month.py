"""Objects written in the first month move, and their transitions are billed, in that month.

Before, month 1's writes were billed as PUTs and then held in no class in any month, so a 0-day rule into
S3 Intelligent-Tiering (or any rule whose age falls inside month 1) billed no transition in month 1. Three
rule ages: 0 days, 10 days (inside month 1) and 45 days (month 2). Prices, aws-s3@2025-12-01 (us-east-1)
in force on 2026-12-01, as its quotes give them (aws.amazon.com/s3/pricing, read 2026-12-05):
"S3 Standard | PUT, COPY, POST, LIST requests (per 1,000 requests): $0.005"; "S3 Standard | First 50 TB /
Month: $0.023 per GB"; "S3 Intelligent-Tiering | Lifecycle transition requests into (per 1,000 requests):
$0.01"; "S3 Intelligent-Tiering | Monitoring and Automation, All Storage / Month (Objects > 128 KB): $0.0025
per 1,000 objects"; "S3 Standard-Infrequent Access | All Storage / Month: $0.0125 per GB" and its
"Lifecycle transition requests into (per 1,000 requests): $0.01". GB = 2^30 bytes; a month is 30 days; AWS
lines round half-up to the cent.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

from planner.costing.lifecycle_bills import price_lifecycle
from planner.workload import parse_workload

D = Decimal
DEC_2026 = dt.date(2026, 12, 1)
# 100,000 objects of 1 MiB written a month = 100,000 MiB = 97.65625 GB
WRITTEN_GB = D(100_000) / 1024


def _written(after: str, to: str) -> Any:
    return parse_workload(
        {
            "name": "new objects only",
            "storage": {"stored": "0 B", "object_size": "1 MiB", "lifecycle": [{"after": after, "to": to}]},
            "traffic": {"writes": 100000, "reads": 0},
        },
        "w.yaml",
    )


def _month(cost: Any, month: int) -> dict[str, Decimal]:
    return {i.description.split(": ", 1)[1]: i.amount_usd for i in cost.months[month - 1].line_items}


PUT = "tier-1 requests (put)"
MOVES = "lifecycle-transition requests (lifecycle-transition)"


def test_a_0_day_rule_into_intelligent_tiering_bills_its_transitions_in_month_1() -> None:
    cost = price_lifecycle(_written("0d", "intelligent-tiering"), "aws-s3", as_of=DEC_2026, months=2)
    first = _month(cost, 1)
    # 100,000 PUTs x $0.005 / 1,000 = $0.50; 100,000 moves x $0.01 / 1,000 = $1.00; the month's objects sit in
    # Intelligent-Tiering all month: 97.65625 GB x $0.023 = $2.246 -> $2.25; 100 thousand objects monitored x
    # $0.0025 = $0.25. Total $4.00.
    assert round(WRITTEN_GB * D("0.023"), 2) == D("2.25")
    assert first == {
        PUT: D("0.50"),
        "S3 Intelligent-Tiering storage (frequent access), first 51,200 GB-month": D("2.25"),
        "monitoring and automation: 100,000 objects of at least 131,072 bytes": D("0.25"),
        MOVES: D("1.00"),
    }
    assert cost.months[0].total_usd == D("4.00")
    # month 2: the new month's 100,000 moves again, $1.00, on top of both months' objects
    assert _month(cost, 2)[MOVES] == D("1.00")


def test_a_rule_at_an_age_inside_month_1_bills_its_transitions_in_month_1() -> None:
    cost = price_lifecycle(_written("10d", "standard-ia"), "aws-s3", as_of=DEC_2026, months=1)
    first = _month(cost, 1)
    # 10 days in Standard: 97.65625 GB x 10/30 = 32.552 GB x $0.023 = $0.749 -> $0.75; 20 days in Standard-IA:
    # 65.104 GB x $0.0125 = $0.814 -> $0.81; 100,000 moves x $0.01 / 1,000 = $1.00; PUTs $0.50. Total $3.06.
    assert round(WRITTEN_GB * 10 / 30 * D("0.023"), 2) == D("0.75")
    assert round(WRITTEN_GB * 20 / 30 * D("0.0125"), 2) == D("0.81")
    assert first[MOVES] == D("1.00")
    assert first[PUT] == D("0.50")
    assert cost.months[0].total_usd == D("3.06")


def test_a_rule_at_a_later_month_bills_nothing_in_month_1_and_the_moves_when_they_come() -> None:
    cost = price_lifecycle(_written("45d", "standard-ia"), "aws-s3", as_of=DEC_2026, months=3)
    # month 1: the objects are 0-30 days old, none 45: no move; all 30 days in Standard, 97.65625 GB x $0.023
    assert MOVES not in _month(cost, 1)
    assert _month(cost, 1)["S3 Standard storage, first 51,200 GB-month"] == D("2.25")
    # month 2: month 1's objects (30-60 days) cross 45 days: 100,000 moves, $1.00; month 2's do not
    assert _month(cost, 2)[MOVES] == D("1.00")
    assert _month(cost, 3)[MOVES] == D("1.00")


def test_a_policy_behind_a_cdn_is_priced_on_the_bucket_s_own_traffic() -> None:
    # examples/video-cdn.yaml: 200 TB a month served by CloudFront at a 95% hit ratio, 50,000,000 GETs. S3
    # sees the misses only, 2,500,000 GETs (2,500 x $0.0004 per 1,000 = $1.00), and "Free for origin
    # fetches from any AWS origin such as Amazon S3": no egress line on the bucket's bill at all.
    from planner.workload import load_workload

    workload = load_workload(Path(__file__).resolve().parents[3] / "examples" / "video-cdn.yaml")
    cost = price_lifecycle(workload, "aws-s3", months=1, as_of=dt.date(2026, 12, 5))
    lines = cost.months[0].line_items
    assert [(i.quantity, i.amount_usd) for i in lines if i.description.endswith("tier-2 requests (get)")] == [
        (D(2500), D("1.00"))
    ]
    assert not [i for i in lines if i.category == "egress"]
    assert cost.assumptions[0].startswith("delivery: 200 TB a month served by Amazon CloudFront")


def test_the_volume_stored_each_month_is_the_workload_s_whatever_its_retention() -> None:
    # A workload that states no writes grows as storage.stored and growth say (cost bills stored_bytes(m) in
    # month m); its writes replace what retention deletes. backup-archive: 500 TB, 10 TB a month, kept 1,095
    # days, so month 36 holds 850 TB (it held 1,046 TB when each month wrote the steady state's 10 TB plus
    # 1/36.5 of the month's volume while only the data stored at the start expired); data-lake: 1 PB, 20 TB a
    # month, no retention (month 1 held 1.02 PB, the first month's writes counted twice).
    from planner.workload import load_workload

    examples = Path(__file__).resolve().parents[3] / "examples"
    for name, months in (("backup-archive", 36), ("data-lake", 12)):
        workload = load_workload(examples / f"{name}.yaml")
        assert workload.traffic.writes is None and workload.traffic.ratio is None
        cost = price_lifecycle(workload, "idrive-e2", months=months, as_of=dt.date(2026, 12, 5))
        held = [m.stored_bytes for m in cost.months]
        # within a millionth: the stock is whole objects (storage.stored / object_size, rounded)
        assert all(abs(h - workload.stored_bytes(m)) <= workload.stored_bytes(m) / 10**6 for m, h in enumerate(held))
