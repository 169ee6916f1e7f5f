"""Inputs given as ranges: the distributions a workload file may give for a numeric field, and their draws.

A numeric workload field may be a distribution instead of a value, in the field's own units:

- ``{low: 50 TB, likely: 120 TB, high: 300 TB}``: triangular;
- ``{low: 50 TB, high: 300 TB}``: uniform;
- ``{p10: 50 TB, p90: 300 TB}``: lognormal with those 10th and 90th percentiles.

Inputs are independent unless the file says otherwise: ``correlate: [[traffic.egress,
storage.stored, 0.8]]`` draws those two through a Gaussian copula with that correlation between
their normal scores, each keeping its own distribution.

The workload holds each such field at its central value (the likely one, the midpoint, the
median) and the distributions in ``Workload.uncertain`` and ``Workload.correlations``;
``planner.decide.uncertainty.sample`` prices outcomes drawn from them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:  # numpy only when outcomes are drawn: loading a workload stays light
    import numpy as np

DISTRIBUTION_KEYS = frozenset({"low", "likely", "high", "p10", "p90"})
_Z90 = 1.2815515655446004  # the standard normal's 90th percentile
REACH_Z = 6.0
"""How far out a lognormal range is checked: 6 standard deviations, about one draw in a billion
(``--samples`` draws at most 100,000 outcomes)."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class Uncertain(_Model):
    """One uncertain input: its field, its distribution, in the units the model holds (bytes, counts)."""

    field: str
    kind: Literal["triangular", "uniform", "lognormal"]
    low: float = Field(description="the lowest value (lognormal: the 10th percentile)")
    likely: float | None = None
    high: float = Field(description="the highest value (lognormal: the 90th percentile)")
    whole: bool = Field(default=False, description="a count: samples are rounded to whole numbers")

    @property
    def central(self) -> float:
        if self.kind == "triangular":
            assert self.likely is not None
            return self.likely
        if self.kind == "uniform":
            return (self.low + self.high) / 2
        return math.sqrt(self.low * self.high)  # the lognormal's median

    def reach(self, end: Literal["low", "high"]) -> float:
        """The lowest or highest value a draw can take; a lognormal has neither, so its value
        ``REACH_Z`` standard deviations out (about one draw in a billion)."""
        if self.kind != "lognormal":
            value = self.low if end == "low" else self.high
        else:
            mu = (math.log(self.low) + math.log(self.high)) / 2
            sigma = (math.log(self.high) - math.log(self.low)) / (2 * _Z90)
            value = math.exp(min(mu + (REACH_Z if end == "high" else -REACH_Z) * sigma, 700.0))
        return float(round(value)) if self.whole else value

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray[Any, np.dtype[np.float64]]:
        import numpy as np

        if self.kind == "triangular":
            assert self.likely is not None
            if self.low == self.high:
                values = np.full(n, self.low)
            else:
                values = rng.triangular(self.low, self.likely, self.high, n)
        elif self.kind == "uniform":
            values = rng.uniform(self.low, self.high, n)
        else:
            mu = (math.log(self.low) + math.log(self.high)) / 2
            sigma = (math.log(self.high) - math.log(self.low)) / (2 * _Z90)
            values = rng.lognormal(mu, sigma, n)
        return np.round(values) if self.whole else values

    def quantile(
        self, shares: np.ndarray[Any, np.dtype[np.float64]], scores: np.ndarray[Any, np.dtype[np.float64]]
    ) -> np.ndarray[Any, np.dtype[np.float64]]:
        """The values at these shares of the distribution (its inverse CDF); ``scores`` are the same
        points as standard normal scores, which a lognormal uses directly."""
        import numpy as np

        if self.kind == "uniform":
            values = self.low + shares * (self.high - self.low)
        elif self.kind == "triangular":
            assert self.likely is not None
            low, likely, high = self.low, self.likely, self.high
            width = high - low
            turn = (likely - low) / width if width else 0.0
            rising = low + np.sqrt(shares * width * (likely - low))
            falling = high - np.sqrt((1 - shares) * width * (high - likely))
            values = np.where(shares < turn, rising, falling)
        else:
            mu = (math.log(self.low) + math.log(self.high)) / 2
            sigma = (math.log(self.high) - math.log(self.low)) / (2 * _Z90)
            values = np.exp(mu + sigma * scores)
        return np.round(values) if self.whole else values


