"""Peak memory and wall time of replaying a long trace, on one machine and on a local Dask cluster.

The trace is ``planner trace`` of the web-assets example's peak window (about 380 requests a
second of small objects) long enough to hold ``--requests`` requests, written to ``--dir`` (the
temporary folder, never the repository) once and reused. Each phase runs in a fresh process and
prints that process's peak resident set (``ru_maxrss``) and its wall time:

- ``replay``: ``planner simulate --trace`` on one machine (``--replications``, default 1);
- ``dask``: the same replay in time windows on a local Dask cluster of ``--workers`` worker
  processes (one thread each), with the workers' own peak resident sets;
- ``agree``: one machine and the Dask windows on the same trace with ``--replications`` (default
  3): each GET and PUT figure with its 95 % interval, and whether the two intervals meet.

Run: ``python benchmarks/trace_memory.py replay --requests 20000000``,
``python benchmarks/trace_memory.py agree --requests 5000000``. Prints figures; never fails on memory.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WORKLOAD = ROOT / "examples" / "web-assets.yaml"
PROVIDER = "aws-s3"
FIGURES = ("requests", "mean_latency_s", "latency_p50_s", "latency_p95_s", "latency_p99_s", "ttfb_p99_s")


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def trace_file(requests: int, folder: Path) -> Path:
    """The trace of about ``requests`` requests in ``folder``, written by ``planner trace`` if missing."""
    from planner.sim.front.workload_adapter import adapt_workload
    from planner.workload import load_workload

    path = folder / f"trace-{requests}.csv"
    if path.exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    rate = adapt_workload(load_workload(WORKLOAD), window="peak").spec.arrivals.max_rate_per_s  # type: ignore[union-attr]
    seconds = math.floor(requests / rate)  # whole seconds, never past ``planner trace``'s cap of 10^8
    started = time.perf_counter()
    command = ["planner", "trace", str(WORKLOAD), "--out", str(path), "--duration", f"{seconds}s", "--seed", "1"]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()
    print(f"generate: {out} in {time.perf_counter() - started:.0f} s", flush=True)
    return path


def _simulate(path: Path, replications: int, scheduler: str | None) -> tuple[dict[str, Any], float]:
    """The peak window's operations replayed from ``path`` (here or in windows at ``scheduler``), and the seconds."""
    from planner.sim.engine.trace_stream import MAX_CLUSTER_REQUESTS, open_trace
    from planner.sim.front.workload_sim import simulate
    from planner.workload import load_workload

    started = time.perf_counter()
    with open_trace(path, limit=MAX_CLUSTER_REQUESTS) as (trace, _):
        read_s = time.perf_counter() - started
        print(f"  read {trace.requests:,} requests in {read_s:.0f} s (peak RSS so far {_peak_mb():.0f} MB)", flush=True)
        if scheduler is not None:
            trace = trace.model_copy(update={"scheduler": scheduler})
        result = simulate(load_workload(WORKLOAD), PROVIDER, trace=trace, replications=replications, seed=1)
    operations = result.peak.model_dump()["operations"]
    return operations, time.perf_counter() - started


def replay(args: argparse.Namespace) -> None:
    path = trace_file(args.requests, args.dir)
    operations, seconds = _simulate(path, args.replications, None)
    requests = sum(op["requests"]["mean"] for op in operations.values())
    print(
        f"replay, one machine: {requests:,.0f} requests x {args.replications} replication(s) in {seconds:.0f} s"
        f" ({requests * args.replications / seconds:,.0f} requests/s), peak RSS {_peak_mb():.0f} MB",
        flush=True,
    )


def _cluster(workers: int) -> Any:
    from distributed import LocalCluster

    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")


def _worker_peaks(client: Any) -> list[float]:
    def peak() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    return sorted(client.run(peak).values())


def dask(args: argparse.Namespace) -> None:
    from distributed import Client

    path = trace_file(args.requests, args.dir)
    with _cluster(args.workers) as cluster, Client(cluster) as client:
        operations, seconds = _simulate(path, args.replications, cluster.scheduler_address)
        workers = _worker_peaks(client)
    requests = sum(op["requests"]["mean"] for op in operations.values())
    print(
        f"replay, Dask ({args.workers} workers): {requests:,.0f} requests x {args.replications} replication(s) in"
        f" {seconds:.0f} s ({requests * args.replications / seconds:,.0f} requests/s), peak RSS {_peak_mb():.0f} MB"
        f" here, {', '.join(f'{mb:.0f}' for mb in workers)} MB on the workers",
        flush=True,
    )


def agree(args: argparse.Namespace) -> None:
    path = trace_file(args.requests, args.dir)
    one, one_s = _simulate(path, args.replications, None)
    print(f"one machine: {one_s:.0f} s, peak RSS {_peak_mb():.0f} MB", flush=True)
    with _cluster(args.workers) as cluster:
        split, split_s = _simulate(path, args.replications, cluster.scheduler_address)
    print(f"Dask windows ({args.workers} workers): {split_s:.0f} s", flush=True)
    met = True
    for op in sorted(one):
        for name in FIGURES:
            a, b = one[op][name], split[op][name]
            gap = abs(a["mean"] - b["mean"])
            reach = (a["ci95_half_width"] or 0.0) + (b["ci95_half_width"] or 0.0)
            meets = gap <= reach
            met &= meets
            print(
                f"  {op} {name}: one machine {a['mean']:.6g} +/- {a['ci95_half_width'] or 0:.2g},"
                f" windows {b['mean']:.6g} +/- {b['ci95_half_width'] or 0:.2g}: {'within' if meets else 'OUTSIDE'}"
            )
    print(json.dumps({"all_within_intervals": met}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("phase", choices=("replay", "dask", "agree"))
    parser.add_argument("--requests", type=int, default=20_000_000)
    parser.add_argument("--replications", type=int)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/planner-trace-bench"))
    args = parser.parse_args()
    if args.replications is None:
        args.replications = 3 if args.phase == "agree" else 1
    {"replay": replay, "dask": dask, "agree": agree}[args.phase](args)


if __name__ == "__main__":
    sys.exit(main())
