"""Compare planner measure's client with independent clients on a local SeaweedFS server.

Prints GET throughput on 16 MiB objects (MiB/s) and 4 KiB GET ops/s of each client and the ratio
planner / client, then what planner's cells say about themselves: requests in flight against the
nominal concurrency (counted directly, and as ops/s x mean latency), client and host CPU, flags;
it never fails on speed. Like planner's GET cells, the plain boto3 baseline
reads a set of distinct objects at random (as many as planner's cell uses): SeaweedFS serves one
object read over and over from its cache, so a single-key loop measures the cache, not the
store (that row is printed too, as context). Rounds alternate between the clients and the best
round of each is kept, so other load on the host skews them alike. The AWS CLI (``aws s3 cp``,
``aws s3api head-object``) is added when it is on PATH.

    /tmp/venv/bin/python benchmarks/measure_client.py [--seconds 5] [--concurrency 8] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from measure.profile import Cell
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


SMALL, LARGE = 4096, 16 << 20


def _options(
    server: server_fixture.S3Server,
    bucket: str,
    folder: Path,
    seconds: float,
    concurrency: int,
    processes: int | None = None,
) -> MeasureOptions:
    return MeasureOptions(
        endpoint=server.endpoint,
        bucket=bucket,
        out=folder / "p.json",
        sizes=[SMALL, LARGE],
        concurrency=[concurrency],
        duration_s=seconds,
        warmup_s=1.0,
        ops=["get"],
        probes=[],
        addressing="path",
        processes=processes,
        open_rates_per_s=[],
        open_peak_fractions=[],
    )


def planner_figures(
    server: server_fixture.S3Server, bucket: str, seconds: float, concurrency: int, processes: int | None
) -> tuple[dict[str, float], list[Cell]]:
    with tempfile.TemporaryDirectory() as folder:
        profile = Measurement(_options(server, bucket, Path(folder), seconds, concurrency, processes)).run()
    small = profile.cell("get", SMALL, concurrency)
    large = profile.cell("get", LARGE, concurrency)
    assert small is not None and large is not None
    return {"ops_per_s": small.ops_per_s or 0.0, "mib_per_s": large.throughput_mib_per_s or 0.0}, [small, large]


def _cell_row(cell: Cell) -> str:
    little = (cell.ops_per_s or 0.0) * (cell.latency_s.mean or 0.0)
    direct = "-" if cell.in_flight_mean is None else f"{cell.in_flight_mean:.1f}"
    cpu = "-" if cell.client_max_process_cpu is None else f"{cell.client_max_process_cpu:.2f}"
    host = "-" if cell.host_cpu_fraction is None else f"{cell.host_cpu_fraction:.0%}"
    size = "4 KiB" if cell.object_size_bytes == SMALL else "16 MiB"
    return (
        f"  GET {size:6} x{cell.concurrency:<3} on {cell.processes} processes: in flight {direct:>5} (direct),"
        f" {little:5.1f} (ops/s x mean latency); busiest process {cpu} core, host {host};"
        f" flags {','.join(cell.flags) or '-'}"
    )


def planner_key_count(server: server_fixture.S3Server, concurrency: int) -> dict[int, int]:
    """How many distinct objects planner's GET cell reads, per size."""
    run = Measurement(_options(server, "b", Path(tempfile.gettempdir()), 1.0, concurrency))
    return {size: len(run._data_keys(size)) for size in (SMALL, LARGE)}


def plain_client(server: server_fixture.S3Server, concurrency: int) -> object:
    """boto3 as users make it: botocore's defaults (retries, checksum mode), a pool for the threads."""
    import boto3
    from botocore.config import Config

    config = Config(max_pool_connections=max(10, concurrency), s3={"addressing_style": "path"})
    return boto3.session.Session().client("s3", endpoint_url=server.endpoint, config=config)


