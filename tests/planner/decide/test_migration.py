"""Hand-computed migrations (prices in force on 2026-12-01: aws-s3@2025-12-01, cloudflare-r2@2026-10-08,
wasabi@2026-07-01)."""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal

import pytest

from planner.costing.bills import price_table
from planner.decide.migration import Endpoint, MigrationOptions, MigrationPlan, _coverage, estimate_migration
from planner.errors import InputError
from planner.workload import Workload, parse_workload
from tests.planner.conftest import EXAMPLES, Result

NOW = dt.date(2026, 12, 1)
TB = 10**12
TIB = 2**40
R2 = price_table("cloudflare-r2", NOW)


def workload(traffic: dict[str, object] | None = None, months: int = 6, **storage: object) -> Workload:
    return parse_workload(
        {"name": "move", "storage": storage, "traffic": traffic or {}, "constraints": {"months": months}}
    )


def options(source: str, destination: str, **extra: object) -> MigrationOptions:
    return MigrationOptions(
        source=Endpoint.parse(source, "--from"), destination=Endpoint.parse(destination, "--to"), start=NOW, **extra
    )  # type: ignore[arg-type]


def by_category(plan: MigrationPlan, category: str, prefix: str = "") -> Decimal:
    return sum(
        (i.amount_usd for i in plan.one_time if i.category == category and i.description.startswith(prefix)),
        Decimal(0),
    )


def lines(plan: MigrationPlan, category: str, prefix: str) -> dict[str, tuple[Decimal, Decimal]]:
    """{description: (quantity, unit price)} of one category's one-time lines."""
    return {
        i.description: (i.quantity, i.unit_price_usd)
        for i in plan.one_time
        if i.category == category and i.description.startswith(prefix)
    }


@pytest.mark.parametrize(
    ("retrieval", "expected"),
    [
        ("standard", Decimal("93.13") + Decimal(5)),
        ("bulk", Decimal(0)),
        ("expedited", Decimal("279.40") + Decimal(1000)),
    ],
)
def test_from_glacier_flexible_retrieval(retrieval: str, expected: Decimal) -> None:
    plan = estimate_migration(
        workload(stored="10 TB", objects=100_000),
        options("aws-s3:glacier-flexible", "cloudflare-r2", retrieval_option=retrieval, strategy="bulk"),
    )  # type: ignore[arg-type]
    # 10 TB = 9,313.23 GB of 2**30 bytes and 100,000 restores: standard $0.01/GB + $0.05/1k, bulk free,
    # expedited $0.03/GB + $10/1k.
    assert by_category(plan, "retrieval") == expected
    # Egress: 9,213.23 GB at $0.09 after the free 100 GB = $829.19.
    assert by_category(plan, "egress") == Decimal("829.19")


def test_egress_waiver() -> None:
    plan = estimate_migration(
        workload(stored="100 TB", objects=1_000_000),
        options("aws-s3", "cloudflare-r2", egress_waiver=True, strategy="bulk"),
    )  # type: ignore[arg-type]
    assert by_category(plan, "egress") == 0
    assert any("waives internet egress" in a for a in plan.assumptions)


def test_bad_endpoints() -> None:
    w = workload(stored="1 TB", objects=10)
    with pytest.raises(InputError, match="no storage class 'nope'"):
        estimate_migration(w, options("aws-s3:nope", "cloudflare-r2"))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="the same"):
        estimate_migration(w, options("aws-s3", "aws-s3:standard"))  # type: ignore[arg-type]


