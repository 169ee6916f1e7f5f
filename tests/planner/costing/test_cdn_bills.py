"""Where the bytes go: egress split by destination, a CDN in front of the bucket, routes that are free.

Each figure is computed by hand from the cited price pages; the CDN tables are planner/pricing/cdn/,
the routes planner/pricing/routes/.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest

from planner.costing import bills, cdn_bills
from planner.costing.bills import estimate_cost
from planner.decide.migration import Endpoint, MigrationOptions, estimate_migration
from planner.decide.recommendation import recommend
from planner.decide.sweep import parse_axis, sweep
from planner.decide.uncertainty import sample
from planner.errors import InputError
from planner.pricing.catalog import load_yaml
from planner.sim.front.workload_adapter import adapt_workload
from planner.workload import Workload, load_workload, parse_workload
from planner.workload.load import with_ranges
from planner.workload.schema import schema_for
from tests.planner.conftest import Result

NOW = dt.date(2026, 12, 1)
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

BEHIND_A_CDN = """
name: video behind a CDN
storage:
  stored: 50 TB
  object_size: 50 MB
traffic:
  egress: 200 TB
delivery:
  cdn: {provider: PROVIDER, hit_ratio: 0.9}
"""


def _workload(text: str) -> Workload:
    return parse_workload(load_yaml(text, "w.yaml"), "w.yaml")


def _cdn(cdn: str) -> Workload:
    return _workload(BEHIND_A_CDN.replace("PROVIDER", cdn))


def _lines(workload: Workload, provider: str) -> list[tuple[str, Decimal]]:
    cost = estimate_cost(workload, provider, as_of=NOW)
    return [(item.description.split(",")[0].split(":")[0], item.amount_usd) for item in cost.line_items]


def test_s3_behind_cloudfront_200_tb_at_90_percent_hits() -> None:
    # aws.amazon.com/cloudfront/pricing (US, Mexico, Canada): 200 TB = 186,264.514923 GB (AWS's GB is 2^30);
    # the always-free 1 TB (1,024 GB, worth 1,024 x $0.04 at the last tier it displaces) first, then 10,240 GB
    # x $0.085 = $870.40, 40,960 x $0.080 = $3,276.80, 102,400 x $0.060 = $6,144.00, 31,640.514923 x $0.040 =
    # $1,265.62. 4,000,000 requests are within the 10,000,000 free. Origin fetches from S3 are free ("Free for
    # origin fetches from any AWS origin such as Amazon S3"), so S3 bills no egress, and only the misses'
    # 400,000 GETs (400 x $0.0004 = $0.16) beside storage (46,566.128731 GB x $0.023 = $1,071.02).
    cost = estimate_cost(_cdn("cloudfront"), "aws-s3", as_of=NOW)
    amounts = [(item.category, item.quantity, item.amount_usd) for item in cost.line_items]
    assert amounts == [
        ("storage", Decimal("46566.12873077392578125"), Decimal("1071.02")),
        ("requests", Decimal(400), Decimal("0.16")),
        ("free_allowance", Decimal(1024), Decimal("0.00")),
        ("egress", Decimal(10240), Decimal("870.40")),
        ("egress", Decimal(40960), Decimal("3276.80")),
        ("egress", Decimal(102400), Decimal("6144.00")),
        ("egress", Decimal("31640.514923095703125"), Decimal("1265.62")),
        ("free_allowance", Decimal(400), Decimal("0.00")),
        ("transfer", Decimal(20000), Decimal("0.00")),
    ]
    assert cost.total_usd == Decimal("12628.00")
    assert cost.line_items[2].description == (
        "Amazon CloudFront data out (United States, Mexico and Canada): free allowance (1,024 GB a month);"
        " worth $40.96 off this bill"
    )
    assert cost.line_items[3].table_version == "cloudfront@2021-12-01"
    assert cost.line_items[-1].description.startswith("origin fetches Amazon S3 -> Amazon CloudFront: 20 TB, free")
    assert cost.assumptions[-1].startswith(
        "delivery: 200 TB a month served by Amazon CloudFront (cloudfront@2021-12-01, United States, Mexico and"
        " Canada) at a 90% hit ratio; Amazon S3 sees the misses: 20 TB and 400,000 of 4,000,000 GETs; origin"
        " fetches Amazon S3 -> Amazon CloudFront are free (verified-primary, routes@2021-12-01"
    )


def test_r2_behind_cloudflare() -> None:
    # developers.cloudflare.com/r2/pricing: 50 TB = 50,000 GB less 10 GB free = 49,990 x $0.015 = $749.85; the
    # 400,000 misses' Class B reads are within the 10 million free; Cloudflare's CDN bills no bandwidth on any
    # plan (cloudflare.com/plans, Free $0), the R2 -> Cloudflare fetch is free.
    assert _lines(_cdn("cloudflare"), "cloudflare-r2") == [
        ("R2 Standard storage", Decimal("0.00")),
        ("R2 Standard storage", Decimal("749.85")),
        ("class-b requests", Decimal("0.00")),
        ("Cloudflare CDN data out (everywhere (one price))", Decimal("0.00")),
        ("origin fetches Cloudflare R2 -> Cloudflare CDN", Decimal("0.00")),
        ("Cloudflare CDN Free plan", Decimal("0.00")),
    ]
    assert estimate_cost(_cdn("cloudflare"), "cloudflare-r2", as_of=NOW).total_usd == Decimal("749.85")


def test_b2_behind_bunny_pays_no_origin_egress() -> None:
    # backblaze.com/cloud-storage/pricing: 50 TB less 0.01 TB free = 49.99 x $6.95 = $347.43; docs.bunny.net/cdn/
    # pricing: 200,000 GB x $0.01 = $2,000.00; B2 -> bunny.net is free by partnership (backblaze.com/blog/
    # cdn-bandwidth-fees-what-you-need-to-know), so no B2 egress line and nothing of its 3x allowance used.
    cost = estimate_cost(_cdn("bunny"), "backblaze-b2", as_of=NOW)
    assert [(i.category, i.amount_usd) for i in cost.line_items] == [
        ("free_allowance", Decimal("0.00")),
        ("storage", Decimal("347.43")),
        ("requests", Decimal("0.00")),
        ("egress", Decimal("2000.00")),
        ("transfer", Decimal("0.00")),
    ]
    assert cost.total_usd == Decimal("2347.43")
    assert not [i for i in cost.line_items if i.description.startswith("internet egress")]


def test_a_free_egress_cap_counts_origin_egress_only() -> None:
    # Wasabi's free egress holds while egress stays within 1x the stored volume: 200 TB straight from a 50 TB
    # bucket breaks it, but behind bunny.net at 90 % hits the bucket sends only the 20 TB of misses.
    direct = _workload(BEHIND_A_CDN.replace("delivery:\n  cdn: {provider: PROVIDER, hit_ratio: 0.9}\n", ""))
    assert [b.used_bytes for b in estimate_cost(direct, "wasabi", as_of=NOW).policy_breaches] == [200 * 10**12]
    behind = estimate_cost(_cdn("bunny"), "wasabi", as_of=NOW)
    assert behind.policy_breaches == []
    egress = [i for i in behind.line_items if i.description == "internet egress"]
    assert [(i.quantity, i.amount_usd) for i in egress] == [(Decimal("18626.451492309570312500"), Decimal("0.00"))]
    # ... and at 50 % hits the 100 TB of misses break it again
    worse = estimate_cost(
        _workload(BEHIND_A_CDN.replace("PROVIDER, hit_ratio: 0.9", "bunny, hit_ratio: 0.5")), "wasabi", as_of=NOW
    )
    assert [b.used_bytes for b in worse.policy_breaches] == [100 * 10**12]


def test_gcs_behind_cloud_cdn_pays_cache_fill() -> None:
    # cloud.google.com/storage/pricing (gcs@2026-09-20, us-central1): 50 TB = 46,566.128731 GiB, the Always Free 5
    # GiB-months first, 46,561.128731 x $0.020 = $931.22; 4,000,000 GETs (200 TB / 50 MB), the 10 % missed =
    # 400,000, 50,000 Class B free, 350 x $0.0004 / 1,000 = $0.14; the bucket bills no egress for the misses.
    # cloud.google.com/cdn/pricing (North America): 200 TB = 186,264.514923 GiB out, 10,240 x $0.08 = $819.20,
    # 143,360 x $0.055 = $7,884.80, 32,664.514923 x $0.03 = $979.94; 4,000,000 lookups / 10,000 x $0.0075 =
    # $3.00; the 20 TB of misses = 18,626.451492 GiB of cache fill x $0.01 = $186.26
    cost = estimate_cost(_cdn("gcp-cdn"), "gcs", as_of=NOW)
    amounts = [(item.category, item.quantity, item.amount_usd) for item in cost.line_items]
    assert amounts == [
        ("free_allowance", Decimal(5), Decimal("0.00")),
        ("storage", Decimal("46561.12873077392578125"), Decimal("931.22")),
        ("free_allowance", Decimal(50), Decimal("0.00")),
        ("requests", Decimal(350), Decimal("0.14")),
        ("egress", Decimal(10240), Decimal("819.20")),
        ("egress", Decimal(143360), Decimal("7884.80")),
        ("egress", Decimal("32664.514923095703125"), Decimal("979.94")),
        ("requests", Decimal(400), Decimal("3.00")),
        ("transfer", Decimal("18626.4514923095703125"), Decimal("186.26")),
    ]
    fill = [i for i in cost.line_items if i.description.startswith("Google Cloud CDN cache fill from ")]
    assert [i.amount_usd for i in fill] == [Decimal("186.26")]
    assert cost.total_usd == Decimal("10804.56")


SPLIT = """
name: split
storage:
  stored: 10 TB
  object_size: 10 MB
