"""A wake-up term: sparse traffic pays a cost that busier traffic does not.

A server and client that idle between requests answer the next one slower (SeaweedFS on loopback
is slower at 10 requests a second than at 20). The sparse open-loop cells show it where an
operation was measured at two sparse rates: the slower rate's median latency less the faster one's
is the term, paid in full at the slower rate and nothing at the faster, linear in log(rate) between
(the idle gap before a request is 1 / rate on average, and the cost falls as the gaps shorten). The
rates are the operation's own, as its cells record them (a 10/s 80:20 cell's GETs arrive at 8/s).
Below the slower rate the slower cell's latency stands (no extrapolation); a profile without two
sparse rates of an operation has no term for it."""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["WakeUp"]


class WakeUp(BaseModel):
    """One operation's wake-up cost between two sparse open-loop rates (``relief_s``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    slow_rate_per_s: float = Field(gt=0, description="the sparser cell's arrival rate: the term in full")
    fast_rate_per_s: float = Field(gt=0, description="the busier sparse cell's arrival rate: no term")
    extra_s: float = Field(ge=0, description="the sparser cell's median latency less the busier one's")

    def relief_s(self, rate_per_s: float) -> float:
        """How much of ``extra_s`` a window at ``rate_per_s`` does not pay: none at or below the slow
        rate, all of it at or above the fast one, linear in log(rate) between."""
        if rate_per_s <= self.slow_rate_per_s or self.fast_rate_per_s <= self.slow_rate_per_s:
            return 0.0
        share = math.log(rate_per_s / self.slow_rate_per_s) / math.log(self.fast_rate_per_s / self.slow_rate_per_s)
        return self.extra_s * min(1.0, share)

    def extra_at_s(self, rate_per_s: float) -> float:
        """The wake-up cost at ``rate_per_s`` over the busier cell's latency."""
        return self.extra_s - self.relief_s(rate_per_s)