def test_migrate_cli(run_cli: object) -> None:
    result: Result = run_cli(  # type: ignore[operator]
        "migrate",
        str(EXAMPLES / "video-streaming.yaml"),
        "--from",
        "aws-s3",
        "--to",
        "cloudflare-r2",
        "--start",
        "2026-12-01",
        "--link",
        "10Gbps",
        "--format",
        "json",
    )
    assert result.code == 0, result.err
    import json

    data = json.loads(result.out)
    assert set(data) >= {
        "one_time_cost_usd",
        "one_time",
        "duration_hours",
        "bottleneck",
        "monthly_before_usd",
        "monthly_after_usd",
        "payback_month",
        "timeline",
        "compared",
        "strategy",
        "chosen_because",
    }
    assert data["one_time_cost_usd"] == str(sum(Decimal(m["one_time_usd"]) for m in data["timeline"]))
    bad = run_cli("migrate", str(EXAMPLES / "video-streaming.yaml"), "--from", "aws-s3", "--to", "r3")  # type: ignore[operator]
    assert bad.code == 2 and "unknown provider 'r3'" in bad.err
    bad = run_cli(
        "migrate", str(EXAMPLES / "video-streaming.yaml"), "--from", "aws-s3", "--to", "wasabi", "--link", "fast"
    )  # type: ignore[operator]
    assert bad.code == 2 and bad.err.startswith("planner: --link:")
    bad = run_cli(  # type: ignore[operator]
        "migrate", str(EXAMPLES / "video-streaming.yaml"), "--from", "aws-s3", "--to", "wasabi", "--strategy", "lazy"
    )
    assert bad.code == 2 and "'lazy' is not a strategy" in bad.err
    bad = run_cli(  # type: ignore[operator]
        "migrate", str(EXAMPLES / "web-assets.yaml"), "--from", "aws-s3", "--to", "wasabi", "--strategy", "age-out"
    )
    assert bad.code == 2 and "age-out does not apply" in bad.err
    bad = run_cli(  # type: ignore[operator]
        "migrate",
        str(EXAMPLES / "video-streaming.yaml"),
        "--from",
        "aws-s3",
        "--to",
        "wasabi",
        "--copy-from",
        "destination-service",
    )
    assert bad.code == 2 and "no migration service" in bad.err
    table = run_cli(  # type: ignore[operator]
        "migrate",
        str(EXAMPLES / "video-streaming.yaml"),
        "--from",
        "aws-s3",
        "--to",
        "cloudflare-r2",
        "--start",
        "2026-12-01",
    )
    assert table.code == 0, table.err
    assert "Strategies compared" in table.out and "Pays back in month" in table.out


def test_per_request_bound_counts_each_requests_first_byte_once() -> None:
    from planner.measure.reference import load_reference

    # IDrive e2's profile: one stream reads 256 KiB objects at its published rate, first byte
    # included, so 36,000,000 objects over 64 streams take 36e6 x (262,144 B / rate) / 64
    stream = dict(load_reference("idrive-e2").summary().get_stream_bytes_per_s)[262144]
    plan = estimate_migration(
        workload(stored="9437184000000 B", objects=36_000_000),
        options("idrive-e2", "wasabi", concurrency=64, strategy="bulk"),
    )  # type: ignore[arg-type]
    (bound,) = [b for b in plan.bounds if b.name == "per-request time"]  # type: ignore[attr-defined]
    assert bound.hours == pytest.approx(36e6 * (262144 / stream) / 64 / 3600)


# --------------------------------------------------------------------------- copy-on-read coverage


def test_uniform_reads_cover_objects_as_the_coupon_collector() -> None:
    # 1,000,000 objects read 200,000 times a month (30 days): k reads leave (1 - 1/n)^k of them unread.
    n, reads = 1_000_000, 200_000
    w = workload({"reads": reads}, months=3, stored="100 TB", objects=n)
    plan = estimate_migration(w, options("aws-s3", "cloudflare-r2", strategy="copy-on-read"))
    per_day = reads / 30
    for month, day in zip(plan.timeline, (31, 62, 90), strict=True):  # December, January, February
        expected = 1 - (1 - 1 / n) ** (per_day * day)
        assert month.moved_share == pytest.approx(expected, rel=1e-9)
    assert plan.timeline[0].copied_bytes == pytest.approx(100 * TB * (1 - (1 - 1 / n) ** (per_day * 31)), rel=1e-9)
    # Reads never surely reach the last object: no completion date, and the headline says so.
    assert plan.duration_hours == math.inf
    assert plan.left_behind_share == pytest.approx((1 - 1 / n) ** (per_day * 90), rel=1e-9)


