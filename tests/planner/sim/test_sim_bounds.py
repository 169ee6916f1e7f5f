"""Simulations too large to run are refused up front in one line, with the limit and a way out
(issue: reads of 10^15 a month at a 1000x peak once allocated 168 TiB)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.planner.conftest import EXAMPLES, Result

WEB = str(EXAMPLES / "web-assets.yaml")


@pytest.mark.parametrize(
    ("workload", "args", "message"),
    [
        ("traffic: {reads: 1000000000000000, peak_factor: 1000}", (), "less than one second of this load"),
        ("traffic: {reads: 1M, hot_objects: {share_of_reads: 0.5, peak_concurrency: 1000000000000000}}", (),
         "at most 1,000,000 requests starting together"),
        ("traffic: {reads: 1M, workers: 100000000}", (), "less than or equal to 100000"),
        ("traffic: {reads: 100000000000}", ("--duration", "1d"), "give --duration 1296s or less"),
        ("traffic: {reads: 100000000000}", ("--duration", "80000s"), "give --duration 1296s or less"),
    ],
)  # fmt: skip
def test_too_large_is_one_line(
    run_cli: Callable[..., Result], tmp_path: Path, workload: str | None, args: tuple[str, ...], message: str
) -> None:
    path = WEB
    if workload is not None:
        path = str(tmp_path / "w.yaml")
        Path(path).write_text(f"name: big\nstorage: {{stored: 10 PB, object_size: 1 MiB}}\n{workload}\n")
    result = run_cli("simulate", path, "-p", "aws-s3", "--replications", "1", *args)
    assert result.code == 2 and result.err.count("\n") == 1 and message in result.err, result.err


def test_a_profile_of_another_provider_is_refused(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    """It was simulated with a caveat; a profile is evidence only of the provider it names, as recommend rules."""
    from planner.measure.reference import load_reference

    profile = tmp_path / "r2.json"
    profile.write_text(load_reference("cloudflare-r2").model_dump_json())
    result = run_cli("simulate", WEB, "-p", "aws-s3", "--profile", str(profile), "--replications", "1", "-f", "json")
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        f"planner: {profile}: provider: the profile is of cloudflare-r2, not aws-s3"
        " (leave out -p to simulate the profile's own endpoint)\n"
    )


def test_refusals_need_little_memory(tmp_path: Path) -> None:
    """Under a 1.5 GiB address-space limit the largest inputs are still refused in one line, quickly."""
    import resource
    import subprocess
    import sys

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1536 * 2**20, 1536 * 2**20))

    big = tmp_path / "big.yaml"
    big.write_text(
        "name: big\nstorage: {stored: 10 PB, object_size: 1 MiB}\n"
        "traffic: {reads: 1000000000000000, peak_factor: 1000}\n"
    )
    many = tmp_path / "many.yaml"
    many.write_text("name: many\nstorage: {stored: 10 TB, object_size: 1 MiB}\ntraffic: {reads: 100000000000}\n")
    zero = tmp_path / "zero.yaml"
    zero.symlink_to("/dev/zero")
    planner = str(Path(sys.executable).parent / "planner")
    for args in (["simulate", str(big), "-p", "aws-s3"], ["cost", str(zero), "-p", "aws-s3"],
                 ["simulate", str(many), "-p", "aws-s3", "--duration", "1d"]):  # fmt: skip
        done = subprocess.run([planner, *args], capture_output=True, text=True, timeout=120, preexec_fn=limit)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr


def test_an_extrapolated_p99_says_the_percentiles_stop_below_it(run_cli: Callable[..., Result]) -> None:
    # S3's profile gives a 1 KB GET's p50 (22.4 ms) and p90 (42 ms), no p99; web-assets' peak (about 380
    # requests/s) is below the 891.5 ops/s the profile demonstrates, so the rate is not why it is weak.
    result = run_cli("simulate", str(EXAMPLES / "web-assets.yaml"), "-p", "aws-s3", "--replications", "1")
    assert result.code == 0, result.err
    text = " ".join(result.out.split())
    assert "(extrapolated, simulated peak) against the 150 ms target is not evidence: the profile's latency" in text
    assert "percentiles stop below the p99, so the simulated p99 extends their spread" in text
    assert "above any rate the profile demonstrates" not in text