def boto3_figures(
    server: server_fixture.S3Server, bucket: str, seconds: float, concurrency: int, keys: dict[int, int]
) -> dict[str, float]:
    writer = server.client()
    names = {size: [f"bench/{size}/{i:03d}" for i in range(count)] for size, count in keys.items()}
    for size, chosen in names.items():
        body = os.urandom(size)
        for key in chosen:
            writer.put_object(Bucket=bucket, Key=key, Body=body)
    client: Any = plain_client(server, concurrency)

    def loop(size: int, seed: int) -> tuple[int, int]:
        rng = random.Random(seed)
        count = total = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            key = names[size][rng.randrange(len(names[size]))]
            total += len(client.get_object(Bucket=bucket, Key=key)["Body"].read())
            count += 1
        return count, total

    figures = {}
    for size, name in ((SMALL, "ops_per_s"), (LARGE, "mib_per_s")):
        started = time.monotonic()
        with ThreadPoolExecutor(concurrency) as pool:
            results = list(pool.map(loop, [size] * concurrency, range(concurrency)))
        elapsed = time.monotonic() - started
        count = sum(r[0] for r in results)
        total = sum(r[1] for r in results)
        figures[name] = count / elapsed if name == "ops_per_s" else total / elapsed / 2**20
    for chosen in names.values():
        for key in chosen:
            writer.delete_object(Bucket=bucket, Key=key)
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


def _best(rounds: list[dict[str, float]]) -> dict[str, float]:
    return {name: max(r[name] for r in rounds) for name in rounds[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--processes", type=int, default=None, help="planner's worker processes (default: cores)")
    args = parser.parse_args()
    spread = f"plain boto3, one process, {args.concurrency} threads"
    hot = "plain boto3, same, one hot key (server cache)"
    rounds: dict[str, list[dict[str, float]]] = {"planner measure": [], spread: [], hot: []}
    cells: list[Cell] = []
    with tempfile.TemporaryDirectory() as folder:
        server, gen = _start_server(Path(folder))
        try:
            os.environ.update(server.env)
            bucket = server.new_bucket()
            keys = planner_key_count(server, args.concurrency)
            for _ in range(args.rounds):
                figures, measured = planner_figures(server, bucket, args.seconds, args.concurrency, args.processes)
                rounds["planner measure"].append(figures)
                cells += measured
                rounds[spread].append(boto3_figures(server, bucket, args.seconds, args.concurrency, keys))
                rounds[hot].append(boto3_figures(server, bucket, args.seconds, args.concurrency, {SMALL: 1, LARGE: 1}))
            if shutil.which("aws"):
                rounds["aws cli (one process per request)"] = [awscli_figures(server, bucket, args.seconds, 1)]
        finally:
            with pytest.raises(StopIteration):
                next(gen)  # type: ignore[call-overload]
    best = {name: _best(figures) for name, figures in rounds.items()}
    ours = best.pop("planner measure")
    print(
        f"local SeaweedFS on {os.cpu_count()} cores; concurrency {args.concurrency}; {args.seconds:g} s per figure;"
        f" best of {args.rounds} alternating rounds; GETs spread over {keys[SMALL]} x 4 KiB and {keys[LARGE]} x 16 MiB"
        " objects unless said otherwise"
    )
    print(f"{'client':45} {'4 KiB GET ops/s':>16} {'16 MiB GET MiB/s':>17}")
    print(f"{'planner measure':45} {ours['ops_per_s']:16.0f} {ours['mib_per_s']:17.1f}")
    for name, other in best.items():
        print(f"{name:45} {other['ops_per_s']:16.1f} {other['mib_per_s']:17.1f}")
        print(
            f"{'  ratio planner / this client':45} {ours['ops_per_s'] / max(other['ops_per_s'], 1e-9):16.2f}"
            f" {ours['mib_per_s'] / max(other['mib_per_s'], 1e-9):17.2f}"
        )
    print("planner's cells, every round:")
    for cell in cells:
        print(_cell_row(cell))


if __name__ == "__main__":
    main()
