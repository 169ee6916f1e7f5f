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

from typing import Literal

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