class Correlation(_Model):
    """Two uncertain inputs drawn together: ``rho`` is the correlation of their normal scores (a Gaussian copula)."""

    first: str
    second: str
    rho: float = Field(ge=-1, le=1)


def find(data: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    """The distributions in a parsed workload file: mappings whose keys are low / likely / high / p10 / p90
    (a list's items are reached by index, as ``storage.lifecycle.0.after``)."""
    found: list[tuple[tuple[str, ...], dict[str, Any]]] = []
    if isinstance(data, dict):
        keys = {str(k) for k in data}
        if len(keys) >= 2 and keys <= DISTRIBUTION_KEYS and path:
            return [(path, data)]
        for key, value in data.items():
            found += find(value, (*path, str(key)))
    elif isinstance(data, list) and path:  # a list's items by index: storage.lifecycle.0.after
        for index, value in enumerate(data):
            found += find(value, (*path, str(index)))
    return found


NOT_POSITIVE_DEFINITE = "these correlations cannot hold together (their matrix is not positive definite): weaken them"


def pair_problem(fields: list[str], first: object, second: object, earlier: list[Correlation]) -> str | None:
    """Why ``first`` and ``second`` cannot be correlated after ``earlier`` (not both ranges of ``fields``,
    one field twice, a pair given before), or None."""
    for name in (first, second):
        if name not in fields:
            return f"{name!r} is not an input given as a range (ranges: {', '.join(fields) or 'none'})"
    if first == second or any({first, second} == {c.first, c.second} for c in earlier):
        return f"{first} and {second}: two different fields, each pair once"
    return None


def correlation_problem(inputs: list[Uncertain], correlations: list[Correlation]) -> str | None:
    """Why these correlations cannot be drawn together from ``inputs``, or None."""
    fields = [u.field for u in inputs]
    for index, c in enumerate(correlations):
        problem = pair_problem(fields, c.first, c.second, correlations[:index])
        if problem is not None:
            return problem
    if correlations and cholesky(inputs, correlations) is None:
        return NOT_POSITIVE_DEFINITE
    return None


def cholesky(inputs: list[Uncertain], correlations: list[Correlation]) -> np.ndarray[Any, Any] | None:
    """The lower Cholesky factor of the inputs' correlation matrix, or None when no such matrix exists."""
    import numpy as np

    index = {u.field: i for i, u in enumerate(inputs)}
    matrix = np.eye(len(inputs))
    for c in correlations:
        i, j = index[c.first], index[c.second]
        matrix[i, j] = matrix[j, i] = c.rho
    # a correlation of exactly +-1 makes the matrix singular: a hair of independence keeps it factorable
    matrix = matrix * (1 - 1e-12) + np.eye(len(inputs)) * 1e-12
    try:
        return np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError:
        return None


def draw(
    inputs: list[Uncertain], n: int, rng: np.random.Generator, correlations: list[Correlation] | None = None
) -> dict[str, np.ndarray[Any, np.dtype[np.float64]]]:
    """``n`` outcomes of every input: independent draws, or with ``correlations`` normal scores
    correlated through the matrix's Cholesky factor and carried to each input's own distribution
    by its inverse CDF (a Gaussian copula)."""
    import numpy as np

    if not correlations:
        return {u.field: u.sample(rng, n) for u in inputs}
    factor = cholesky(inputs, correlations)
    assert factor is not None  # checked when the workload was validated
    scores = rng.standard_normal((n, len(inputs))) @ factor.T
    erf = np.frompyfunc(math.erf, 1, 1)
    shares = (0.5 * (1 + erf(scores / math.sqrt(2)).astype(np.float64))).clip(0.0, 1.0)
    return {u.field: u.quantile(shares[:, i], scores[:, i]) for i, u in enumerate(inputs)}
