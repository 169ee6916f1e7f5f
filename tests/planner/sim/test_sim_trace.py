"""Trace replay: a trace's requests are the simulation's arrivals; a trace generated from a spec
replays to the figures of simulating the spec directly (same queue, same load)."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

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
from planner.sim.engine.trace_stream import key_number
from planner.sim.front.trace import generate, read_trace, replay_window_s, write_trace


def _model() -> ProviderModel:
    # one server of 1 ms a GET and a PUT: at 800 requests a second it is 80 % busy and requests queue
    return ProviderModel(
        provider_id="queued",
        ttfb_get=LatencyModel.constant(0.001),
        ttfb_put=LatencyModel.constant(0.001),
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


def test_a_generated_trace_replays_to_the_direct_simulation() -> None:
    spec, model = _spec(), _model()
    trace = generate(spec, 120.0, seed=11)
    replayed = simulate_spec(spec.model_copy(update={"arrivals": trace}), model, replay_window_s(trace), seed=2)
    direct = simulate_spec(spec, model, 120.0, seed=3)
    counts = Counter(trace.operations)
    # every request of the trace arrives, as recorded: the counts per operation are the trace's
    assert replayed.operations["GET"].requests.mean == counts[0]
    assert replayed.operations["PUT"].requests.mean == counts[1]
    for op in ("GET", "PUT"):
        a, b = replayed.operations[op], direct.operations[op]
        # M/D/1 at 80 %: the mean wait is 2 ms; both runs queue alike (sampling noise of ~96,000 requests)
        assert a.mean_latency_s.mean == pytest.approx(b.mean_latency_s.mean, rel=0.08)
        assert a.latency_p99_s.mean == pytest.approx(b.latency_p99_s.mean, rel=0.15)


def test_a_written_trace_reads_back_and_whole_seconds_are_spread(tmp_path: Path) -> None:
    trace = generate(_spec(), 5.0, seed=1)
    buffer = io.StringIO()
    write_trace(trace, buffer)
    (tmp_path / "t.csv").write_text(buffer.getvalue())
    back, notes = read_trace(tmp_path / "t.csv")
    assert back.operations == trace.operations and back.sizes[:5] == trace.sizes[:5] and not notes
    assert back.times_s[0] == 0 and back.times_s[-1] == pytest.approx(trace.times_s[-1] - trace.times_s[0])
    # an access log's trace: whole seconds, spread evenly within each, other operations skipped
    (tmp_path / "log.csv").write_text(
        "time_s,operation,key,bytes_sent,object_size,ranged,status\n"
        "100,get,a,10,10,0,200\n100,get,a,10,10,0,200\n101,put,b,0,50,0,200\n101,delete,b,0,0,0,204\n"
    )
    logged, notes = read_trace(tmp_path / "log.csv")
    assert logged.times_s == (0.0, 0.5, 1.0) and logged.sizes == (10, 10, 50)
    assert logged.keys[0] == logged.keys[1] == key_number("a") and logged.keys[2] == key_number("b")
    assert any("whole seconds" in n for n in notes) and any("delete x1" in n for n in notes)


def test_bad_traces_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "x.csv").write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="no key, operation, time_s column"):
        read_trace(tmp_path / "x.csv")
    (tmp_path / "y.csv").write_text("time_s,operation,key\nsoon,get,a\n")
    with pytest.raises(InputError, match="line 2"):
        read_trace(tmp_path / "y.csv")
    (tmp_path / "z.csv").write_text("time_s,operation,key\n1,delete,a\n")
    with pytest.raises(InputError, match="no GET, PUT, HEAD or LIST"):
        read_trace(tmp_path / "z.csv")


def test_cli_writes_a_trace_and_simulate_replays_it(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from tests.planner.conftest import EXAMPLES

    web = str(EXAMPLES / "web-assets.yaml")
    written = run_cli("trace", web, "--out", str(tmp_path / "t.csv"), "--duration", "20s", "--seed", "4")
    assert written.code == 0 and "requests over 20 s" in written.out
    rows = (tmp_path / "t.csv").read_text().splitlines()
    result = run_cli("simulate", web, "-p", "wasabi", "--trace", str(tmp_path / "t.csv"), "--replications", "1",
                     "-f", "json")  # fmt: skip
    assert result.code in (0, 1), result.err
    import json

    peak = json.loads(result.out)["peak"]["operations"]
    replayed = sum(op["requests"]["mean"] for op in peak.values())
    assert replayed == len(rows) - 1
    again = run_cli("trace", web, "--out", str(tmp_path / "t.csv"))
    assert again.code == 2 and "--force" in again.err


def test_a_trace_past_its_cap_is_refused_on_the_expected_count(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The cap is on the requests a window expects (its draw may run a few past: 100,000,199 for 10^8):
    web-assets' peak, 379.118/s, expects 100,000,002.1 in 263,770 s (99,999,623 in 263,769 s)."""
    from tests.planner.conftest import EXAMPLES

    web = str(EXAMPLES / "web-assets.yaml")
    refused = run_cli("trace", web, "--out", str(tmp_path / "t.csv"), "--duration", "263770s")
    assert refused.code == 2 and not (tmp_path / "t.csv").exists()
    assert refused.err.strip() == (
        "planner: --duration: 263770 s at 379.118/s is more than 100,000,000 requests expected:"
        " give a shorter --duration"
    )