traffic:
  egress: {internet: 20 TB, same_region: 5 TB, other_region: {bytes: 1 TB, region: eu-west-1}}
"""


def test_s3_egress_split_by_destination() -> None:
    # aws.amazon.com/s3/pricing (aws-s3@2025-12-01): storage 9,313.225746 GB x $0.023 = $214.20; reads
    # (20 + 5 + 1) TB / 10 MB = 2,600,000 GETs x $0.0004 / 1,000 = $1.04; internet 20 TB = 18,626.451492 GB,
    # 100 GB free, 10,240 x $0.09 = $921.60, 8,286.451492 x $0.085 = $704.35; same region: free (no line);
    # other region 1 TB = 931.322575 GB x $0.02 = $18.63.
    workload = _workload(SPLIT)
    assert (workload.traffic.egress, workload.traffic.internal_reads, workload.traffic.inter_region) == (
        20 * 10**12,
        5 * 10**12,
        10**12,
    )
    cost = estimate_cost(workload, "aws-s3", as_of=NOW)
    assert [(i.category, i.amount_usd) for i in cost.line_items] == [
        ("storage", Decimal("214.20")),
        ("requests", Decimal("1.04")),
        ("free_allowance", Decimal("0.00")),
        ("egress", Decimal("921.60")),
        ("egress", Decimal("704.35")),
        ("transfer", Decimal("18.63")),
    ]
    assert cost.total_usd == Decimal("1859.82")
    assert workload.traffic.egress_to is not None and workload.traffic.egress_to.other_region_name == "eu-west-1"


def test_shares_of_a_total_and_a_split_cdn_part() -> None:
    text = """
