"""The age of a bucket's bytes, from an inventory's last-modified dates, as the workload's ``storage.age``.

The bins meet at the ages lifecycle rules are usually written for (30, 90, 180 and 365 days), so a
policy's transitions fall on their edges; every bin is written, empty ones as 0%, so they stay in order.
"""

from __future__ import annotations

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
