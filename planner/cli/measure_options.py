"""``planner measure``'s options, checked: each value parsed with its unit and bounds into
``MeasureOptions`` (``build_options``), or a one-line error naming the option. Pure: no network,
nothing written.
"""

# No ``from __future__ import annotations`` here: see planner.cli.app (start-up time).

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

from planner.cli.common import parse_option
from planner.errors import InputError

if TYPE_CHECKING:
    from planner.measure.run.options import MeasureOptions

_OPS = ("put", "get", "head", "list", "delete")


def _items(value: str, option: str) -> list[str]:
    items = [item.strip() for item in value.split(",") if item.strip()]
    if not items:
        raise InputError("needs at least one value", source=option)
    return items


MAX_OBJECT_BYTES = 5 * 2**30
"""The largest object a cell sends: one PUT, whose body a process holds in memory whole; 5 GiB is S3's single-PUT
limit (aws-s3's table; R2's, B2's and Wasabi's are no larger). Larger objects are measured as parts
(``--part-sizes``)."""
MAX_WINDOW_S = 3600.0
"""A measured cell's window: an hour is far more than a percentile needs."""
# S3's rules (3-63 lower-case letters, digits, '.', '-'), widened for legacy and other providers'
# names (capitals, '_'): what stays refused is what could address something else ('/', '..', spaces)
_BUCKET = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,253}[A-Za-z0-9])?$")


def _window(value: str, option: str) -> float:
    seconds = _duration(value, option)
    if seconds <= 0:
        raise InputError(f"{value!r}: a measuring window must be longer than 0 s", source=option)
    if seconds > MAX_WINDOW_S:
        raise InputError(f"{value!r}: at most {MAX_WINDOW_S:g} s a window (use --budget for a long run)", source=option)
    return seconds


def _sizes(value: str, option: str) -> list[int]:
    from planner.units import parse_size

    sizes = []
    for item in _items(value, option):
        size = parse_option(parse_size, item, option)
        if size <= 0:
            raise InputError(f"{item!r}: a size must be more than 0 bytes", source=option)
        if size > MAX_OBJECT_BYTES:
            raise InputError(
                f"{item!r}: larger than one PUT takes at S3 (5 GiB), and a cell holds its body in memory: measure"
                " larger objects as parts (--part-sizes)",
                source=option,
            )
        sizes.append(size)
    return sizes


MAX_IN_FLIGHT = 1024
"""The most requests one cell keeps in flight from a host (``--concurrency``, ``--rate-concurrency``,
``--queue-depths``, ``--range-streams``): each is a thread of the worker processes; beyond this, use
several hosts (planner measure --dask) rather than one host that cannot keep them in flight."""


def _ints(value: str, option: str, maximum: int = MAX_IN_FLIGHT) -> list[int]:
    numbers = []
    for item in _items(value, option):
        if not (item.isascii() and item.isdigit()) or not item.strip("0"):  # all zeros: 0
            raise InputError(f"{item[:40]!r} is not a whole number of 1 or more", source=option)
        if len(item.lstrip("0")) > 9:  # Python reads no more than 4,300 digits; no count needs ten
            raise InputError(f"{item[:40]!r}...: more than 999,999,999", source=option)
        if int(item) > maximum:
            raise InputError(
                f"{item}: at most {maximum:,} requests in flight from one host (each is a thread; measure from"
                " several hosts with --dask for more)",
                source=option,
            )
        numbers.append(int(item))
    return numbers


def _duration(value: str, option: str) -> float:
    from planner.units import parse_duration

    return parse_option(parse_duration, value, option)


def _choices(value: str, option: str, allowed: tuple[str, ...]) -> list[str]:
    if value.strip().lower() == "none":
        return []
    chosen = _items(value.lower(), option)
    for item in chosen:
        if item not in allowed:
            raise InputError(f"unknown value {item!r} (choose from {', '.join(allowed)})", source=option)
    return list(dict.fromkeys(chosen))


def _open_loop(value: str, option: str) -> tuple[list[float], list[float]]:
    """``10/s,0.5x,0.8x``: arrival rates per second and fractions of each cell's closed-loop peak."""
    rates: list[float] = []
    fractions: list[float] = []
    if value.strip().lower() == "none":
        return rates, fractions
    for item in _items(value.lower(), option):
        number, is_fraction = (item[:-1], True) if item.endswith("x") else (item.removesuffix("/s"), False)
        try:
            parsed = float(number)
        except ValueError:
            parsed = math.nan
        if not math.isfinite(parsed) or parsed <= 0:
            raise InputError(
                f"{item!r} is not an arrival rate (use e.g. 10/s, or 0.5x for half the measured peak; 'none' for no"
                " open-loop cells)",
                source=option,
            )
        if is_fraction and parsed > 1:
            raise InputError(f"{item!r}: a fraction of the peak must be at most 1x", source=option)
        (fractions if is_fraction else rates).append(parsed)
    return rates, fractions


