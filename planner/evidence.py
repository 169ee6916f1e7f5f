"""How well a performance figure is backed: the vocabulary every report, table and JSON field uses.

- ``measured``: a cell of a measured profile (its sample count travels with it);
- ``published``: a reference profile's cited figure;
- ``derived``: computed from measured or published figures inside the range they cover
  (interpolated between cells, Little's law on a closed loop, a simulation of such figures);
- ``extrapolated``: computed outside that range (a size, concurrency or rate no cell reached);
- ``assumed``: a default with nothing behind it.

A figure computed from several others is only as good as the weakest (``weakest``). A target
judged on an ``assumed`` or ``extrapolated`` figure is never ``met`` on it; a figure that falls on the
wrong side of the target misses it whatever backs it (it decides), and the reason says what the figure
is. ``unverified`` is for figures that do not decide.

Every comparative or verdict sentence the tool prints is a ``Sentence``: its words and the numbers
they state, so a script can check one against the other.
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
"""How a target fares: ``met`` rests on a backed figure, ``missed`` on any figure on the wrong side of the
target (its evidence said beside it); ``unverified`` when no figure decides."""

SentenceKind = Literal[
    "lowest",
    "cheaper-than",
    "saves",
    "stays-cheaper-until",
    "becomes-cheaper-at",
    "cheaper-everywhere",
    "dearer-everywhere",
    "fair-use-limit",
    "met",
    "missed",
    "unverified",
    "at-risk",
    "client-saturated",
    "no-get-in-window",
    "terms",
    "link-fit",
    "lifecycle-unpriced",
    "single-zone",
    "redundancy-unknown",
    "redundancy-missed",
    "conditions",
]


class Sentence(BaseModel):
    """One sentence the tool prints, with the numbers it states (amounts as exact decimal text, rates in
    bits a second, bytes, seconds) and the options it names, so a script can check the words."""

    model_config = ConfigDict(frozen=True)

    kind: SentenceKind
    text: str
    option: str | None = Field(None, description="the option the sentence is about (provider:class, or its label)")
    other: str | None = Field(None, description="the option it is compared with")
    numbers: dict[str, float | str | None] = Field(default_factory=dict)


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
    wanted_value: float | None = Field(None, description="the target as a number (seconds, or bits a second)")
    achieved_value: float | None = Field(None, description="the figure judged as a number, in the target's unit")
    higher_is_better: bool | None = Field(None, description="a throughput (True) or a time (False)")
    bound: Bound = Field("estimate", description="what the figure says of the quantity")
    risk_band: tuple[float, float | None] | None = Field(
        None,
        description="met by the figure but at risk: the band (low, high; None unbounded) the figure spans near"
        " capacity over the measured rounds, with the target inside it",
    )

    def sentence(self, option: str | None = None) -> Sentence:
        """The verdict as a sentence with its numbers (``option``: the option it judges); a met target inside
        its band near capacity is said as at risk, with the band."""
        band = {} if self.risk_band is None else {"band_low": self.risk_band[0], "band_high": self.risk_band[1]}
        return Sentence(
            kind="at-risk" if self.risk_band is not None else self.verdict,
            text=self.reason,
            option=option,
            numbers={
                "target": self.target,
                "wanted": self.wanted_value,
                "achieved": self.achieved_value,
                "evidence": self.evidence,
                "bound": self.bound,
                "higher_is_better": None if self.higher_is_better is None else str(self.higher_is_better).lower(),
                **band,
            },
        )


def at_risk(judged: TargetVerdict, low: float, high: float | None, band: str, rests_on: str) -> TargetVerdict:
    """A target the figure meets, but whose wanted value lies inside the band ``low`` .. ``high`` (None:
    unbounded; ``band`` is the same in words) the figure spans near capacity over ``rests_on``: unverified,
    said as at risk with the band. A band that does not hold the wanted value leaves the verdict as it is."""
    wanted = judged.wanted_value
    inside = wanted is not None and low <= wanted and (high is None or wanted <= high)
    if judged.verdict != "met" or not inside:
        return judged
    reason = f"{judged.reason}, but at risk: near capacity the {judged.target} spans {band} over {rests_on}"
    return judged.model_copy(update={"verdict": "unverified", "reason": reason, "risk_band": (low, high)})


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
    10 Gbps. A figure that is only assumed or extrapolated never meets a target, but one on the wrong
    side of it misses (an option that misses on an assumed figure ranks below one that misses nothing),
    its reason saying the figure is assumed; no figure leaves the target unverified.
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
            wanted_value=wanted,
            achieved_value=figure if figure_text is not None else None,
            higher_is_better=higher_is_better,
            bound=bound,
        )

    if figure is None or figure_text is None:
        return verdict("unverified", f"{target}: no figure ({judged_on}){why_weak and ': ' + why_weak}")
    shown = f"{'' if bound == 'estimate' else bound + ' '}{figure_text} ({evidence}, {judged_on})"
    good = figure >= wanted if higher_is_better else figure <= wanted
    # A lower bound proves only a miss of an upper target (and vice versa).
    decides_miss = bound == "estimate" or (bound == "at least") != higher_is_better
    decides_met = bound == "estimate" or (bound == "at least") == higher_is_better
    if not is_backed(evidence):
        weak = why_weak or f"the figure is {evidence}"
        if not good and decides_miss:
            said = f"the figure is {evidence}" + (f": {why_weak}" if why_weak else "")
            return verdict("missed", f"{target} {shown} misses the {wanted_text} target ({said})")
        return verdict("unverified", f"{target} {shown} against the {wanted_text} target is not evidence: {weak}")
    if not good and decides_miss:
        return verdict("missed", f"{target} {shown} misses the {wanted_text} target")
    if good and decides_met:
        return verdict("met", f"{target} {shown} meets the {wanted_text} target")
    return verdict("unverified", f"{target} {shown} does not decide the {wanted_text} target either way")


def combine(verdicts: list[TargetVerdict]) -> TargetVerdict | None:
    """One target's verdict over several figures: a miss wins (a backed one first), then a backed met, else
    unverified."""
    misses = [v for v in verdicts if v.verdict == "missed"]
    if misses:
        return next((v for v in misses if is_backed(v.evidence)), misses[0])
    found = next((v for v in verdicts if v.verdict == "met"), None)
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
