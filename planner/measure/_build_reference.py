"""Build the shipped reference profiles (``measure/profiles/*.json``) from the published seeds.

Run ``python -m planner.measure._build_reference`` after editing; the JSON files are the artefact. Each
figure below is copied from a seed with the seed file and section; a cell the seeds do not cover
is written with ``status="missing"`` and no figures. Claims that cannot be true, or that the
sources contradict, are listed under ``source.claims`` with the reason and are not used.
"""

from __future__ import annotations

from pathlib import Path

from planner.measure.profile import (
    MIB,
    Ceilings,
    Cell,
    Citation,
    CitedValue,
    Claim,
    HotObjectResult,
    PartSizePoint,
    PartSizeResult,
    Percentiles,
    Probes,
    Profile,
    RangeGetPoint,
    RangeGetResult,
    RatePoint,
    RateResult,
    Source,
)

S000 = "seeds/000_249a1dcc30c93dc8.txt (R2 vs S3 2026 large-object upload article)"
S001 = "seeds/001_bb9608ce427222a8.txt (Carolina Cloud, R2 from a 100 Gbps box)"
S002 = "seeds/002_7bf01fd6b284e5e9.txt (IDrive e2 Warp object storage comparison)"
S003 = "seeds/003_62dabf9b967f6f0e.txt (Rush/r2-benchmark README)"
S004 = "seeds/004_9d63019fdf549099.txt (S3 download acceleration benchmark, June 2026)"

KIB = 1024
SIZES = [256 * KIB, 5 * MIB, 50 * MIB, 100 * MIB]
THREADS = [1, 5, 10]
GBPS = 1e9


def cite(ref: str, section: str, quote: str | None = None) -> Citation:
    return Citation(kind="published", ref=ref, section=section, quote=quote)


def gbps_to_mib_per_s(gbps: float) -> float:
    return round(gbps * GBPS / 8 / MIB, 2)


def seed002_matrix(known: dict[tuple[str, int, int], tuple[float, str]], provider: str) -> list[Cell]:
    """The 2 ops x 4 sizes x 3 thread counts of seed 002, with figures only where the text gives them."""
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
                            note=f"seed 002 charts this cell for {provider} but the text gives no figure",
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
                        citation=cite(S002, section),
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
        citation=cite(S002, section),
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
        citation=cite(S002, "6.4 DELETE Performance"),
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
    citation=cite(S001, "s5cmd, warp, and our custom loader all pulled the same objects past 50 Gbps"),
)

SEED002_LINK_CLAIM = Claim(
    claim="seed 002 throughput figures",
    action="flagged",
    reason="the client VM's link capacity is not stated, so no figure can be checked against it"
    " (10-thread 100 MiB PUT of 1,879.48 MiB/s is 15.8 Gbps); figures kept, link unknown",
    citation=cite(S002, "7.1 Seven-cycle PUT and GET benchmark"),
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
        list_missing("seed 002's LIST figure is rejected (see source.claims)"),
    ]
    claims = [
        Claim(
            claim="LIST 71,467.78 objects/s at 1,409.9 ms average request latency with 10 workers",
            value=71467.78,
            unit="objects/s",
            action="rejected",
            reason="10 workers / 1.4099 s = 7.1 requests/s, so each LIST page would need ~10,076 keys;"
            " S3 ListObjects returns at most 1,000 keys per page",
            citation=cite(S002, "6.2 LIST Performance"),
        ),
        Claim(
            claim="LIST average TTFB 14 ms",
            value=14.0,
            unit="ms",
            action="flagged",
            reason="from the same internally inconsistent LIST run; not used",
            citation=cite(S002, "6.2 LIST Performance"),
        ),
        SEED002_LINK_CLAIM,
    ]
    return Profile(
        provider="idrive-e2",
        region="us-east (client in US East)",
        date="2026",
        tool_version="published",
        cells=cells,
        source=Source(kind="published", citations=[cite(S002, "whole report")], claims=claims),
        missing=[
            "GET/PUT cells not stated in the text of seed 002 (charts only)",
            "TTFB and latency percentiles (seed 002 reports averages only)",
            "hot-object limit, part-size, range-GET speedup, per-key write rate",
            "read/write ceilings (seed 002 measured at most 10 threads)",
        ],
    )


