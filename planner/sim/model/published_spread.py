"""A published spread of the per-request GET rate, drawn from rather than taken at its median.

Durner, Leis, Neumann (PVLDB 16(11), 2023, https://doi.org/10.14778/3611479.3611486, Section 2)
give one 16 MiB S3 request's bandwidth as 25-95 MiB/s with a median of 55-60. The profile's cell
carries it as knots of the rate's quantile function (``Cell.throughput_spread_mib_per_s``; S3's:
0 -> 25, 0.5 -> 55, 1 -> 95 MiB/s, linear between them: the published range taken as min-max, the
median at the low end of 55-60, each half uniform because the paper gives no finer shape).

The simulator moves a GET body at the stream curve's rate and then adds the body's tail
(``ProviderModel.body_tail_by_size``, drawn after the transfer, apart from the first byte: the
paper's first-byte and bandwidth figures are separate distributions). From the spread's size up, the
curve is raised to the spread's fast end and every request draws its tail, ``size / rate - size /
fast end`` for its drawn rate: at the median it takes exactly what it took at the curve's old rate,
and a request drawn at rate ``r`` takes ``size / r - size / median`` more (less, when faster). A
body's tail holds no link bandwidth, so where the client link is shared the slow requests leave more
of it to the others than they would in life: a small optimism under contention.

The spread was measured at one size; above it the rate is held flat as the stream curve is, so the
tail grows in proportion to the size (points at doubling sizes); below it nothing changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from planner.errors import InputError
from planner.sim.model.provider import BandwidthCurve, BandwidthPoint, LatencyModel, ProviderModel, SizedLatency

if TYPE_CHECKING:
    from planner.measure.profile import Profile

MIB = 1024 * 1024
_LEVELS = [0.0, *(round(0.01 * k, 2) for k in range(1, 100)), 0.995, 0.999]
_LARGEST_BYTES = 5 * 1024**4  # S3's largest object: tails at doubling sizes up to it


def rate_at(knots: list[tuple[float, float]], probability: float) -> float:
    """The per-request rate (the knots' unit) at ``probability`` of the spread, linear between knots."""
    return float(np.interp(probability, [q for q, _ in knots], [v for _, v in knots]))


def check_knots(knots: list[tuple[float, float]], where: str) -> None:
    """Knots from probability 0 to 1, increasing in probability, rates positive and not decreasing."""
    probabilities, rates = [q for q, _ in knots], [v for _, v in knots]
    if (
        len(knots) < 2
        or probabilities[0] != 0.0
        or probabilities[-1] != 1.0
        or probabilities != sorted(set(probabilities))
        or rates != sorted(rates)
        or rates[0] <= 0
    ):
        raise InputError(
            "a rate spread needs (probability, MiB/s) knots from probability 0 to 1, increasing in probability, "
            "with positive rates that do not decrease",
            source=where,
            field="throughput_spread_mib_per_s",
        )


def spread_tail(size_bytes: int, knots_mib: list[tuple[float, float]]) -> LatencyModel:
    """How much longer than at the spread's fast end a body of ``size_bytes`` takes, as drawn from the
    spread: at probability ``p`` the rate at ``1 - p`` (slow requests are the long tail)."""
    fastest = knots_mib[-1][1]
    size_mib = size_bytes / MIB
    values = [size_mib / rate_at(knots_mib, 1.0 - level) - size_mib / fastest for level in _LEVELS]
    values[-2] = values[-1] = size_mib / knots_mib[0][1] - size_mib / fastest  # the slowest rate, held flat
    return LatencyModel.empirical(list(zip(_LEVELS, np.maximum.accumulate(values).tolist(), strict=True)))


def _raised_curve(curve: BandwidthCurve, size_bytes: int, median_mib: float, fastest_mib: float) -> BandwidthCurve:
    """The stream curve from ``size_bytes`` up at the rate whose transfer plus the drawn tail at the
    median gives the curve's old time: 1 / new = 1 / old - 1 / median + 1 / fastest (per byte)."""
    points = [p for p in curve.points if p.size_bytes < size_bytes - 1]
    if curve.points:
        points.append(BandwidthPoint(size_bytes=size_bytes - 1, bits_per_s=curve.bits_per_s(size_bytes - 1)))
    for point in curve.points:
        if point.size_bytes >= size_bytes:
            seconds_per_mib = 8 * MIB / point.bits_per_s - 1 / median_mib + 1 / fastest_mib
            points.append(BandwidthPoint(size_bytes=point.size_bytes, bits_per_s=8 * MIB / seconds_per_mib))
    return BandwidthCurve(points=points)


def with_published_spread(model: ProviderModel, profile: Profile) -> tuple[ProviderModel, list[str]]:
    """``model`` with the GET body tails of the profile's published rate spreads, and a note for each.

    A model that already has a measured body tail keeps it (a measurement outranks a publication).
    """
    if "get" in model.body_tail_by_size:
        return model, []
    cells = [
        c
        for c in profile.cells
        if c.op == "get" and c.status == "published" and c.throughput_spread_mib_per_s and c.object_size_bytes
    ]
    if not cells:
        return model, []
    cell = max(cells, key=lambda c: c.object_size_bytes or 0)
    knots = list(cell.throughput_spread_mib_per_s or [])
    check_knots(knots, f"profile of {profile.provider}")
    size = int(cell.object_size_bytes or 0)
    if not any(p.size_bytes >= size for p in model.stream_read.points):
        return model, []  # no stream rate at the spread's size to draw around
    points: list[tuple[int, LatencyModel]] = [(size - 1, LatencyModel.empirical([(0.0, 0.0), (0.5, 0.0)]))]
    while size <= _LARGEST_BYTES:
        points.append((size, spread_tail(size, knots)))
        size *= 2
    low, median, high = knots[0][1], rate_at(knots, 0.5), knots[-1][1]
    size_text = f"{(cell.object_size_bytes or 0) / MIB:g} MiB"
    cited = f" ({cell.citation.ref.split(':')[0]}, {cell.citation.address})" if cell.citation is not None else ""
    note = (
        f"GET per-request rate drawn from the published spread {low:g}-{high:g} MiB/s (median {median:g}) for "
        f"objects of {size_text} and more{cited}: the stream moves at the fast end and each request's body"
        " then waits out the rest of its drawn rate's time (none at the fast end)"
    )
    spread = {int(cell.object_size_bytes or 0): [(q, v * MIB) for q, v in knots]}
    return (
        model.model_copy(
            update={
                "stream_read": _raised_curve(model.stream_read, int(cell.object_size_bytes or 0), median, high),
                "body_tail_by_size": {**model.body_tail_by_size, "get": SizedLatency(points=points)},
                "evidence": {**model.evidence, "latency.body.get": "published"},
                "read_rate_spread": spread,
            }
        ),
        [note],
    )
