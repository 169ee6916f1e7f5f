"""``recommend --cdn``: a CDN is a choice too, each option a (provider, class, CDN) path priced behind its CDN.

The figures are the README's table of delivery paths for examples/video-cdn.yaml (200 TB a month of 4 MB
segments served at 95 % hits, prices in force on 2026-12-01), each hand-computed and held by
tests/planner/costing/test_cdn_bills.py::test_the_readme_delivery_paths; the paths it has no row for follow from
them by the CDN's own bill, the only part that changes with the CDN when the origin's route costs nothing:
- Cloudflare (Free plan) bills no bandwidth and no requests: $0;
- bunny.net bills $0.01/GB: 200,000 GB = $2,000.00;
- CloudFront bills $11,596.82: S3 + CloudFront $15,748.09 less S3's origin bill $4,151.27, which is S3 +
  Cloudflare $4,980.46 less the 10 TB of misses it bills there as internet egress (9,313.23 GiB, the
  first 100 GB free, 9,213.23 GiB at $0.09 = $829.19).
R2's egress is free, and B2's 10 TB of misses stay within its free egress (3x the 200 TB stored) on any
route, so for those two the origin bill is the same behind every CDN.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest

from planner.costing.bills import estimate_cost
from planner.decide.recommendation import break_even_points, recommend
from planner.errors import InputError
from planner.pricing.catalog import load_yaml
from planner.workload import Workload, load_workload, parse_workload
from tests.planner.conftest import Result

NOW = dt.date(2026, 12, 1)
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
VIDEO_CDN = EXAMPLES / "video-cdn.yaml"
CDNS = ["cloudfront", "cloudflare", "bunny"]


def _three_providers() -> Workload:
    workload = load_workload(VIDEO_CDN)
    constraints = workload.constraints.model_copy(update={"providers": ["aws-s3", "cloudflare-r2", "backblaze-b2"]})
    return workload.model_copy(update={"constraints": constraints})


def test_recommend_ranks_storage_and_cdn_together() -> None:
    result = recommend(_three_providers(), as_of=NOW, simulate=False, cdns=CDNS)
    ranked = [(o.label, o.storage_class, o.monthly_cost_usd) for o in result.ranking]
    assert ranked == [
        ("backblaze-b2 + cloudflare", "standard", Decimal("1389.93")),  # README table
        ("cloudflare-r2 + cloudflare", "standard", Decimal("2999.85")),  # README table
        ("backblaze-b2 + bunny", "standard", Decimal("3389.93")),  # README table: 1,389.93 + 2,000.00
        ("aws-s3 + cloudflare", "standard", Decimal("4980.46")),  # README table
        ("cloudflare-r2 + bunny", "standard", Decimal("4999.85")),  # 2,999.85 + 2,000.00
        ("aws-s3 + bunny", "standard", Decimal("6980.46")),  # 4,980.46 + 2,000.00
        ("backblaze-b2 + cloudfront", "standard", Decimal("12986.75")),  # 1,389.93 + 11,596.82
        ("cloudflare-r2 + cloudfront", "standard", Decimal("14596.67")),  # 2,999.85 + 11,596.82
        ("aws-s3 + cloudfront", "standard", Decimal("15748.09")),  # README table
    ]
    assert [o.horizon_cost_usd for o in result.ranking[:1]] == [Decimal("1389.93") * 12]
    assert result.recommendation is not None
    assert result.recommendation.label == "backblaze-b2 + cloudflare"
    reasons = result.recommendation.reasons
    assert reasons[1] == (
        "saves $19,319.04 over 12 months against the next such option, cloudflare-r2 + cloudflare standard"
        " ($35,998.20 over 12 months, $2,999.85 this month; drivers: storage 100%)"  # 2.5 M Class B reads: 10 M free
    )
    paths = [r for r in reasons if r.startswith("priced path: ")]
    assert len(paths) == 1
    assert paths[0].startswith(
        "priced path: 200 TB a month served by Cloudflare CDN (cloudflare@2012-07-01, everywhere (one price)) at a"
        " 95% hit ratio; Backblaze B2 sees the misses: 10 TB and 2,500,000 of 50,000,000 GETs; origin fetches"
        " Backblaze B2 -> Cloudflare CDN are free"
    )


def test_the_three_headline_paths() -> None:
    """ "R2 + Cloudflare" vs "S3 + CloudFront" vs "B2 + bunny": each its README figure, in that order."""
    result = recommend(_three_providers(), as_of=NOW, simulate=False, cdns=CDNS)
    wanted = ["cloudflare-r2 + cloudflare", "backblaze-b2 + bunny", "aws-s3 + cloudfront"]
    picked = [(o.label, o.monthly_cost_usd) for o in result.ranking if o.label in wanted]
    assert picked == [
        ("cloudflare-r2 + cloudflare", Decimal("2999.85")),
        ("backblaze-b2 + bunny", Decimal("3389.93")),
        ("aws-s3 + cloudfront", Decimal("15748.09")),
    ]


def test_each_curve_is_priced_behind_its_own_cdn() -> None:
    result = recommend(_three_providers(), as_of=NOW, simulate=False, cdns=CDNS)
    assert result.egress_curves is not None
    today = result.egress_curves.egress_bytes.index(200e12)
    by_rank = {o.rank: o for o in result.ranking}
    at_today = {by_rank[c.rank].label: c.monthly_cost_usd[today] for c in result.egress_curves.curves}
    assert at_today == {
        "backblaze-b2 + cloudflare": 1389.93,
        "cloudflare-r2 + cloudflare": 2999.85,
        "aws-s3 + cloudflare": 4980.46,
    }


def test_a_break_even_point_prices_each_side_behind_its_own_cdn() -> None:
    """R2 + Cloudflare costs $2,999.85 at any egress up to 800 TB (R2 egress free, Cloudflare free, the 10 M
    free Class B reads cover the misses' GETs); B2 + bunny.net costs $1,389.93 + $0.01/GB served. They cross
    where 0.01 x GB = 1,609.92: 160,992 GB. Priced behind one CDN both sides would pay the same CDN bill and
    B2 would be cheaper at every volume."""
    workload = _three_providers()
    result = recommend(workload, as_of=NOW, simulate=False, cdns=CDNS, curves=False)
    by_label = {o.label: o for o in result.ranking}
    points = break_even_points(
        workload, by_label["cloudflare-r2 + cloudflare"], [by_label["backblaze-b2 + bunny"]], NOW, {}
    )
    assert [(p.statement, p.at) for p in points] == [
        (
            "cloudflare-r2 + cloudflare:standard stays cheaper than backblaze-b2 + bunny:standard until monthly"
            " egress falls below 160.99 TB (0.80x stored) ($2,999.85 against $3,389.93 a month at today's 200 TB)",
            160_992e9,
        )
    ]


def test_one_cdn_named_takes_the_workloads_cdn_place() -> None:
    """One CDN is not a comparison: the answer is the workload's own with that CDN in front, labels unchanged."""
    workload = load_workload(VIDEO_CDN)
    assert workload.delivery is not None and workload.delivery.cdn.provider == "cloudfront"
    same = recommend(workload, as_of=NOW, simulate=False, cdns=["cloudfront"]).model_dump(mode="json")
    assert same == recommend(workload, as_of=NOW, simulate=False).model_dump(mode="json")
    bunny = recommend(workload, as_of=NOW, simulate=False, cdns=["bunny"])
    assert [(o.label, o.monthly_cost_usd) for o in bunny.ranking if o.provider == "backblaze-b2"] == [
        ("backblaze-b2", Decimal("3389.93"))
    ]


def test_no_cdn_to_compare_with() -> None:
    workload = load_workload(EXAMPLES / "video-streaming.yaml")
    assert workload.delivery is None
    with pytest.raises(InputError) as error:
        recommend(workload, as_of=NOW, simulate=False, cdns=CDNS)
    assert str(error.value) == (
        "--cdn: the workload names no CDN: give delivery.cdn with its hit ratio, e.g. delivery: {cdn: {provider:"
        " cloudfront, hit_ratio: 0.9}}"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--cdn", "cloudfront,akamai,bunny"],
            "planner: --cdn: unknown CDN 'akamai' (known: bunny, cloudflare, cloudfront, fastly, gcp-cdn)",
        ),
        (["--cdn", " , "], "planner: --cdn: give CDN ids separated by commas, e.g. cloudfront,cloudflare,bunny"),
        (
            ["--cdn", "cloudfront,bunny", "--samples", "10"],
            "planner: --cdn: the --samples outcomes price the workload's own CDN: leave out --samples, or this option",
        ),
    ],
)
def test_bad_cdn_lists_are_one_line_with_exit_2(args: list[str], message: str, run_cli: Callable[..., Result]) -> None:
    result = run_cli("recommend", str(VIDEO_CDN), "--as-of", "2026-12-01", "--no-simulate", *args)
    assert result.code == 2
    assert result.err.strip().splitlines() == [message]