def test_two_million_objects_at_23_reads_a_second_take_days_not_hours() -> None:
    # 23.2 reads/s over 2,000,000 objects: 99 % of them are read after n ln 100 = 9.21 M reads, 4.6 days;
    # even if every read hit a new object, 2 M reads take 24 hours.
    n, rate = 2_000_000, 23.2
    w = workload({"reads": round(rate * 30 * 86400)}, stored="2 TB", objects=n)
    coverage = _coverage(w, options("aws-s3", "cloudflare-r2"), n)
    days_to_99 = n * math.log(100) / (rate * 86400)
    assert days_to_99 == pytest.approx(4.595, abs=1e-3)
    assert coverage(days_to_99) == pytest.approx(0.99, abs=1e-6)
    assert coverage(n / (rate * 86400)) == pytest.approx(1 - math.exp(-1), abs=1e-6)  # 24 h: 63 %
    plan = estimate_migration(w, options("aws-s3", "cloudflare-r2", strategy="copy-on-read"))
    # Done when fewer than one object is expected unread: n (1 - 1/n)^k < 1 after k = ln n / -ln(1 - 1/n)
    # reads, about n ln n = 29.0 M, 14.5 days; never "3.6 hours".
    reads_needed = math.log(n) / -math.log1p(-1 / n)
    assert reads_needed == pytest.approx(n * math.log(n), rel=1e-6)
    assert plan.duration_hours == pytest.approx(reads_needed / (rate * 86400) * 24, rel=1e-9)
    assert 14.4 < plan.duration_hours / 24 < 14.5
    # With a share of objects that is never read, it never completes.
    never = estimate_migration(w, options("aws-s3", "cloudflare-r2", strategy="copy-on-read", never_read_share=0.01))
    assert never.duration_hours == math.inf


def test_hot_and_never_read_objects() -> None:
    # 1,000 hot objects take 90 % of 300,000 reads a month; half of the other 999,000 are never read.
    n, reads, hot = 1_000_000, 300_000, 1_000
    cold = (n - hot) * 0.5
    w = workload(
        {"reads": reads, "hot_objects": {"count": hot, "share_of_reads": 0.9}}, months=12, stored="1 TB", objects=n
    )
    plan = estimate_migration(w, options("aws-s3", "cloudflare-r2", strategy="copy-on-read", never_read_share=0.5))

    def expected(days: float) -> float:
        k = reads / 30 * days
        return (hot * (1 - (1 - 1 / hot) ** (0.9 * k)) + cold * (1 - (1 - 1 / cold) ** (0.1 * k))) / n

    assert plan.timeline[0].moved_share == pytest.approx(expected(31), rel=1e-9)
    assert plan.timeline[0].moved_share < 0.1  # the hot objects move at once; the cold ones slowly
    assert plan.left_behind_share == pytest.approx(1 - expected(365), rel=1e-9)
    assert plan.left_behind_share > 0.4995  # the never-read half stays at the source for good
    swept = estimate_migration(
        w, options("aws-s3", "cloudflare-r2", strategy="copy-on-read", never_read_share=0.5, sweep_after_days=60)
    )
    assert swept.left_behind_share == 0
    assert swept.duration_hours < 61 * 24  # 60 days of reads, then a 1 TB sweep at 10 Gbps


# --------------------------------------------------------------------------- retention: age-out


def backup(**extra: object) -> Workload:
    return workload({"egress": "1 TB"}, months=12, stored="500 TB", object_size="64 MB", retention="30d", **extra)


