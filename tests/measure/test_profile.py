"""The profile schema: versioning, loading errors, the summary accessor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.errors import InputError
from planner.measure.profile import Cell, Citation, LatencyHistogram, Percentiles, Profile, Source
from planner.measure.reference import load_profile


def _measured_profile() -> Profile:
    return Profile(
        provider="test",
        source=Source(kind="measured"),
        cells=[
            Cell(
                op="get",
                object_size_bytes=1024,
                concurrency=1,
                samples=100,
                throughput_mib_per_s=2.0,
                ops_per_s=2048.0,
                ttfb_s=Percentiles(p50=0.01, p99=0.05),
            ),
            Cell(
                op="get",
                object_size_bytes=1024,
                concurrency=4,
                samples=100,
                throughput_mib_per_s=6.0,
                ops_per_s=6144.0,
                ttfb_s=Percentiles(p50=0.02, p99=0.09),
            ),
            Cell(
                op="put", object_size_bytes=1024, concurrency=4, samples=100, throughput_mib_per_s=3.0, ops_per_s=3072.0
            ),
            Cell(
                op="put",
                object_size_bytes=1024,
                concurrency=8,
                samples=100,
                throughput_mib_per_s=99.0,
                ops_per_s=1.0,
                flags=["above-link"],
            ),
        ],
    )


def test_round_trip_and_summary(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text(_measured_profile().model_dump_json())
    profile = load_profile(path)
    summary = profile.summary()
    assert summary.ttfb_p50_s == 0.01 and summary.ttfb_p99_s == 0.05
    assert summary.get_stream_bytes_per_s == [(1024, 2.0 * 2**20)]
    assert summary.read_ceiling_bytes_per_s == 6.0 * 2**20
    # the above-link cell is not taken as the write ceiling
    assert summary.write_ceiling_bytes_per_s == 3.0 * 2**20
    assert summary.ops_per_s["head"] is None
    assert summary.citations["ttfb_p50_s"][0].kind == "measured"


def test_unknown_schema_version_is_refused(tmp_path: Path) -> None:
    data = json.loads(_measured_profile().model_dump_json())
    data["schema_version"] = 3
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="unknown profile schema_version 3"):
        load_profile(path)


def test_version_1_profiles_still_load(tmp_path: Path) -> None:
    data = json.loads(_measured_profile().model_dump_json(exclude_defaults=True))
    data["schema_version"] = 1
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    loaded = load_profile(path)
    assert loaded.schema_version == 1
    assert all(cell.mode == "closed" and cell.latency_histogram is None for cell in loaded.cells)
    assert loaded.summary() == _measured_profile().summary()


def test_histogram_quantiles_within_one_bucket() -> None:
    samples = [0.001 * (i + 1) for i in range(1000)]  # 1 ms .. 1 s, uniform
    histogram = LatencyHistogram.from_samples(samples)
    assert histogram.total == 1000
    width = histogram.growth
    for q, exact in ((0.5, 0.5), (0.99, 0.99), (0.999, 0.999)):
        found = histogram.quantile(q)
        assert found is not None
        assert exact <= found <= exact * width


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "file not found"),
        ("{not json", "not valid JSON"),
        ("[]", "not a profile"),
        ('{"a": 1}', "no schema_version"),
    ],
)
def test_load_errors_are_one_line(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "p.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(InputError, match=message) as caught:
        load_profile(path)
    assert "\n" not in str(caught.value)


def test_published_cell_needs_citation() -> None:
    with pytest.raises(ValueError, match="no citation"):
        Profile(
            source=Source(kind="published"),
            cells=[Cell(op="get", object_size_bytes=1, concurrency=1, status="published")],
        )
    Profile(
        source=Source(kind="published"),
        cells=[
            Cell(
                op="get",
                object_size_bytes=1,
                concurrency=1,
                status="published",
                citation=Citation(ref="a report", section="s", address="https://example.org/report"),
            )
        ],
    )


def test_a_range_get_point_keeps_its_citation_where_it_sorts() -> None:
    """The single-stream range GET is a stream-rate point at its object size; inserted between two GET sizes,
    the citation at its index is its own (a verdict reads the citation by the point's index)."""
    from planner.decide.recommendation.grading import figure_citations
    from planner.measure.profile import RangeGetPoint, RangeGetResult

    profile = Profile(
        provider="test",
        source=Source(kind="measured"),
        cells=[
            Cell(op="get", object_size_bytes=size, concurrency=1, samples=100, throughput_mib_per_s=rate)
            for size, rate in ((1 << 20, 20.0), (1 << 30, 90.0))
        ],
    )
    range_cite = Citation(kind="measured", ref="range-run", section="probes.range_get[1 stream]")
    profile.probes.range_get = RangeGetResult(
        object_size_bytes=256 << 20, points=[RangeGetPoint(streams=1, throughput_mib_per_s=60.0, citation=range_cite)]
    )
    summary = profile.summary()
    assert [size for size, _ in summary.get_stream_bytes_per_s] == [1 << 20, 256 << 20, 1 << 30]
    cites = summary.citations["get_stream_bytes_per_s"]
    assert cites[1] == range_cite and range_cite not in (cites[0], cites[2])
    assert figure_citations(summary, "read throughput", 256 << 20) == [range_cite]
