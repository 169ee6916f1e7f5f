"""Each provider's reference profile from its published figures (``planner.measure._reference_sources``
holds the publications they cite and the cells' shapes).

Every figure is copied from a publication with the section it appears in; a cell no publication covers
is written with ``status="missing"`` and no figures. Claims that cannot be true, or that the sources
contradict, are listed under ``source.claims`` with the reason and are not used.
"""

from __future__ import annotations

from planner.measure._reference_sources import (
    AWS_CLI_CLAIM,
    BACKBLAZE_Q1_2026,
    BACKBLAZE_Q3_2025,
    BACKBLAZE_STATS,
    CAROLINA,
    DURNER,
    GBPS,
    IDRIVE,
    KIB,
    NO_TTFB,
    NOT_SHIPPED_NOTE,
    RUSH,
    SEED002_LINK_CLAIM,
    TIGRIS,
    backblaze_put_cell,
    cite,
    delete_cell,
    gbps_to_mib_per_s,
    head_cell,
    list_missing,
    seed002_matrix,
    tigris_cell,
    with_cells,
)
from planner.measure.profile import (
    MIB,
    Ceilings,
    Cell,
    CitedValue,
    Claim,
    HotObjectResult,
    PartSizePoint,
    PartSizeResult,
    Probes,
    Profile,
    RatePoint,
    RateResult,
    Source,
)

Q3_UPLOADS = "Average upload times (ms)"
Q3_HEADER = "Average upload times (ms) | Provider | 256 KiB | 2 MiB | 5 MiB |"
Q1_US_EAST = "Backblaze Cloud Storage Performance Results Q1 2026: US-East"


def q3_2025_puts(row: str, figures: tuple[float, float, float]) -> list[Cell]:
    """One provider's row of Backblaze's Q3 2025 upload averages (256 KiB, 2 MiB, 5 MiB), as tabulated."""
    quote = f"{Q3_HEADER} ... | {row} | " + " | ".join(f"{f:.2f}" for f in figures) + " |"
    return [
        backblaze_put_cell(size, mean_ms, BACKBLAZE_Q3_2025, Q3_UPLOADS, quote)
        for size, mean_ms in zip((256 * KIB, 2 * MIB, 5 * MIB), figures, strict=True)
    ]


WASABI_Q1_2026 = "Wasabi recorded the lowest result for 2MiB files at 56.74 ms"
QUARTERS_NOTE = (
    "Upload averages are Q3 2025's wherever that quarter's table has the provider (S3, R2, B2): averages"
    " of different quarters are not like for like (StorageReview on Q1 2026: 'lower average upload times"
    " across all providers')"
)


def idrive_e2() -> Profile:
    known = {
        ("put", 256 * KIB, 1): (9.37, "1.1 1-Thread PUT Throughput"),
        ("put", 100 * MIB, 1): (307.30, "1.1 1-Thread PUT Throughput"),
        ("put", 256 * KIB, 5): (47.71, "1.2 5-Thread PUT Throughput"),
        ("put", 100 * MIB, 5): (1400.18, "1.2 5-Thread PUT Throughput"),
        ("put", 256 * KIB, 10): (93.00, "1.3 10-Thread PUT Throughput"),
        ("put", 100 * MIB, 10): (1879.48, "1.3 10-Thread PUT Throughput"),
        ("get", 5 * MIB, 1): (63.13, "2.1 1-Thread GET Throughput"),
        ("get", 256 * KIB, 10): (171.43, "2.3 10-Thread GET Throughput"),
        ("get", 100 * MIB, 10): (1034.81, "2.3 10-Thread GET Throughput"),
    }
    cells = seed002_matrix(known, "IDrive e2")
    cells += [
        head_cell(1017.80, 9.8),
        delete_cell(3475.88, 290.43),
        list_missing("the IDrive e2 comparison's LIST figure is rejected (see source.claims)"),
    ]
    claims = [
        Claim(
            claim="LIST 71,467.78 objects/s at 1,409.9 ms average request latency with 10 workers",
            value=71467.78,
            unit="objects/s",
            action="rejected",
            reason="10 workers / 1.4099 s = 7.1 requests/s, so each LIST page would need ~10,076 keys;"
            " S3 ListObjects returns at most 1,000 keys per page",
            citation=cite(IDRIVE, "6.2 LIST Performance"),
        ),
        Claim(
            claim="LIST average TTFB 14 ms",
            value=14.0,
            unit="ms",
            action="flagged",
            reason="from the same internally inconsistent LIST run; not used",
            citation=cite(IDRIVE, "6.2 LIST Performance"),
        ),
        SEED002_LINK_CLAIM,
    ]
    return Profile(
        provider="idrive-e2",
        region="us-east (client in US East)",
        date="2026",
        tool_version="published",
        cells=cells,
        source=Source(kind="published", citations=[cite(IDRIVE, "whole report")], claims=claims),
        missing=[
            "GET/PUT cells not stated in the text of the IDrive e2 comparison (charts only)",
            "TTFB and latency percentiles (the IDrive e2 comparison reports averages only)",
            "hot-object limit, part-size, range-GET speedup, per-key write rate",
            "read/write ceilings (the IDrive e2 comparison measured at most 10 threads)",
        ],
    )


