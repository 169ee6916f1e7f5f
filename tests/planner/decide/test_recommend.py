"""The recommendation: ranking, feasibility, reasons and solved break-even points."""

from __future__ import annotations

import datetime as dt
import json
import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
import yaml

from planner.costing.bills import estimate_cost
from planner.decide.recommendation import RankedOption, recommend, solve_crossing
from planner.decide.recommendation.explain import _failed_everywhere
from planner.workload import load_workload, parse_workload
from tests.planner.conftest import EXAMPLES

NOW = dt.date(2026, 12, 1)
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.yaml"))


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_every_example_recommends(path: object) -> None:
    # An example whose targets no shipped profile backs (none publishes a p99 TTFB) gets a provisional
    # answer, the cheapest option with its targets unverified, and recommend exits 1 on it.
    result = recommend(load_workload(path), as_of=NOW, simulate=False)  # type: ignore[arg-type]
    answer = result.recommendation or result.provisional
    assert answer is not None
    chosen = [o for o in result.ranking if o.chosen]
    if result.recommendation is not None:
        assert len(chosen) == 1 and chosen[0].status == "ok" and chosen[0] is result.ranking[0]
    else:
        assert not chosen and result.ranking[0].status == "unverified"
        assert (result.ranking[0].provider, result.ranking[0].storage_class) == (answer.provider, answer.storage_class)
    for status in ("ok", "unverified", "rejected"):
        group = [o.horizon_cost_usd for o in result.ranking if o.status == status]
        assert group == sorted(group)
    assert all(o.violations for o in result.ranking if not o.feasible)
    assert all(o.unverified and not o.violations for o in result.ranking if o.status == "unverified")


def test_break_even_points_are_where_the_costs_cross() -> None:
    workload = load_workload(EXAMPLES / "pipeline-scratch.yaml")
    result = recommend(workload, as_of=NOW, simulate=False)
    finite = [b for b in result.break_even if math.isfinite(b.at) and b.kind == "price"]
    assert finite
    for point in finite:
        variant = workload.model_copy(
            update={"traffic": workload.traffic.model_copy(update={"egress": round(point.at)})}
        )
        a_provider, a_class = point.option.split(":")
        b_provider, b_class = point.other.split(":")
        a = estimate_cost(variant, a_provider, a_class, as_of=NOW).total_usd
        b = estimate_cost(variant, b_provider, b_class, as_of=NOW).total_usd
        assert abs(a - b) < Decimal("0.01"), point.statement


def test_b2_stays_cheaper_than_r2_until_egress_exceeds_its_allowance() -> None:
    # B2 pays $0.01/GB beyond 3x stored; R2 never pays egress: the crossing is where B2's extra
    # egress charge equals the storage-price gap, above 3x stored.
    workload = load_workload(EXAMPLES / "pipeline-scratch.yaml")
    result = recommend(workload, as_of=NOW, simulate=False)
    assert result.recommendation is not None and result.recommendation.provider == "backblaze-b2"
    point = next(b for b in result.break_even if b.other == "cloudflare-r2:standard")
    assert point.ratio_to_stored is not None and point.ratio_to_stored > 3


def test_solve_crossing_is_exact_on_a_linear_segment() -> None:
    assert solve_crossing(lambda x: Decimal(str(x)) - Decimal(7), [], 10.0) == pytest.approx(7.0)
    assert solve_crossing(lambda x: Decimal(1), [5.0], 10.0) is None


def test_archive_classes_are_rejected_only_with_latency_targets() -> None:
    backup = recommend(load_workload(EXAMPLES / "backup-archive.yaml"), as_of=NOW, simulate=False)
    assert backup.recommendation is not None and backup.recommendation.storage_class == "deep-archive"
    video = recommend(load_workload(EXAMPLES / "video-streaming.yaml"), as_of=NOW, simulate=False)
    deep = next(o for o in video.ranking if o.storage_class == "deep-archive")
    assert not deep.feasible and "restored" in deep.violations[0]