def test_30_day_backup_ages_out_without_egress_in_30_days() -> None:
    plan = estimate_migration(backup(), options("aws-s3", "cloudflare-r2"))
    assert plan.strategy == "age-out"
    assert "no egress is paid" in plan.chosen_because
    assert by_category(plan, "egress") == 0
    assert plan.one_time == [] and plan.one_time_cost_usd == 0
    assert plan.duration_hours == 30 * 24  # the oldest data is 30 days from expiry
    first = plan.timeline[0]
    assert first.completed_day == 30
    # Ages uniform over 30 days: at mid-day d the source still holds 1 - (d + 0.5)/30 of it, so
    # December's 31 days average (30 - 15) / 31 of 500 TB; from January the source bills nothing.
    assert first.source_bytes == round(500 * TB * 15 / 31)
    assert first.destination_bytes == 500 * TB - first.source_bytes
    assert all(m.source_usd == 0 and m.moved_share == 1 for m in plan.timeline[1:])
    (bulk,) = [c for c in plan.compared if c.strategy == "bulk"]
    assert bulk.one_time_cost_usd is not None and bulk.one_time_cost_usd > 0
    assert bulk.total_move_usd is not None and bulk.total_move_usd > plan.timeline[-1].cumulative_move_usd


def test_copy_on_read_of_expiring_data_leaves_nothing_behind() -> None:
    plan = estimate_migration(backup(), options("aws-s3", "cloudflare-r2", strategy="copy-on-read"))
    assert plan.left_behind_share == 0  # everything at the source has expired after 30 days
    assert plan.duration_hours == 30 * 24


def test_hybrid_copies_only_what_outlives_the_cutoff() -> None:
    # 1-year retention, ages uniform: data with under 90 days left (90/365 of it) ages out; the rest is copied.
    w = workload(months=12, stored="100 TB", objects=1_000_000, retention="365d")
    plan = estimate_migration(w, options("aws-s3", "cloudflare-r2", strategy="hybrid", age_out_within_days=90))
    bulk = estimate_migration(w, options("aws-s3", "cloudflare-r2", strategy="bulk"))
    # The copied part has 90 to 365 days left: none of it expires during the copy.
    assert sum(m.copied_bytes for m in plan.timeline) == pytest.approx(100 * TB * 275 / 365, rel=1e-9)
    assert sum(m.copied_bytes for m in bulk.timeline) < 100 * TB  # bulk copies, then loses, what expires meanwhile
    assert plan.duration_hours == 90 * 24  # the last aged-out byte expires on day 90
    # The copy tool lists every key at the source, aged-out ones too: 1,000 pages at S3's $0.005 per 1,000;
    # it GETs only the 275/365 it copies, at $0.0004 per 1,000.
    source = lines(plan, "requests", "month 1, source")
    assert source["month 1, source: tier-1 requests (list)"] == (Decimal(1), Decimal("0.005"))
    gets = source["month 1, source: tier-2 requests (get)"][0]
    assert float(gets) == pytest.approx(1_000 * 275 / 365, abs=0.002)


def test_destination_minimum_duration_for_data_that_expires_soon() -> None:
    # 30-day data copied to Wasabi (90-day minimum, $7.99 per TB-month, TB = 2^40 bytes): a copy living r
    # days there pays 90 - r more; r is uniform over 0-30 days, mean 15, so 75 days = 2.5 months.
    w = workload(months=3, stored="10 TiB", object_size="64 MiB", retention="30d")
    plan = estimate_migration(w, options("aws-s3", "wasabi", strategy="bulk"))
    early = by_category(plan, "early_deletion", "month 1, destination")
    assert float(early) == pytest.approx(10 * 7.99 * 75 / 30, rel=5e-3)


