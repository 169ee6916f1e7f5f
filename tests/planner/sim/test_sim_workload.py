"""The workload and profile adapters, ``simulate`` on the shipped profiles, and the month's bill."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from planner.measure.reference import load_reference, reference_providers
from planner.pricing import catalog
from planner.pricing.billing import bill
from planner.pricing.models import Limits, Multipart
from planner.sim import (
    OpenLoop,
    billed_usage,
    provider_model_from_profile,
    simulate,
    spec_from_workload,
)
from planner.sim.front.workload_adapter import adapt_workload
from planner.sim.model.profile_adapter import DEFAULT_TTFB_S
from planner.workload import MONTH_S, Workload, load_workload, parse_workload

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
MIB = 2**20


def _workload(**traffic: object) -> Workload:
    return parse_workload(
        {
            "name": "adapter",
            "storage": {"stored": "1 TB", "object_size": "1 MiB"},
            "traffic": {"reads": 2_592_000, "writes": 259_200, "heads": 25_920, "lists": 2592, **traffic},
            "client": {"link": "10 Gbps", "concurrency": 32},
        }
    )


def test_rates_come_from_the_monthly_counts() -> None:
    workload = _workload(peak_factor=3)
    mean = spec_from_workload(workload, window="mean")
    peak = spec_from_workload(workload, window="peak")
    assert isinstance(mean.arrivals, OpenLoop) and isinstance(peak.arrivals, OpenLoop)
    # 2,879,712 requests over a 30-day month (2,592,000 s) = 1.111 requests a second
    assert mean.arrivals.mean_rate_per_s == pytest.approx(2_879_712 / 2_592_000)
    assert mean.arrivals.max_rate_per_s == pytest.approx(2_879_712 / 2_592_000)
    assert peak.arrivals.max_rate_per_s == pytest.approx(3 * 2_879_712 / 2_592_000)
    assert mean.mix.shares() == pytest.approx((2_592_000 / 2_879_712, 259_200 / 2_879_712, 0.009, 0.0009), rel=1e-3)
    assert mean.month_s == MONTH_S
    assert mean.client.connections == 32 and mean.client.link_bits_per_s == 10e9
    assert mean.keys.keys == workload.object_count() == 953_674


def test_hot_objects_keep_their_replicas_and_burst_only_at_peak() -> None:
    hot = {"count": 2, "share_of_reads": 0.25, "peak_concurrency": 300, "replicas": 6}
    workload = _workload(hot_objects=hot)
    peak = spec_from_workload(workload, window="peak").keys.hot
    mean = spec_from_workload(workload, window="mean").keys.hot
    assert peak is not None and mean is not None
    assert (peak.objects, peak.share_of_reads, peak.replicas, peak.peak_concurrency) == (2, 0.25, 6, 300)
    assert (mean.replicas, mean.peak_concurrency) == (6, 0)


def test_parts_per_upload_follow_the_client_part_size_and_the_provider_limits() -> None:
    workload = parse_workload(
        {
            "name": "uploads",
            "storage": {"stored": "10 TB", "object_size": "1 GiB"},
            "traffic": {"reads": 1000, "writes": 1000},
            "client": {"part_size": "64 MiB", "multipart_threshold": "100 MiB"},
        }
    )
    spec = spec_from_workload(workload, window="mean")
    assert spec.client.multipart is not None
    assert spec.client.multipart.part_size_bytes == 64 * MIB  # 1 GiB in 16 parts, as the cost model bills
    assert workload.parts_per_upload(2**30, Limits()) == 16
    # A provider allowing only 8 parts raises the part size to fit: 128 MiB.
    few = Limits(multipart=Multipart(min_part_bytes=5 * MIB, max_part_bytes=5 * 2**30, max_parts=8))
    raised = spec_from_workload(workload, window="mean", limits=few).client.multipart
    assert raised is not None and raised.part_size_bytes == 128 * MIB
    small = _workload()
    assert spec_from_workload(small, window="mean").client.multipart is None  # 1 MiB objects: single PUTs


def test_throughput_targets_are_judged_only_where_the_window_offers_them() -> None:
    workload = _workload(peak_factor=2).model_copy(
        update={"performance": parse_workload(
            {"name": "x", "storage": {"stored": "1 TB", "object_size": "1 MiB"},
             "performance": {"p99_ttfb": "200 ms", "read_throughput": "10 Mbps"}}
        ).performance}
    )  # fmt: skip
    adapted = adapt_workload(workload, window="peak")
    # peak reads: 2 x 1 GET/s x 1 MiB = 16.8 Mbps, above the 10 Mbps asked: judged
    assert adapted.spec.slo.read_bytes_per_s == pytest.approx(10e6 / 8)
    assert adapted.spec.slo.p99_ttfb_s == pytest.approx(0.2)


@pytest.mark.parametrize("provider", reference_providers())
def test_every_shipped_profile_builds_a_model(provider: str) -> None:
    model, assumptions = provider_model_from_profile(load_reference(provider))
    assert model.ttfb_get.p50_s > 0 and assumptions
    assert not any(note.startswith("DEFAULT") for note in assumptions)  # every reference has a figure to use


def test_little_law_from_a_published_head_cell() -> None:
    """IDrive e2's comparison, section 6.3: Wasabi did 691.42 HEAD/s with 10 workers, so 10 / 691.42 = 14.5 ms
    each (S3 now publishes a GET TTFB, Tigris's 1 KB p50, so it no longer needs Little's law)."""
    model, assumptions = provider_model_from_profile(load_reference("wasabi"))
    assert model.ttfb_get.p50_s == pytest.approx(10 / 691.42)
    assert any("Little's law" in note and "IDrive e2" in note for note in assumptions)
    s3, _ = provider_model_from_profile(load_reference("aws-s3"))
    assert (s3.ttfb_get.p50_s, s3.ttfb_get.p99_s) == (0.022415, pytest.approx(0.07022, abs=1e-5))
    idrive, notes = provider_model_from_profile(load_reference("idrive-e2"))
    assert idrive.ttfb_get.p50_s == pytest.approx(0.0098)  # published mean HEAD latency, 9.8 ms
    assert any("published mean latency" in note for note in notes)


def test_no_figure_at_all_falls_back_to_a_flagged_default() -> None:
    bare = load_reference("wasabi").model_copy(update={"cells": []})
    model, assumptions = provider_model_from_profile(bare)
    assert model.ttfb_get.p50_s == DEFAULT_TTFB_S
    assert any(note.startswith("DEFAULT") for note in assumptions)


def _genomics(replicas: int) -> Workload:
    workload = load_workload(EXAMPLES / "genomics-pipeline.yaml")
    hot = workload.traffic.hot_objects
    assert hot is not None and hot.peak_concurrency == 512
    traffic = workload.traffic.model_copy(update={"hot_objects": hot.model_copy(update={"replicas": replicas})})
    return workload.model_copy(update={"traffic": traffic})


def test_r2_genomics_hot_reference_replicated_under_8_keys_has_no_503s() -> None:
    result = simulate(_genomics(8), "cloudflare-r2", duration_s=20.0, replications=1, seed=1)
    get = result.peak.operations["GET"]
    assert get.requests.mean >= 512
    assert get.errors == {} and get.failed.mean == 0


def test_r2_genomics_hot_reference_under_one_key_gets_503_slowdown() -> None:
    result = simulate(_genomics(1), "cloudflare-r2", duration_s=20.0, replications=1, seed=1)
    get = result.peak.operations["GET"]
    assert get.errors["503 SlowDown"].mean > 0
    assert get.retries.mean > 0
    assert result.peak.billed_requests["get"].mean == pytest.approx(get.requests.mean + get.retries.mean)


def test_the_simulated_month_is_priced_with_its_retries() -> None:
    workload = _genomics(1)
    result = simulate(workload, "cloudflare-r2", duration_s=60.0, replications=2, seed=2)
    table = catalog.table_for("cloudflare-r2")
    usage = billed_usage(result, workload, "standard", table.limits)
    assert usage.requests["get"] == result.month_billed_requests["get"]
    assert usage.requests["upload-part"] == result.month_billed_requests["upload-part"]
    assert usage.egress_bytes == workload.traffic.egress and "delete" in usage.requests
    priced = bill(table, "standard", usage)
    assert priced.total_usd > 0
    assert any(item.category == "requests" for item in priced.line_items)
    # The month is the mean window scaled: its expected requests match the workload's counts.
    expected = workload.reads_per_month() + workload.writes_per_month()
    simulated = result.mean.operations["GET"].requests.mean + result.mean.operations["PUT"].requests.mean
    assert math.isclose(simulated * result.mean.scale_to_month, expected, rel_tol=0.5)
    assert "mean window" in result.month_scaling and result.assumptions


def test_simulate_runs_the_one_simulate_workload_path() -> None:
    # planner simulate and recommend both go through simulate_workload with a model already built
    from planner.sim import provider_model_from_profile, simulate, simulate_workload
    from planner.sim.front.workload_adapter import WINDOWS

    workload = load_workload(EXAMPLES / "web-assets.yaml")
    table = catalog.table_for("aws-s3", None)
    profile = load_reference("aws-s3")
    model, _ = provider_model_from_profile(profile, table.limits)
    # simulate takes the table's error-response rule with the model (AWS: no charge for a 5xx)
    model = model.model_copy(update={"error_responses": table.billing.error_responses})
    run = simulate_workload(
        workload,
        model,
        summary=profile.summary(),
        limits=table.limits,
        windows=WINDOWS,
        duration_s=2.0,
        seed=4,
        replications=1,
    )
    whole = simulate(workload, "aws-s3", duration_s=2.0, seed=4, replications=1)
    assert run.peak == whole.peak and run.windows["mean"] == whole.mean
    assert run.evidence == whole.evidence
    assert all(v in whole.slo for v in run.verdicts)
    assert all(note in whole.assumptions for note in run.notes)


def test_sim_does_not_import_the_recommendation() -> None:
    # an archive class's restore verdicts live in planner.sim.front.run: simulating one loads no layer above sim
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from planner.sim import simulate\n"
        "from planner.workload import load_workload\n"
        f"result = simulate(load_workload({str(EXAMPLES / 'backup-archive.yaml')!r}), 'aws-s3',"
        " storage_class='deep-archive', duration_s=1.0, replications=1)\n"
        "assert result.restore_first\n"
        "print(sorted(m for m in sys.modules if m.startswith('planner.decide.recommendation')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
