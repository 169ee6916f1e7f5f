"""A long window in bounded memory: the engine hands its records on a stretch at a time, and the
statistics keep a bounded number of samples (exact percentiles up to it, a 0.1 % histogram past it)."""

from __future__ import annotations

import numpy as np
import pytest

from planner.sim import (
    BandwidthCurve,
    ClientSpec,
    LatencyModel,
    OpenLoop,
    OperationMix,
    ProviderModel,
    SimSpec,
    SizeDistribution,
)
from planner.sim.engine.core import Tally
from planner.sim.engine.replication import RawRun, Replication
from planner.sim.engine.stats import StreamingQuantiles


class _Short(Replication):
    CHUNK_REQUESTS = 2_000
    CHUNK_S = 1.0


def _model() -> ProviderModel:
    return ProviderModel(
        provider_id="plain",
        ttfb_get=LatencyModel(p50_s=0.010, p99_s=0.060, floor_s=0.002),
        ttfb_put=LatencyModel(p50_s=0.020, p99_s=0.080),
        stream_read=BandwidthCurve.flat(1e9),
        stream_write=BandwidthCurve.flat(5e8),
    )


def test_streaming_quantiles_are_exact_up_to_the_retained_samples_and_within_half_a_bucket_past_them() -> None:
    samples = np.random.default_rng(1).lognormal(np.log(0.01), 1.0, 200_000)
    levels = (50.0, 95.0, 99.0, 99.9)
    exact = np.percentile(samples, levels)
    kept = StreamingQuantiles(retained=300_000)
    folded = StreamingQuantiles(retained=1_000)
    for block in np.array_split(samples, 50):
        kept.add(block)
        folded.add(block)
    assert kept.percentiles(levels) == pytest.approx(exact.tolist(), rel=1e-12)
    assert kept.kept == 200_000 and folded.kept == 0
    assert folded.percentiles(levels) == pytest.approx(exact.tolist(), rel=6e-4)
    assert folded.count == 200_000


def test_a_long_window_keeps_a_bounded_number_of_records_and_samples() -> None:
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=500.0),
        mix=OperationMix(get=0.8, put=0.2),
        sizes=SizeDistribution.fixed(64 * 1024),
        client=ClientSpec(connections=256),
    )
    chunks: list[RawRun] = []
    largest: list[int] = []
    tally = Tally(120.0, 0.0, retained=5_000)
    replication = _Short(spec, _model(), 120.0, np.random.default_rng(4))

    def consume(run: RawRun) -> None:
        largest.append(max(len(run.lop), len(replication.arrival_times)))
        tally.add(run)
        chunks.append(run)
        assert tally.retained_samples <= 2 * 4 * 5_000 + 2 * 4 * 2_000  # every series, plus one chunk each

    replication.run_chunks(consume)
    whole = RawRun.joined(chunks)
    assert len(whole.lop) > 55_000  # about 60,000 requests went through
    assert len(chunks) >= 30 and max(largest) < 2_000 * 1.3  # never more than about one chunk at once
    assert tally.retained_samples == 0  # every series past its 5,000: histograms only
    figures = tally.figures().values
    done = whole.ok & (whole.lop == 0)
    exact = np.percentile(whole.t_end[done] - whole.t_arrival[done], [50, 99])
    assert [figures["GET.latency_p50_s"], figures["GET.latency_p99_s"]] == pytest.approx(exact.tolist(), rel=2e-3)
    assert figures["GET.requests"] + figures["PUT.requests"] == len(whole.lop)