name: shares
storage: {stored: 50 TB, object_size: 50 MB}
traffic:
  egress: {total: 220 TB, cdn: 200 TB, internet: 20 TB}
delivery:
  cdn: {provider: cloudfront, hit_ratio: 0.9}
"""
    by_size = _workload(text)
    by_share = _workload(
        text.replace(
            "cdn: 200 TB, internet: 20 TB", 'cdn: "90.909090909090909090909%", internet: "9.090909090909090909091%"'
        )
    )
    assert by_share.traffic.egress_to == by_size.traffic.egress_to
    # the CDN serves its 200 TB as before; S3 bills the 20 TB straight to the internet, not the misses
    cost = estimate_cost(by_size, "aws-s3", as_of=NOW)
    cloudfront = sum((i.amount_usd for i in cost.line_items if i.table_version.startswith("cloudfront")), Decimal(0))
    assert cloudfront == Decimal("11556.82")  # 870.40 + 3,276.80 + 6,144.00 + 1,265.62
    internet = [i.amount_usd for i in cost.line_items if i.description.startswith("internet egress,")]
    assert internet == [Decimal("921.60"), Decimal("704.35")]  # 20 TB, as in the split above


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ("hit_ratio: 0.9", "hit_ratio: 1.5"),
            "w.yaml: delivery.cdn.hit_ratio: Input should be less than or equal to 1",
        ),
        (
            ("provider: PROVIDER", "provider: akamai"),
            "w.yaml: delivery.cdn.provider: unknown CDN 'akamai'"
            " (known: bunny, cloudflare, cloudfront, fastly, gcp-cdn)",
        ),
        (
            ("egress: 200 TB", 'egress: {total: 200 TB, cdn: "90%", internet: "5%"}'),
            "w.yaml: traffic: egress: the shares add up to 95%, not 100%",
        ),
        (
            ("egress: 200 TB", "egress: {total: 200 TB, cdn: 180 TB, internet: 10 TB}"),
            "w.yaml: traffic: egress: the destinations add up to 190 TB, not the total 200 TB",
        ),
        (
            ("egress: 200 TB", 'egress: {cdn: "90%"}'),
            "w.yaml: traffic: egress.cdn: a share (90%) needs egress.total to be a share of",
        ),
        (
            ("egress: 200 TB", "egress: {cdn: 200 TB, moon: 1 TB}"),
            "w.yaml: traffic: egress.moon: unknown destination"
            " (give internet, cdn, same_region, other_region and total)",
        ),
        (
            ("egress: 200 TB", "egress: {internet: 200 TB}"),
            "w.yaml: delivery: traffic.egress is split and sends nothing to the CDN (give traffic.egress.cdn)",
        ),
    ],
)
def test_bad_delivery_input_is_one_line_naming_the_field(change: tuple[str, str], message: str) -> None:
    text = BEHIND_A_CDN.replace("PROVIDER", "cloudfront") if "PROVIDER" not in change[0] else BEHIND_A_CDN
    with pytest.raises(InputError) as caught:
        _workload(text.replace(*change))
    assert str(caught.value) == message


def test_a_cdn_part_without_a_cdn_is_refused() -> None:
    with pytest.raises(InputError) as caught:
        _workload(SPLIT.replace("internet: 20 TB", "cdn: 20 TB"))
    assert str(caught.value) == (
        "w.yaml: delivery: traffic.egress.cdn sends 20 TB through a CDN, but no CDN is named"
        " (e.g. delivery: {cdn: {provider: cloudfront, hit_ratio: 0.9}})"
    )


def test_same_region_reads_at_a_provider_without_regions_are_refused() -> None:
    with pytest.raises(InputError) as caught:
        estimate_cost(_workload(SPLIT), "cloudflare-r2", as_of=NOW)
    assert str(caught.value).startswith(
        "traffic.egress.same_region: 5 TB read in the same region, but Cloudflare R2 has no regions ("
    )


def test_cost_cli_prices_the_cdn_and_refuses_bad_input_with_exit_2(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(BEHIND_A_CDN.replace("PROVIDER", "cloudfront"))
    result = run_cli("cost", str(path), "--provider", "aws-s3", "--as-of", "2026-12-01")
    assert result.code == 0, result.err
    assert result.out.startswith("aws-s3 standard: $12,628.00* a month")
    assert "origin fetches Amazon S3 -> Amazon CloudFront: 20 TB, free" in result.out
    path.write_text(BEHIND_A_CDN.replace("PROVIDER", "cloudfront").replace("0.9", "-0.1"))
    result = run_cli("cost", str(path), "--provider", "aws-s3", "--as-of", "2026-12-01")
    assert result.code == 2
    assert result.err.strip().splitlines() == [
        f"planner: {path}: delivery.cdn.hit_ratio: Input should be greater than or equal to 0"
    ]


def test_recommend_explains_the_path_it_priced() -> None:
    result = recommend(_cdn("bunny"), as_of=NOW, simulate=False)
    assert result.recommendation is not None
    paths = [r for r in result.recommendation.reasons if r.startswith("priced path: ")]
    assert len(paths) == 1 and "served by bunny.net CDN" in paths[0]


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
def test_recommend_without_delivery_is_todays_answer(example: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no delivery section the CDN wiring changes nothing: the same ranking, bills and figures as with
    the delivery stage taken out of the engine (before this change, estimate_cost had none)."""
    workload = load_workload(EXAMPLES / example)
    if workload.delivery is not None:
        pytest.skip("names a CDN")
    with_stage = recommend(workload, as_of=NOW, simulate=False).model_dump(mode="json")
    monkeypatch.setattr(bills, "delivery_path", lambda *_args: None)
    monkeypatch.setattr(cdn_bills, "delivery_path", lambda *_args: None)
    without = recommend(workload, as_of=NOW, simulate=False).model_dump(mode="json")
    assert with_stage == without