def test_archive_classes_show_no_read_figures_from_the_profile_or_the_simulation() -> None:
    # the simulation and the profile describe immediate reads, which an archive class does not serve
    backup = recommend(load_workload(EXAMPLES / "backup-archive.yaml"), as_of=NOW, sim_duration_s=2)
    by_class = {o.storage_class: o.performance for o in backup.ranking if o.provider == "aws-s3"}
    for archive in ("deep-archive", "glacier-flexible"):
        perf = by_class[archive]
        assert perf.read_throughput_bits_per_s is None and perf.simulation is None and perf.throttle_rate is None
        assert perf.read_bound is not None and "restore" in perf.read_bound
    assert by_class["glacier-ir"].simulation is not None and by_class["glacier-ir"].read_throughput_bits_per_s


def test_egress_policy_rejects_wasabi_when_egress_exceeds_storage() -> None:
    result = recommend(load_workload(EXAMPLES / "web-assets.yaml"), as_of=NOW, simulate=False)
    wasabi = next(o for o in result.ranking if o.provider == "wasabi")
    assert not wasabi.feasible and "free-egress policy" in wasabi.violations[0]
    answer = result.recommendation or result.provisional
    assert answer is not None and any("wasabi standard rejected although cheaper" in r for r in answer.reasons)


def test_no_feasible_option_reports_the_target_that_failed() -> None:
    data = {
        "name": "impossible",
        "storage": {"stored": "1 TB", "object_size": "1 GB"},
        "performance": {"read_throughput": "100 Gbps"},
        "client": {"link": "10 Gbps"},
        "constraints": {"providers": ["aws-s3", "cloudflare-r2"]},
    }
    result = recommend(parse_workload(data), as_of=NOW, simulate=False)
    assert result.recommendation is None
    assert result.failed_targets == ["read throughput"]


def _reworded(ranking: list[RankedOption], words: str) -> list[RankedOption]:
    """The same options with every reason said in other words: the statements of their rejections, their
    violations and their verdicts' reasons all become ``words``."""
    return [
        option.model_copy(
            update={
                "violations": [words for _ in option.violations],
                "rejections": [r.model_copy(update={"statement": words}) for r in option.rejections],
                "verdicts": [v.model_copy(update={"reason": words}) for v in option.verdicts],
            }
        )
        for option in ranking
    ]


def test_what_fails_everywhere_is_read_from_each_rejection_s_kind_not_its_words() -> None:
    """Wasabi's free egress ends at 1x the stored volume, IDrive e2's at 3x: at 5x both break their policy,
    and no provider reaches 100 Gbps over a 10 Gbps link."""
    data = {
        "name": "over the caps",
        "storage": {"stored": "10 TB", "object_size": "1 GB"},
        "traffic": {"egress": "50 TB"},
        "performance": {"read_throughput": "100 Gbps"},
        "client": {"link": "10 Gbps"},
        "constraints": {"providers": ["wasabi", "idrive-e2"]},
    }
    result = recommend(parse_workload(data), as_of=NOW, simulate=False)
    assert result.recommendation is None and result.provisional is None
    assert result.failed_targets == ["read throughput", "egress policy"]
    for option in result.ranking:
        assert option.violations == [r.statement for r in option.rejections]
        assert {(r.kind, r.target, r.policy) for r in option.rejections} == {
            ("target", "read throughput", None),
            ("policy", None, "free-egress"),
        }
    # the same structure in other words: the same answer (words that name no policy, no hot object)
    assert _failed_everywhere(_reworded(result.ranking, "reason withheld")) == result.failed_targets


def test_words_that_name_a_policy_do_not_make_a_policy_breach() -> None:
    data = {
        "name": "too fast",
        "storage": {"stored": "1 TB", "object_size": "1 GB"},
        "performance": {"read_throughput": "100 Gbps"},
        "client": {"link": "10 Gbps"},
        "constraints": {"providers": ["aws-s3", "cloudflare-r2"]},
    }
    result = recommend(parse_workload(data), as_of=NOW, simulate=False)
    assert result.failed_targets == ["read throughput"]
    misleading = _reworded(result.ranking, "breaks the egress policy of a hot object")
    assert _failed_everywhere(misleading) == ["read throughput"]


