"""Compare planner measure's client with an independent client on a local SeaweedFS server.

Prints GET throughput (MiB/s) and small-object GET ops/s of both clients and their ratio; it
never fails on speed. The independent client is the AWS CLI (``aws s3api``/``aws s3 cp``) when
it is on PATH (``python -m venv /tmp/awscli && /tmp/awscli/bin/pip install awscli``), else a
plain boto3 thread pool in one process with botocore's default configuration.

    /tmp/venv/bin/python benchmarks/measure_client.py [--seconds 5] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from measure.runner import Measurement, MeasureOptions
from tests.measure import conftest as server_fixture


def _start_server(folder: Path) -> tuple[server_fixture.S3Server, subprocess.Popen[bytes]]:
    gen = server_fixture.s3_server.__wrapped__(_Factory(folder))  # type: ignore[attr-defined]
    server = next(gen)
    return server, gen  # type: ignore[return-value]


class _Factory:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def mktemp(self, name: str) -> Path:
        path = self.folder / name
        path.mkdir()
        return path


def planner_figures(server: server_fixture.S3Server, bucket: str, seconds: float, concurrency: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        options = MeasureOptions(
            endpoint=server.endpoint,
            bucket=bucket,
            out=Path(folder) / "p.json",
            sizes=[4096, 16 << 20],
            concurrency=[concurrency],
            duration_s=seconds,
            warmup_s=1.0,
            ops=["get"],
            probes=[],
            addressing="path",
        )
        profile = Measurement(options).run()
    small = profile.cell("get", 4096, concurrency)
    large = profile.cell("get", 16 << 20, concurrency)
    assert small is not None and large is not None
    return {"ops_per_s": small.ops_per_s or 0.0, "mib_per_s": large.throughput_mib_per_s or 0.0}


def boto3_figures(server: server_fixture.S3Server, bucket: str, seconds: float, concurrency: int) -> dict[str, float]:
    client = server.client()
    client.put_object(Bucket=bucket, Key="bench/small", Body=os.urandom(4096))
    client.put_object(Bucket=bucket, Key="bench/large", Body=os.urandom(16 << 20))

    def loop(key: str) -> tuple[int, int]:
        count = size = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            size += len(client.get_object(Bucket=bucket, Key=key)["Body"].read())
            count += 1
        return count, size

    figures = {}
    for key, name in (("bench/small", "ops_per_s"), ("bench/large", "mib_per_s")):
        started = time.monotonic()
        with ThreadPoolExecutor(concurrency) as pool:
            results = list(pool.map(loop, [key] * concurrency))
        elapsed = time.monotonic() - started
        count = sum(r[0] for r in results)
        size = sum(r[1] for r in results)
        figures[name] = count / elapsed if name == "ops_per_s" else size / elapsed / 2**20
    for key in ("bench/small", "bench/large"):
        client.delete_object(Bucket=bucket, Key=key)
    return figures


def awscli_figures(server: server_fixture.S3Server, bucket: str, seconds: float, concurrency: int) -> dict[str, float]:
    env = {**os.environ, **server.env}
    client = server.client()
    client.put_object(Bucket=bucket, Key="bench/large", Body=os.urandom(64 << 20))
    started, count = time.monotonic(), 0
    while time.monotonic() - started < seconds:
        subprocess.run(
            ["aws", "--endpoint-url", server.endpoint, "s3", "cp", f"s3://{bucket}/bench/large", "/dev/null"],
            env=env,
            check=True,
            capture_output=True,
        )
        count += 1
    mib = count * 64 / (time.monotonic() - started)
    client.put_object(Bucket=bucket, Key="bench/small", Body=os.urandom(4096))
    started, count = time.monotonic(), 0
    while time.monotonic() - started < seconds:
        subprocess.run(
            [
                "aws",
                "--endpoint-url",
                server.endpoint,
                "s3api",
                "head-object",
                "--bucket",
                bucket,
                "--key",
                "bench/small",
            ],
            env=env,
            check=True,
            capture_output=True,
        )
        count += 1
    ops = count / (time.monotonic() - started)
    for key in ("bench/small", "bench/large"):
        client.delete_object(Bucket=bucket, Key=key)
    return {"ops_per_s": ops, "mib_per_s": mib}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server, gen = _start_server(Path(folder))
        try:
            os.environ.update(server.env)
            bucket = server.new_bucket()
            ours = planner_figures(server, bucket, args.seconds, args.concurrency)
            others = {
                f"plain boto3, one process, {args.concurrency} threads": boto3_figures(
                    server, bucket, args.seconds, args.concurrency
                )
            }
            if shutil.which("aws"):
                others["aws cli (one process per request)"] = awscli_figures(server, bucket, args.seconds, 1)
        finally:
            with pytest.raises(StopIteration):
                next(gen)  # type: ignore[call-overload]
    print(f"local SeaweedFS on {os.cpu_count()} cores; concurrency {args.concurrency}; {args.seconds:g} s per figure")
    print(f"{'client':45} {'4 KiB GET ops/s':>16} {'16 MiB GET MiB/s':>17}")
    print(f"{'planner measure':45} {ours['ops_per_s']:16.0f} {ours['mib_per_s']:17.1f}")
    for name, other in others.items():
        print(f"{name:45} {other['ops_per_s']:16.0f} {other['mib_per_s']:17.1f}")
        print(
            f"{'  ratio planner / this client':45} {ours['ops_per_s'] / max(other['ops_per_s'], 1e-9):16.2f}"
            f" {ours['mib_per_s'] / max(other['mib_per_s'], 1e-9):17.2f}"
        )


if __name__ == "__main__":
    main()