@pytest.mark.parametrize(
    ("provider", "cdn", "total"),
    [
        # the README's table of delivery paths for examples/video-cdn.yaml (200 TB served at 95 % hits)
        ("aws-s3", None, "17369.70"),
        ("aws-s3", "cloudfront", "15748.09"),
        ("aws-s3", "cloudflare", "4980.46"),
        ("cloudflare-r2", "cloudflare", "2999.85"),
        ("backblaze-b2", "bunny", "3389.93"),
        ("backblaze-b2", "cloudflare", "1389.93"),
        ("wasabi", "bunny", "3453.37"),
    ],
)
def test_the_readme_delivery_paths(provider: str, cdn: str | None, total: str) -> None:
    workload = load_workload(EXAMPLES / "video-cdn.yaml")
    assert workload.delivery is not None
    choice = (
        None
        if cdn is None
        else workload.delivery.model_copy(update={"cdn": workload.delivery.cdn.model_copy(update={"provider": cdn})})
    )
    priced = estimate_cost(workload.model_copy(update={"delivery": choice}), provider, as_of=NOW)
    assert priced.total_usd == Decimal(total)


def test_sweep_varies_the_hit_ratio() -> None:
    # S3 behind CloudFront: 50,000,000 segment GETs a month; at 50 % hits S3 bills 25,000,000 of them
    # (25,000 x $0.0004 = $10.00), at 100 % none, so the month falls by $10.00; CloudFront's bill, which
    # serves all 200 TB, and the free origin fetch do not move.
    workload = load_workload(EXAMPLES / "video-cdn.yaml")
    result = sweep(workload, [parse_axis(workload, "delivery.cdn.hit_ratio=0.5..1:2")], as_of=NOW)
    s3 = [cell.costs_usd["aws-s3:standard"] for cell in result.cells]
    assert s3 == [Decimal("15757.09"), Decimal("15747.09")]


