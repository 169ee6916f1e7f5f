"""The publications the shipped reference profiles cite, and the shapes their figures take.

Each ``Publication`` is a source with its address (URL or DOI), date, evidence grade and the
conditions it was measured under; ``cite`` narrows them per figure. The cell builders here turn a
publication's rows into profile cells (the IDrive e2 comparison's matrix, its HEAD and DELETE runs,
Tigris's 1 KB tables), and the claims and notes several providers share are stated once.
``planner.measure._reference_figures`` uses them for each provider's profile.
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.measure.profile import (
    MIB,
    Cell,
    Citation,
    Claim,
    Conditions,
    EvidenceGrade,
    Percentiles,
)

KIB = 1024
SIZES = [256 * KIB, 5 * MIB, 50 * MIB, 100 * MIB]
THREADS = [1, 5, 10]
GBPS = 1e9


@dataclass(frozen=True)
class Publication:
    """A published source: its title, where a reader can check it, when, how far to trust it, and the
    conditions its figures were measured under (a figure's own citation may narrow them)."""

    title: str
    address: str
    date: str
    grade: EvidenceGrade
    conditions: Conditions


IDRIVE = Publication(
    title="IDrive e2: Object Storage Comparison (Warp, seven 5-minute cycles; report and run logs)",
    address="https://github.com/e2-idrive/s3-benchmark-logs",
    date="2026",
    grade="vendor-with-method",
    conditions=Conditions(
        client="one Vultr VM in US East (link capacity not stated)",
        region="each provider's US East region",
        client_library="MinIO Warp",
    ),
)
CAROLINA = Publication(
    title="Carolina Cloud: Cloudflare R2 from a 100 Gbps bare-metal host (blog post on the publisher's site;"
    " the post's own path is not recorded, search the site for 'R2')",
    address="https://carolinacloud.io",
    date="2026-09-19",
    grade="independent-with-method",
    conditions=Conditions(
        client="bare metal with a 100 Gbps NIC at Latitude.sh Ashburn; re-run from EC2 with a 300 Gbps NIC",
        region="R2 (Cloudflare IAD)",
        client_library="s5cmd, warp and a custom loader",
    ),
)
RUSH = Publication(
    title="Rush/r2-benchmark README (one host, 1000 threads)",
    address="https://github.com/Rush/r2-benchmark",
    date="2023-10-07",
    grade="independent-with-method",
    conditions=Conditions(
        client="one host, location not stated",
        region="R2 (location not stated)",
        object_size="~16 KiB (156.3 MB / 10,000 objects)",
        concurrency="1000 threads",
        client_library="r2-benchmark.js (Node, keep-alive agent)",
    ),
)
TIGRIS = Publication(
    title="Tigris: Small Objects, Big Gains - Benchmarking Tigris Against AWS S3 and Cloudflare R2"
    " (go-ycsb, 10 M x 1 KB; results summary at https://www.tigrisdata.com/docs/overview/benchmarks/summary,"
    " configuration in github.com/tigrisdata-community/ycsb-benchmarks results/10m-1kb)",
    address="https://www.tigrisdata.com/blog/benchmark-small-objects",
    date="2025-07-08",
    grade="vendor-with-method",
    conditions=Conditions(
        client="Oracle Cloud VM.Standard.A1.Flex in us-sanjose-1 (32 vCPU, 32 Gbps): another cloud than the bucket",
        object_size="1 KB",
        concurrency="not stated",
        client_library="go-ycsb (Tigris's S3 fork)",
    ),
)
DURNER = Publication(
    title="Durner, Leis, Neumann: Exploiting Cloud Object Storage for High-Performance Analytics, PVLDB 16(11)"
    " 2769-2782 (paper https://www.vldb.org/pvldb/vol16/p2769-durner.pdf)",
    address="https://doi.org/10.14778/3611479.3611486",
    date="2023-07",
    grade="peer-reviewed",
    conditions=Conditions(
        client="EC2 instances in the bucket's region (up to 100-200 Gbit/s networking)",
        region="AWS S3, same region as the client",
        client_library="AnyBlob (io_uring) and the AWS SDK",
    ),
)


BACKBLAZE_METHOD = Conditions(
    client="an Ubuntu VM at Vultr in New York / New Jersey, over the internet (routed through Catchpoint's network)",
    region="each provider's US-East region",
    concurrency="one file per test; tests at regular intervals, their times averaged",
    client_library="Catchpoint synthetic tests",
)
"""Backblaze's Performance Stats method for its upload and download averages (the Q1 2026 post's 'Test
methodology': 'All tests originate from a Vultr-hosted Ubuntu virtual machine (VM) located in the respective
test regions ... routing through Catchpoint's network into the object storage regions')."""

BACKBLAZE_INTEREST = (
    "Backblaze sells B2: its figures for S3, R2 and Wasabi are a competitor's measurements, and for B2 its own"
)

BACKBLAZE_Q3_2025 = Publication(
    title="Backblaze Performance Stats for Q3 2025 (https://www.backblaze.com/blog/backblaze-performance-stats-for-q3-2025,"
    " 2025-11-12; the copy read ends before its results), as tabulated by cloudnews.tech",
    address="https://cloudnews.tech/?p=28647",
    date="2025-11-12",
    grade="vendor-with-method",
    conditions=BACKBLAZE_METHOD.model_copy(
        update={"client_library": "Catchpoint synthetic tests (the table's page names Warp)"}
    ),
)
BACKBLAZE_Q1_2026 = Publication(
    title="Backblaze Performance Stats Q1 2026 (https://www.backblaze.com/blog/backblaze-performance-stats-q1-2026,"
    " 2026-04-02; its averages are chart images), as read off by StorageReview",
    address="https://www.storagereview.com/news/backblaze-publishes-q1-2026-cloud-storage-performance-results",
    date="2026-04-02",
    grade="vendor-with-method",
    conditions=BACKBLAZE_METHOD,
)

BACKBLAZE_STATS = (
    "GET latency and TTFB of Backblaze's Performance Stats (https://www.backblaze.com/blog/backblaze-performance-stats-q1-2026"
    " for US-East and EU-Central, and Q3 2025): published for S3, R2, B2 and Wasabi from a Vultr VM, but the Q1 2026"
    " post (read whole, 2026-12-06) gives its download averages and TTFB only as chart images: the post's text gives"
    " no TTFB figure, only which provider led ('Amazon S3 still leads in time to first byte (TTFB)'), and its figures"
    " are monthly averages, not percentiles, with possible caching. The copies read of the Q3 2025 post and of the"
    " four-region benchmark (https://integrated-digital.com/2025/09/object-storage-competitor-benchmarking: S3, B2,"
    " Wasabi, Storj from HostHatch nodes in Los Angeles, London, New York and Sydney) end before their results. No GET"
    " figure used; Backblaze's upload averages are, where a page states them in words (PUT cells at one file)"
)
NO_TTFB = f"TTFB: no published percentile found; the model derives a latency from the HEAD figures ({BACKBLAZE_STATS})"


def cite(source: Publication, section: str, quote: str | None = None, **narrowed: str) -> Citation:
    """A citation of ``source`` at ``section``; ``narrowed`` states this figure's own conditions
    (object_size, concurrency, region, ...) over the publication's."""
    conditions = source.conditions.model_copy(update=narrowed)
    return Citation(
        kind="published",
        ref=source.title,
        section=section,
        quote=quote,
        address=source.address,
        date=source.date,
        grade=source.grade,
        conditions=conditions,
    )


def _size_label(size: int) -> str:
    """The sizes as the IDrive e2 comparison names them (256 KiB, 5 MiB, ...)."""
    return f"{size // MIB} MiB" if size >= MIB else f"{size // KIB} KiB"


def gbps_to_mib_per_s(gbps: float) -> float:
    return round(gbps * GBPS / 8 / MIB, 2)


def seed002_matrix(known: dict[tuple[str, int, int], tuple[float, str]], provider: str) -> list[Cell]:
    """The 2 ops x 4 sizes x 3 thread counts of the IDrive e2 comparison, figures where its text gives them."""
    cells = []
    for op in ("put", "get"):
        for size in SIZES:
            for threads in THREADS:
                figure = known.get((op, size, threads))
                if figure is None:
                    cells.append(
                        Cell(
                            op=op,
                            object_size_bytes=size,
                            concurrency=threads,
                            status="missing",
                            note=f"IDrive e2 charts this cell for {provider}; the text gives no figure",
                        )
                    )
                    continue
                value, section = figure
                cells.append(
                    Cell(
                        op=op,
                        object_size_bytes=size,
                        concurrency=threads,
                        status="published",
                        duration_s=300.0,
                        throughput_mib_per_s=value,
                        citation=cite(
                            IDRIVE,
                            section,
                            object_size=_size_label(size),
                            concurrency=f"{threads} thread{'s' * (threads > 1)}",
                        ),
                        note="mean of valid runs over seven 5-minute cycles (Warp, one Vultr VM in US East)",
                    )
                )
    return cells


def head_cell(ops: float, latency_ms: float | None, section: str = "6.3 HEAD Performance") -> Cell:
    note = "10 workers over a 50,000-object set, ~5 minutes, one day"
    if latency_ms is not None:
        note += f"; consistent: 10 workers / {latency_ms} ms = {10 / (latency_ms / 1000):.0f} requests/s"
    return Cell(
        op="head",
        object_size_bytes=None,
        concurrency=10,
        status="published",
        duration_s=300.0,
        ops_per_s=ops,
        latency_s=Percentiles(mean=latency_ms / 1000 if latency_ms is not None else None),
        citation=cite(IDRIVE, section, object_size="50,000-object set", concurrency="10 workers"),
        note=note,
    )


def delete_cell(objects_per_s: float, latency_ms: float | None) -> Cell:
    note = "objects/s over a fixed set of 100,000 objects, 10 workers"
    if latency_ms is not None:
        per_request = objects_per_s * latency_ms / 1000 / 10
        note += (
            f"; {per_request:.0f} objects per request at {latency_ms} ms and 10 workers, i.e. batched"
            " multi-object DELETE (Warp's default batch is 100), not one object per request"
        )
    return Cell(
        op="delete",
        object_size_bytes=None,
        concurrency=10,
        status="published",
        ops_per_s=objects_per_s,
        latency_s=Percentiles(mean=latency_ms / 1000 if latency_ms is not None else None),
        citation=cite(IDRIVE, "6.4 DELETE Performance", object_size="100,000-object set", concurrency="10 workers"),
        note=note,
    )


def list_missing(reason: str) -> Cell:
    return Cell(op="list", object_size_bytes=None, concurrency=10, status="missing", note=reason)


AWS_CLI_CLAIM = Claim(
    claim="AWS CLI reaches ~5 Gbps against Wasabi and S3",
    value=5.0,
    unit="Gbps",
    action="flagged",
    reason="a client limit (the same CLI pulled ~3 Gbps from R2 where three other clients exceeded 50 Gbps),"
    " not a provider ceiling; not used",
    citation=cite(
        CAROLINA,
        "s5cmd, warp, and our custom loader all pulled the same objects past 50 Gbps",
        "The same CLI reaches ~5 Gbps against Wasabi and S3 in our other benchmarks",
        region="Wasabi and S3 ('in our other benchmarks': regions not stated)",
        client_library="AWS CLI (not its CRT transfer engine)",
    ),
)

SEED002_LINK_CLAIM = Claim(
    claim="the IDrive e2 comparison throughput figures",
    action="flagged",
    reason="the client VM's link capacity is not stated, so no figure can be checked against it"
    " (10-thread 100 MiB PUT of 1,879.48 MiB/s is 15.8 Gbps); figures kept, link unknown",
    citation=cite(IDRIVE, "7.1 Seven-cycle PUT and GET benchmark"),
)


NOT_SHIPPED_NOTE = (
    "Not used, as no public address was found for them: an 'R2 vs. S3 2026 large-object upload' article (its upload"
    " figures are above the 10 Gbps link it says it used) and an 'S3 download acceleration benchmark' of June 2026"
    " (16 parallel ranged GETs of a 2 GiB object 13x faster than aws s3 cp, eu-central-1 from EC2)."
)


def tigris_cell(
    op: str, row: tuple[float, float, float, float], section: str, quote: str, region: str, note: str
) -> Cell:
    """One row of Tigris's 1 KB tables (p50 ms, p90 ms, run s, ops/s) as a published cell. The concurrency
    is not stated: Little's law on the row's rate at its p50 stands in for it (the note says so). A 1 KB
    GET's latency is its time to first byte plus one packet of body, so a GET row is its TTFB too."""
    p50_ms, p90_ms, run_s, ops_per_s = row
    latency = Percentiles(p50=round(p50_ms / 1000, 9), p90=round(p90_ms / 1000, 9))
    return Cell(
        op=op,
        object_size_bytes=1000,
        concurrency=max(1, round(ops_per_s * p50_ms / 1000)),
        status="published",
        duration_s=run_s,
        ops_per_s=ops_per_s,
        latency_s=latency,
        ttfb_s=latency if op == "get" else Percentiles(),
        citation=cite(TIGRIS, section, quote, region=region),
        note=note,
    )


def backblaze_put_cell(size: int, mean_ms: float, source: Publication, section: str, quote: str) -> Cell:
    """One of Backblaze's upload averages: the mean time to upload one file of ``size`` (a mean over many
    sparse tests, not a percentile; whether it includes connection setup the page does not say)."""
    return Cell(
        op="put",
        object_size_bytes=size,
        concurrency=1,
        status="published",
        latency_s=Percentiles(mean=round(mean_ms / 1000, 9)),
        citation=cite(source, section, quote, object_size=_size_label(size)),
        note="mean time to upload one file, averaged over Catchpoint tests (a mean, not a percentile);"
        f" {BACKBLAZE_INTEREST}",
    )


def with_cells(cells: list[Cell], added: list[Cell]) -> list[Cell]:
    """``cells`` with each of ``added`` in place of the missing cell at its key (or appended)."""
    out = list(cells)
    for cell in added:
        at = next((i for i, c in enumerate(out) if c.key() == cell.key()), None)
        if at is None:
            out.append(cell)
            continue
        assert out[at].status == "missing", f"{cell.key()} already has a figure"
        out[at] = cell
    return out
