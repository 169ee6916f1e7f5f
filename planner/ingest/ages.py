"""The age of a bucket's bytes, from an inventory's last-modified dates, as the workload's ``storage.age``.

The bins meet at the ages lifecycle rules are usually written for (30, 90, 180 and 365 days), so a
policy's transitions fall on their edges; every bin is written, empty ones as 0%, so they stay in order.
"""

from __future__ import annotations

import datetime as dt

EARLIEST_DATA = dt.datetime(2006, 1, 1, tzinfo=dt.UTC)
"""No object storage bill, inventory or log is older (Amazon S3 opened in March 2006)."""


def plausible(moment: dt.datetime, what: str) -> dt.datetime:
    """``moment`` read from an input, refused (a ValueError naming ``what``) before 2006 or after today
    plus a day: such a date is a corrupt input, not an age to clamp."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
    latest = dt.datetime.now(dt.UTC) + dt.timedelta(days=1)
    if not EARLIEST_DATA <= aware <= latest:
        raise ValueError(f"{what} {aware:%Y-%m-%d} is not a possible date (before 2006 or after tomorrow)")
    return moment


AGE_EDGES_DAYS = (0, 30, 90, 180, 365)


def age_shares(bytes_by_day: dict[int, int]) -> dict[str, float]:
    """Share of the bytes in each age bin ("0-30d", ..., "365d+"), from bytes by whole day of age."""
    total = sum(bytes_by_day.values())
    if not total:
        return {}
    shares: dict[str, float] = {}
    for index, low in enumerate(AGE_EDGES_DAYS):
        high = AGE_EDGES_DAYS[index + 1] if index + 1 < len(AGE_EDGES_DAYS) else None
        held = sum(b for day, b in bytes_by_day.items() if day >= low and (high is None or day < high))
        shares[f"{low}-{high}d" if high is not None else f"{low}d+"] = held / total
    return shares


def age_lines(shares: dict[str, float]) -> list[str]:
    """The ``age:`` lines of a workload's storage section."""
    if not shares:
        return []
    lines = ["  # bytes by age from last modified (lifecycle pricing ages them from here: planner lifecycle)", "  age:"]
    # shares to 1e-8 of a percent: the rounded figures still add up to 100% within the loader's 1e-6
    lines += [f'    "{label}": "{100 * share:.8f}%"' for label, share in shares.items()]
    return lines
