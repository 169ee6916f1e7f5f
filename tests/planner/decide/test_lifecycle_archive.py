"""Intelligent-Tiering's opt-in archive tiers (``storage.intelligent_tiering``) priced month by month, by hand.

Prices (aws-s3 table of 2025-12-01 in force on 2026-12-01; the tiers' prices come from its 2021-11-30 base):
Intelligent-Tiering Frequent Access $0.023/GB-month (GB = 2^30; aws.amazon.com/s3/pricing, pricing-research.md
INTELLIGENT_TIERING frequent_access), Infrequent Access $0.0125 after 30 days unread (infrequent_access),
Archive Access $0.0036 (archive_access_optin), Deep Archive Access $0.00099 (deep_archive_access_optin),
monitoring $0.0025 per 1,000 objects of 128 KiB or more (monitoring_per_1000_objects_month), GET $0.0004 per
1,000 (requests_per_1000 get_select_other); AWS lines under a cent bill as $0.01. Standard restores from the
archive tiers are free ("Standard retrievals are free for objects that are stored in S3 Intelligent-Tiering",
https://docs.aws.amazon.com/AmazonS3/latest/userguide/restoring-objects-retrieval-options.html) and take 3-5 hours
(Archive Access) or up to 12 hours (Deep Archive Access), same page; the tiers' days are 90-730 and 180-730
(https://docs.aws.amazon.com/AmazonS3/latest/API/API_Tiering.html).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from planner.costing.lifecycle_bills import price_lifecycle
from planner.decide.lifecycle_policy import propose_lifecycle
from planner.errors import InputError
from planner.workload import parse_workload
from planner.workload.aging import IntelligentTiering

D = Decimal
DEC_2026 = dt.date(2026, 12, 1)


def _scans(tiering: dict[str, Any] | None = None, max_restore: str = "12h", **storage: Any) -> Any:
    # 1,000 GiB of 1 MiB objects (1,024,000, all monitored), written in the month before; 100,000 GETs a month,
    # half on objects under 30 days old and half on those of 300 days or more: a cold tail read now and then.
    return parse_workload(
        {
            "name": "scans",
            "storage": {
                "stored": "1000 GiB",
                "object_size": "1 MiB",
                "age": {"0-30d": "100%"},
                "intelligent_tiering": tiering or {"archive_access": "90d", "deep_archive_access": "180d"},
                **storage,
            },
            "traffic": {
                "writes": 0,
                "reads": 100000,
                "reads_by_age": {"0-30d": "50%", "30-300d": "0%", "300d+": "50%"},
            },
            "performance": {"max_restore": max_restore},
        },
        "w.yaml",
    )


def _lines(cost: Any, month: int) -> dict[str, Decimal]:
    prefix = "S3 Intelligent-Tiering, ages 0d+: "
    return {i.description.removeprefix(prefix): i.amount_usd for i in cost.months[month - 1].line_items}


FREQUENT = "S3 Intelligent-Tiering storage (frequent access), first 51,200 GB-month"
MONITORING = "monitoring and automation: 1,024,000 objects of at least 131,072 bytes"
ARCHIVE_OVERHEAD = "per-object overhead: {objects} objects in the {tier} access tier x 32,768 bytes at its rate"
STANDARD_OVERHEAD = "per-object overhead: {objects} objects in the {tier} access tier x 8,192 bytes at S3 Standard rate"


def test_a_cold_tail_under_archive_access_at_90d_and_deep_archive_access_at_180d() -> None:
    cost = price_lifecycle(_scans(), "aws-s3", [], start_class="intelligent-tiering", as_of=DEC_2026, months=12)
    assert cost.policy == "intelligent-tiering (archive tiers: archive access 90d, deep archive access 180d)"
    # Month 1 (ages 0-30d): all 1,000 GB in Frequent Access, $23.00; monitoring 1,024 x $0.0025 = $2.56;
    # 50,000 GETs x $0.0004 / 1,000 = $0.02.
    assert _lines(cost, 1) == {FREQUENT: D("23.00"), MONITORING: D("2.56"), "tier-2 requests (get)": D("0.02")}
    # Months 2-3 (ages 30-90d): no reads reach these ages, so all is unread 30 days: Infrequent Access,
    # 1,000 x $0.0125 = $12.50.
    for month in (2, 3):
        assert _lines(cost, month) == {
            "S3 Intelligent-Tiering storage (infrequent access)": D("12.50"),
            MONITORING: D("2.56"),
        }
    # Months 4-6 (ages 90-180d): unread 90 days, straight to Archive Access (bypassing Archive Instant Access):
    # 1,000 x $0.0036 = $3.60. Each archived object carries "8 KB ... (billed at S3 Standard storage rates) and
    # 32 KB ... (billed at S3 Glacier Flexible Retrieval and S3 Glacier Deep Archive storage rates)"
    # (aws.amazon.com/s3/pricing, Storage pricing footnote): 1,024,000 x 32,768 bytes = 31.25 GB x $0.0036 =
    # $0.1125 -> $0.11, and 1,024,000 x 8,192 bytes = 7.8125 GB x $0.023 = $0.1797 -> $0.18.
    assert D(1024000 * 32768) / 2**30 == D("31.25")
    for month in (4, 5, 6):
        assert _lines(cost, month) == {
            "S3 Intelligent-Tiering storage (archive access)": D("3.60"),
            ARCHIVE_OVERHEAD.format(objects="1,024,000", tier="archive"): D("0.11"),
            STANDARD_OVERHEAD.format(objects="1,024,000", tier="archive"): D("0.18"),
            MONITORING: D("2.56"),
        }
    # Months 7-10 (ages 180-300d): Deep Archive Access, 1,000 x $0.00099 = $0.99; overhead 31.25 GB x $0.00099 =
    # $0.0309 -> $0.03 and 7.8125 GB x $0.023 -> $0.18.
    for month in (7, 8, 9, 10):
        assert _lines(cost, month) == {
            "S3 Intelligent-Tiering storage (deep-archive access)": D("0.99"),
            ARCHIVE_OVERHEAD.format(objects="1,024,000", tier="deep-archive"): D("0.03"),
            STANDARD_OVERHEAD.format(objects="1,024,000", tier="deep-archive"): D("0.18"),
            MONITORING: D("2.56"),
        }
    # Months 11-12 (ages 300d+): 50,000 reads on 1,024,000 objects, r = 0.048828125 reads per object a month;
    # unread for 30, 90 and 180 days with probability e^-r, e^-3r, e^-6r. Frequent 1,000 x (1 - e^-r) =
    # 47.655 GB x $0.023 = $1.10; Infrequent 1,000 x (e^-r - e^-3r) = 88.606 GB x $0.0125 = $1.11; Archive Access
    # 1,000 x (e^-3r - e^-6r) = 117.694 GB x $0.0036 = $0.42; Deep Archive Access 1,000 x e^-6r = 746.045 GB x
    # $0.00099 = $0.74. The reads see the tiers as the bytes are spread: 50,000 x (e^-3r - e^-6r) = 5,884.7
    # restores from Archive Access and 50,000 x e^-6r = 37,302.3 from Deep Archive Access, standard, free.
    r = D(50000) / D(1024000)
    assert round(1000 * (1 - (-r).exp()), 3) == D("47.655")
    assert round(1000 * (-6 * r).exp(), 3) == D("746.045")
    assert round(50000 * ((-3 * r).exp() - (-6 * r).exp()), 1) == D("5884.7")
    assert round(50000 * (-6 * r).exp(), 1) == D("37302.3")
    for month in (11, 12):
        assert _lines(cost, month) == {
            FREQUENT: D("1.10"),
            "S3 Intelligent-Tiering storage (infrequent access)": D("1.11"),
            "S3 Intelligent-Tiering storage (archive access)": D("0.42"),
            "S3 Intelligent-Tiering storage (deep-archive access)": D("0.74"),
            MONITORING: D("2.56"),
            "tier-2 requests (get)": D("0.02"),
            "restores from the Archive Access tier: 5,885 objects, 6.17 GB, standard restore (3-5 hours; fee none)": D(
                "0.00"
            ),
            "restores from the Deep Archive Access tier: 37,302 objects, 39.11 GB, standard restore (within 12 hours;"
            " fee none)": D("0.00"),
            # the objects in each archive tier as its share of the 1,024,000: 120,518.42 in Archive Access,
            # 3.678 GB x $0.0036 = $0.013 -> $0.01 and 0.919 GB x $0.023 = $0.021 -> $0.02; 763,950.55 in Deep
            # Archive Access, 23.314 GB x $0.00099 = $0.023 -> $0.02 and 5.829 GB x $0.023 = $0.134 -> $0.13
            ARCHIVE_OVERHEAD.format(objects="120,518.424475", tier="archive"): D("0.01"),
            STANDARD_OVERHEAD.format(objects="120,518.424475", tier="archive"): D("0.02"),
            ARCHIVE_OVERHEAD.format(objects="763,950.545155", tier="deep-archive"): D("0.02"),
            STANDARD_OVERHEAD.format(objects="763,950.545155", tier="deep-archive")
            + ", first 51,200 GB-month (above the 0.919483 GB-month of S3 Standard billed before it)": D("0.13"),
        }
    assert (
        cost.month_totals()
        == [D("25.58"), D("15.06"), D("15.06")] + [D("6.45")] * 3 + [D("3.76")] * 4 + [D("6.13")] * 2
    )
    assert cost.restored_tiers == ["archive_access", "deep_archive_access"]


def test_without_the_archive_tiers_the_cold_tail_stays_in_archive_instant_access() -> None:
    workload = _scans()
    plain = workload.model_copy(update={"storage": workload.storage.model_copy(update={"intelligent_tiering": None})})
    cost = price_lifecycle(plain, "aws-s3", [], start_class="intelligent-tiering", as_of=DEC_2026, months=7)
    # ages 90-180d: Archive Instant Access, 1,000 x $0.004 = $4.00 (the table's own tier at 90 days)
    assert _lines(cost, 4)["S3 Intelligent-Tiering storage (archive-instant access)"] == D("4.00")
    assert _lines(cost, 7)["S3 Intelligent-Tiering storage (archive-instant access)"] == D("4.00")
    assert cost.restored_tiers == []


def test_objects_under_128_kib_are_not_monitored_and_stay_in_frequent_access() -> None:
    workload = _scans(object_size="64 KiB", stored="1000 GiB")
    cost = price_lifecycle(workload, "aws-s3", [], start_class="intelligent-tiering", as_of=DEC_2026, months=8)
    # 1,000 GiB of 64 KiB objects: never monitored, never archived, $23.00 every month and no restores
    assert [list(_lines(cost, m)) for m in (4, 8)] == [[FREQUENT]] * 2
    assert cost.month_totals()[3:] == [D("23.00")] * 5


@pytest.mark.parametrize(
    ("tiering", "message"),
    [
        (
            {"archive_access": "60d"},
            "storage.intelligent_tiering.archive_access: 60d is outside 90-730d: aws-s3 moves objects to the Archive"
            " Access tier after 90 to 730 days unread",
        ),
        (
            {"archive_access": "800d"},
            "storage.intelligent_tiering.archive_access: 800d is outside 90-730d",
        ),
        (
            {"deep_archive_access": "120d"},
            "storage.intelligent_tiering.deep_archive_access: 120d is outside 180-730d: aws-s3 moves objects to the"
            " Deep Archive Access tier after 180 to 730 days unread",
        ),
    ],
)
def test_archive_days_outside_the_providers_range_are_one_line_naming_the_field(
    tiering: dict[str, str], message: str
) -> None:
    with pytest.raises(InputError) as caught:
        price_lifecycle(_scans(tiering), "aws-s3", [], start_class="intelligent-tiering", as_of=DEC_2026, months=1)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("tiering", "message"),
    [
        (
            {"archive_access": "200d", "deep_archive_access": "190d"},
            "w.yaml: storage.intelligent_tiering: deep_archive_access (190d) must be later than archive_access (200d)",
        ),
        ({"archive_access": "90.5d"}, "w.yaml: storage.intelligent_tiering: archive_access: give whole days, e.g. 90d"),
        ({"archive": "90d"}, "w.yaml: storage.intelligent_tiering.archive: unknown key"),
    ],
)
def test_archive_tiers_out_of_order_are_one_line_naming_the_field(tiering: dict[str, str], message: str) -> None:
    with pytest.raises(InputError) as caught:
        _scans(tiering)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_archive_tiers_on_a_policy_without_intelligent_tiering_are_refused() -> None:
    workload = _scans(lifecycle=[{"after": "30d", "to": "standard-ia"}])
    with pytest.raises(InputError) as caught:
        price_lifecycle(workload, "aws-s3", as_of=DEC_2026, months=1)
    assert str(caught.value) == (
        "storage.intelligent_tiering: the archive tiers apply to objects in intelligent-tiering, and the policy"
        " (standard -> 30d standard-ia) puts none there"
    )
    with pytest.raises(InputError) as caught:
        price_lifecycle(_scans(), "cloudflare-r2", [], as_of=DEC_2026, months=1)
    assert str(caught.value) == (
        "storage.intelligent_tiering: cloudflare-r2 has no class with opt-in archive tiers (archive_access and"
        " deep_archive_access configure S3 Intelligent-Tiering)"
    )


@pytest.mark.parametrize(
    ("max_restore", "tiering", "message"),
    [
        (
            "4h",
            {"archive_access": "90d"},
            "storage.intelligent_tiering.archive_access: Archive Access restores take 3-5 hours (standard), longer"
            " than performance.max_restore 4 h: reads of objects there could not wait",
        ),
        (
            "6h",
            {"archive_access": "90d", "deep_archive_access": "180d"},
            "storage.intelligent_tiering.deep_archive_access: Deep Archive Access restores take within 12 hours"
            " (standard), longer than performance.max_restore 6 h: reads of objects there could not wait",
        ),
    ],
)
def test_an_archive_tier_slower_than_max_restore_is_refused(
    max_restore: str, tiering: dict[str, str], message: str
) -> None:
    workload = _scans(tiering, max_restore=max_restore)
    with pytest.raises(InputError) as caught:
        price_lifecycle(workload, "aws-s3", [], start_class="intelligent-tiering", as_of=DEC_2026, months=1)
    assert str(caught.value) == message


def test_a_lifecycle_rule_into_intelligent_tiering_takes_the_archive_tiers() -> None:
    # written to Standard, moved to Intelligent-Tiering at 0 days: 1,024 x $0.01 of transitions in month 1
    # (aws-s3 lifecycle-transition into Intelligent-Tiering), then the same tiers as written there directly
    workload = _scans(lifecycle=[{"after": "0d", "to": "intelligent-tiering"}])
    cost = price_lifecycle(workload, "aws-s3", as_of=DEC_2026, months=12)
    direct = price_lifecycle(_scans(), "aws-s3", [], start_class="intelligent-tiering", as_of=DEC_2026, months=12)
    assert cost.policy == (
        "standard -> 0d intelligent-tiering (archive tiers: archive access 90d, deep archive access 180d)"
    )
    assert cost.month_totals()[1:] == direct.month_totals()[1:]
    assert cost.months[0].total_usd - direct.months[0].total_usd == D("10.24")


def _reading_bucket(max_restore: str | None) -> Any:
    performance = {"performance": {"max_restore": max_restore}} if max_restore else {}
    return parse_workload(
        {
            "name": "scans",
            "storage": {
                "stored": "1000 GiB",
                "object_size": "1 MiB",
                "age": {"0-30d": "10%", "30-365d": "30%", "365d+": "60%"},
            },
            "traffic": {"writes": 10000, "reads": 20000, "reads_by_age": {"0-30d": "90%", "30d+": "10%"}},
            **performance,
        }
    )


def test_the_proposal_tries_the_archive_tiers_under_the_restore_constraint() -> None:
    allowed = propose_lifecycle(_reading_bucket("12h"), "aws-s3", as_of=DEC_2026, months=12)
    both = "intelligent-tiering (archive tiers: archive access 90d, deep archive access 180d)"
    tried = next(r for r in allowed.ranking if r.policy == both)
    assert tried.feasible
    workload = _reading_bucket("12h")
    config = IntelligentTiering.model_validate({"archive_access": "90d", "deep_archive_access": "180d"})
    storage = workload.storage.model_copy(update={"intelligent_tiering": config})
    alone = price_lifecycle(
        workload.model_copy(update={"storage": storage}),
        "aws-s3",
        [],
        start_class="intelligent-tiering",
        current_class="standard",
        as_of=DEC_2026,
        months=12,
    )
    assert tried.total_usd == alone.total_usd
    refused = propose_lifecycle(_reading_bucket("4h"), "aws-s3", as_of=DEC_2026, months=12)
    excluded = next(r for r in refused.ranking if r.policy == both)
    assert not excluded.feasible
    assert excluded.why == (
        "S3 Intelligent-Tiering Archive Access tier objects must be restored before a read, and restores take"
        " 1 minute to 12 hours (table aws-s3@2025-12-01, aws-s3 lifecycle rules of 2026-07-16: expedited 1-5"
        " minutes, standard 3-5 hours, bulk 5-12 hours): the standard restores the bill prices take 3-5 hours,"
        " longer than performance.max_restore 4 h; expedited (1-5 minutes) would be in time, at a price this bill"
        " does not include"
    )
