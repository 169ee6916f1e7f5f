"""Peak memory and wall time of ``planner ingest`` on inputs at internet scale.

- ``access-log``: a day of a busy bucket's S3 server access logs, ``--lines`` lines (default 10^8,
  about 29 GB) in one file an hour: 80 % GETs, 15 % PUTs, 5 % HEADs over ``--keys`` keys (default
  a million, past the 200,000 keys tallied exactly), sizes from 1 KiB to 8 MiB; read with
  ``planner ingest access-log DIR --out OUT --trace TRACE.csv`` (the workload and the whole trace).
- ``cur``: a month's AWS Cost and Usage Report (CUR 2.0 columns, gzip) for ``--buckets`` buckets
  (default 10^6, past the 200,000 usage groups held in memory at once), each with its storage, PUT
  and GET lines; read with ``planner ingest cur FILE --out OUT`` (a workload file a bucket).

The inputs are written to ``--dir`` (the temporary folder, never the repository) once and reused;
the outputs are removed after each run. Each ``planner`` runs in its own process, and its peak
resident set (``ru_maxrss`` of the finished child) and wall time are printed.
Run: ``python benchmarks/ingest_scale.py access-log [--lines 100000000]``,
``python benchmarks/ingest_scale.py cur [--buckets 1000000]``. Prints figures; never fails on memory.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import gzip
import resource
import shutil
import subprocess
import time
from pathlib import Path

START = dt.datetime(2026, 11, 2, tzinfo=dt.UTC)
DAY_S = 86_400
PERIOD = "2026-10-01T00:00:00Z"
CUR_HEADER = (  # CUR 2.0's names for the columns a bill is read by, in the order each row gives them
    "bill_billing_period_start_date,line_item_product_code,line_item_line_item_type,line_item_usage_type,"
    "line_item_operation,line_item_resource_id,line_item_usage_amount,line_item_unblended_cost,"
    "line_item_unblended_rate,pricing_unit,product_region_code\r\n"
)
LOG_LINE = (
    "owner media [{stamp}] 192.0.2.9 arn:aws:iam::1:user/app REQ{n:012d} {op} {key}"
    ' "{verb} /media/{key} HTTP/1.1" 200 - {sent} {size} 12 10'
    ' "-" "app" - HOSTID SigV4 TLS_AES_128_GCM_SHA256 AuthHeader media.s3.amazonaws.com TLSv1.3 - -\n'
)
# twenty requests in turn: 16 GETs, 3 PUTs, 1 HEAD
MIX = ("REST.GET.OBJECT",) * 16 + ("REST.PUT.OBJECT",) * 3 + ("REST.HEAD.OBJECT",)
SIZES = tuple(1024 << (n % 14) for n in range(97))  # 1 KiB to 8 MiB, in a cycle prime to the mix's


def _run(command: list[str], what: str) -> None:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{what}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"{what}: {seconds:,.0f} s, peak RSS {peak_mib:,.0f} MiB", flush=True)


def access_logs(lines: int, keys: int, folder: Path) -> Path:
    """``lines`` access-log lines over one day, a file an hour, in ``folder`` (written if missing)."""
    logs = folder / f"logs-{lines}-{keys}"
    if logs.exists():
        return logs
    started = time.perf_counter()
    partial = folder / f".{logs.name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    n = 0
    for hour in range(24):
        end = lines * (hour + 1) // 24
        with (partial / f"2026-11-02-{hour:02d}").open("w") as handle:
            while n < end:
                second = n * DAY_S // lines
                stamp = (START + dt.timedelta(seconds=second)).strftime("%d/%b/%Y:%H:%M:%S +0000")
                block = []
                while n < end and n * DAY_S // lines == second:
                    op = MIX[n % 20]
                    size = SIZES[n % 97]
                    verb = op.split(".")[1]
                    key = f"assets/{n * 7919 % keys}"
                    sent = size if verb == "GET" else "-"
                    block.append(LOG_LINE.format(stamp=stamp, n=n, op=op, key=key, verb=verb, sent=sent, size=size))
                    n += 1
                handle.write("".join(block))
    partial.rename(logs)
    print(f"wrote {lines:,} log lines in 24 files in {time.perf_counter() - started:,.0f} s", flush=True)
    return logs


def cur_export(buckets: int, folder: Path) -> Path:
    """A month's CUR 2.0 export of ``buckets`` buckets, three lines each, in ``folder`` (written if missing)."""
    path = folder / f"cur-{buckets}.csv.gz"
    if path.exists():
        return path
    started = time.perf_counter()
    partial = folder / f".{path.name}.partial"
    folder.mkdir(parents=True, exist_ok=True)
    with gzip.open(partial, "wt", newline="", compresslevel=1) as handle:
        writer = csv.writer(handle)
        handle.write(CUR_HEADER)
        for b in range(buckets):
            bucket = f"bucket-{b:07d}"
            gb_months = 1 + b % 5000
            puts, gets = 1000 * (1 + b % 97), 10_000 * (1 + b % 89)
            lines = (
                ("TimedStorage-ByteHrs", "StandardStorage", gb_months, f"{gb_months * 0.023:.3f}", "0.023", "GB-Mo"),
                ("Requests-Tier1", "PutObject", puts, f"{puts * 0.000005:.3f}", "0.000005", "Requests"),
                ("Requests-Tier2", "GetObject", gets, f"{gets * 0.0000004:.4f}", "0.0000004", "Requests"),
            )
            for use, op, amount, cost, rate, unit in lines:
                writer.writerow((PERIOD, "AmazonS3", "Usage", use, op, bucket, amount, cost, rate, unit, "us-east-1"))
    partial.rename(path)
    seconds = time.perf_counter() - started
    print(f"wrote {3 * buckets:,} CUR lines ({buckets:,} buckets) in {seconds:,.0f} s", flush=True)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", choices=("access-log", "cur"))
    parser.add_argument("--lines", type=int, default=100_000_000)
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--buckets", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/planner-ingest-bench"))
    args = parser.parse_args()
    out = args.dir / "out"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    try:
        if args.input == "access-log":
            logs = access_logs(args.lines, args.keys, args.dir)
            command = ["planner", "ingest", "access-log", str(logs), "--out", str(out), "--trace", str(out / "t.csv")]
            _run(command, f"ingest access-log, {args.lines:,} lines")
        else:
            path = cur_export(args.buckets, args.dir)
            _run(["planner", "ingest", "cur", str(path), "--out", str(out)], f"ingest cur, {args.buckets:,} buckets")
    finally:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