def backblaze_b2() -> Profile:
    known = {
        ("get", 5 * MIB, 1): (64.87, "2.1 1-Thread GET Throughput"),
        ("get", 5 * MIB, 5): (399.49, "2.2 5-Thread GET Throughput"),
    }
    cells = seed002_matrix(known, "Backblaze B2")
    cells += [
        head_cell(770.76, None),
        Cell(
            op="delete",
            object_size_bytes=None,
            concurrency=10,
            status="missing",
            note="seed 002 excluded B2 from DELETE: B2 buckets are versioned, name-based DELETE adds markers",
        ),
        list_missing("seed 002 gives no LIST figure for B2"),
    ]
    return Profile(
        provider="backblaze-b2",
        date="2026",
        tool_version="published",
        cells=cells,
        source=Source(
            kind="published",
            citations=[cite(S002, "whole report")],
            claims=[SEED002_LINK_CLAIM],
            note="seed 002: five B2 GET tests failed (service unavailable during preparation) and one PUT"
            " test hit a DNS timeout; they are excluded there, never counted as zero (7.3 Aggregation)",
        ),
        missing=["most GET/PUT cells", "TTFB", "hot-object", "part-size", "range-GET", "rates", "ceilings"],
    )


def wasabi() -> Profile:
    cells = seed002_matrix({}, "Wasabi")
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
                    S001,
                    "R2 will return 503 SlowDown when reading the same part ... more than 128 times",
                    "Wasabi's version of the same test degraded gracefully with zero errors",
                ),
                note="degrades without errors; the concurrency where latency rises is not published",
            )
        ),
        source=Source(
            kind="published",
            citations=[cite(S002, "whole report"), cite(S001, "hot-range paragraph")],
            claims=[AWS_CLI_CLAIM, SEED002_LINK_CLAIM],
            note="seed 002: three Wasabi PUT tests reached the Warp timeout and are excluded (7.3)",
        ),
        missing=["all GET/PUT cells (charts only)", "TTFB", "hot-object knee", "part-size", "range-GET", "ceilings"],
    )


def s3_range_get() -> RangeGetResult:
    """Seed 004's 2 GiB download: one stream against 16 parallel ranged GETs, Frankfurt rows."""
    results = "Results (Frankfurt rows)"
    return RangeGetResult(
        object_size_bytes=2 * 1024 * MIB,
        points=[
            RangeGetPoint(
                streams=1,
                throughput_mib_per_s=gbps_to_mib_per_s(0.7188),
                samples=1,
                citation=cite(S004, results, "Baseline (aws s3 cp) Frankfurt 23.90s 718.8 Mbps 1.0x"),
                note="aws s3 cp; the seed calls it a single stream",
            ),
            RangeGetPoint(
                streams=16,
                throughput_mib_per_s=gbps_to_mib_per_s(9.337),
                samples=1,
                citation=cite(S004, results, "Parallel Range GET (16 chunks) Frankfurt 1.84s 9,337 Mbps 13.0x"),
            ),
        ],
        speedup=13.0,
        best_streams=16,
        citation=cite(S004, "Key Findings", "Parallel Range GET is 13x faster"),
        note="eu-central-1 from an EC2 client; Spain 13.6x; 9.3-9.5 Gbps likely the client's link, so the"
        " speedup is a floor",
    )


def s3_claims() -> list[Claim]:
    """The S3 figures of seeds 000, 004 and 001 that are impossible, inconsistent or a client's limit."""
    claims = [
        Claim(
            claim=f"S3 large-object upload {value} Gbps on a 10 Gbps link ({size})",
            value=value,
            unit="Gbps",
            action="rejected",
            reason="above the 10 Gbps link the article says it used: physically impossible",
            citation=cite(S000, "Throughput by Object Size"),
        )
        for size, value in (("5GB", 10.2), ("10GB", 10.5), ("20GB", 10.4))
    ]
    claims += [
        Claim(
            claim="S3 large-object upload 9.8 Gbps on a 10 Gbps link (1GB)",
            value=9.8,
            unit="Gbps",
            action="rejected",
            reason="below the link, but the same method and table report figures above the link, so its"
            " measurement (or unit) is unreliable; not used",
            citation=cite(S000, "Throughput by Object Size"),
        ),
        Claim(
            claim="S3 Standard retrieval latency 182 ms (5GB object)",
            value=182.0,
            unit="ms",
            action="flagged",
            reason="undefined metric (TTFB or whole request?) from an unreliable article; not used",
            citation=cite(S000, "Quick Decision Matrix"),
        ),
        Claim(
            claim="Stockholm parallel range GET speedup 12.6x",
            value=12.6,
            unit="x",
            action="flagged",
            reason="its own rows give 9,090 / 643.7 Mbps = 14.1x (12.6x is 9,090 over Frankfurt's baseline);"
            " the Frankfurt 13.0x (9,337 / 718.8) is consistent and is used",
            citation=cite(S004, "Results"),
        ),
        Claim(
            claim="aws s3 cp baseline downloads through a single TCP connection",
            action="flagged",
            reason="the AWS CLI's transfer manager splits large downloads over several requests by default;"
            " the 1-stream point may be several streams, so the speedup may be understated",
            citation=cite(S004, "Test Methods"),
        ),
        AWS_CLI_CLAIM,
        SEED002_LINK_CLAIM,
    ]
    return claims