def test_simulation_shows_the_hot_object_throttling_that_replicas_remove() -> None:
    """Seed 001: R2 answers 503 above ~128 concurrent reads of one object; 8 replicas remove it."""
    workload = load_workload(EXAMPLES / "genomics-pipeline.yaml")
    single = workload.model_copy(
        update={
            "traffic": workload.traffic.model_copy(
                update={"hot_objects": workload.traffic.hot_objects.model_copy(update={"replicas": 1})}  # type: ignore[union-attr]
            ),
            "constraints": workload.constraints.model_copy(update={"providers": ["cloudflare-r2"]}),
        }
    )
    replicated = workload.model_copy(
        update={"constraints": workload.constraints.model_copy(update={"providers": ["cloudflare-r2"]})}
    )
    hot = recommend(single, as_of=NOW, sim_duration_s=30)
    cool = recommend(replicated, as_of=NOW, sim_duration_s=30)
    hot_r2 = next(o for o in hot.ranking if o.storage_class == "standard")
    cool_r2 = next(o for o in cool.ranking if o.storage_class == "standard")
    assert hot_r2.performance.simulation is not None
    assert (hot_r2.performance.throttle_rate or 0) > 0
    assert cool_r2.performance.throttle_rate == 0
    assert not hot_r2.feasible and any("hot object" in v for v in hot_r2.violations)


def test_cold_data_ranks_intelligent_tiering_from_how_long_it_goes_unread() -> None:
    # 10 TiB in 1 GiB objects that nobody reads: after 90 days Intelligent-Tiering holds it all in
    # Archive Instant ($0.004: 10,240 GB = $40.96, + $0.03 monitoring), below Standard-IA's $128.00
    # and Standard's $235.52 a month.
    data = {
        "name": "cold",
        "storage": {"stored": "10 TiB", "object_size": "1 GiB", "unread": {"30d": "100%", "90d": "100%"}},
        "constraints": {"providers": ["aws-s3"], "storage_classes": ["standard", "standard-ia", "intelligent-tiering"]},
    }
    result = recommend(parse_workload(data), as_of=NOW, simulate=False)
    monthly = {o.storage_class: o.monthly_cost_usd for o in result.ranking}
    assert monthly == {
        "intelligent-tiering": Decimal("40.99"),
        "standard-ia": Decimal("128.00"),
        "standard": Decimal("235.52"),
    }
    assert result.recommendation is not None and result.recommendation.storage_class == "intelligent-tiering"


# ----------------------------------------------------------------------------- what the result carries


def test_each_priced_option_carries_its_projection() -> None:
    from planner.costing.bills import project_costs

    workload = load_workload(EXAMPLES / "web-assets.yaml")
    result = recommend(workload, as_of=NOW, simulate=False)
    for option in result.ranking:
        if option.cost.table_version == "-":
            assert option.projection is None
            continue
        assert option.projection is not None
        assert option.projection.months[0].cost == option.cost
        assert option.projection.total_usd == option.horizon_cost_usd
    first = result.ranking[0]
    assert first.projection == project_costs(
        workload, first.provider, first.storage_class, months=result.months, as_of=NOW, region=first.region
    )
    # held for presenters, but not in JSON: its size grows with the horizon
    assert "projection" not in result.model_dump(mode="json")["ranking"][0]


def test_profile_provenance_names_what_each_provider_was_judged_on() -> None:
    workload = load_workload(EXAMPLES / "web-assets.yaml")
    result = recommend(workload, as_of=NOW, simulate=False)
    assert [p.provider for p in result.profiles] == workload.constraints.providers
    for judged in result.profiles:
        assert judged.path is None and judged.profile is not None
        assert judged.label == f"reference profile {judged.provider} (published benchmarks)"
        assert judged.kind == judged.profile.source.kind
        options = [o for o in result.ranking if o.provider == judged.provider and o.status != "rejected"]
        assert all(o.performance.source == judged.label for o in options)
    dumped = result.model_dump(mode="json")["profiles"][0]
    assert set(dumped) == {"provider", "label", "path", "kind"}


