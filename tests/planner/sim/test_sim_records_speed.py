"""The cheaper paths around the event loop give what the plain ones gave: keys searched in the
draws' order, records turned into one contiguous array per field, and the tally of a chunk that
holds some operations only."""

from __future__ import annotations

import numpy as np

from planner.sim import KeyPopularity, OpenLoop, SimSpec, SizeDistribution
from planner.sim.engine.core import Tally
from planner.sim.engine.replication_records import RawRun
from planner.sim.engine.requests import _SEARCH_IN_ORDER_FROM, RequestSource, _search_in_order


def test_keys_searched_in_order_are_the_plain_search_s() -> None:
    keys = 100_000
    weights = np.arange(1, keys + 1, dtype=np.float64) ** -1.1
    cdf = np.cumsum(weights) / weights.sum()
    assert len(cdf) >= _SEARCH_IN_ORDER_FROM  # the sorted path is the one taken
    draws = np.random.default_rng(7).random(20_000)
    draws[:4] = [0.0, cdf[0], cdf[10], np.nextafter(cdf[10], 0.0)]  # on and just below an entry
    found = _search_in_order(cdf, draws)
    assert found.dtype == np.int64
    assert np.array_equal(found, np.searchsorted(cdf, draws, side="right"))
    assert found[:4].tolist() == [0, 1, 11, 10]


def test_records_become_one_contiguous_array_per_field() -> None:
    # a GET answered whole (ok 2: its record stands for its transfer), a failed PUT, and one
    # transfer recorded on its own (a part of a ranged GET)
    records = [0, 1.0, 1.5, 2.0, 3.0, 100, 2, 1, 4.0, 4.0, 4.0, 5.0, 0, 0]
    transfers = [0, 6.0, 7.0, 50]
    run = RawRun.recorded(records, transfers, [5.0], errors={}, retries=[0] * 4, billed=[0] * 7, unfinished=0)
    assert run.lop.tolist() == [0, 1]
    assert run.t_first.tolist() == [2.0, 4.0]
    assert run.ok.tolist() == [True, False]
    assert run.transfer_lop.tolist() == [0, 0]  # the one recorded, then the whole GET's
    assert run.transfer_start.tolist() == [6.0, 2.0]
    assert run.transfer_end.tolist() == [7.0, 3.0]
    assert run.transfer_bytes.tolist() == [50.0, 100.0]
    for field in (run.t_arrival, run.t_conn, run.t_first, run.t_end, run.size, run.transfer_start):
        assert field.flags.c_contiguous


def test_a_chunk_without_an_operation_adds_nothing_to_its_figures() -> None:
    records = [0, 1.0, 1.0, 1.5, 2.0, 1000, 2, 0, 3.0, 3.5, 4.0, 6.0, 1000, 2]
    run = RawRun.recorded(records, [], [], errors={}, retries=[0] * 4, billed=[2, 0, 0, 0, 0, 0, 0], unfinished=0)
    tally = Tally(10.0, 0.0)
    tally.add(run)
    values = tally.figures().values
    assert (values["GET.requests"], values["GET.mean_wait_s"], values["GET.mean_latency_s"]) == (2.0, 0.25, 2.0)
    assert values["GET.throughput_bytes_per_s"] == 200.0
    assert (values["PUT.requests"], values["PUT.failed"], values["PUT.throughput_bytes_per_s"]) == (0.0, 0.0, 0.0)
    assert np.isnan(values["HEAD.mean_latency_s"]) and np.isnan(values["HEAD.latency_p99_s"])


def test_the_zipf_law_is_made_once_for_every_source_of_it() -> None:
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=10.0),
        sizes=SizeDistribution.fixed(1000),
        keys=KeyPopularity(keys=50_000, zipf_exponent=0.9),
    )
    first, second = (RequestSource(spec, np.random.default_rng(seed)) for seed in (1, 2))
    assert first.zipf_cdf is not None and first.zipf_cdf is second.zipf_cdf
    assert not first.zipf_cdf.flags.writeable  # shared: no source may change it
    weights = np.arange(1, 50_001, dtype=np.float64) ** -0.9
    assert np.array_equal(first.zipf_cdf, np.cumsum(weights) / np.cumsum(weights)[-1])