def aws_s3() -> Profile:
    cells = seed002_matrix({("get", 5 * MIB, 1): (63.36, "2.1 1-Thread GET Throughput")}, "AWS S3")
    cells += [head_cell(475.95, None), delete_cell(1032.09, None), list_missing("no LIST figure for S3")]
    return Profile(
        provider="aws-s3",
        date="2026",
        tool_version="published",
        cells=cells,
        probes=Probes(range_get=s3_range_get()),
        source=Source(
            kind="published",
            citations=[cite(S002, "whole report"), cite(S004, "whole report"), cite(S000, "rejected")],
            claims=s3_claims(),
        ),
        missing=["most GET/PUT cells", "TTFB", "hot-object limit", "part-size", "rates", "ceilings"],
    )


R2_PART_SECTION = "Write bandwidth reaches 37 Gbps on one bucket. Part size matters"


def r2_rates() -> RateResult:
    """Seed 003's one-host example run: each operation's 1-second peak, a lower bound on its ceiling."""
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
                citation=cite(S003, r2_rate, f"{names[op]} took ... Peak ops {peaks[op]}/s Avg ops {averages[op]}/s"),
                note=f"1-second peak of one short run (average {averages[op]} ops/s), 1000 threads,"
                " ~16 KiB objects (156.3MB / 10000); recoverable errors retried",
            )
            for op in ("put", "get", "head", "delete")
        ],
    )


def r2_claims() -> list[Claim]:
    """The R2 figures of seeds 000, 001 and 003 that are impossible, inconsistent, hearsay or a client's limit."""
    claims = [
        Claim(
            claim="R2 reads hit a hard ceiling at ~55 Gbps",
            value=55.0,
            unit="Gbps",
            action="flagged",
            reason="the authors' update: a limit of the Latitude Ashburn - Cloudflare IAD network path, not of"
            " R2 (137 Gbps from a 300 Gbps EC2 instance); not used as a service ceiling",
            citation=cite(S001, "Update (September 19, 2026)"),
        ),
        Claim(
            claim="R2 write ceiling stated as ~36, 37 and 32 Gbps",
            value=36.0,
            unit="Gbps",
            action="flagged",
            reason="three different figures for one bucket's write ceiling (intro ~36, 'reaches 37 Gbps on one"
            " bucket', 'going from 32 Gbps to 58 Gbps'); ~36 used, the spread is the uncertainty",
            citation=cite(S001, R2_PART_SECTION),
        ),
        Claim(
            claim="R2 peak ops/s summed over three hosts: Write 5439.7, Read 3111.2, Stat 2409.5, Remove 2798.0",
            action="rejected",
            reason="sums of per-host peaks taken at different moments overstate a concurrent ceiling; and the"
            " summed Stat (2409.5) is below one host's own Stat peak (2418.3), so the sum is not consistent"
            " with the example run",
            citation=cite(S003, "Running on Multiple Hosts"),
        ),
        Claim(
            claim="expected R2 limits ~3000 writes/s and ~20000 reads/s",
            action="flagged",
            reason="hearsay from a conversation, not a measurement; not used",
            citation=cite(S003, "Background"),
        ),
        Claim(
            claim="AWS CLI pulls from R2 at ~3 Gbps",
            value=3.0,
            unit="Gbps",
            action="flagged",
            reason="client-limited (s5cmd, warp and a custom loader exceeded 50 Gbps); not a provider figure",
            citation=cite(S001, "s5cmd, warp, and our custom loader all pulled the same objects past 50 Gbps"),
        ),
    ]
    claims += [
        Claim(
            claim=f"R2 large-object upload {value} Gbps on a 10 Gbps link ({size})",
            value=value,
            unit="Gbps",
            action="rejected",
            reason="above the 10 Gbps link the article says it used: physically impossible",
            citation=cite(S000, "Throughput by Object Size"),
        )
        for size, value in (("1GB", 11.2), ("5GB", 12.5), ("10GB", 12.8), ("20GB", 12.7))
    ]
    claims += [
        Claim(
            claim="R2 retrieval latency 42 ms",
            value=42.0,
            unit="ms",
            action="flagged",
            reason="agrees with seed 001's ~40 ms TTFB floor, but comes from an article with impossible"
            " figures and an undefined metric; seed 001's figure is used instead",
            citation=cite(S000, "Quick Decision Matrix"),
        ),
        SEED002_LINK_CLAIM,
    ]
    return claims


