"""A wake-up term: sparse traffic pays a cost that busier traffic does not.

A server and client that idle between requests answer the next one slower (SeaweedFS on loopback
is slower at 10 requests a second than at 20, and its spread is wider). The sparse open-loop cells
show it where an operation was measured at two sparse rates. Each percentile of the latency at a
rate between them is the two cells' at that percentile interpolated as a power of the rate (linear
in log(latency) against log(rate), the idle gap before a request being 1 / rate on average): the
whole distribution moves from the sparser cell's towards the busier one's, its tail with it, not
its median alone. The rates are the operation's own, as its cells record them (a 10/s 80:20
cell's GETs arrive at 8/s). Below the slower rate the slower cell's latency stands, above the
faster one the faster cell's (no extrapolation); a profile without two sparse rates of an operation
has no term for it."""

from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["WakeUp"]


class WakeUp(BaseModel):
    """One operation's wake-up cost between two sparse open-loop rates, percentile by percentile."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    slow_rate_per_s: float = Field(gt=0, description="the sparser cell's arrival rate: its latency in full")
    fast_rate_per_s: float = Field(gt=0, description="the busier sparse cell's arrival rate: its latency")
    quantiles: list[tuple[float, float, float]] = Field(
        min_length=1,
        description="(probability, the sparser cell's seconds, the busier cell's) at the probabilities the two "
        "cells' distributions were read at, by probability",
    )

    @property
    def extra_s(self) -> float:
        """What the sparser cell's median pays over the busier one's (never below 0)."""
        return self.extra_at_s(self.slow_rate_per_s)

    def share(self, rate_per_s: float) -> float:
        """How far ``rate_per_s`` is from the slow rate towards the fast one, in log(rate): 0 at or below
        the slow rate, 1 at or above the fast one."""
        if rate_per_s <= self.slow_rate_per_s or self.fast_rate_per_s <= self.slow_rate_per_s:
            return 0.0
        span = math.log(self.fast_rate_per_s / self.slow_rate_per_s)
        return min(1.0, math.log(rate_per_s / self.slow_rate_per_s) / span)

    def relief_at(self, rate_per_s: float) -> list[tuple[float, float]]:
        """(probability, seconds) a window at ``rate_per_s`` does not pay of the sparser cell's latency
        at each probability of ``quantiles``: none where the busier cell was no faster."""
        share = self.share(rate_per_s)
        return [
            (q, slow - slow ** (1 - share) * fast**share if 0 < fast < slow else 0.0)
            for q, slow, fast in self.quantiles
        ]

    def relief_s(self, rate_per_s: float, probability: float = 0.5) -> float:
        """The relief at one probability (between the knots of ``quantiles``, linear in probability)."""
        knots = self.relief_at(rate_per_s)
        return float(np.interp(probability, [q for q, _ in knots], [r for _, r in knots]))

    def extra_at_s(self, rate_per_s: float, probability: float = 0.5) -> float:
        """The wake-up cost at ``rate_per_s`` over the busier cell's latency, at ``probability``."""
        slow_over_fast = [(q, max(0.0, slow - fast)) for q, slow, fast in self.quantiles]
        extra = float(np.interp(probability, [q for q, _ in slow_over_fast], [e for _, e in slow_over_fast]))
        return max(0.0, extra - self.relief_s(rate_per_s, probability))
