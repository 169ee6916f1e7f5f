"""A GET body's tail drawn with its time to first byte, not apart from it.

The measured profile gives a size's total latency and its TTFB as two distributions of the same
requests, and the body tail is their difference quantile by quantile, less the median body time
(``measured_surface._body_tail``): a pairing that holds only if a slow first byte and a slow body
go together. Drawing the tail independently of the TTFB breaks that pairing: it lifts the median
and understates the p99 of the total. Here the tail of a request is the tail quantile at the rank
its TTFB had in the distribution it was drawn from (comonotone), so the total's quantiles are the
measured ones again."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable

import numpy as np

from planner.sim.model import LatencyModel, ProviderModel

__all__ = ["JointTail", "JointTailTable"]

# Probabilities the pairing is tabulated at: even in -ln(1 - q), from 0 to 0.99999 (the tail,
# where the pairing matters most, gets as many points as the body).
_LEVELS: list[float] = (-np.expm1(-np.linspace(0.0, math.log(1e5), 401))).tolist()


class JointTail:
    """One size's pairing: the TTFB (seconds, as drawn, round trip included) and the body tail at
    each of the same probabilities; ``tail_for`` maps a TTFB to its tail."""

    def __init__(self, ttfb: LatencyModel, tail: LatencyModel, offset_s: float) -> None:
        levels = sorted({*_LEVELS, *(q for q, _ in ttfb.quantiles), *(q for q, _ in tail.quantiles)})
        self.levels = levels
        self.ttfb_s: list[float] = (ttfb.quantile(levels) + offset_s).tolist()
        self.tail_s: list[float] = tail.quantile(levels).tolist()

    def tail_for(self, ttfb_s: float, uniform: Callable[[], float]) -> float:
        """The tail at the rank of ``ttfb_s``; where the TTFB has an atom (many probabilities at one
        value), a draw of ``uniform`` picks the rank within it."""
        ttfbs, tails = self.ttfb_s, self.tail_s
        lo = bisect_left(ttfbs, ttfb_s)
        if lo == len(ttfbs):
            return tails[-1]
        hi = bisect_right(ttfbs, ttfb_s, lo)
        if hi - lo > 1:  # an atom: a rank within it, uniform in probability
            levels = self.levels
            level = levels[lo] + uniform() * (levels[hi - 1] - levels[lo])
            at = min(max(bisect_right(levels, level, lo, hi), lo + 1), hi - 1)
            share = (level - levels[at - 1]) / (levels[at] - levels[at - 1])
            return tails[at - 1] + share * (tails[at] - tails[at - 1])
        if lo == 0:
            return tails[0]
        below, above = ttfbs[lo - 1], ttfbs[lo]
        share = (ttfb_s - below) / (above - below)
        return tails[lo - 1] + share * (tails[lo] - tails[lo - 1])


class JointTailTable(dict[int, JointTail | None]):
    """The pairing of a GET's TTFB and body tail by size, made on first use: the TTFB model is the one
    the replication draws from (``latency``: size -> model), the tail the provider's. None where
    either is not a measured quantile function (or has no spread): the tail is then drawn apart."""

    def __init__(self, provider: ProviderModel, latency: Callable[[int], LatencyModel], offset_s: float) -> None:
        super().__init__()
        self._provider, self._latency, self._offset_s = provider, latency, offset_s

    def __missing__(self, size: int) -> JointTail | None:
        tail = self._provider.body_tail("get", size)
        ttfb = self._latency(size)
        joint = None
        if tail is not None and tail.p99_s and ttfb.distribution == "empirical" and tail.distribution == "empirical":
            joint = JointTail(ttfb, tail, self._offset_s)
        self[size] = joint
        return joint