def test_leaving_wasabi_30_days_after_upload() -> None:
    # Wasabi's 90-day minimum at $7.99/TB-month (TB = 2^40 bytes): the source copy is deleted at the end
    # of the copy plus 7 days of verification, at age 30 + copy + 7 days; 10 TiB pay the days left to 90.
    w = workload(stored="10 TiB", object_size="64 MiB")
    plan = estimate_migration(w, options("wasabi", "backblaze-b2", data_age_days=30, strategy="bulk"))
    copy_days = max(b.hours for b in plan.bounds) / 24
    assert plan.duration_hours == pytest.approx(copy_days * 24)
    # the line is rounded to the cent as Wasabi's invoice is taken to round it
    expected = 10 * 7.99 * (90 - 30 - copy_days - 7) / 30
    assert float(by_category(plan, "early_deletion")) == pytest.approx(expected, abs=0.005 + 1e-4)
    assert by_category(plan, "egress") == 0  # Wasabi egress is free within its policy
    after = estimate_migration(w, options("wasabi", "backblaze-b2", data_age_days=90, strategy="bulk"))
    assert by_category(after, "early_deletion") == 0


# --------------------------------------------------------------------------- headline read from the timeline


def test_payback_month_is_the_first_month_the_cumulative_timeline_favours_moving() -> None:
    w = workload(months=24, stored="100 TB", objects=1_000_000)
    plan = estimate_migration(w, options("aws-s3", "cloudflare-r2", strategy="bulk"))
    timeline = plan.timeline
    crossing = next(m.month for m in timeline if m.cumulative_move_usd <= m.cumulative_stay_usd)
    assert plan.payback_month == crossing
    assert crossing > 1  # month 1 carries the egress: moving costs more that month
    before = timeline[crossing - 2]
    assert before.cumulative_move_usd > before.cumulative_stay_usd
    # The headline is the timeline's: one-time is the sum of its months, which is the sum of the lines.
    assert plan.one_time_cost_usd == sum((m.one_time_usd for m in timeline), Decimal(0))
    assert plan.one_time_cost_usd == sum((i.amount_usd for i in plan.one_time), Decimal(0))
    for item in plan.one_time:
        assert item.amount_unrounded_usd == item.quantity * item.unit_price_usd
        # AWS and R2 bill each line to the cent (a line under a cent as one cent)
        cents = item.amount_unrounded_usd.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        assert item.amount_usd == max(cents, Decimal("0.01"))
    assert plan.monthly_before_usd == timeline[0].stay_usd and plan.monthly_after_usd == timeline[-1].move_usd
    running = Decimal(0)
    for m in timeline:
        assert m.move_usd == m.source_usd + m.destination_usd
        running += m.move_usd
        assert m.cumulative_move_usd == running
    # From month 2 nothing is left at the source: R2 alone, 100 TB at $0.015 vs S3's tiers.
    assert all(m.source_usd == 0 and m.one_time_usd == 0 for m in timeline[1:])


def test_100_tb_from_s3_to_r2_at_10_gbps() -> None:
    plan = estimate_migration(
        workload(stored="100 TB", objects=1_000_000),
        options("aws-s3", "cloudflare-r2", link_bits_per_s=10e9, strategy="bulk"),
    )
    # Link-bound: 100 TB x 8 bits / 10 Gbps = 80,000 s = 22.2 hours, read from the timeline.
    assert plan.bottleneck == "client link"
    assert plan.duration_hours == pytest.approx(80_000 / 3600)
    assert plan.timeline[0].completed_day == pytest.approx(80_000 / 86400)
    assert plan.timeline[0].copied_bytes == 100 * TB


# --------------------------------------------------------------------------- the copy tool's requests


def copy_of_a_million(**extra: object) -> MigrationPlan:
    # 1,000,000 objects of 1 MB; the workload's own month already uses R2's free 1 M Class A and 10 M
    # Class B operations (1 M writes, 20 M reads), so every request the copy adds is billed.
    w = workload({"reads": 20_000_000, "writes": 1_000_000}, stored="1 TB", objects=1_000_000)
    return estimate_migration(w, options("aws-s3", "cloudflare-r2", strategy="bulk", **extra))


