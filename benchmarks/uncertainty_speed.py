"""Sampled outcomes priced per second: the vectorised path against the line-item engine, same run.

The workload is ``examples/web-assets.yaml`` with its stored volume, egress and writes given as
ranges (uniform, triangular, lognormal), every provider and class it allows (12 options today).
Each round prices ``--samples`` outcomes with the arrays (``planner.costing.outcomes``) and
``--engine-samples`` outcomes outcome by outcome with the line-item engine, alternately, so both
see the same machine; the figures are the medians of ``--rounds`` rounds. A third figure is the
whole ``recommend --samples`` answer (draws, bills, percentiles, regret, statement and tornado)
for ``--samples`` outcomes with the arrays, every month of the horizon priced (12 here).
Run: ``python benchmarks/uncertainty_speed.py``.
Prints figures; never fails on speed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import time
from pathlib import Path

import numpy as np
import yaml

from planner.costing.bills import price_table
from planner.costing.outcomes import price_outcomes
from planner.decide.uncertainty import sample
from planner.workload import Workload, load_workload

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "web-assets.yaml"
AS_OF = dt.date(2026, 12, 1)


def _workload(tmp: Path) -> Workload:
    data = yaml.safe_load(EXAMPLE.read_text())
    data["storage"]["stored"] = {"low": "3 TB", "likely": "5 TB", "high": "9 TB"}
    data["traffic"]["egress"] = {"p10": "20 TB", "p90": "120 TB"}
    data["traffic"]["writes"] = {"low": 400_000, "high": 1_200_000}
    path = tmp / "web-assets-ranges.yaml"
    path.write_text(yaml.safe_dump(data))
    return load_workload(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--engine-samples", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        workload = _workload(Path(tmp))
    tables = {p: price_table(p, AS_OF, None) for p in workload.constraints.providers}
    options = [(p, c) for p, t in tables.items() for c in t.classes]

    def draws(n: int) -> dict[str, np.ndarray]:  # type: ignore[type-arg]
        rng = np.random.default_rng(0)
        return {u.field: u.sample(rng, n) for u in workload.uncertain}

    fast_draws, slow_draws = draws(args.samples), draws(args.engine_samples)
    price_outcomes(workload, draws(100), options, tables, as_of=AS_OF)  # warm imports and caches
    fast_rates, slow_rates, whole_s = [], [], []
    for _ in range(args.rounds):
        start = time.perf_counter()
        priced = price_outcomes(workload, fast_draws, options, tables, as_of=AS_OF)
        fast_rates.append(args.samples / (time.perf_counter() - start))
        assert not priced.by_engine, priced.by_engine
        start = time.perf_counter()
        price_outcomes(workload, slow_draws, options, tables, as_of=AS_OF, engine_only=True)
        slow_rates.append(args.engine_samples / (time.perf_counter() - start))
        start = time.perf_counter()
        sample(workload, workload.uncertain, args.samples, seed=1, as_of=AS_OF)
        whole_s.append(time.perf_counter() - start)
    fast, slow = statistics.median(fast_rates), statistics.median(slow_rates)
    print(f"workload: {EXAMPLE.name} with 3 ranged inputs, {len(options)} options; medians of {args.rounds} rounds")
    print(f"vectorised:       {fast:12,.0f} samples/s ({fast * len(options):,.0f} bills/s; {args.samples:,} a round)")
    each = f"{args.engine_samples:,} a round"
    print(f"line-item engine: {slow:12,.0f} samples/s ({slow * len(options):,.0f} bills/s; {each})")
    print(f"ratio:            {fast / slow:12,.0f}x")
    print(f"{args.samples:,} samples with the arrays: {args.samples / fast:.3f} s to price a month of each")
    print(
        f"whole recommend --samples {args.samples:,} answer ({workload.constraints.months} months of bills each):"
        f" {statistics.median(whole_s):.3f} s"
    )


if __name__ == "__main__":
    main()
