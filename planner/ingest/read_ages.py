"""Reads by object age: each GET of the access logs joined to its key's last-modified time in an
inventory (``ingest access-log --inventory``), written as the workload's ``traffic.reads_by_age``.

Keys are compared URL-decoded (both S3 access logs and S3 Inventory write them URL-encoded). A GET of a
key the inventory does not list (deleted or written since), or from before the key's last write (an
older version was read), cannot be aged and is counted apart.
"""

from __future__ import annotations

import datetime as dt
import urllib.parse

from planner.ingest.accesslog import Request
from planner.ingest.ages import age_shares


class ReadAges:
    """A tally of GETs by the age of the object read, in whole days."""

    def __init__(self, modified: dict[str, dt.datetime]) -> None:
        self.modified = {urllib.parse.unquote(key): when for key, when in modified.items()}
        self.by_day: dict[int, int] = {}
        self.unmatched = 0

    def __call__(self, request: Request) -> None:
        if request.operation != "get" or not request.key:
            return
        written = self.modified.get(urllib.parse.unquote(request.key))
        when = request.time if request.time.tzinfo else request.time.replace(tzinfo=dt.UTC)
        if written is None or when < written:
            self.unmatched += 1
            return
        day = int((when - written).total_seconds() // 86400)
        self.by_day[day] = self.by_day.get(day, 0) + 1

    def lines(self) -> list[str]:
        """The ``reads_by_age:`` lines of the traffic section, with where they came from."""
        aged = sum(self.by_day.values())
        if not aged:
            return [f"  # reads by age: no GET matched a key of the inventory ({self.unmatched:,} GETs)"]
        lines = [
            f"  # reads by object age: {aged:,} GETs joined to the inventory's last-modified dates"
            + (
                f" ({self.unmatched:,} GETs of keys it does not list, or of older versions, left out)"
                if self.unmatched
                else ""
            ),
            "  reads_by_age:",
        ]
        lines += [f'    "{label}": "{100 * share:.8f}%"' for label, share in age_shares(self.by_day).items()]
        return lines