def backblaze_b2() -> Profile:
    known = {
        ("get", 5 * MIB, 1): (64.87, "2.1 1-Thread GET Throughput"),
        ("get", 5 * MIB, 5): (399.49, "2.2 5-Thread GET Throughput"),
    }
    cells = seed002_matrix(known, "Backblaze B2")
    cells = with_cells(cells, q3_2025_puts("Backblaze B2", (12.11, 116.38, 268.28)))
    cells += [
        head_cell(770.76, None),
        Cell(
            op="delete",
            object_size_bytes=None,
            concurrency=10,
            status="missing",
            note="IDrive e2 left B2 out of DELETE: B2 buckets are versioned, name-based DELETE adds markers",
        ),
        list_missing("the IDrive e2 comparison gives no LIST figure for B2"),
    ]
    return Profile(
        provider="backblaze-b2",
        date="2026",
        tool_version="published",
        cells=cells,
        source=Source(
            kind="published",
            citations=[
                cite(IDRIVE, "whole report"),
                cite(BACKBLAZE_Q3_2025, Q3_UPLOADS),
            ],
            claims=[SEED002_LINK_CLAIM],
            note="IDrive e2: five B2 GET tests failed (service unavailable during preparation) and one PUT"
            " test hit a DNS timeout; they are excluded there, never counted as zero (7.3 Aggregation)."
            f" {QUARTERS_NOTE}: Q1 2026's B2 averages (7.08 ms at 256 KiB, 87.62 ms at 5 MiB, no 2 MiB figure)"
            " are left out, as with them a 2 MiB upload would take longer than a 5 MiB one",
        ),
        missing=["most GET/PUT cells", NO_TTFB, "hot-object", "part-size", "range-GET", "rates", "ceilings"],
    )


def wasabi() -> Profile:
    cells = seed002_matrix({}, "Wasabi")
    put = backblaze_put_cell(2 * MIB, 56.74, BACKBLAZE_Q1_2026, Q1_US_EAST, WASABI_Q1_2026)
    put.note = (
        f"{put.note}; Q1 2026's, the only quarter read that gives Wasabi a figure. {QUARTERS_NOTE}, so beside"
        " them this one may favour Wasabi"
    )
    cells = with_cells(cells, [put])
    cells += [head_cell(691.42, None), delete_cell(815.72, None), list_missing("no LIST figure for Wasabi")]
    return Profile(
        provider="wasabi",
        date="2026",
        tool_version="published",
        cells=cells,
        probes=Probes(
            hot_object=HotObjectResult(
                limit=None,
                behaviour="degrade",
                error=None,
                citation=cite(
                    CAROLINA,
                    "R2 will return 503 SlowDown when reading the same part ... more than 128 times",
                    "Wasabi's version of the same test degraded gracefully with zero errors",
                    region="Wasabi (region not stated in the post read: 'more on this in Part 2')",
                    client="not stated in the post read (its R2 runs: a 100 Gbps bare-metal host at Ashburn)",
                    client_library="not stated for Wasabi's run",
                ),
                note="degrades without errors; the concurrency where latency rises is not published",
            )
        ),
        source=Source(
            kind="published",
            citations=[
                cite(IDRIVE, "whole report"),
                cite(CAROLINA, "hot-range paragraph"),
                cite(BACKBLAZE_Q1_2026, Q1_US_EAST),
            ],
            claims=[AWS_CLI_CLAIM, SEED002_LINK_CLAIM],
            note="the IDrive e2 comparison: three Wasabi PUT tests reached the Warp timeout and are excluded (7.3)",
        ),
        missing=[
            "GET/PUT cells but one PUT average (charts only)",
            NO_TTFB,
            "hot-object knee",
            "part-size",
            "range-GET",
            "ceilings",
        ],
    )