def test_egress_curves_are_the_exact_bills_the_plot_used_to_price() -> None:
    from planner.costing.bills import costs_at_egress

    workload = load_workload(EXAMPLES / "web-assets.yaml")
    result = recommend(workload, as_of=NOW, simulate=False)
    curves = result.egress_curves
    assert curves is not None and curves.curves
    grid = curves.egress_bytes
    assert grid == sorted(grid) and grid[0] == 0.0 and float(workload.traffic.egress) in grid
    assert all(b.at in grid for b in result.break_even if b.dimension == "egress" and math.isfinite(b.at))
    by_rank = {o.rank: o for o in result.ranking}
    assert len({by_rank[c.rank].provider for c in curves.curves}) == len(curves.curves)  # one per provider
    for curve in curves.curves:
        option = by_rank[curve.rank]
        assert (curve.provider, curve.storage_class) == (option.provider, option.storage_class)
        exact = costs_at_egress(workload, option.provider, option.storage_class, grid[::40], as_of=NOW)
        assert curve.monthly_cost_usd[::40] == [float(total) for total in exact]


def test_recommend_builds_each_provider_model_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.decide.recommendation import inputs

    built: list[str] = []
    real = inputs.provider_model_from_profile

    def counted(profile, limits=None):  # type: ignore[no-untyped-def]
        built.append(profile.provider)
        return real(profile, limits)

    monkeypatch.setattr(inputs, "provider_model_from_profile", counted)
    workload = load_workload(EXAMPLES / "web-assets.yaml")
    result = recommend(workload, as_of=NOW, sim_duration_s=1.0)
    assert all(o.performance.simulation for o in result.ranking if o.status != "rejected")
    assert sorted(built) == sorted(workload.constraints.providers)


