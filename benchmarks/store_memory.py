"""Peak memory of an ``ObjectStore`` model: a nightly backup of 300 clients to one bucket.

Each client uploads its files one after another (a closed loop: the next PUT when the last is
answered), file sizes lognormal (median 256 KiB, sigma 1.5, so nearly every size is distinct and
the large ones go as multipart uploads), 10 Gbps between the clients and the store, S3's reference
profile. The run stops after ``--requests`` operations; the figure is the process's peak resident
set (``ru_maxrss``), measured in a fresh process per recording mode, and the CPU time a request.
Run: ``python benchmarks/store_memory.py [--requests 1000000] [--record all none 1000]``.
Prints figures; never fails on memory.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from collections.abc import Generator
from typing import Any

import numpy as np
import simpy

CLIENTS = 300


def backup(requests: int, record: str) -> tuple[int, float]:
    """Operations ended and CPU seconds for the backup model, recording as ``record`` says."""
    from planner.sim import ClientSpec, ObjectStore

    start = time.process_time()
    env = simpy.Environment()
    mode: Any = int(record) if record.isdigit() else record
    store = ObjectStore.for_provider(
        env, "aws-s3", link=10e9, client=ClientSpec(connections=CLIENTS), record=mode, seed=1
    )
    rng = np.random.default_rng(1)
    per_client = -(-requests // CLIENTS)
    ended = [0]

    def client(env: simpy.Environment, number: int) -> Generator[Any, Any, None]:
        for first in range(0, per_client, 100):  # the sizes a hundred at a time: the model's own memory small
            sizes = rng.lognormal(np.log(256 * 2**10), 1.5, min(100, per_client - first)).astype(np.int64)
            for i, size in enumerate(np.maximum(sizes, 1).tolist(), first):
                yield store.put(f"host-{number}/file-{i}", size)
                ended[0] += 1

    for number in range(CLIENTS):
        env.process(client(env, number))
    env.run()
    return ended[0], time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1_000_000)
    parser.add_argument("--record", nargs="+", default=["all", "none"])
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        ended, cpu_s = backup(args.requests, args.one)
        peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        us = 1e6 * cpu_s / ended
        print(f"record={args.one}: {ended:,} operations, peak RSS {peak_mib:,.0f} MiB, {us:.2f} us each")
        return
    for record in args.record:
        command = [sys.executable, __file__, "--requests", str(args.requests), "--one", record]
        subprocess.run(command, check=True)


if __name__ == "__main__":
    main()