def test_copy_tool_requests_for_a_million_objects_listing_both_sides() -> None:
    plan = copy_of_a_million()
    # Source (S3 Standard): 1,000 LIST pages of 1,000 keys at $0.005 per 1,000; 1,000,000 GETs at $0.0004 per 1,000.
    assert lines(plan, "requests", "month 1, source") == {
        "month 1, source: tier-1 requests (list)": (Decimal(1), Decimal("0.005")),
        "month 1, source: tier-2 requests (get)": (Decimal(1000), Decimal("0.0004")),
    }
    # Destination (R2 Class A, $4.50 per million): 1,000,000 PUTs and the 1,000-page listing that checks them,
    # 1.001 million on top of the workload's own; a table that rounds up to whole millions bills 2 of them.
    billed = Decimal(2) if R2.billing.round_up else Decimal("1.001")
    assert lines(plan, "requests", "month 1, destination") == {
        "month 1, destination: class-a requests (put, list)": (billed, Decimal("4.5")),
    }
    # AWS bills the $0.005 LIST line as one cent (a line under a cent is billed $0.01)
    assert by_category(plan, "requests") == Decimal("0.01") + Decimal("0.40") + billed * Decimal("4.5")


def test_copy_tool_requests_for_a_million_objects_with_a_head_each() -> None:
    plan = copy_of_a_million(check="head")
    # A HEAD per object is R2 Class B at $0.36 per million; no destination listing.
    assert lines(plan, "requests", "month 1, destination") == {
        "month 1, destination: class-a requests (put)": (Decimal(1), Decimal("4.5")),
        "month 1, destination: class-b requests (head)": (Decimal(1), Decimal("0.36")),
    }


def test_copy_by_the_destinations_service() -> None:
    plan = copy_of_a_million(copy_host="destination-service")
    # Super Slurper: the source bills its LISTs and GETs, R2 the PUTs it makes; its own checks are not billed.
    assert lines(plan, "requests", "month 1, destination") == {
        "month 1, destination: class-a requests (put)": (Decimal(1), Decimal("4.5")),
    }
    assert by_category(plan, "requests", "month 1, source") == Decimal("0.01") + Decimal("0.40")  # $0.005 bills a cent
    assert any("Super Slurper" in a for a in plan.assumptions)
    assert plan.bounds[0].name == "copy service rate"
    with pytest.raises(InputError, match="no migration service"):
        estimate_migration(
            workload(stored="1 TB", objects=10), options("aws-s3", "wasabi", copy_host="destination-service")
        )


def test_duration_keeps_the_evidence_of_the_bound_that_sets_it(run_cli: object) -> None:
    from planner.workload import load_workload

    w = load_workload(EXAMPLES / "video-streaming.yaml")
    plan = estimate_migration(w, options("aws-s3", "cloudflare-r2", strategy="bulk", link_bits_per_s=100e9))
    slowest = max(plan.bounds, key=lambda b: b.hours)
    assert slowest.evidence is not None  # a provider's figure, not the user's link
    assert plan.duration_evidence == slowest.evidence
    assert plan.duration_hours == pytest.approx(slowest.hours)
    linked = estimate_migration(w, options("aws-s3", "cloudflare-r2", strategy="bulk", link_bits_per_s=1e9))
    assert linked.bottleneck == "client link" and linked.duration_evidence is None
    aged = estimate_migration(w, options("aws-s3", "cloudflare-r2", strategy="age-out"))
    assert aged.duration_evidence is None  # the workload's own retention
    shown: Result = run_cli(
        "--wide",  # type: ignore[operator]
        "migrate",
        str(EXAMPLES / "video-streaming.yaml"),
        "--from",
        "aws-s3",
        "--to",
        "cloudflare-r2",
        "--start",
        "2026-12-01",
        "--strategy",
        "bulk",
        "--link",
        "100Gbps",
    )
    from planner.evidence import MARKERS

    assert f"days){MARKERS[slowest.evidence]}; bound by {slowest.name}" in shown.out


