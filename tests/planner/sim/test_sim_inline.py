"""The inliner (planner.sim._inline): a loop with its step methods written in does what the loop
calling them does, and a method or call it cannot copy faithfully is refused at once."""

from __future__ import annotations

import traceback
from typing import Any

import pytest

from planner.sim._inline import InlineError, inline
from planner.sim._network import FluidNetwork

_LIMIT = 3  # a module constant: written into the copy as a literal
_SCALE = 2.5


class _Counter:
    def __init__(self) -> None:
        self.total = 0.0
        self.seen: list[float] = []

    def step(self, value: float, weight: float) -> float:
        """Adds ``value`` times ``weight``, at most ``_LIMIT`` of it; returns what was added."""
        if value > _LIMIT:
            value = _LIMIT  # reassigns a parameter: the caller's argument must not change
        added = value * weight * _SCALE
        self.total += added
        self.seen.append(value)
        return added

    def note(self, value: float) -> None:
        self.seen.append(-value)

    def early(self, value: float) -> float:
        if value:
            return value
        return 0.0

    def nested(self, values: list[float]) -> float:
        return sum(v for v in values)


def _loop(counter: _Counter, values: list[float]) -> tuple[float, list[float]]:
    step, note = counter.step, counter.note
    added = []
    for value in values:
        got = step(value, 2.0)
        added.append(got)
        note(value)  # ``value`` is the caller's: step's reassignment did not reach it
    return counter.total, [*added, value]


def _early_loop(counter: _Counter) -> float:
    early = counter.early
    got = early(1.0)
    return got


def _expression_loop(counter: _Counter) -> float:
    step = counter.step
    return step(1.0, 1.0) + 1.0


def _unbound_loop(counter: _Counter) -> None:
    step(1.0, 1.0)  # type: ignore[name-defined]  # noqa: F821


def _twice_bound_loop(counter: _Counter, other: _Counter) -> None:
    step = counter.step
    step = other.step
    step(1.0, 1.0)


def _keyword_loop(counter: _Counter) -> None:
    step = counter.step
    step(1.0, weight=1.0)


def _nested_loop(counter: _Counter) -> None:
    nested = counter.nested
    nested([1.0])


def test_an_inlined_loop_computes_what_the_loop_calling_the_methods_computes() -> None:
    values = [1.0, 5.0, 2.0, 7.0]
    fast = inline(_loop, {"step": _Counter.step, "note": _Counter.note})
    assert fast.__wrapped__ is _loop  # type: ignore[attr-defined]
    written, copied = _Counter(), _Counter()
    assert (
        fast(copied, values)
        == _loop(written, values)
        == (
            (1 + 3 + 2 + 3) * 2.0 * 2.5,
            [5.0, 15.0, 10.0, 15.0, 7.0],
        )
    )
    assert copied.seen == written.seen == [1.0, -1.0, 3.0, -5.0, 2.0, -2.0, 3.0, -7.0]
    source: str = fast.__inlined_source__  # type: ignore[attr-defined]
    assert "step(" not in source and "note(" not in source  # no call is left
    assert "_LIMIT" not in source and "2.5" in source  # constants are literals


def test_a_failure_inside_the_copy_is_reported_at_the_copys_own_line() -> None:
    fast = inline(_loop, {"step": _Counter.step, "note": _Counter.note})
    with pytest.raises(TypeError) as raised:
        fast(_Counter(), [None])
    frames = traceback.extract_tb(raised.value.__traceback__)
    assert "inlined" in frames[-1].filename
    assert "value > 3" in (frames[-1].line or "")  # the generated source is in linecache


@pytest.mark.parametrize(
    ("loop", "callees", "why"),
    [
        (_early_loop, {"early": _Counter.early}, "return before the last statement"),
        (_expression_loop, {"step": _Counter.step}, "as a statement of its own"),
        (_unbound_loop, {"step": _Counter.step}, "must be bound once"),
        (_twice_bound_loop, {"step": _Counter.step}, "must be bound once"),
        (_keyword_loop, {"step": _Counter.step}, "keyword"),
        (_nested_loop, {"nested": _Counter.nested}, "comprehensions"),
        (_loop, {"step": _Counter.note, "note": _Counter.note}, "not to _Counter.note"),
    ],
)
def test_what_cannot_be_copied_faithfully_is_refused(loop: Any, callees: dict[str, Any], why: str) -> None:
    with pytest.raises(InlineError, match=why):
        inline(loop, callees)


def test_the_engine_runs_its_loop_with_the_network_and_step_methods_written_in() -> None:
    from planner.sim._engine import Replication

    source: str = Replication._loop.__inlined_source__  # type: ignore[attr-defined]
    for name in ("add(", "finish_next(", "issue(", "push("):
        assert f" {name}" not in source and f"\t{name}" not in source
    assert "network._seq" in source  # FluidNetwork.add's body, with ``self`` read as ``network``
    assert FluidNetwork.add.__name__ == "add"


def test_a_replication_that_redefines_a_step_runs_the_loop_that_calls_it() -> None:
    import numpy as np

    from planner.sim import (
        BandwidthCurve,
        KeyPopularity,
        LatencyModel,
        OpenLoop,
        OperationMix,
        ProviderModel,
        SimSpec,
        SizeDistribution,
    )
    from planner.sim._engine import Replication

    class Counted(Replication):
        pushed = 0

        def _push(self, part: Any, at: float) -> None:
            Counted.pushed += 1
            super()._push(part, at)

    provider = ProviderModel(
        provider_id="plain",
        ttfb_get=LatencyModel(p50_s=0.010, p99_s=0.060),
        ttfb_put=LatencyModel(p50_s=0.020, p99_s=0.080),
        stream_read=BandwidthCurve.flat(1e9),
        stream_write=BandwidthCurve.flat(5e8),
    )
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=100.0),
        mix=OperationMix(get=0.8, put=0.2),
        sizes=SizeDistribution.fixed(2**20),
        keys=KeyPopularity(keys=100),
    )
    run = Counted(spec, provider, 1.0, np.random.default_rng(1)).run()
    assert Counted._loop is Replication._loop.__wrapped__  # type: ignore[attr-defined]
    assert Counted.pushed >= len(run.lop) > 50  # every request's first byte or response was pushed