def r2_probes() -> Probes:
    """Seed 001's hot-range limit and part sizes, and seed 003's operation rates."""
    return Probes(
        hot_object=HotObjectResult(
            limit=128,
            behaviour="reject",
            error="503 SlowDown",
            citation=cite(
                S001,
                "hot-range paragraph",
                "R2 will return 503 SlowDown when reading the same part of the same object more than 128"
                " times concurrently",
            ),
            note="a deliberate rejection; duplicating the object under a few keys removes it (seed 001)",
        ),
        part_size=PartSizeResult(
            points=[
                PartSizePoint(
                    part_size_bytes=32 * MIB,
                    queue_depth=192,
                    throughput_mib_per_s=gbps_to_mib_per_s(26.8),
                    link_bits_per_s=100 * GBPS,
                    citation=cite(S001, R2_PART_SECTION, "32 MiB parts peak at 26.8 Gbps at 192 connections"),
                ),
                PartSizePoint(
                    part_size_bytes=8 * MIB,
                    throughput_mib_per_s=gbps_to_mib_per_s(19.0),
                    bound="upper",
                    link_bits_per_s=100 * GBPS,
                    citation=cite(S001, R2_PART_SECTION, "8 MiB and 128 MiB parts both land under 19"),
                ),
                PartSizePoint(
                    part_size_bytes=128 * MIB,
                    throughput_mib_per_s=gbps_to_mib_per_s(19.0),
                    bound="upper",
                    link_bits_per_s=100 * GBPS,
                    citation=cite(S001, R2_PART_SECTION, "8 MiB and 128 MiB parts both land under 19"),
                ),
            ]
        ),
        rate=r2_rates(),
    )


def r2_ceilings() -> Ceilings:
    """Seed 001's read and write ceilings and TTFB floor (the read figure is the best observed, a floor)."""
    return Ceilings(
        read_bytes_per_s=CitedValue(
            value=137 * GBPS / 8,
            bound="lower",
            link_bits_per_s=300 * GBPS,
            citation=cite(S001, "Update (September 19, 2026)", "R2 hit 137Gbps"),
            note="highest read observed (EC2, 300 Gbps NIC); the service limit is unknown (below 1 Tbps)",
        ),
        write_bytes_per_s=CitedValue(
            value=36 * GBPS / 8,
            link_bits_per_s=100 * GBPS,
            citation=cite(S001, "summary", "R2 read at ~55 Gbps and wrote at ~36 Gbps"),
            note="one bucket; two buckets reached 58 Gbps combined; also stated as 32 and 37 Gbps",
        ),
        ttfb_floor_s=CitedValue(
            value=0.040,
            bound="lower",
            citation=cite(S001, "TTFB paragraph", "Time to first byte floors at ~40 ms"),
            note="regardless of object size or concurrency; ~70x the 0.525 ms RTT",
        ),
    )


def cloudflare_r2() -> Profile:
    cells = seed002_matrix({}, "Cloudflare R2")
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
            citations=[cite(S001, "whole post"), cite(S002, "6.3, 6.4"), cite(S003, "README"), cite(S000, "rejected")],
            claims=r2_claims(),
        ),
        missing=[
            "GET/PUT cells by size and concurrency (seed 002 charts only)",
            "TTFB p99 (only a floor is published)",
            "per-key write rate (not in the seeds; seed 001 only says one key sustains ~68 % of 32 keys' writes)",
            "range-GET speedup (seed 001 says enough parallel ranged GETs reach 55 Gbps, without a 1-stream figure)",
        ],
    )


BUILDERS = {
    "aws-s3": aws_s3,
    "cloudflare-r2": cloudflare_r2,
    "backblaze-b2": backblaze_b2,
    "wasabi": wasabi,
    "idrive-e2": idrive_e2,
}


def render() -> dict[str, str]:
    """Every reference profile as the text of its shipped file, by file name: the same on every run."""
    return {
        f"{ident}.json": build().model_dump_json(indent=2, exclude_none=False) + "\n"
        for ident, build in BUILDERS.items()
    }


def main() -> None:
    folder = Path(__file__).parent / "profiles"
    folder.mkdir(exist_ok=True)
    for name, text in render().items():
        (folder / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
