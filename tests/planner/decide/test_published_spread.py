"""S3's per-request GET rate is drawn from Durner et al.'s published 25-95 MiB/s spread (median 55;
PVLDB 16(11) 2023, Section 2), and a read-throughput verdict says which part of the spread decided it.

Hand-computed figures: the spread's knots are 0 -> 25, 0.5 -> 55, 1 -> 95 MiB/s, linear between them,
so the rate at probability 0.05 is 25 + 0.1 x 30 = 28 MiB/s. A 16 MiB request at the median takes
16 / 55 = 0.2909 s; the slowest 5 % take at least 16 / 28 = 0.5714 s; the fastest 16 / 95 = 0.1684 s.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from planner.decide.recommendation.performance import judge_performance
from planner.measure.reference import load_reference
from planner.sim import LatencyModel, OpenLoop, SimSpec, SizeDistribution, simulate_spec
from planner.sim.model.profile_adapter import provider_model_from_profile
from planner.sim.model.published_spread import rate_at, spread_tail
from planner.sim.spec import OperationMix
from planner.workload import Workload, load_workload

MIB = 1024 * 1024
KNOTS = [(0.0, 25.0), (0.5, 55.0), (1.0, 95.0)]
DATA_LAKE = Path(__file__).resolve().parents[3] / "examples" / "data-lake.yaml"
VIDEO = Path(__file__).resolve().parents[3] / "examples" / "video-streaming.yaml"


def test_the_s3_profile_carries_the_published_spread() -> None:
    cell = next(c for c in load_reference("aws-s3").cells if c.throughput_spread_mib_per_s)
    assert (cell.op, cell.object_size_bytes, cell.throughput_mib_per_s) == ("get", 16 * MIB, 55.0)
    assert cell.throughput_spread_mib_per_s == KNOTS
    assert cell.citation is not None and cell.citation.address == "https://doi.org/10.14778/3611479.3611486"


def test_the_body_tail_is_the_spread_beyond_its_fast_end() -> None:
    assert rate_at(KNOTS, 0.05) == pytest.approx(28.0)
    tail = spread_tail(16 * MIB, KNOTS)
    fastest, p50, p95, top = tail.quantile([0.0, 0.5, 0.95, 0.9999]).tolist()
    assert fastest == 0.0  # a request at the fast end moves at the raised stream rate alone
    assert p50 == pytest.approx(16 / 55 - 16 / 95)  # 0.1225 s
    assert p95 == pytest.approx(16 / 28 - 16 / 95)  # 0.4030 s
    assert top == pytest.approx(16 / 25 - 16 / 95)  # never slower than the spread's 25 MiB/s
    # above the measured size the rate holds: a 64 MiB body's tail is four times as long
    assert spread_tail(64 * MIB, KNOTS).quantile([0.95])[0] == pytest.approx(4 * p95)


def test_the_simulated_s3_request_times_follow_the_spread() -> None:
    model, assumptions = provider_model_from_profile(load_reference("aws-s3"))
    assert model.evidence["latency.body.get"] == "published"
    assert (
        "GET per-request rate drawn from the published spread 25-95 MiB/s (median 55) for objects of 16 MiB and"
        " more (Durner, Leis, Neumann, https://doi.org/10.14778/3611479.3611486): the stream moves at the fast end"
        " and each request's body then waits out the rest of its drawn rate's time (none at the fast end)"
    ) in assumptions
    assert model.body_tail("get", 1024) is None or not model.body_tail("get", 1024).p99_s  # type: ignore[union-attr]
    # a constant first byte, so a request's time is that plus its body's
    model = model.model_copy(update={"ttfb_get": LatencyModel.constant(0.0224)})
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=2.0),
        mix=OperationMix(get=1.0, put=0.0),
        sizes=SizeDistribution.fixed(16 * MIB),
    )
    get = simulate_spec(spec, model, 4000.0, seed=3).operations["GET"]
    # 8,000 requests: a sample's quantiles within 2 % (seeds 1-3 give p50 0.2886-0.2942 s)
    assert get.latency_p50_s.mean == pytest.approx(16 / 55, rel=0.02)  # 0.2909 s: the median rate
    assert get.latency_p95_s.mean == pytest.approx(16 / 28, rel=0.02)  # 0.5714 s: 28 MiB/s, the spread's 5 %
    assert get.latency_p99_s.mean == pytest.approx(16 / 25.6, rel=0.02)  # 0.625 s: 25.6 MiB/s, the spread's 1 %


def _lake(read_gbps: float) -> Workload:
    """The data-lake example read by 10 single-stream clients (10 x 55 MiB/s = 4.61 Gbps at the median)."""
    workload = load_workload(DATA_LAKE)
    update: dict[str, Any] = {
        "client": workload.client.model_copy(update={"concurrency": 10, "read_streams": 1}),
        "performance": workload.performance.model_copy(update={"read_throughput": read_gbps * 1e9, "p99_ttfb": None}),
    }
    return workload.model_copy(update=update)


@pytest.mark.parametrize(
    ("read_gbps", "verdict", "clause"),
    [
        # 10 x 25 MiB/s = 2.10 Gbps
        (2, "met", "met even at the slow end of {spread}: every request at 25 MiB/s gives 2.1 Gbps"),
        (
            4,
            "met",
            "decided by the median of {spread}: 55 MiB/s a request gives 4.61 Gbps; at the slow end, 25 MiB/s, it"
            " gives 2.1 Gbps and misses",
        ),
        # 10 x 95 MiB/s = 7.97 Gbps
        (
            6,
            "missed",
            "missed at the median of {spread}: 55 MiB/s a request gives 4.61 Gbps; only the fast end, 95 MiB/s,"
            " gives 7.97 Gbps and meets it",
        ),
        (10, "missed", "missed even at the fast end of {spread}: 95 MiB/s a request gives 7.97 Gbps"),
    ],
)
def test_the_read_verdict_says_which_part_of_the_spread_decided_it(read_gbps: float, verdict: str, clause: str) -> None:
    profile = load_reference("aws-s3")
    model, _ = provider_model_from_profile(profile)
    *_, verdicts = judge_performance(_lake(read_gbps), "standard", profile.summary(), "reference", model)
    read = next(v for v in verdicts if v.target == "read throughput")
    spread = "the published per-request spread (25-95 MiB/s, median 55 MiB/s)"
    assert read.verdict == verdict
    assert f"target; {clause.format(spread=spread)}" in read.reason


def test_recommend_gives_only_the_exact_measure_advice(run_cli: Callable[..., Any]) -> None:
    done = run_cli("recommend", str(VIDEO), "--as-of", "2026-12-05", "--no-simulate", "--strict")
    assert done.code == 1
    assert "measure it (planner measure) and run recommend again with --profiles" not in done.out
    assert [line for line in done.out.splitlines() if line.startswith("to settle p99 TTFB on idrive-e2 (")]


@pytest.mark.parametrize("provider", ["aws-s3", "backblaze-b2", "wasabi"])
def test_backblaze_performance_stats_are_named_and_why_they_are_not_used(provider: str) -> None:
    # the Q1 2026 post (https://www.backblaze.com/blog/backblaze-performance-stats-q1-2026) shows its TTFB
    # only in chart images; its text names the leader (S3) and no figure
    missing = " ".join(load_reference(provider).missing)
    assert "backblaze-performance-stats-q1-2026" in missing
    assert "only as chart images: the post's text gives no TTFB figure" in missing
