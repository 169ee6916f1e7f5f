"""Hand-computed migrations (prices in force on 2026-12-01)."""

from __future__ import annotations

import datetime as dt
import math
from decimal import ROUND_HALF_UP, Decimal

import pytest

from planner.errors import InputError
from planner.migration import Endpoint, MigrationOptions, estimate_migration
from planner.workload import parse_workload

from .conftest import EXAMPLES, Result

NOW = dt.date(2026, 12, 1)
TB = 10**12
TIB = 2**40


def workload(**storage: object) -> object:
    return parse_workload({"name": "move", "storage": storage, "constraints": {"months": 6}})


def options(source: str, destination: str, **extra: object) -> MigrationOptions:
    return MigrationOptions(
        source=Endpoint.parse(source, "--from"), destination=Endpoint.parse(destination, "--to"), start=NOW, **extra
    )  # type: ignore[arg-type]


def by_category(plan: object, category: str, prefix: str = "") -> Decimal:
    return sum(
        (i.amount_usd for i in plan.one_time if i.category == category and i.description.startswith(prefix)),  # type: ignore[attr-defined]
        Decimal(0),
    )


def test_100_tb_from_s3_to_r2_at_10_gbps() -> None:
    plan = estimate_migration(
        workload(stored="100 TB", objects=1_000_000), options("aws-s3", "cloudflare-r2", link_bits_per_s=10e9)
    )  # type: ignore[arg-type]
    # Link-bound: 100 TB x 8 bits / 10 Gbps = 80,000 s = 22.2 hours.
    assert plan.bottleneck == "client link"
    assert plan.duration_hours == pytest.approx(80_000 / 3600)
    # S3 egress after 100 GB free, in GB of 2**30 bytes (100 TB = 93,132.26 GB): 10,240 GB at 0.09 +
    # 40,960 at 0.085 + 41,832.26 at 0.07 = $921.60 + $3,481.60 + $2,928.26.
    assert by_category(plan, "egress") == Decimal("921.60") + Decimal("3481.60") + Decimal("2928.26")
    # 1,000,000 GETs at $0.0004/1k = $0.40; 1,000 LISTs at $0.005/1k = $0.005, a line of $0.01.
    assert by_category(plan, "requests", "source") == Decimal("0.40") + Decimal("0.01")
    # 1,000,000 PUTs of 100 MB objects are R2 Class A: exactly its free million, so $0.
    assert by_category(plan, "requests", "destination") == 0
    # R2 holds the data for half the copy plus 7 days of verification: 100,000 GB x 7.463 / 30 days,
    # less the 10 free GB-months, rounded up to 24,867 GB-months at $0.015 = $373.005, a line of $373.01.
    assert by_category(plan, "storage", "destination") == Decimal("373.01")
    assert plan.one_time_cost_usd == Decimal("7331.46") + Decimal("0.41") + Decimal("373.01")
    for item in plan.one_time:
        assert item.amount_unrounded_usd == item.quantity * item.unit_price_usd
        assert item.amount_usd == item.amount_unrounded_usd.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP) or (
            0 < item.amount_unrounded_usd < Decimal("0.01") and item.amount_usd == Decimal("0.01")
        )


def test_class_a_puts_beyond_r2s_free_million() -> None:
    plan = estimate_migration(workload(stored="100 TB", objects=3_000_000), options("aws-s3", "cloudflare-r2"))  # type: ignore[arg-type]
    # 3 M PUTs, 1 M free: 2 M x $4.50.
    assert by_category(plan, "requests", "destination") == Decimal(9)


def test_leaving_wasabi_30_days_after_upload() -> None:
    plan = estimate_migration(
        workload(stored="10 TiB", object_size="64 MiB"), options("wasabi", "backblaze-b2", data_age_days=30)
    )  # type: ignore[arg-type]
    # 90-day minimum: 60 days left on 10 TiB at $7.99/TB-month = 2 months x 10 x 7.99.
    assert by_category(plan, "early_deletion") == Decimal("159.8")
    assert by_category(plan, "egress") == 0  # Wasabi egress is free within its policy
    after = estimate_migration(
        workload(stored="10 TiB", object_size="64 MiB"), options("wasabi", "backblaze-b2", data_age_days=90)
    )  # type: ignore[arg-type]
    assert by_category(after, "early_deletion") == 0