def test_hybrid_cutoff_at_the_break_even_costs_less_than_others() -> None:
    # Backup kept 3 years (examples/backup-archive.yaml): data with r days left costs r x (S3's storage price
    # less R2's) to keep and the copy's egress to move; the default cutoff is where the two meet.
    from planner.workload import load_workload

    w = load_workload(EXAMPLES / "backup-archive.yaml")
    chosen = estimate_migration(w, options("aws-s3", "cloudflare-r2", months=12))
    assert chosen.strategy == "hybrid"
    (note,) = [a for a in chosen.assumptions if "days left ages out" in a]
    cutoff = float(note.split("under ")[1].split(" days")[0].replace(",", ""))
    assert 100 < cutoff < 365
    total = chosen.timeline[-1].cumulative_move_usd
    for other in (cutoff / 3, min(cutoff * 1.4, 365)):
        forced = estimate_migration(
            w, options("aws-s3", "cloudflare-r2", months=12, strategy="hybrid", age_out_within_days=other)
        )
        assert total <= forced.timeline[-1].cumulative_move_usd


def test_the_plan_carries_what_its_presenters_show() -> None:
    # The plot's title and the text's horizon read these fields, never the timeline's arithmetic.
    plan = estimate_migration(workload(stored="100 TB", objects=1_000_000), options("aws-s3", "cloudflare-r2"))
    last = plan.timeline[-1]
    assert plan.horizon_months == len(plan.timeline) == 6
    assert plan.saving_usd == last.cumulative_stay_usd - last.cumulative_move_usd
    assert plan.monthly_after_usd == last.move_usd


def test_the_cli_names_the_model_choices(run_cli: object) -> None:
    from typing import get_args

    from planner.decide.migration import CHECKS, COPY_HOSTS, STRATEGIES, Check, CopyHost, Strategy

    assert (get_args(Strategy), get_args(CopyHost), get_args(Check)) == (STRATEGIES, COPY_HOSTS, CHECKS)
    data_lake = str(EXAMPLES / "data-lake.yaml")
    bad: Result = run_cli("migrate", data_lake, "--from", "aws-s3", "--to", "cloudflare-r2", "--check", "x")  # type: ignore[operator]
    assert bad.code == 2 and "'x' is not a check (use list, head or none)" in bad.err
    bad = run_cli("migrate", data_lake, "--from", "aws-s3", "--to", "cloudflare-r2", "--copy-from", "x")  # type: ignore[operator]
    assert bad.code == 2 and "(use on-premises, source-region, destination-service)" in bad.err


def test_a_move_that_never_pays_back_says_so_in_a_sentence(run_cli: Callable[..., Result]) -> None:
    # backup-archive from B2 to Wasabi costs more every month it runs: no payback month in 36.
    backup = str(EXAMPLES / "backup-archive.yaml")
    result = run_cli("migrate", backup, "--from", "backblaze-b2", "--to", "wasabi", "--start", "2026-12-01")
    assert result.code == 0, result.err
    text = " ".join(result.out.split())
    assert "Does not pay back within the 36-month horizon." in text
    assert "Pays back in" not in text


def test_a_destination_past_its_free_egress_cap_is_named(run_cli: Callable[..., Result]) -> None:
    # web-assets serves 50 TB a month from 5 TB stored; Wasabi's free egress stops at 1x the stored volume
    # ("egress of 50 TB exceeds 1x the stored 5 TB", as cost and recommend say), in every month of 12.
    web = str(EXAMPLES / "web-assets.yaml")
    result = run_cli("migrate", web, "--from", "backblaze-b2", "--to", "wasabi", "--start", "2026-12-01", "-f", "json")
    assert result.code == 0, result.err
    notes = [a for a in json.loads(result.out)["assumptions"] if "breaches" in a]
    assert notes == [
        "the destination side breaches a provider policy in 12 of 12 months, first in month 1: Wasabi Hot Cloud"
        " Storage: egress of 50 TB exceeds 1x the stored 5 TB; the free-egress policy allows no more, and"
        " sustained excess may be limited or suspended"
    ]