def s3_claims() -> list[Claim]:
    """The S3 figures that are a client's limit, or that the conditions do not let stand as the provider's."""
    return [
        AWS_CLI_CLAIM,
        SEED002_LINK_CLAIM,
        Claim(
            claim="under 5 % of first bytes later than 200 ms (a p95 TTFB of at most 200 ms)",
            value=200.0,
            unit="ms",
            action="flagged",
            reason="a bound on p95, not on p99, and read from a figure of the paper as its summaries report it;"
            " kept here for the reader, not used as a p99 figure",
            citation=cite(
                DURNER,
                "Section 2 (latency of first byte), figures as transcribed at https://www.modb.pro/db/1808717734634676224",
            ),
        ),
    ]


def s3_cells() -> list[Cell]:
    """Tigris's 1 KB latency percentiles and Durner et al.'s per-request bandwidth of 16 MiB GETs."""
    region = "us-west-1 (N. California), from OCI San Jose"
    return [
        tigris_cell(
            "get",
            (22.415, 42.047, 896.8, 891.5),
            "Read Performance Summary (mixed 80/20 workload, 1 M operations)",
            "S3 22.415 ms 42.047 ms 896.8 sec 891.5 ops/sec",
            region,
            "a whole 1 KB GET, taken as its time to first byte; concurrency not stated (Little's law on the"
            " reads alone); p99 not published",
        ),
        tigris_cell(
            "put",
            (26.975, 41.215, 896.8, 223.6),
            "Write Performance Summary (mixed 80/20 workload, 1 M operations)",
            "S3 26.975 ms 41.215 ms 896.8 sec 223.6 ops/sec",
            region,
            "the write side of the same mixed run (bulk load of 10 M objects: p50 25.743 ms, p90 37.791 ms);"
            " concurrency not stated (Little's law)",
        ),
        Cell(
            op="get",
            object_size_bytes=16 * MIB,
            concurrency=1,
            status="published",
            throughput_mib_per_s=55.0,
            citation=cite(
                DURNER,
                "Section 2 (per-request bandwidth), figures as transcribed at https://www.modb.pro/db/1808717734634676224",
                "per-object bandwidth about 25-95 MiB/s, median 55-60 MiB/s",
                object_size="16 MiB",
                concurrency="one request's bandwidth, measured among many in flight",
            ),
            note="one request's bandwidth: spread 25-95 MiB/s, median 55-60 (the low end used); about 15 % of"
            " requests near 95 MiB/s; faster at weekends; 8-16 MiB requests are the cost-optimal size. The simulator"
            " draws each request's rate from the spread: 25 at its minimum, 55 at its median, 95 at its maximum,"
            " linear between (the cluster near 95 MiB/s is not modelled: slower, so conservative)",
            throughput_spread_mib_per_s=[(0.0, 25.0), (0.5, 55.0), (1.0, 95.0)],
        ),
    ]


def s3_ceilings() -> Ceilings:
    """Durner et al.: 256 concurrent 16 MiB requests fill a 100 Gbit/s instance (a floor on S3's ceiling)."""
    return Ceilings(
        read_bytes_per_s=CitedValue(
            value=100 * GBPS / 8,
            bound="lower",
            link_bits_per_s=100 * GBPS,
            citation=cite(
                DURNER,
                "Section 2 (throughput with concurrent requests), figures as transcribed at https://www.modb.pro/db/1808717734634676224",
                "about 256 concurrent 16 MiB requests reach the 100 Gbit/s maximum",
                object_size="16 MiB",
                concurrency="256",
            ),
            note="S3 filled the instance's 100 Gbit/s link at best, so its ceiling is at least that; the median"
            " across regions was lower ('AWS 75 Gbps', as transcribed), so one instance cannot count on 100",
        ),
    )


def aws_s3() -> Profile:
    cells = seed002_matrix({("get", 5 * MIB, 1): (63.36, "2.1 1-Thread GET Throughput")}, "AWS S3")
    cells = with_cells(cells, q3_2025_puts("AWS S3", (28.73, 76.79, 201.40)))
    cells += s3_cells()
    cells += [head_cell(475.95, None), delete_cell(1032.09, None), list_missing("no LIST figure for S3")]
    return Profile(
        provider="aws-s3",
        date="2026",
        tool_version="published",
        cells=cells,
        ceilings=s3_ceilings(),
        source=Source(
            kind="published",
            citations=[
                cite(IDRIVE, "whole report"),
                cite(TIGRIS, "whole post", region="us-west-1"),
                cite(DURNER, "Section 2"),
                cite(BACKBLAZE_Q3_2025, Q3_UPLOADS),
            ],
            claims=s3_claims(),
            note=NOT_SHIPPED_NOTE,
        ),
        missing=[
            "TTFB p99 (Tigris publishes p50 and p90 of 1 KB requests; Durner et al. bound p95 by 200 ms)",
            "most GET/PUT cells of the IDrive e2 matrix (charts only)",
            "hot-object limit, part-size, range-GET speedup, rates",
            BACKBLAZE_STATS,
        ],
    )


