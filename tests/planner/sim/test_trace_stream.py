"""Traces replayed from disk a stretch at a time, and in time windows on a Dask cluster."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from planner.errors import InputError
from planner.sim import (
    BandwidthCurve,
    ClientSpec,
    KeyPopularity,
    LatencyModel,
    OpenLoop,
    OperationMix,
    ProviderModel,
    ServerQueue,
    SimSpec,
    SizeDistribution,
    simulate_spec,
)
from planner.sim.engine import trace_stream
from planner.sim.engine.replication import Replication
from planner.sim.engine.trace_stream import key_number, open_trace
from planner.sim.front.trace import generate, replay_window_s, write_trace
from planner.sim.front.trace_windows import plan_windows, simulate_windows
from planner.sim.result import SimulationResult


def _model() -> ProviderModel:
    # a server of 1 ms a request, 80 % busy at 800 a second (requests queue: state carried across
    # stretches), and a time to first byte of 2 ms at the median, 8 ms at p99 (replications differ)
    return ProviderModel(
        provider_id="queued",
        ttfb_get=LatencyModel(p50_s=0.002, p99_s=0.008),
        ttfb_put=LatencyModel(p50_s=0.002, p99_s=0.008),
        stream_read=BandwidthCurve.flat(1e9),
        stream_write=BandwidthCurve.flat(1e9),
        server_queues=[ServerQueue(operations=["get", "put"], servers=1, service_s=0.001)],
    )


def _spec() -> SimSpec:
    return SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=800.0),
        mix=OperationMix(get=3, put=1),
        sizes=SizeDistribution.fixed(1000),
        keys=KeyPopularity(keys=500),
        client=ClientSpec(connections=100_000),
    )


def _written(tmp_path: Path, seconds: float, seed: int = 5) -> Path:
    buffer = io.StringIO()
    write_trace(generate(_spec(), seconds, seed=seed), buffer)
    path = tmp_path / "t.csv"
    path.write_text(buffer.getvalue())
    return path


def test_streaming_replays_exactly_what_the_whole_file_replays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _written(tmp_path, 30.0)
    # the engine takes 2 s stretches (about 1,600 requests): a dozen stretches, state carried across
    monkeypatch.setattr(Replication, "CHUNK_S", 2.0)
    monkeypatch.setattr(Replication, "CHUNK_REQUESTS", 1)
    with open_trace(path, block_rows=1000) as (streamed, notes):  # read and written 1,000 rows at a time
        assert not notes and streamed.requests == 24_239
        whole = streamed.arrivals()
        window_s = replay_window_s(whole)
        assert streamed.span_s == whole.span_s and streamed.max_rate_per_s == whole.max_rate_per_s
        from_disk = simulate_spec(_spec().model_copy(update={"arrivals": streamed}), _model(), window_s, seed=1)
    assert not Path(streamed.spill).exists()  # the records on disk go with the replay
    in_memory = simulate_spec(_spec().model_copy(update={"arrivals": whole}), _model(), window_s, seed=1)
    assert from_disk.model_dump() == in_memory.model_dump()
    assert from_disk.operations["GET"].requests.mean + from_disk.operations["PUT"].requests.mean == 24_239


def test_whole_seconds_are_spread_across_block_boundaries(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    # 7 requests in second 10, 3 in 11, 5 in 13: blocks of 4 rows cut every second
    rows = [10] * 7 + [11] * 3 + [13] * 5
    path.write_text("time_s,operation,key,bytes_sent\n" + "".join(f"{t},get,k{i},5\n" for i, t in enumerate(rows)))
    with open_trace(path, block_rows=4) as (trace, notes):
        times, ops, sizes, keys = trace.between(0.0, 10.0)
    assert ops.tolist() == [0] * 15
    spread = [i / 7 for i in range(7)] + [1 + i / 3 for i in range(3)] + [3 + i / 5 for i in range(5)]
    assert times.tolist() == pytest.approx(spread, abs=1e-12)
    assert sizes.tolist() == [5] * 15 and keys[3] == key_number("k3") and "whole seconds" in notes[0]


def _agree(a: float, a_half: float | None, b: float, b_half: float | None) -> bool:
    return abs(a - b) <= (a_half or 0.0) + (b_half or 0.0)


def _windows_agree(one: SimulationResult, split: SimulationResult) -> None:
    for op in ("GET", "PUT"):
        a, b = one.operations[op], split.operations[op]
        assert a.requests.mean == b.requests.mean  # every request is counted in exactly one window
        for name in ("mean_latency_s", "latency_p50_s", "latency_p99_s", "ttfb_p99_s"):
            x, y = getattr(a, name), getattr(b, name)
            assert _agree(x.mean, x.ci95_half_width, y.mean, y.ci95_half_width), (op, name, x, y)
    assert sum(one.billed_requests[k].mean for k in one.billed_requests) == pytest.approx(
        sum(split.billed_requests[k].mean for k in split.billed_requests)
    )
    # the series: each window fills its own bins, no bin counted twice
    assert sum(split.time_series.requests) == pytest.approx(sum(one.time_series.requests), rel=1e-3)


def test_windows_with_a_warm_up_agree_with_one_machine_within_the_intervals(tmp_path: Path) -> None:
    path = _written(tmp_path, 60.0, seed=8)
    spec, model = _spec(), _model()
    with open_trace(path) as (trace, _):
        replay = spec.model_copy(update={"arrivals": trace})
        one = simulate_spec(replay, model, trace.span_s, seed=3, replications=3)
        # the windows one after another here: what a cluster runs, joined the same way
        split = simulate_windows(replay, model, trace.span_s, 4, 3, scheduler=None, windows=4, warmup_s=5.0)
    _windows_agree(one, split)


@pytest.mark.slow
def test_windows_on_a_local_dask_cluster_agree_and_the_command_replays_every_request(
    run_cli,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    distributed = pytest.importorskip("distributed")
    from tests.planner.conftest import EXAMPLES

    path = _written(tmp_path, 120.0, seed=8)
    spec, model = _spec(), _model()
    with open_trace(path) as (trace, _):
        replay = spec.model_copy(update={"arrivals": trace})
        one = simulate_spec(replay, model, trace.span_s, seed=3, replications=5)
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as c:
            split = simulate_windows(
                replay, model, trace.span_s, 4, 5, scheduler=c.scheduler_address, windows=4, warmup_s=5.0
            )
            web = str(EXAMPLES / "web-assets.yaml")
            cli = run_cli("simulate", web, "-p", "aws-s3", "--trace", str(path), "--dask", c.scheduler_address,
                          "--replications", "2", "-f", "json")  # fmt: skip
    _windows_agree(one, split)
    assert cli.code in (0, 1), cli.err
    replayed = json.loads(cli.out)["peak"]["operations"]
    assert sum(op["requests"]["mean"] for op in replayed.values()) == trace.requests


def test_windows_are_cut_at_whole_bins_and_warm_up_inside_the_trace() -> None:
    plan = plan_windows(1000.0, 10, count=3, warmup_s=60.0)
    # 1000 s has bins of 2 s (500 of them): cut at bins 0, 167, 333, 500
    assert [(w.start_s, w.end_s, w.warmup_s) for w in plan] == [
        (0.0, 334.0, 0.0),
        (334.0, 666.0, 60.0),
        (666.0, 1000.0, 60.0),
    ]
    assert plan[1].first_bin == 167 and plan[1].edges_s[0] == 60.0 and plan[1].edges_s[-1] == 392.0
    assert np.allclose(np.diff(plan[2].edges_s), 2.0)


HEADER = "time_s,operation,key,bytes_sent,object_size\n"


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("5,get,a,1,0\n4,get,b,1,0\n", "line 3: time_s 4 is before the line above's 5: out of time order"),
        ("1,get,a,1,0\n2,put,b,0,-7\n", "line 3: object_size '-7' is negative: a byte count is 0 or more"),
        ("1,get,a,1,0\n1,get,a,1,0\n2,fetch,a,1,0\n", "line 4: operation 'fetch' is not one a trace holds"),
        ("1,get,a,1,0\n2,get,a,1,0\n3,get,a,1,0\n", "line 4: more than 2 requests, the most one machine replays"),
        # a row of more fields than the header names had been read by its first ones
        ("1,get,a,1,0\n2,get,a,1,0,extra\n", "line 3: not as many fields as the header names (5)"),
        ("1,get,a\n", "line 2: not as many fields as the header names (5)"),
    ],
)
def test_a_bad_trace_is_one_line_with_its_line_number_and_exit_2(
    run_cli,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    rows: str,
    message: str,
) -> None:
    from tests.planner.conftest import EXAMPLES

    monkeypatch.setattr("planner.sim.engine.trace_stream.MAX_ONE_MACHINE_REQUESTS", 2)  # 50 million, scaled down
    path = tmp_path / "bad.csv"
    path.write_text(HEADER + rows)
    result = run_cli("simulate", str(EXAMPLES / "web-assets.yaml"), "-p", "wasabi", "--trace", str(path))
    assert result.code == 2 and "Traceback" not in result.err
    assert result.err.strip().splitlines() == [result.err.strip()]
    assert f"{path}: {message}" in result.err


def test_a_header_that_names_a_column_twice_is_refused(tmp_path: Path) -> None:
    # which of the two time_s columns was the time had been left to the reader
    path = tmp_path / "twice.csv"
    path.write_text("time_s,time_s,operation,key\n1,2,get,a\n")
    with pytest.raises(InputError, match=r"line 1: the header names 'time_s' twice"), open_trace(path):
        pass


def test_dask_needs_a_trace(run_cli) -> None:  # type: ignore[no-untyped-def]
    from tests.planner.conftest import EXAMPLES

    result = run_cli("simulate", str(EXAMPLES / "web-assets.yaml"), "-p", "wasabi", "--dask", "tcp://127.0.0.1:1")
    assert result.code == 2 and "add --trace FILE" in result.err


def test_the_fast_reading_gives_the_line_by_line_reading_s_records(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    path = tmp_path / "mixed.csv"
    path.write_text(
        HEADER + '7,get,"a,b",10,10\n7,delete,x,0,0\n8,put,ñandú/1,0,50\n8,head,k,,\n9,get,k,0,30\n9.5,list,,,\n'
    )
    with open_trace(path) as (fast, fast_notes), open_trace(path, block_rows=2) as (slow, slow_notes):
        assert fast_notes == slow_notes and (fast.requests, fast.span_s, fast.key_count) == (5, 2.5, slow.key_count)
        for a, b in zip(fast.between(0.0, 9.0), slow.between(0.0, 9.0), strict=True):
            assert a.tolist() == b.tolist()
        assert fast.between(0.0, 9.0)[3].tolist() == [key_number(k) for k in ("a,b", "ñandú/1", "k", "k", "")]
    with (tmp_path / "records").open("wb") as spill:
        assert trace_stream._scan_arrow(path, spill, 10) is not None  # every field plain: no line by line
        (tmp_path / "spaced.csv").write_text(HEADER + " 7,get,a,10,10\n")  # a space: line by line, which reads it
        assert trace_stream._scan_arrow(tmp_path / "spaced.csv", spill, 10) is None


def test_planner_trace_writes_a_long_trace_a_stretch_at_a_time(
    run_cli,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.planner.conftest import EXAMPLES

    monkeypatch.setattr("planner.sim.front.trace.DRAW_REQUESTS", 500)  # a million, scaled down: about 15 stretches
    out = tmp_path / "t.csv"
    result = run_cli("trace", str(EXAMPLES / "web-assets.yaml"), "--out", str(out), "--duration", "20s")
    assert result.code == 0, result.err
    lines = out.read_text().splitlines()
    written = int(result.out.split()[1].replace(",", ""))
    assert lines.count(lines[0]) == 1 and len(lines) == written + 1 > 5000  # one header, every request once
    times = [float(line.split(",", 1)[0]) for line in lines[1:]]
    assert times == sorted(times) and times[-1] < 20.0
    with open_trace(out) as (trace, _):  # and it replays
        assert trace.requests == written