def _check_target(
    bucket: str | None, processes: int | None, hot_object_max: int, out: Path | None, endpoint: str | None
) -> tuple[str, Path]:
    """``--bucket``, ``--processes``, ``--hot-object-max``, ``--out`` and ``--endpoint`` checked, in that
    order; the bucket and the profile to write."""
    from planner.measure.s3client import check_endpoint

    if not bucket:
        raise InputError("is required", source="--bucket")
    if not _BUCKET.match(bucket) or ".." in bucket:
        raise InputError(
            f"{bucket!r} is not a bucket name (letters, digits, '.', '-' and '_'; no '..')", source="--bucket"
        )
    if processes is not None and not 1 <= processes <= 64:
        raise InputError(f"{processes} processes: give 1 to 64", source="--processes")
    if hot_object_max < 1:
        raise InputError(f"{hot_object_max}: give a concurrency of 1 or more", source="--hot-object-max")
    if out is None:
        raise InputError("is required (the profile JSON to write)", source="--out")
    if endpoint is not None:
        try:
            check_endpoint(endpoint)
        except ValueError as error:
            raise InputError(str(error), source="--endpoint") from None
    return bucket, out


MAX_ATTEMPTS = 100
"""the most attempts a request of a measurement makes (each retry waits longer: past 100 a run never ends)"""


def _check_run(run_id: str | None, max_attempts: int) -> None:
    from planner.measure.journal import valid_run_id

    if run_id is not None and not valid_run_id(run_id):
        raise InputError("use letters, digits, '-' and '_' only (at most 64)", source="--run-id")
    if not 1 <= max_attempts <= MAX_ATTEMPTS:
        raise InputError(f"{max_attempts:,}: give 1 to {MAX_ATTEMPTS}", source="--max-attempts")


def _positive_duration(value: str, option: str, problem: str) -> float:
    seconds = _duration(value, option)
    if seconds <= 0:
        raise InputError(problem, source=option)
    return seconds


def build_options(
    *,
    endpoint: str | None,
    bucket: str | None,
    out: Path | None,
    provider: str | None,
    region: str | None,
    sizes: str,
    concurrency: str,
    duration: str,
    warmup: str,
    ops: str,
    probes: str,
    link: str | None,
    addressing: str,
    no_verify_tls: bool,
    processes: int | None,
    max_attempts: int,
    run_id: str | None,
    probe_duration: str,
    hot_object_max: int,
    part_sizes: str,
    queue_depths: str,
    range_object_size: str,
    range_streams: str,
    rate_concurrency: str,
    read_timeout: str = "60s",
    open_loop: str = "10/s,40/s,0.5x,0.8x",
    connect_timeout: str = "5s",
    budget: str | None = None,
) -> "MeasureOptions":
    """Validate the command-line options into ``MeasureOptions`` (pure; no network)."""
    from planner.measure.run.options import PROBES, MeasureOptions
    from planner.units import parse_rate

    bucket, out = _check_target(bucket, processes, hot_object_max, out, endpoint)
    link_bits = parse_option(parse_rate, link, "--link")
    if link_bits is not None and not link_bits > 0:
        raise InputError(f"{link!r}: give the client's link speed above 0 (e.g. 10 Gbps)", source="--link")
    _check_run(run_id, max_attempts)
    if ops.strip().lower() == "none" and probes.strip().lower() == "none":
        raise InputError("with --probes none too, nothing would be measured: give the operations to time",
                         source="--ops")  # fmt: skip
    read_timeout_s = _positive_duration(read_timeout, "--read-timeout", "must be more than 0 s")
    connect_timeout_s = _positive_duration(connect_timeout, "--connect-timeout", "must be more than 0 s")
    if not out.parent.exists():
        raise InputError("the output folder does not exist", source=str(out))
    open_rates, open_fractions = _open_loop(open_loop, "--open-loop")
    budget_s = None if budget is None else _positive_duration(budget, "--budget", "must be more than 0 s (e.g. 10m)")
    return MeasureOptions(
        endpoint=endpoint,
        bucket=bucket,
        out=out,
        provider=provider,
        region=region,
        sizes=_sizes(sizes, "--sizes"),
        concurrency=_ints(concurrency, "--concurrency"),
        duration_s=_window(duration, "--duration"),
        warmup_s=_duration(warmup, "--warmup"),
        ops=_choices(ops, "--ops", _OPS),  # type: ignore[arg-type]
        probes=_choices(probes, "--probes", PROBES),
        link_bits_per_s=link_bits,
        addressing=addressing,  # type: ignore[arg-type]
        verify_tls=not no_verify_tls,
        processes=processes,
        max_attempts=max_attempts,
        read_timeout_s=read_timeout_s,
        connect_timeout_s=connect_timeout_s,
        run_id=run_id,
        probe_duration_s=_window(probe_duration, "--probe-duration"),
        hot_object_max=hot_object_max,
        part_sizes=_sizes(part_sizes, "--part-sizes"),
        queue_depths=_ints(queue_depths, "--queue-depths"),
        range_object_size=_sizes(range_object_size, "--range-object-size")[0],
        range_streams=_ints(range_streams, "--range-streams"),
        rate_concurrency=_ints(rate_concurrency, "--rate-concurrency"),
        open_rates_per_s=open_rates,
        open_peak_fractions=open_fractions,
        budget_s=budget_s,
    )