R2_PART_SECTION = "Write bandwidth reaches 37 Gbps on one bucket. Part size matters"


def r2_rates() -> RateResult:
    """r2-benchmark's one-host example run: each operation's 1-second peak, a lower bound on its ceiling."""
    r2_rate = "Example: node r2-benchmark.js 10000 1000 (one host)"
    averages = {"put": 742.0, "get": 1113.0, "head": 1263.3, "delete": 877.0}
    peaks = {"put": 1284.2, "get": 2057.7, "head": 2418.3, "delete": 1749.2}
    names = {"put": "Write", "get": "Read", "head": "Stat", "delete": "Remove"}
    return RateResult(
        object_size_bytes=None,
        points=[
            RatePoint(
                op=op,
                concurrency=1000,
                ops_per_s=peaks[op],
                bound="lower",
                citation=cite(RUSH, r2_rate, f"{names[op]} took ... Peak ops {peaks[op]}/s Avg ops {averages[op]}/s"),
                note=f"1-second peak of one short run (average {averages[op]} ops/s), 1000 threads,"
                " ~16 KiB objects (156.3MB / 10000); recoverable errors retried",
            )
            for op in ("put", "get", "head", "delete")
        ],
    )


def r2_claims() -> list[Claim]:
    """The R2 figures that are impossible, inconsistent, hearsay or a client's limit."""
    claims = [
        Claim(
            claim="R2 reads hit a hard ceiling at ~55 Gbps",
            value=55.0,
            unit="Gbps",
            action="flagged",
            reason="the authors' update: a limit of the Latitude Ashburn - Cloudflare IAD network path, not of"
            " R2 (137 Gbps from a 300 Gbps EC2 instance); not used as a service ceiling",
            citation=cite(CAROLINA, "Update (September 19, 2026)"),
        ),
        Claim(
            claim="R2 write ceiling stated as ~36, 37 and 32 Gbps",
            value=36.0,
            unit="Gbps",
            action="flagged",
            reason="three different figures for one bucket's write ceiling (intro ~36, 'reaches 37 Gbps on one"
            " bucket', 'going from 32 Gbps to 58 Gbps'); ~36 used, the spread is the uncertainty",
            citation=cite(CAROLINA, R2_PART_SECTION),
        ),
        Claim(
            claim="R2 peak ops/s summed over three hosts: Write 5439.7, Read 3111.2, Stat 2409.5, Remove 2798.0",
            action="rejected",
            reason="sums of per-host peaks taken at different moments overstate a concurrent ceiling; and the"
            " summed Stat (2409.5) is below one host's own Stat peak (2418.3), so the sum is not consistent"
            " with the example run",
            citation=cite(RUSH, "Running on Multiple Hosts"),
        ),
        Claim(
            claim="expected R2 limits ~3000 writes/s and ~20000 reads/s",
            action="flagged",
            reason="hearsay from a conversation, not a measurement; not used",
            citation=cite(RUSH, "Background"),
        ),
        Claim(
            claim="AWS CLI pulls from R2 at ~3 Gbps",
            value=3.0,
            unit="Gbps",
            action="flagged",
            reason="client-limited (s5cmd, warp and a custom loader exceeded 50 Gbps); not a provider figure",
            citation=cite(CAROLINA, "s5cmd, warp, and our custom loader all pulled the same objects past 50 Gbps"),
        ),
    ]
    claims += [
        Claim(
            claim="R2 1 KB reads in the mixed run: p50 605.695 ms, p90 680.959 ms, 42.6 ops/s",
            value=605.695,
            unit="ms",
            action="flagged",
            reason="the read and the write rows of the source are identical to the microsecond (605.695 / 680.959"
            " ms, 4705.3 s, 42.6 ops/s), which looks like a copy error; not used (the load phase's PUT figures are)",
            citation=cite(TIGRIS, "Read Performance Summary", region="WNAM (Western North America)"),
        ),
        SEED002_LINK_CLAIM,
    ]
    return claims


