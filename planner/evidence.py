"""How well a performance figure is backed: the vocabulary every report, table and JSON field uses.

- ``measured``: a cell of a measured profile (its sample count travels with it);
- ``published``: a reference profile's cited figure;
- ``derived``: computed from measured or published figures inside the range they cover
  (interpolated between cells, Little's law on a closed loop, a simulation of such figures);
- ``extrapolated``: computed outside that range (a size, concurrency or rate no cell reached);
- ``assumed``: a default with nothing behind it.

A figure computed from several others is only as good as the weakest (``weakest``). A target
judged on an ``assumed`` or ``extrapolated`` figure is ``unverified``, never ``met``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Evidence = Literal["measured", "published", "derived", "extrapolated", "assumed"]

EVIDENCE_ORDER: tuple[Evidence, ...] = ("measured", "published", "derived", "extrapolated", "assumed")
"""Strongest first."""

MARKERS: dict[Evidence, str] = {
    "measured": "",
    "published": "†",
    "derived": "~",
    "extrapolated": ">",
    "assumed": "?",
}
"""A compact marker after a figure in tables; ``legend()`` explains them."""

BACKED: frozenset[Evidence] = frozenset({"measured", "published", "derived"})
"""Evidence a verdict may rest on; anything else leaves a target unverified."""


def weakest(*evidence: Evidence) -> Evidence:
    """The weakest of several figures' evidence (``measured`` when none is given)."""
    if not evidence:
        return "measured"
    return max(evidence, key=EVIDENCE_ORDER.index)


def is_backed(evidence: Evidence) -> bool:
    return evidence in BACKED


def marked(text: str, evidence: Evidence) -> str:
    """``text`` with its evidence marker (none for measured)."""
    return f"{text}{MARKERS[evidence]}"


def legend() -> str:
    return (
        "evidence: no mark = measured, † = published (cited reference), ~ = derived from measured or "
        "published figures, > = extrapolated beyond them, ? = assumed (no figure behind it)"
    )


Verdict = Literal["met", "missed", "unverified"]
"""How a target fares: ``met`` and ``missed`` rest on backed figures; ``unverified`` when none decides."""

Bound = Literal["estimate", "at least", "at most"]
"""What a figure says about the quantity: an estimate of it, or a lower or upper bound on it."""


class TargetVerdict(BaseModel):
    """One performance target judged on one figure: what was wanted, what was found, on what evidence."""

    model_config = ConfigDict(frozen=True)

    target: str = Field(description="p99 TTFB, read throughput, write throughput, ...")
    wanted: str = Field(description="the target as the user wrote it, e.g. '5 ms' or '10 Gbps'")
    achieved: str | None = Field(None, description="the figure judged, in the target's unit; None: no figure")
    evidence: Evidence = Field(description="how the figure judged is backed")
    verdict: Verdict
    judged_on: str = Field(description="profile or simulation")
    reason: str = Field(description="the verdict in words, with the figure, its evidence and its source")


def judge_target(
    target: str,
    *,
    wanted: float,
    wanted_text: str,
    figure: float | None,
    figure_text: str | None,
    evidence: Evidence,
    higher_is_better: bool,
    bound: Bound = "estimate",
    judged_on: str,
    why_weak: str = "",
) -> TargetVerdict:
    """Judge a target on one figure.

    A backed estimate meets or misses it. A backed bound decides only one way: a TTFB of at least
    40 ms misses a 5 ms target but says nothing of a 150 ms one; a throughput of at most 3 Gbps misses
    10 Gbps. A figure that is only assumed or extrapolated, or no figure, leaves the target unverified,
    whichever side of the target it falls on.
    """

    def verdict(outcome: Verdict, reason: str) -> TargetVerdict:
        return TargetVerdict(
            target=target,
            wanted=wanted_text,
            achieved=figure_text,
            evidence=evidence,
            verdict=outcome,
            judged_on=judged_on,
            reason=reason,
        )

    if figure is None or figure_text is None:
        return verdict("unverified", f"{target}: no figure ({judged_on}){why_weak and ': ' + why_weak}")
    shown = f"{'' if bound == 'estimate' else bound + ' '}{figure_text} ({evidence}, {judged_on})"
    good = figure >= wanted if higher_is_better else figure <= wanted
    if not is_backed(evidence):
        weak = why_weak or f"the figure is {evidence}"
        return verdict("unverified", f"{target} {shown} against the {wanted_text} target is not evidence: {weak}")
    # A lower bound proves only a miss of an upper target (and vice versa).
    decides_miss = bound == "estimate" or (bound == "at least") != higher_is_better
    decides_met = bound == "estimate" or (bound == "at least") == higher_is_better
    if not good and decides_miss:
        return verdict("missed", f"{target} {shown} misses the {wanted_text} target")
    if good and decides_met:
        return verdict("met", f"{target} {shown} meets the {wanted_text} target")
    return verdict("unverified", f"{target} {shown} does not decide the {wanted_text} target either way")


def combine(verdicts: list[TargetVerdict]) -> TargetVerdict | None:
    """One target's verdict over several figures: a backed miss wins, then a backed met, else unverified."""
    for outcome in ("missed", "met"):
        found = next((v for v in verdicts if v.verdict == outcome), None)
        if found is not None:
            return found
    # unverified everywhere: say so on the figure that exists, if one does
    return next((v for v in verdicts if v.achieved is not None), verdicts[0] if verdicts else None)


PRICE_MARKERS: dict[str, str] = {"verified-primary": "", "verified-secondary": "°", "unverified": "*"}
"""A compact marker after an amount in tables: how well the weakest price it rests on is sourced."""


def price_legend() -> str:
    return (
        "prices: no mark = verified from the provider's own pages, ° = verified from a secondary source, "
        "* = rests on an unverified price"
    )


PRICE_ORDER: tuple[str, ...] = ("verified-primary", "verified-secondary", "unverified")
"""Price sourcing, best first."""


def weakest_price(statuses: Iterable[str]) -> str:
    """The weakest sourcing among the prices an amount rests on (``verified-primary`` for none)."""
    return max(statuses, key=PRICE_ORDER.index, default="verified-primary")


def price_marked(text: str, status: str) -> str:
    """``text`` with the mark of its weakest price's sourcing (none when verified from the provider)."""
    return f"{text}{PRICE_MARKERS.get(status, '')}"