def test_samples_with_prices_is_refused_before_any_work(run_cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    override = tmp_path / "edp.yaml"
    override.write_text('provider: aws-s3\nlabel: edp-2026\negress:\n  internet:\n    tiers: [{price: "0.02"}]\n')
    plot = tmp_path / "late.png"
    result = run_cli(
        "recommend",
        str(EXAMPLES / "web-assets.yaml"),
        "--prices",
        f"aws-s3={override}",
        "--samples",
        "10",
        "--plot",
        str(plot),
    )
    assert result.code == 2
    assert "--samples prices the shipped tables only; leave out --prices" in result.err
    assert not plot.exists()


def test_curves_can_be_left_out_for_a_caller_without_plots() -> None:
    workload = load_workload(EXAMPLES / "web-assets.yaml")
    full = recommend(workload, as_of=NOW, simulate=False)
    bare = recommend(workload, as_of=NOW, simulate=False, curves=False)
    assert bare.egress_curves is None and full.egress_curves is not None
    assert bare.model_copy(update={"egress_curves": full.egress_curves}) == full


@pytest.mark.parametrize(
    ("storage", "rejected"),
    [
        # 6 TB objects: past Wasabi's 5 TB ("5 TB", wasabi table limits) and R2's 5 TiB less 5 GiB
        # (5,492,189,429,760 bytes), within B2's 10 TB, S3's and IDrive e2's larger limits
        ({"stored": "600 TB", "object_size": "6 TB"}, {"wasabi", "cloudflare-r2"}),
        # one object in a hundred of 11 TB: past B2's 10 TB too
        (
            {
                "stored": "600 TB",
                "size_distribution": [{"size": "1 GB", "share": 0.99}, {"size": "11 TB", "share": 0.01}],
            },
            {"wasabi", "cloudflare-r2", "backblaze-b2"},
        ),
        # 100 objects in 600 TB average 6 TB: some object is at least that large
        ({"stored": "600 TB", "objects": 100}, {"wasabi", "cloudflare-r2"}),
        # exactly 5 TB: Wasabi stores it, and R2's limit is above it
        ({"stored": "600 TB", "object_size": "5 TB"}, set()),
    ],
)
def test_objects_larger_than_a_provider_stores_reject_it(storage: dict[str, object], rejected: set[str]) -> None:
    workload = parse_workload({"name": "huge", "storage": storage, "traffic": {"reads": 10, "writes": 10}})
    result = recommend(workload, as_of=NOW, simulate=False)
    too_large = {o.provider for o in result.ranking if any(r.kind == "object-size" for r in o.rejections)}
    assert too_large == rejected
    for option in result.ranking:
        for rejection in option.rejections:
            if rejection.kind == "object-size":
                assert not option.feasible and option.status == "rejected"
                assert "larger than the largest object the provider stores" in rejection.statement


def test_objects_no_provider_stores_are_what_fails_everywhere() -> None:
    # 60 TB objects: past every default provider's largest (S3 53,687,091,200,000 bytes, IDrive e2 50 TB)
    workload = parse_workload(
        {"name": "huge", "storage": {"stored": "600 TB", "object_size": "60 TB"}, "traffic": {"reads": 10}}
    )
    result = recommend(workload, as_of=NOW, simulate=False)
    assert result.recommendation is None and all(o.status == "rejected" for o in result.ranking)
    assert "object size" in _failed_everywhere(result.ranking)


def test_the_share_of_requests_that_fail_is_of_requests_not_attempts(run_cli: Callable[..., Any]) -> None:
    # The same peak that recommend simulates (60 s x 2, seed 0), as planner simulate shows it: the sentence
    # divides the requests that failed after every retry by the requests, not by the attempts with retries.
    video = str(EXAMPLES / "video-streaming.yaml")
    peak = json.loads(
        run_cli("simulate", video, "-p", "cloudflare-r2", "--duration", "60s", "--replications", "2", "-f", "json").out
    )["peak"]["operations"]
    failed = sum(op["failed"]["mean"] for op in peak.values())
    requests = sum(op["requests"]["mean"] for op in peak.values())
    assert failed and requests
    ranking = json.loads(run_cli("recommend", video, "-f", "json").out)["ranking"]
    r2 = next(o for o in ranking if (o["provider"], o["storage_class"]) == ("cloudflare-r2", "standard"))
    statement = next(r["statement"] for r in r2["rejections"] if r["kind"] == "failed-requests")
    assert statement.startswith(
        f"simulated peak: {failed / requests:.1%} of requests ({failed:,.0f} of {requests:,.0f}) fail after every retry"
    )


def test_a_break_even_whose_month_disagrees_with_the_horizon_says_which_total_ranks() -> None:
    # backup-archive at 1 TB stored, growing 10 TB a month: deep archive is dearer this month than IDrive e2
    # ($104.55 against $5.00: IDrive's 1 TB minimum) but the cheaper over 36 months, which it is ranked by.
    # The month's comparison says so instead of reading as a reason the choice is wrong.
    data = yaml.safe_load((EXAMPLES / "backup-archive.yaml").read_text())
    data["storage"]["stored"] = "1 TB"
    result = recommend(parse_workload(data, "small.yaml"), as_of=NOW, simulate=False)
    totals = {f"{o.label}:{o.storage_class}": o.horizon_cost_usd for o in result.ranking}
    chosen = f"{result.recommendation.label}:{result.recommendation.storage_class}"  # type: ignore[union-attr]
    checked = 0
    for point in result.break_even:
        sentence = point.sentence
        if sentence is None or point.option != chosen or point.other not in totals:
            continue
        numbers = sentence.numbers
        month_cheaper = Decimal(str(numbers["option_usd"])) <= Decimal(str(numbers["other_usd"]))
        total_cheaper = totals[chosen] <= totals[point.other]
        if month_cheaper == total_cheaper:
            assert "option_total_usd" not in numbers
            continue
        checked += 1
        assert numbers["option_total_usd"] == str(totals[chosen])
        assert numbers["other_total_usd"] == str(totals[point.other])
        word = "cheaper" if total_cheaper else "dearer"
        assert sentence.text.endswith(
            f"; over 36 months it is the {word} (${totals[chosen]:,.2f} against ${totals[point.other]:,.2f}),"
            " and that total is what it is ranked by"
        )
    assert checked >= 3
