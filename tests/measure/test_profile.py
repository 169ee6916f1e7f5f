"""The profile schema: versioning, loading errors, the summary accessor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from measure.profile import Cell, Citation, Percentiles, Profile, Source
from measure.reference import load_profile
from planner.errors import InputError


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
    data["schema_version"] = 2
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="unknown profile schema_version 2"):
        load_profile(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such profile file"),
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
                citation=Citation(ref="seed", section="s"),
            )
        ],
    )