def test_the_cli_compares_paths(run_cli: Callable[..., Result]) -> None:
    result = run_cli(
        "--wide",
        "recommend",
        str(VIDEO_CDN),
        "--as-of",
        "2026-12-01",
        "--no-simulate",
        "--cdn",
        "cloudfront,cloudflare,bunny",
    )
    assert result.code == 0, result.err
    assert "Use idrive-e2 + cloudflare standard" in result.out
    assert "15   aws-s3 + cloudfront         standard  $15,748.09*" in result.out


HOT_SET = """
name: video behind a CDN, hit ratio from the hot set
storage:
  stored: 200 TB
  object_size: 8 GB
traffic:
  egress: 200 TB
  reads: 30000
  hot_objects: HOT
delivery:
  cdn: {provider: cloudflare}
"""


@pytest.mark.parametrize(
    ("hot", "ratio"),
    [
        # 30 % of 30,000 GETs hit the hot object, less its one fetch a month: 8,999 hits, 8,999 / 30,000 of
        # the GETs; whole 8 GB objects, so 8,999 x 8 GB / 200 TB = 0.35996 of the bytes: the GETs' share is less
        ("{count: 1, share_of_reads: 0.3}", 8_999 / 30_000),
        # ten hot objects in two copies each: 20 fetches a month, 8,980 hits
        ("{count: 10, share_of_reads: 0.3, replicas: 2}", 8_980 / 30_000),
        # players fetch 8 MiB of each: 8,999 x 8,388,608 B of the 200 TB read is the smaller share
        ("{count: 1, share_of_reads: 0.3, read_size: 8 MiB}", 8_999 * 8_388_608 / 200e12),
        # more hot objects than hot reads: nothing to hit
        ("{count: 10000, share_of_reads: 0.3}", 0.0),
    ],
)
def test_the_hit_ratio_is_derived_from_the_hot_set(hot: str, ratio: float) -> None:
    workload = parse_workload(load_yaml(HOT_SET.replace("HOT", hot), "w.yaml"), "w.yaml")
    assert workload.delivery is not None
    assert workload.delivery.cdn.hit_ratio == pytest.approx(ratio, rel=1e-12)