def test_steady_state_ages_over_the_retention() -> None:
    # Retention 60 days, ages uniform: half the bytes are under Wasabi's 90 days... all of them are:
    # ages 0-60 all below 90, mean age 30, so 60 days remain on average.
    plan = estimate_migration(
        workload(stored="10 TiB", object_size="64 MiB", retention="60d"), options("wasabi", "backblaze-b2")
    )  # type: ignore[arg-type]
    assert by_category(plan, "early_deletion") == Decimal("159.8")
    assert any("uniform over the 60-day retention" in a for a in plan.assumptions)


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
        options("aws-s3:glacier-flexible", "cloudflare-r2", retrieval_option=retrieval),
    )  # type: ignore[arg-type]
    # 10 TB = 9,313.23 GB of 2**30 bytes and 100,000 restores: standard $0.01/GB + $0.05/1k, bulk free,
    # expedited $0.03/GB + $10/1k.
    assert by_category(plan, "retrieval") == expected
    # Egress: 9,213.23 GB at $0.09 after the free 100 GB = $829.19.
    assert by_category(plan, "egress") == Decimal("829.19")


def test_egress_waiver() -> None:
    plan = estimate_migration(
        workload(stored="100 TB", objects=1_000_000), options("aws-s3", "cloudflare-r2", egress_waiver=True)
    )  # type: ignore[arg-type]
    assert by_category(plan, "egress") == 0
    assert any("waives internet egress" in a for a in plan.assumptions)


def test_copy_on_read_against_bulk() -> None:
    data = {
        "name": "lib",
        "storage": {"stored": "100 TB", "objects": 1_000_000},
        "traffic": {"egress": "20 TB", "reads": 200_000},
        "constraints": {"months": 12},
    }
    w = parse_workload(data)
    bulk = estimate_migration(w, options("aws-s3", "cloudflare-r2"))
    lazy = estimate_migration(w, options("aws-s3", "cloudflare-r2", strategy="copy-on-read"))
    # 200,000 reads a month over 1,000,000 objects: 1 - e^(-0.2 m) of the data has moved by month m.
    assert lazy.timeline[0].moved_share == pytest.approx(1 - math.exp(-0.2))
    assert lazy.left_behind_share == pytest.approx(math.exp(-0.2 * 12))
    assert lazy.duration_hours == math.inf
    # Copy-on-read pays source egress only for what is read (cold data never leaves), but each
    # month's tiers start again: month 1 moves 16,881.97 GB of 2**30 bytes, 100 free, 10,240 at 0.09
    # ($921.60), the rest at 0.085 (each line rounded to the cent).
    month_one = 100 * TB * (1 - math.exp(-0.2)) / 2**30 - 100
    assert float(by_category(lazy, "egress", "source, month 1:")) == pytest.approx(
        921.60 + (month_one - 10_240) * 0.085, abs=0.006
    )
    moved_bytes = 100 * TB * (1 - math.exp(-2.4))
    assert float(sum(i.quantity for i in lazy.one_time if i.category == "egress")) == pytest.approx(
        moved_bytes / 2**30 - 12 * 100,
        rel=1e-6,  # billed GB: each month's free 100 GB left out
    )
    assert moved_bytes < 100 * TB  # less leaves than in bulk
    assert bulk.timeline[-1].cumulative_move_usd < bulk.timeline[-1].cumulative_stay_usd
    assert bulk.payback_month is not None


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
        "payback_months",
        "timeline",
    }
    bad = run_cli("migrate", str(EXAMPLES / "video-streaming.yaml"), "--from", "aws-s3", "--to", "r3")  # type: ignore[operator]
    assert bad.code == 2 and "unknown provider 'r3'" in bad.err
    bad = run_cli(
        "migrate", str(EXAMPLES / "video-streaming.yaml"), "--from", "aws-s3", "--to", "wasabi", "--link", "fast"
    )  # type: ignore[operator]
    assert bad.code == 2 and bad.err.startswith("planner: --link:")


def test_per_request_bound_counts_each_requests_first_byte_once() -> None:
    from measure.reference import load_reference

    # IDrive e2's profile: one stream reads 256 KiB objects at its published rate, first byte
    # included, so 36,000,000 objects over 64 streams take 36e6 x (262,144 B / rate) / 64
    stream = dict(load_reference("idrive-e2").summary().get_stream_bytes_per_s)[262144]
    plan = estimate_migration(
        workload(stored="9437184000000 B", objects=36_000_000),
        options("idrive-e2", "wasabi", concurrency=64),
    )  # type: ignore[arg-type]
    (bound,) = [b for b in plan.bounds if b.name == "per-request time"]  # type: ignore[attr-defined]
    assert bound.hours == pytest.approx(36e6 * (262144 / stream) / 64 / 3600)
