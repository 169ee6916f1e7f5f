"""The simulator on the user's own path: ``planner measure`` with its default cells, then the simulator
on that profile, against a live open-loop load on the same server.

Unlike ``benchmarks/fidelity.py`` (the developers' harness, whose driver makes the open-loop cells
itself), nothing here plans a cell: the profile is what ``planner measure`` writes when given only
the endpoint, the workload's sizes and operations (``--sizes 4KiB,256KiB --ops get,put``), no
probes and a short ``--budget`` (two shared cores: the plan is fitted into a few minutes). Then, in
interleaved rounds, two live open-loop loads on loopback from ``fidelity.py``'s driver (Poisson
arrivals, presigned URLs on kept-alive connections, latency from the scheduled arrival):

  (a) 20 requests a second of 4 KiB, 80:20 GET:PUT;
  (b) 30 a second of 256 KiB, 80:20, every GET of one hot key.

Each is simulated from the profile as ``planner simulate --profile`` does (the profile's model, the
same arrivals, mix, sizes, keys and client pool). Prints each round's live GET p50, p95 and p99
with the cores busy meanwhile (server, driver, the rest of the host: the measurement's minutes and
the live rounds' are different minutes, and on a shared host the rest moves the tails most), and the
ratios sim/live of the medians over rounds, against the bounds (p50 and p95 within 15 %, p99 within
35 %). Prints figures; never fails on them.

    python benchmarks/fidelity_user_path.py [--rounds 3] [--seconds 30] [--budget 4m]
        [--open-loop RATES (default: measure's own)] [--profile P.json (re-use a measured profile)]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import fidelity

from planner.measure.profile import Profile

KIB = 1024
BOUNDS = {"p50": 0.15, "p95": 0.15, "p99": 0.35}
SCENARIOS = (
    ("4KiB 20/s", fidelity.Scenario("light-4k", 20.0, 4 * KIB, 0.8, 30.0), False),
    ("256KiB 30/s hot key", fidelity.Scenario("hot-256k", 30.0, 256 * KIB, 0.8, 30.0), True),
)


def measure(endpoint: str, bucket: str, out: Path, budget: str, open_loop: str | None) -> Profile:
    """``planner measure`` as a user runs it: the endpoint, the workload's sizes and operations, no
    probes, a budget; every other cell option its default (``--open-loop`` only if asked, to compare)."""
    command = [sys.executable, "-m", "planner", "measure", "--endpoint", endpoint, "--bucket", bucket]
    command += ["--out", str(out), "--sizes", "4KiB,256KiB", "--ops", "get,put", "--probes", "none"]
    command += ["--budget", budget, "--addressing", "path", "--quiet"]
    if open_loop is not None:
        command += ["--open-loop", open_loop]
    plan = subprocess.run([*command, "--dry-run"], capture_output=True, text=True, check=True)
    print(plan.stdout, end="", flush=True)
    busy0, all0 = fidelity._host_busy_s()
    subprocess.run(command, check=True)
    busy1, all1 = fidelity._host_busy_s()
    cores = os.cpu_count() or 1
    print(f"measured: the host {cores * (busy1 - busy0) / max(all1 - all0, 1e-9):.2f} of {cores} cores busy meanwhile")
    return Profile.model_validate_json(out.read_text())


def simulate(profile: Profile, scenario: fidelity.Scenario, hot: bool, seed: int) -> dict[str, float]:
    """The scenario simulated from the profile as ``planner simulate --profile`` models it."""
    from planner.sim import ClientSpec, OpenLoop, OperationMix, SimSpec, SizeDistribution, simulate_spec
    from planner.sim.model.profile_adapter import provider_model_from_profile
    from planner.sim.spec import HotSet, KeyPopularity

    model, _ = provider_model_from_profile(profile)
    keys = KeyPopularity(keys=fidelity.KEYS_PER_SIZE[scenario.size_bytes])
    if hot:
        keys = KeyPopularity(keys=keys.keys, hot=HotSet(objects=1, share_of_reads=1.0))
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=scenario.rate_per_s),
        mix=OperationMix(get=scenario.get_share, put=1 - scenario.get_share),
        sizes=SizeDistribution.fixed(scenario.size_bytes),
        keys=keys,
        client=ClientSpec(connections=scenario.connections),
    )
    result = simulate_spec(spec, model, max(scenario.seconds, 30.0), seed, replications=3)
    get = result.operations["GET"]
    return {"p50": get.latency_p50_s.mean, "p95": get.latency_p95_s.mean, "p99": get.latency_p99_s.mean}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=30.0, help="each live load's window")
    parser.add_argument("--budget", default="4m", help="planner measure --budget")
    parser.add_argument("--open-loop", default=None, help="planner measure --open-loop (default: its own)")
    parser.add_argument("--profile", type=Path, help="simulate from this profile instead of measuring one")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--profile-out", type=Path, help="keep the measured profile here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with fidelity.s3_server("seaweedfs", folder) as (server, pid):
            os.environ.update(server.env)
            bucket = server.new_bucket()
            profile = (
                Profile.model_validate_json(args.profile.read_text())
                if args.profile
                else measure(server.endpoint, bucket, folder / "profile.json", args.budget, args.open_loop)
            )
            if args.profile_out:
                args.profile_out.write_text(profile.model_dump_json(indent=1))
            print(f"profile: {len(profile.cells)} cells, {sum(c.mode == 'open' for c in profile.cells)} open-loop")
            fidelity.populate(server.client(), bucket)
            paths = {size: fidelity.presigned(server.endpoint, bucket, size) for _, s, _ in SCENARIOS for size in
                     [s.size_bytes]}  # fmt: skip
            live: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in SCENARIOS}
            for r in range(args.rounds):
                for name, scenario, hot in SCENARIOS:
                    scenario = dataclasses.replace(scenario, seconds=args.seconds)
                    gets, puts = paths[scenario.size_bytes]
                    run = fidelity.drive(server.endpoint, scenario, (gets[:1] if hot else gets, puts), 7 + r, pid)
                    summary = fidelity.live_summary(run)
                    live[name].append(summary)
                    print(
                        f"round {r + 1} {name}: live {_line(summary)} (late {summary['late']:.1%}; cores busy:"
                        f" server {summary['server_cpu']:.2f}, driver {summary['client_cpu']:.2f}, other"
                        f" {summary['other_cpu']:.2f})",
                        flush=True,
                    )
        report(profile, live, args)


def report(profile: Profile, live: dict[str, list[dict[str, float]]], args: argparse.Namespace) -> None:
    from planner.sim.model.profile_adapter import provider_model_from_profile

    _, notes = provider_model_from_profile(profile)
    for note in notes:
        if "wake-up" in note:
            print(f"note: {note}")
    figures: dict[str, Any] = {}
    for name, scenario, hot in SCENARIOS:
        scenario = dataclasses.replace(scenario, seconds=args.seconds)
        sim = simulate(profile, scenario, hot, seed=11)
        median = {k: statistics.median(run[k] for run in live[name]) for k in BOUNDS}
        ratios = {k: sim[k] / median[k] if median[k] > 0 else math.nan for k in BOUNDS}
        within = all(abs(ratios[k] - 1) <= bound for k, bound in BOUNDS.items())
        print(
            f"{name}: live (median of {len(live[name])} rounds) {_line(median)}; sim {_line(sim)}; sim/live "
            + " ".join(f"{k} {ratios[k]:.2f}" for k in BOUNDS)
            + (" (within the bounds)" if within else " (OUTSIDE the bounds: p50, p95 15 %, p99 35 %)")
        )
        figures[name] = {"live": median, "sim": sim, "ratios": ratios, "within": within}
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


def _line(figures: dict[str, float]) -> str:
    return " ".join(f"{k} {figures[k] * 1000:.2f} ms" for k in BOUNDS)


if __name__ == "__main__":
    main()