def test_the_store_sees_the_hot_sets_misses() -> None:
    """R2 behind Cloudflare, the hit ratio from a hot object read 30 % of the time: 8,999 of 30,000 GETs
    hit, so R2 serves 21,001 of them (and 140.01 TB: the misses' share of the bytes, the same ratio)."""
    workload = parse_workload(load_yaml(HOT_SET.replace("HOT", "{count: 1, share_of_reads: 0.3}"), "w.yaml"), "w.yaml")
    paths = [a for a in estimate_cost(workload, "cloudflare-r2", as_of=NOW).assumptions if "hit ratio" in a]
    assert len(paths) == 1 and "at a 29.9967% hit ratio" in paths[0]
    assert "Cloudflare R2 sees the misses: 140.01 TB and 21,001 of 30,000 GETs" in paths[0]


def test_no_hit_ratio_and_no_hot_set_is_one_line(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(HOT_SET.replace("  hot_objects: HOT\n", ""))
    result = run_cli("cost", str(path), "--provider", "aws-s3", "--as-of", "2026-12-01")
    assert result.code == 2
    assert result.err.strip().splitlines() == [
        f"planner: {path}: delivery: cdn.hit_ratio: give the CDN's hit ratio (e.g. 0.9), or traffic.hot_objects"
        " to derive it from"
    ]


def test_json_names_the_cdn_only_when_cdns_are_compared(run_cli: Callable[..., Result]) -> None:
    compared = run_cli(
        "recommend", str(VIDEO_CDN), "--as-of", "2026-12-01", "--no-simulate", "--cdn", "cloudflare,bunny", "-f", "json"
    )
    assert compared.code == 0, compared.err
    data = json.loads(compared.out)
    assert [(o["provider"], o["cdn"]) for o in data["ranking"][:2]] == [
        ("idrive-e2", "cloudflare"),
        ("backblaze-b2", "cloudflare"),
    ]
    assert data["recommendation"]["cdn"] == "cloudflare"
    alone = run_cli("recommend", str(VIDEO_CDN), "--as-of", "2026-12-01", "--no-simulate", "-f", "json")
    data = json.loads(alone.out)
    assert all("cdn" not in o for o in data["ranking"]) and "cdn" not in data["recommendation"]
