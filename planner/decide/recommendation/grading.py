"""What a verdict on published figures rests on: the publication, its evidence grade, its date, the
conditions it was measured under and its address, said beside the verdict so a reader can weigh it
(a client in another cloud, a 1 KB object, a tool's default concurrency) and check it."""

from __future__ import annotations

from planner.evidence import TargetVerdict
from planner.measure.profile import Citation, ProfileSummary

TARGET_FIGURES: dict[str, tuple[str, ...]] = {
    "p99 TTFB": ("ttfb_p50_s", "ttfb_p99_s"),
    "read throughput": ("get_stream_bytes_per_s", "read_ceiling_bytes_per_s"),
    "write throughput": ("put_stream_bytes_per_s", "write_ceiling_bytes_per_s"),
}
"""The summary figures each target's verdict is judged on."""


def short_name(citation: Citation) -> str:
    """The publication's name before its subtitle (``Tigris``, ``Durner, Leis, Neumann``)."""
    return citation.ref.split(":", 1)[0].split(" (", 1)[0].strip()


def citation_basis(citation: Citation) -> str:
    """One published citation as a reader checks it: name (grade, date; conditions; the quoted figure) address."""
    details = [part for part in (citation.grade, citation.date) if part]
    if citation.conditions is not None and citation.conditions.text():
        details.append(citation.conditions.text())
    if citation.quote:
        details.append(f'"{citation.quote}"')
    inside = f" ({'; '.join(details)})" if details else ""
    return f"{short_name(citation)}{inside} {citation.address or citation.ref}"


def published_basis(summary: ProfileSummary | None, target: str) -> str:
    """What a target's published figures rest on, each publication once; empty for a measured profile."""
    if summary is None or summary.source_kind != "published":
        return ""
    seen: dict[str, str] = {}
    for key in TARGET_FIGURES.get(target, ()):
        for citation in summary.citations.get(key, []):
            if citation.kind == "published":
                seen.setdefault(citation.address or citation.ref, citation_basis(citation))
    return "; ".join(seen.values())


def with_basis(verdicts: list[TargetVerdict], summary: ProfileSummary | None) -> list[TargetVerdict]:
    """``verdicts`` with what each rests on appended to its reason, where a published figure was judged."""
    out: list[TargetVerdict] = []
    for verdict in verdicts:
        basis = published_basis(summary, verdict.target) if verdict.achieved is not None else ""
        if basis and verdict.evidence != "assumed":
            verdict = verdict.model_copy(update={"reason": f"{verdict.reason} [rests on: {basis}]"})
        out.append(verdict)
    return out
