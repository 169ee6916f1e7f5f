"""How many transcoding workers before storage is the bottleneck, on Cloudflare R2 and on AWS S3?

A SimPy model of a transcoding farm (the application: workers, a backlog of jobs, CPU time) with the
storage as planner's ``ObjectStore`` (the provider: its shipped reference profile under its price
table's documented limits, on a client link the workers share). Each worker takes the next job from
the backlog: it GETs the 100 MB source, transcodes it for 6 s of CPU, and PUTs three renditions. With
few workers the CPU sets the pace; as workers are added, their transfers share the 1 Gbit/s link and
each job waits longer on storage. Storage is the bottleneck from the first pool whose jobs spend
longer on storage than on the CPU.

Run: ``python examples/transcoding_capacity.py``. Everything below the SimPy model is planner's.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
import simpy

from planner.sim import ObjectStore
from planner.workload import MONTH_S

SOURCE_BYTES = 100_000_000
RENDITION_BYTES = (20_000_000, 10_000_000, 5_000_000)
TRANSCODE_S = 6.0  # mean CPU time per source (each job's drawn: sources differ)
LINK_BITS_PER_S = 1e9  # the workers' shared link
WINDOW_S = 600.0  # ten minutes of the farm
POOLS = (1, 2, 4, 6, 8, 10, 12, 16)


@dataclass
class Pool:
    provider: str
    workers: int
    jobs_per_min: float
    storage_s: float  # a job's mean time in GETs and PUTs
    transcode_s: float
    month_usd: Decimal  # the storage bill of a month at this pace (requests, egress, the objects kept)

    @property
    def storage_bound(self) -> bool:
        return self.storage_s > self.transcode_s


def farm(provider: str, workers: int, seed: int = 1) -> Pool:
    """``workers`` transcoding workers on ``provider``'s storage for ``WINDOW_S``."""
    env = simpy.Environment()
    store = ObjectStore.for_provider(env, provider, link=LINK_BITS_PER_S, seed=seed)
    storage_s: list[float] = []
    rng = np.random.default_rng(seed)

    def worker(env: simpy.Environment, number: int) -> Generator[Any, Any, None]:
        yield env.timeout(rng.uniform(0, TRANSCODE_S))  # workers start apart, not in lockstep
        job = 0
        while True:
            name = f"jobs/{number}-{job}"
            started = env.now
            yield store.get(f"{name}/source.mp4", SOURCE_BYTES)  # the source was uploaded before
            fetched = env.now
            yield env.timeout(rng.gamma(4.0, TRANSCODE_S / 4.0))
            transcoded = env.now
            yield env.all_of([store.put(f"{name}/{size}.mp4", size) for size in RENDITION_BYTES])
            storage_s.append((fetched - started) + (env.now - transcoded))
            job += 1

    for number in range(workers):
        env.process(worker(env, number))
    env.run(until=WINDOW_S)
    cost = store.bill(scale=MONTH_S / WINDOW_S)
    return Pool(
        provider=provider,
        workers=workers,
        jobs_per_min=len(storage_s) / WINDOW_S * 60,
        storage_s=sum(storage_s) / len(storage_s),
        transcode_s=TRANSCODE_S,
        month_usd=cost.total_usd,
    )


def main() -> dict[str, int | None]:
    """Print each pool on each provider; return, per provider, the first pool where storage is the bottleneck."""
    answer: dict[str, int | None] = {}
    for provider in ("cloudflare-r2", "aws-s3"):
        print(f"{provider}: workers, jobs a minute, storage s a job (CPU {TRANSCODE_S:g} s), month's storage bill")
        answer[provider] = None
        for workers in POOLS:
            pool = farm(provider, workers)
            mark = "  <- storage is the bottleneck" if pool.storage_bound and answer[provider] is None else ""
            if mark:
                answer[provider] = workers
            bill = f"${pool.month_usd:,}"
            print(f"  {workers:3d} {pool.jobs_per_min:8.1f} {pool.storage_s:8.2f} {bill:>14}{mark}")
    return answer


if __name__ == "__main__":
    main()
