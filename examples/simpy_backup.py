"""A nightly backup of 300 clients to Backblaze B2: how long does the night take, and is it the backup
agent's connection pool or the office link that sets the pace?

A SimPy model of the backup (the application: 300 clients, each uploading its changed files one after
another from 01:00, file sizes lognormal, median 256 KiB, sigma 1.5, so a few are large enough to go as
multipart uploads) with the storage as planner's ``ObjectStore``: B2's shipped reference profile under
its price table's documented limits (5 GB in one PUT, 10,000 parts), on the office's 1 Gbit/s link.

The parts a capacity planner looks at are SimPy resources the model owns or reads:

- the agent's pool of 32 connections is a ``ConnectionPool`` the model makes and gives the store; a
  probe on it counts the uploads that found every connection busy, and its utilisation is read at the end;
- a ``Monitor`` samples the pool and the link (``store.link``) every 10 s;
- the summary is taken over the backup's own window (from its first upload at 01:00, not from t = 0);
- every figure of the summary carries its evidence: B2's profile publishes a GET latency but no PUT
  latency or write stream, so the PUT figures are marked ``assumed``, and a store made with
  ``strict=True`` refuses to run the backup, naming the assumed figures.

Run: ``python examples/simpy_backup.py [files per client]``. Everything below the SimPy model is planner's.
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import numpy as np
import simpy

from planner import (
    ClientSpec,
    ConnectionPool,
    InputError,
    Monitor,
    MultipartPolicy,
    ObjectStore,
    OperationSummary,
    StoreRecord,
)

CLIENTS = 300
CONNECTIONS = 32  # the backup agent's pool, shared by every client
LINK_BITS_PER_S = 1e9
START_S = 3600.0  # the backup starts at 01:00 (the model's clock starts at midnight)
MEDIAN_BYTES = 256 * 2**10
SIGMA = 1.5
CLIENT = ClientSpec(connections=CONNECTIONS, multipart=MultipartPolicy(threshold_bytes=64 * 2**20))


@dataclass
class Night:
    """What one night's backup did."""

    files: int
    gigabytes: float
    hours: float
    waited_for_a_connection: int  # requests that found every connection busy (the probe's count)
    pool_utilisation: float
    mean_link_bits_per_s: float  # sampled every 10 s
    put: OperationSummary
    failed: int


def backup(store: ObjectStore, files_per_client: int, seed: int = 1) -> list[StoreRecord]:
    """The clients' processes on the store's environment; each client's files, uploaded one after another."""
    env = store.env
    rng = np.random.default_rng(seed)
    records: list[StoreRecord] = []

    def client(env: simpy.Environment, number: int, sizes: list[int]) -> Generator[simpy.Event, Any, None]:
        yield env.timeout(START_S)
        for i, size in enumerate(sizes):
            record: StoreRecord = yield store.put(f"host-{number:03d}/file-{i}", size)
            records.append(record)

    for number in range(CLIENTS):
        sizes = rng.lognormal(np.log(MEDIAN_BYTES), SIGMA, files_per_client).astype(np.int64)
        env.process(client(env, number, [max(1, int(size)) for size in sizes]))
    return records


def night(files_per_client: int = 20) -> Night:
    env = simpy.Environment()
    pool = ConnectionPool(CONNECTIONS, env)
    store = ObjectStore.for_provider(env, "backblaze-b2", link=LINK_BITS_PER_S, client=CLIENT, pool=pool)
    waited = [0, 0]  # requests that found every connection busy; how many waited at the last change

    def probe(now: float, in_use: int, waiting: int) -> None:
        if waiting > waited[1]:
            waited[0] += 1
        waited[1] = waiting

    pool.probe(probe)
    monitor = Monitor(env, 10.0, START_S + 24 * 3600.0, pool=pool, link=store.link)
    records = backup(store, files_per_client)
    env.run()
    end_s = max(record.t_end for record in records)
    sampled = [rate for t, rate in zip(monitor.times, monitor.link_bits_per_s, strict=True) if START_S <= t < end_s]
    put = store.recorder.summary(since=START_S)["PUT"]
    return Night(
        files=len(records),
        gigabytes=sum(record.bytes for record in records) / 1e9,
        hours=(end_s - START_S) / 3600.0,
        waited_for_a_connection=waited[0],
        pool_utilisation=pool.utilisation(end_s),
        mean_link_bits_per_s=sum(sampled) / max(1, len(sampled)),
        put=put,
        failed=sum(not record.ok for record in records),
    )


def strict_refusal() -> str:
    """The same backup on a strict store: it refuses at the first upload, naming the assumed figures."""
    env = simpy.Environment()
    store = ObjectStore.for_provider(env, "backblaze-b2", link=LINK_BITS_PER_S, client=CLIENT, strict=True)
    backup(store, 1)
    try:
        env.run()
    except InputError as refusal:
        return str(refusal)
    return ""


def main(files_per_client: int = 20) -> Night:
    result = night(files_per_client)
    put = result.put
    print(f"{CLIENTS} clients, {result.files:,} files, {result.gigabytes:.2f} GB to backblaze-b2 from 01:00")
    print(f"  the backup took {result.hours * 60:.1f} minutes; {result.failed} uploads failed")
    print(
        f"  pool of {CONNECTIONS}: {result.pool_utilisation:.0%} used; "
        f"{result.waited_for_a_connection:,} requests found every connection busy"
    )
    link_share = result.mean_link_bits_per_s / LINK_BITS_PER_S
    pace = "the link" if link_share >= 0.9 else "the pool" if result.pool_utilisation >= 0.9 else "neither"
    print(f"  what sets the pace: {pace} (link {link_share:.0%} busy, pool {result.pool_utilisation:.0%} used)")
    print(
        f"  PUT p50 {put.latency_p50_s * 1000:.1f} ms ({put.evidence['latency_p50_s']}), "
        f"p99 {put.latency_p99_s * 1000:.1f} ms ({put.evidence['latency_p99_s']})"
    )
    print(f"  strict run: {strict_refusal()}")
    return result


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
