"""What a verdict on published figures rests on: the publication, its evidence grade, its date, the
conditions it was measured under and its address, said beside the verdict so a reader can weigh it
(a client in another cloud, a 1 KB object, a tool's default concurrency) and check it."""

from __future__ import annotations

from planner.evidence import TargetVerdict
from planner.measure.profile import Citation, ProfileSummary
from planner.workload import Workload

CLOUD_WORDS: dict[str, tuple[str, ...]] = {
    "aws": ("ec2", "aws"),
    "gcp": ("compute engine", "gce", "google cloud"),
    "azure": ("azure",),
    "oci": ("oracle cloud", "oci "),
}
"""How a figure's conditions name the cloud its client ran in ("EC2 instances in the bucket's region")."""

_IN_REGION = ("in the bucket's region", "same region as the client", "in-region")

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


def _used_points(sizes: list[int], size: float) -> list[int]:
    """The indices of the (size, rate) points a rate at ``size`` is read from: the point itself, the two
    either side of it, or the nearest end (the curve is flat above its largest size and scales below its
    smallest)."""
    if not sizes:
        return []
    if size <= sizes[0]:
        return [0]
    if size >= sizes[-1]:
        return [len(sizes) - 1]
    exact = [i for i, s in enumerate(sizes) if s == size]
    if exact:
        return exact[:1]
    above = next(i for i, s in enumerate(sizes) if s > size)
    return [above - 1, above]


def figure_citations(summary: ProfileSummary, target: str, object_bytes: float, judged_on: str = "") -> list[Citation]:
    """The citations of the figures a target's verdict was read from, and only those: the TTFB the profile
    gives (its p99, else its p50 and p90); the stream rates at the workload's object size (not every size the
    profile has); the ceiling when it is what bounds the figure."""
    cites = summary.citations
    if target == "p99 TTFB":
        keys = ["ttfb_p99_s"] if summary.ttfb_p99_s is not None else ["ttfb_p50_s", "ttfb_p90_s"]
        return [c for key in keys for c in cites.get(key, [])]
    direction = {"read throughput": "get", "write throughput": "put"}.get(target)
    if direction is None:
        return [c for key in TARGET_FIGURES.get(target, ()) for c in cites.get(key, [])]
    points = summary.get_stream_bytes_per_s if direction == "get" else summary.put_stream_bytes_per_s
    stream_cites = cites.get(f"{direction}_stream_bytes_per_s", [])
    used: list[Citation] = []
    if len(stream_cites) == len(points):  # one citation a point, by size
        used = [stream_cites[i] for i in _used_points([size for size, _ in points], object_bytes)]
    ceiling = "read_ceiling_bytes_per_s" if direction == "get" else "write_ceiling_bytes_per_s"
    if "ceiling" in judged_on or not used:
        used += cites.get(ceiling, [])
    return used


def published_basis(summary: ProfileSummary | None, target: str, object_bytes: float = 0.0, judged_on: str = "") -> str:
    """What a target's published figures rest on, each publication once (only those whose figures the
    verdict read); empty for a measured profile."""
    if summary is None or summary.source_kind != "published":
        return ""
    seen: dict[str, str] = {}
    for citation in figure_citations(summary, target, object_bytes, judged_on):
        if citation.kind == "published":
            seen.setdefault(citation.address or citation.ref, citation_basis(citation))
    return "; ".join(seen.values())


def measured_in_region(citation: Citation) -> bool:
    """Whether the citation's figure was measured from a client in the bucket's own region (its conditions
    say so: "EC2 instances in the bucket's region", "same region as the client")."""
    conditions = citation.conditions
    if conditions is None:
        return False
    said = f"{conditions.client or ''} {conditions.region or ''}".lower()
    return any(words in said for words in _IN_REGION)


def measured_cloud(citation: Citation) -> str | None:
    """The cloud the citation's client ran in, as its conditions name it (None when they name none)."""
    said = (citation.conditions.client or "").lower() if citation.conditions is not None else ""
    return next((cloud for cloud, words in CLOUD_WORDS.items() if any(w in said for w in words)), None)


def client_in_region(workload: Workload, citation: Citation, region: str) -> bool:
    """Whether the workload's client runs where the citation's figure was measured: in the region of the
    bucket priced, and in the cloud the figure's client ran in (when its conditions name one)."""
    location = workload.client.location
    if location == "internet" or location.region != region:
        return False
    cloud = measured_cloud(citation)
    return cloud is None or cloud == location.cloud


def _client_text(workload: Workload) -> str:
    location = workload.client.location
    return "on the internet (client.location)" if location == "internet" else f"in {location.text()} (client.location)"


def with_basis(
    verdicts: list[TargetVerdict],
    summary: ProfileSummary | None,
    workload: Workload | None = None,
    *,
    region: str = "",
) -> list[TargetVerdict]:
    """``verdicts`` with what each rests on appended to its reason, where a published figure was judged;
    and, with ``workload``, matched to where those figures were measured: a figure measured in the bucket's
    region meets a target only for a client in that region, so for any other client the verdict is
    provisional (unverified) and names the difference. A miss measured in-region stands: a client farther
    away sees no more."""
    out: list[TargetVerdict] = []
    size = workload.storage.mean_object_bytes if workload is not None else 0.0
    for verdict in verdicts:
        judged = verdict.achieved is not None and summary is not None and summary.source_kind == "published"
        basis = published_basis(summary, verdict.target, size, verdict.judged_on) if judged else ""
        if basis and verdict.evidence != "assumed":
            verdict = verdict.model_copy(update={"reason": f"{verdict.reason} [rests on: {basis}]"})
        if judged and workload is not None and summary is not None and verdict.verdict == "met":
            inside = [
                c for c in figure_citations(summary, verdict.target, size, verdict.judged_on) if measured_in_region(c)
            ]
            if inside and not client_in_region(workload, inside[0], region):
                where = inside[0].conditions.client if inside[0].conditions is not None else None
                would = verdict.reason.replace(" meets the ", " would meet the ", 1)
                reason = (
                    f"{would}; provisional: {short_name(inside[0])} measured it from {where or 'the bucket region'},"
                    f" and this workload's client runs {_client_text(workload)}"
                )
                verdict = verdict.model_copy(update={"verdict": "unverified", "reason": reason})
        out.append(verdict)
    return out