def test_samples_draw_the_hit_ratio_and_price_the_cdn() -> None:
    # hit_ratio uniform on [0.5, 1]: S3 behind CloudFront bills $15,757.09 at 0.5 and $15,747.09 at 1 (see the
    # sweep above), so every outcome lies between them; before the CDN was priced outcome by outcome the
    # samples showed S3's bill without CloudFront, $17,369.70 whatever the hit ratio.
    text = (EXAMPLES / "video-cdn.yaml").read_text(encoding="utf-8")
    text = text.replace("hit_ratio: 0.95 ", "hit_ratio: {low: 0.5, high: 1.0} ")
    text = text.replace("providers: [aws-s3, cloudflare-r2, backblaze-b2, wasabi, idrive-e2]", "providers: [aws-s3]")
    workload = with_ranges(load_yaml(text, "w.yaml"), "w.yaml")
    assert [u.field for u in workload.uncertain] == ["delivery.cdn.hit_ratio"]
    answer = sample(workload, workload.uncertain, 40, seed=1, as_of=NOW)
    (s3,) = answer.options
    assert 15747.09 <= s3.p10_usd < s3.p90_usd <= 15757.09


def test_a_free_egress_cap_behind_a_cdn_is_reached_by_the_misses() -> None:
    # IDrive e2's free egress holds up to 3x stored (600 TB for 200 TB); behind CloudFront at 95 % hits on an
    # internet route the bucket sends 5 % of what is served, so the cap is reached at 600 TB / 0.05 = 12 PB served.
    result = recommend(load_workload(EXAMPLES / "video-cdn.yaml"), as_of=NOW, simulate=False)
    assert result.recommendation is not None and result.recommendation.provider == "idrive-e2"
    (policy,) = [b for b in result.break_even if b.kind == "policy"]
    assert policy.at == pytest.approx(12e15)
    assert policy.statement == (
        "idrive-e2:standard egress is free only while it stays at or below 12 PB a month (3x stored; the CDN's"
        " misses, the origin egress the policy counts, reach 600 TB there); above that the provider may limit or"
        " suspend the account (the policy's figure is unverified)"
    )


