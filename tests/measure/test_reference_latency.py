"""Published latency in the reference profiles: Backblaze's Performance Stats upload averages, each a
number its quoted words state, recorded as a mean (never a median), measured from a Vultr VM in
NY/NJ to each provider's US-East region; and how a p99 TTFB target fares on a published mean, a
p50 alone, or a p50 and p90."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from planner.decide.recommendation import recommend
from planner.decide.recommendation.grading import measured_cloud, measured_in_region
from planner.errors import InputError
from planner.measure.profile import MIB
from planner.measure.reference import load_reference, parse_profile, reference_providers
from planner.measure.summary import lognormal_p99_s
from planner.workload import load_workload

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NOW = dt.date(2026, 12, 5)
KIB = 1024

# (provider, object size, mean ms, the words the figure is read from)
UPLOAD_AVERAGES = [
    ("aws-s3", 256 * KIB, 28.73, "| AWS S3 | 28.73 | 76.79 | 201.40 |"),
    ("aws-s3", 2 * MIB, 76.79, "| AWS S3 | 28.73 | 76.79 | 201.40 |"),
    ("aws-s3", 5 * MIB, 201.40, "| AWS S3 | 28.73 | 76.79 | 201.40 |"),
    ("cloudflare-r2", 256 * KIB, 16.02, "| Cloudflare R2 | 16.02 | 123.25 | 311.48 |"),
    ("cloudflare-r2", 2 * MIB, 123.25, "| Cloudflare R2 | 16.02 | 123.25 | 311.48 |"),
    ("cloudflare-r2", 5 * MIB, 311.48, "| Cloudflare R2 | 16.02 | 123.25 | 311.48 |"),
    ("backblaze-b2", 256 * KIB, 12.11, "| Backblaze B2 | 12.11 | 116.38 | 268.28 |"),
    ("backblaze-b2", 2 * MIB, 116.38, "| Backblaze B2 | 12.11 | 116.38 | 268.28 |"),
    ("backblaze-b2", 5 * MIB, 268.28, "| Backblaze B2 | 12.11 | 116.38 | 268.28 |"),
    ("wasabi", 2 * MIB, 56.74, "Wasabi recorded the lowest result for 2MiB files at 56.74 ms"),
]


@pytest.mark.parametrize(("provider", "size", "mean_ms", "words"), UPLOAD_AVERAGES)
def test_each_upload_average_is_the_mean_its_quote_states(provider: str, size: int, mean_ms: float, words: str) -> None:
    cell = load_reference(provider).cell("put", size, 1)
    assert cell is not None and cell.status == "published" and cell.citation is not None
    assert cell.latency_s.mean == pytest.approx(mean_ms / 1000, abs=1e-12)
    # a mean, never taken for a percentile
    assert (cell.latency_s.p50, cell.latency_s.p90, cell.latency_s.p99) == (None, None, None)
    assert words in (cell.citation.quote or "")
    assert cell.citation.grade == "vendor-with-method"
    conditions = cell.citation.conditions
    assert conditions is not None
    assert "Vultr in New York / New Jersey, over the internet" in (conditions.client or "")
    assert conditions.region == "each provider's US-East region"
    assert "Catchpoint" in (conditions.client_library or "")
    assert "Backblaze sells B2" in (cell.note or "")


@pytest.mark.parametrize("provider", reference_providers())
def test_a_profile_never_has_a_larger_object_answered_sooner(provider: str) -> None:
    # Figures put together from several publications (or quarters of one) must not contradict each other:
    # at one operation and concurrency, a larger object's published mean or median never comes sooner.
    by_key: dict[tuple[str, int, str], list[tuple[int, float]]] = {}
    for cell in load_reference(provider).cells:
        if cell.status != "published" or cell.object_size_bytes is None:
            continue
        for statistic in ("mean", "p50"):
            value = getattr(cell.latency_s, statistic)
            if value is not None:
                by_key.setdefault((cell.op, cell.concurrency, statistic), []).append((cell.object_size_bytes, value))
    for key, points in by_key.items():
        times = [value for _, value in sorted(points)]
        assert times == sorted(times), (provider, key, sorted(points))


# Every published cell with a latency or TTFB figure, by provider. No page read states a GET figure of
# Backblaze's or the four-region benchmark's (charts only, or beyond the copy read): S3's 1 KB GET is Tigris's.
LATENCY_CELLS = {
    "aws-s3": {("get", 1000), ("put", 1000), ("put", 256 * KIB), ("put", 2 * MIB), ("put", 5 * MIB)},
    "cloudflare-r2": {("put", 1000), ("put", 256 * KIB), ("put", 2 * MIB), ("put", 5 * MIB), ("delete", None)},
    "backblaze-b2": {("put", 256 * KIB), ("put", 2 * MIB), ("put", 5 * MIB)},
    "wasabi": {("put", 2 * MIB)},
    "idrive-e2": {("head", None), ("delete", None)},
}


@pytest.mark.parametrize("provider", reference_providers())
def test_each_profile_carries_the_latency_its_sources_give(provider: str) -> None:
    profile = load_reference(provider)
    with_latency = {
        (c.op, c.object_size_bytes)
        for c in profile.cells
        if c.status == "published" and (c.latency_s.pairs() or c.ttfb_s.pairs())
    }
    assert with_latency == LATENCY_CELLS[provider]


def _profile(cell: dict[str, object]) -> str:
    return json.dumps({"schema_version": 2, "provider": "wasabi", "source": {"kind": "published"}, "cells": [cell]})


def _put(mean_s: float, quote: str) -> dict[str, object]:
    citation = {"ref": "a report", "section": "uploads", "quote": quote, "address": "https://example.org/report"}
    return {
        "op": "put",
        "object_size_bytes": 262144,
        "concurrency": 1,
        "status": "published",
        "latency_s": {"mean": mean_s},
        "citation": citation,
    }


def test_a_published_latency_its_quote_does_not_state_is_refused() -> None:
    quote = "Backblaze B2 posted the lowest average upload time for 256KiB files at 7.08 ms"
    assert parse_profile(_profile(_put(0.00708, quote)), source="mine.json").cells[0].latency_s.mean == 0.00708
    with pytest.raises(InputError) as caught:
        parse_profile(_profile(_put(0.00709, quote)), source="mine.json")
    assert str(caught.value).startswith(
        "mine.json: published cell ('put', 262144, 1, None) gives latency_s.mean 7.09 ms, a number its quote does"
        " not state:"
    )
    # a quote in seconds states the figure too
    assert parse_profile(_profile(_put(0.5, "0.5 s a request")), source="mine.json").cells[0].latency_s.mean == 0.5


def _ttfb_verdict(tmp_path: Path, ttfb: dict[str, float], target_ms: int) -> tuple[str, str, str | None]:
    """The p99 TTFB verdict for Wasabi judged on a published 1 KB GET cell of ``ttfb`` (seconds)."""
    quote = " ".join(f"{v * 1000:g} ms" for v in ttfb.values())
    cell = {
        "op": "get",
        "object_size_bytes": 1000,
        "concurrency": 1,
        "status": "published",
        "ttfb_s": ttfb,
        "citation": {"ref": "a report", "section": "reads", "quote": quote, "address": "https://example.org/r"},
    }
    (tmp_path / "wasabi.json").write_text(_profile(cell), encoding="utf-8")
    workload = load_workload(EXAMPLES / "video-streaming.yaml")
    workload = workload.model_copy(
        update={
            "performance": workload.performance.model_copy(
                update={"p99_ttfb": target_ms / 1000, "read_throughput": None}
            ),
            "constraints": workload.constraints.model_copy(update={"providers": ["wasabi"]}),
        }
    )
    result = recommend(workload, as_of=NOW, profiles_dir=tmp_path, simulate=False)
    verdict = next(v for o in result.ranking for v in o.verdicts if v.target == "p99 TTFB")
    return verdict.verdict, verdict.evidence, verdict.achieved


def test_a_published_mean_ttfb_never_passes_a_p99_target(tmp_path: Path) -> None:
    # a mean of 10 ms says nothing of the p99 (a 1 % tail can sit anywhere): not read as a p50, and no verdict
    verdict, _, achieved = _ttfb_verdict(tmp_path, {"mean": 0.010}, 200)
    assert verdict == "unverified"
    assert achieved != "10 ms"


@pytest.mark.parametrize(
    ("p50_s", "target_ms", "expected"),
    [
        (0.201, 200, "missed"),  # the p99 is at least the p50: 201 ms > 200 ms decides a miss
        (0.200, 200, "unverified"),  # at least 200 ms against 200 ms: the p99 may equal it; nothing decides
        (0.150, 200, "unverified"),  # at least 150 ms: below the target, but a floor never meets it
    ],
)
def test_a_published_p50_alone_is_a_floor_under_the_p99(
    tmp_path: Path, p50_s: float, target_ms: int, expected: str
) -> None:
    verdict, _, _ = _ttfb_verdict(tmp_path, {"p50": p50_s}, target_ms)
    assert verdict == expected


@pytest.mark.parametrize(("target_ms", "expected"), [(320, "missed"), (321, "unverified")])
def test_a_published_p50_and_p90_grade_on_the_extrapolated_p99(tmp_path: Path, target_ms: int, expected: str) -> None:
    # p50 100 ms, p90 190 ms: sigma = ln(1.9) / 1.28155 = 0.50084; p99 = 100 ms x exp(0.50084 x 2.32635)
    # = 100 ms x exp(1.16513) = 320.6 ms: above a 320 ms target (a miss whatever backs it), below 321 ms
    # (extrapolated, so never met: unverified); the verdict shows it to three figures
    assert lognormal_p99_s(0.100, 0.190) == pytest.approx(0.32064, abs=1e-5)
    verdict, evidence, achieved = _ttfb_verdict(tmp_path, {"p50": 0.100, "p90": 0.190}, target_ms)
    assert (verdict, evidence, achieved) == (expected, "extrapolated", "321 ms")


@pytest.mark.parametrize(("provider", "size"), [(p, s) for p, s, _, _ in UPLOAD_AVERAGES])
def test_backblaze_figures_are_read_as_measured_over_the_internet(provider: str, size: int) -> None:
    # a Vultr VM in NY/NJ reaching each provider's US-East region over the internet: not a figure from inside
    # the bucket's region or cloud, so client.location never takes it for an in-region (or in-AWS) measurement
    cell = load_reference(provider).cell("put", size, 1)
    assert cell is not None and cell.citation is not None
    assert not measured_in_region(cell.citation)
    assert measured_cloud(cell.citation) is None
