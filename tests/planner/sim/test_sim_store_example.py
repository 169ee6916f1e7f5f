"""examples/transcoding_capacity.py, the README's "Your own SimPy model" example, runs and answers."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parents[3] / "examples" / "transcoding_capacity.py"


def test_the_transcoding_farm_finds_where_storage_becomes_the_bottleneck(capsys: pytest.CaptureFixture[str]) -> None:
    example = runpy.run_path(str(EXAMPLE))
    answer = example["main"]()
    # a 1 Gbit/s link moves about 0.9 jobs (135 MB each) a second: past about 9 jobs in flight at 6 s of CPU
    # each, the link, not the CPU, sets the pace on both providers
    assert answer == {"cloudflare-r2": 12, "aws-s3": 12}
    printed = capsys.readouterr().out
    assert "cloudflare-r2: workers, jobs a minute, storage s a job (CPU 6 s), month's storage bill" in printed
    one_worker = example["farm"]("aws-s3", 1)
    # one worker: the CPU sets the pace (S3's 100 MB GET draws its rate from the published 25-95 MiB/s,
    # whose slow requests lengthen the mean: about 2.2 s of storage a job against 6 s of CPU)
    assert one_worker.storage_s < one_worker.transcode_s / 2
    # the same farm costs more on S3: its reads are billed egress, R2's are not
    r2, s3 = example["farm"]("cloudflare-r2", 4), example["farm"]("aws-s3", 4)
    assert r2.month_usd < s3.month_usd


def test_the_readme_example_runs_in_under_30_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    page = (EXAMPLE.parents[1] / "docs" / "how-to" / "simpy-model.md").read_text(encoding="utf-8")
    code = page.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.strip().splitlines()) < 30
    monkeypatch.chdir(EXAMPLE.parents[1])  # it reads the shipped R2 profile by its path in the checkout
    exec(compile(code, "simpy-model.md", "exec"), {"__name__": "readme"})
    printed = capsys.readouterr().out
    assert printed.startswith("GET p99 TTFB 0.040 s, ")  # R2's published 40 ms floor
    assert "internet egress" in printed