def test_migrate_behind_a_cdn_compares_the_origins() -> None:
    # The video example behind bunny.net. Staying on S3: storage 51,200 GB x $0.023 = $1,177.60 and
    # 135,064.514923 GB x $0.022 = $2,971.42, 250,000 PUTs $1.25, the 2,500,000 misses' GETs $1.00, and the 10 TB
    # of misses as S3 internet egress (9,313.225746 GB less 100 free, x $0.09 = $829.19): $4,980.46, not the
    # $17,369.70 of 200 TB straight from S3. Moving to B2: 199.99 TB x $6.95 = $1,389.93, the fetch free by
    # partnership. bunny.net's $2,000 is the same either way and left out, as the plan says.
    workload = load_workload(EXAMPLES / "video-cdn.yaml")
    assert workload.delivery is not None
    bunny = workload.delivery.cdn.model_copy(update={"provider": "bunny"})
    behind_bunny = workload.model_copy(update={"delivery": workload.delivery.model_copy(update={"cdn": bunny})})
    plan = estimate_migration(
        behind_bunny,
        MigrationOptions(
            source=Endpoint.parse("aws-s3:standard", "--from"),
            destination=Endpoint.parse("backblaze-b2:standard", "--to"),
            start=NOW,
        ),
    )
    assert (plan.monthly_before_usd, plan.monthly_after_usd) == (Decimal("4980.46"), Decimal("1389.93"))
    assert (
        "the reads go through the CDN bunny at a 95% hit ratio: each bucket bills only the misses, by its route to"
        " the CDN; the CDN's own bill, the same staying or moving, is left out"
    ) in plan.assumptions


def test_the_simulator_sends_the_store_only_the_misses() -> None:
    # 50,000,000 segment GETs a month through CloudFront at 95 % hits: 2,500,000 reach S3, with the 250,000
    # writes; before, the simulator sent S3 every viewer's GET (50,279,040 simulated for the month).
    adapted = adapt_workload(load_workload(EXAMPLES / "video-cdn.yaml"), window="mean")
    assert adapted.mean_rate_per_s == pytest.approx((2_500_000 + 250_000) / (30 * 86400))
    assert (
        "behind the CDN cloudfront at a 95% hit ratio the store sees 2,500,000 of the month's 50,000,000 GETs:"
        " a hit is not a request to the store"
    ) in adapted.assumptions


@pytest.mark.parametrize("text", [SPLIT, SPLIT.replace("{internet: 20 TB,", '{total: 26 TB, internet: "76.923%",')])
def test_the_shipped_schema_takes_a_split_egress(text: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    data = json.loads(json.dumps(load_yaml(text, "w.yaml"), default=float))
    jsonschema.validate(data, schema_for("workload"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**data, "traffic": {"egress": {"moon": "1 TB"}}}, schema_for("workload"))