def r2_probes() -> Probes:
    """Carolina Cloud's hot-range limit and part sizes, and r2-benchmark's operation rates."""
    return Probes(
        hot_object=HotObjectResult(
            limit=128,
            behaviour="reject",
            error="503 SlowDown",
            citation=cite(
                CAROLINA,
                "hot-range paragraph",
                "R2 will return 503 SlowDown when reading the same part of the same object more than 128"
                " times concurrently",
            ),
            note="a deliberate rejection; duplicating the object under a few keys removes it (Carolina Cloud)",
        ),
        part_size=PartSizeResult(
            points=[
                PartSizePoint(
                    part_size_bytes=32 * MIB,
                    queue_depth=192,
                    throughput_mib_per_s=gbps_to_mib_per_s(26.8),
                    link_bits_per_s=100 * GBPS,
                    citation=cite(CAROLINA, R2_PART_SECTION, "32 MiB parts peak at 26.8 Gbps at 192 connections"),
                ),
                PartSizePoint(
                    part_size_bytes=8 * MIB,
                    throughput_mib_per_s=gbps_to_mib_per_s(19.0),
                    bound="upper",
                    link_bits_per_s=100 * GBPS,
                    citation=cite(CAROLINA, R2_PART_SECTION, "8 MiB and 128 MiB parts both land under 19"),
                ),
                PartSizePoint(
                    part_size_bytes=128 * MIB,
                    throughput_mib_per_s=gbps_to_mib_per_s(19.0),
                    bound="upper",
                    link_bits_per_s=100 * GBPS,
                    citation=cite(CAROLINA, R2_PART_SECTION, "8 MiB and 128 MiB parts both land under 19"),
                ),
            ]
        ),
        rate=r2_rates(),
    )


def r2_ceilings() -> Ceilings:
    """Carolina Cloud's read and write ceilings and TTFB floor (the read figure is the best observed, a floor)."""
    return Ceilings(
        read_bytes_per_s=CitedValue(
            value=137 * GBPS / 8,
            bound="lower",
            link_bits_per_s=300 * GBPS,
            citation=cite(CAROLINA, "Update (September 19, 2026)", "R2 hit 137Gbps"),
            note="highest read observed (EC2, 300 Gbps NIC); the service limit is unknown (below 1 Tbps)",
        ),
        write_bytes_per_s=CitedValue(
            value=36 * GBPS / 8,
            link_bits_per_s=100 * GBPS,
            citation=cite(CAROLINA, "summary", "R2 read at ~55 Gbps and wrote at ~36 Gbps"),
            note="one bucket; two buckets reached 58 Gbps combined; also stated as 32 and 37 Gbps",
        ),
        ttfb_floor_s=CitedValue(
            value=0.040,
            bound="lower",
            citation=cite(CAROLINA, "TTFB paragraph", "Time to first byte floors at ~40 ms"),
            note="regardless of object size or concurrency; ~70x the 0.525 ms RTT",
        ),
    )


def cloudflare_r2() -> Profile:
    cells = seed002_matrix({}, "Cloudflare R2")
    cells = with_cells(cells, q3_2025_puts("Cloudflare R2", (16.02, 123.25, 311.48)))
    cells.append(
        tigris_cell(
            "put",
            (197.119, 340.223, 72063.0, 138.8),
            "Load Phase Summary (loading 10 M 1 KB objects)",
            "R2 197.119 ms 340.223 ms 72063 sec 138.8 ops/sec",
            "WNAM (Western North America), from OCI San Jose",
            "concurrency not stated (Little's law on the row's rate at its p50)",
        )
    )
    cells += [head_cell(98.24, None), delete_cell(2022.16, 495.89), list_missing("no LIST figure for R2")]
    return Profile(
        provider="cloudflare-r2",
        region="auto",
        date="2026",
        tool_version="published",
        cells=cells,
        probes=r2_probes(),
        ceilings=r2_ceilings(),
        source=Source(
            kind="published",
            citations=[
                cite(CAROLINA, "whole post"),
                cite(IDRIVE, "6.3, 6.4"),
                cite(RUSH, "README"),
                cite(TIGRIS, "Load Phase Summary", region="WNAM (Western North America)"),
                cite(BACKBLAZE_Q3_2025, Q3_UPLOADS),
            ],
            claims=r2_claims(),
            note=NOT_SHIPPED_NOTE,
        ),
        missing=[
            "GET/PUT cells by size and concurrency (the IDrive e2 comparison charts only)",
            "TTFB p99 (only a floor is published; Tigris's 1 KB read rows are flagged, see source.claims)",
            "per-key write rate (unpublished; Carolina Cloud only says one key sustains ~68 % of 32 keys' writes)",
            "range-GET speedup (Carolina Cloud: enough parallel ranged GETs reach 55 Gbps; no 1-stream figure)",
        ],
    )


PUBLISHED = (aws_s3, cloudflare_r2, backblaze_b2, wasabi, idrive_e2)
"""Every provider a publication covers, one builder each (``_build_reference`` writes them all)."""
