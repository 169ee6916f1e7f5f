"""How data ages in a workload: the age of what is stored, reads by age, and lifecycle rules.

``storage.age`` and ``traffic.reads_by_age`` map age bins ("0-30d", "30-90d", "90d+") to shares;
``storage.lifecycle`` lists the rules a bucket applies as objects age (``{after: 30d, to: standard-ia}``,
``{after: 400d, expire: true}``). What a provider allows (its classes, which way a transition may go,
the least age) is checked where the policy is priced (``planner.costing.lifecycle_bills``); here only what
holds everywhere: bins in order that add up, rules in order of age.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from planner.units import Bytes, Seconds, parse_duration

DAY_S = 86400.0
_BIN = re.compile(r"^\s*(?P<lo>[0-9.]+\s*[a-zA-Z]*)\s*(?:-\s*(?P<hi>[0-9.]+\s*[a-zA-Z]+)|(?P<open>\+))\s*$")
_HINT = 'use e.g. "0-30d", "30-90d", "90d+"'


class AgeBin(BaseModel):
    """Ages from ``lo_days`` up to (not including) ``hi_days``; None: no upper bound."""

    model_config = ConfigDict(frozen=True)

    label: str
    lo_days: int
    hi_days: int | None

    def holds(self, age_days: Decimal) -> bool:
        return age_days >= self.lo_days and (self.hi_days is None or age_days < self.hi_days)


def _whole_days(text: str, label: str) -> int:
    stripped = text.strip()
    if stripped and stripped[-1].isdigit():
        stripped += "d"  # "0-30d": the unit of the upper bound holds for the lower one
    days = parse_duration(stripped) / DAY_S
    if days != int(days):
        raise ValueError(f"{label!r}: give ages in whole days ({_HINT})")
    return int(days)


def parse_age_bins(
    shares: dict[str, Any], field: str, fraction: Callable[[object, str], Decimal]
) -> list[tuple[AgeBin, Decimal]]:
    """The bins of an age mapping with their shares (read by ``fraction``: 0.3 or "30%"), checked: each a range
    or an open "N+" bin, in order without gaps, the open bin last, the shares adding up to 100%.
    Raises ValueError naming ``field``."""
    where = f"{field}: " if field else ""
    found: list[tuple[AgeBin, Decimal]] = []
    for label, share in shares.items():
        match = _BIN.match(str(label))
        if match is None:
            raise ValueError(f"{where}{label!r} is not an age bin ({_HINT})")
        try:
            lo = _whole_days(match["lo"], label)
            hi = None if match["open"] else _whole_days(match["hi"], label)
        except ValueError as error:
            raise ValueError(f"{where}{error}") from None
        if hi is not None and hi <= lo:
            raise ValueError(f"{where}{label!r} ends before it starts (ages out of order)")
        try:
            value = fraction(share, "share")
        except ValueError as error:
            raise ValueError(f"{where}{label}: {error}") from None
        found.append((AgeBin(label=str(label), lo_days=lo, hi_days=hi), value))
    for (earlier, _), (later, _) in itertools.pairwise(found):
        if later.lo_days < earlier.lo_days:
            raise ValueError(f"{where}{later.label!r} comes after {earlier.label!r}: ages out of order")
    expected = found[0][0].lo_days if found else 0  # the first bin may start later: no data is younger
    for index, (age_bin, _) in enumerate(found):
        if age_bin.lo_days != expected:
            why = "ages out of order" if age_bin.lo_days < expected else f"no bin covers {expected}-{age_bin.lo_days}d"
            raise ValueError(f"{where}{age_bin.label!r} starts at {age_bin.lo_days}d, not {expected}d ({why})")
        if age_bin.hi_days is None and index != len(found) - 1:
            raise ValueError(f"{where}the open bin {age_bin.label!r} must be the last (ages out of order)")
        expected = age_bin.hi_days or 0
    total = sum((share for _, share in found), Decimal(0))
    if abs(total - 1) > Decimal("0.000001"):
        raise ValueError(f"{where}the shares add up to {(total * 100).normalize():f}%, not 100%")
    return found


class LifecycleRule(BaseModel):
    """One rule: after ``after`` from creation, move objects to ``to``, or delete them (``expire``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    after: Seconds = Field(ge=0, description='age of the object when the rule acts, e.g. "30d"')
    to: str | None = Field(default=None, description="the storage class the objects move to, e.g. standard-ia")
    expire: bool = Field(default=False, description="delete the objects at that age instead")
    min_object_size: Bytes | None = Field(
        default=None,
        description='only objects of at least this size move (an S3 ObjectSizeGreaterThan filter), e.g. "128 KiB";'
        " unset: the provider's default (S3: objects under 128 KiB do not move)",
    )

    @model_validator(mode="after")
    def _one_action(self) -> LifecycleRule:
        if (self.to is None) == (not self.expire):
            raise ValueError("give either to: <class> or expire: true")
        days = self.after / DAY_S
        if days != int(days):
            raise ValueError(f"after: give whole days, e.g. {round(days)}d")
        if self.expire and days < 1:
            # S3 Lifecycle: an Expiration's Days "must be a non-zero positive integer"; at 0 days nothing would
            # be stored while its reads and egress went on being billed
            raise ValueError("after: an expiry acts at 1 day of age or more, not 0d")
        return self

    @property
    def after_days(self) -> int:
        return int(self.after / DAY_S)

    def describe(self) -> str:
        action = "expire" if self.expire else f"to {self.to}"
        size = f" (objects of at least {self.min_object_size:,} bytes)" if self.min_object_size is not None else ""
        return f"after {self.after_days}d {action}{size}"


def check_rules(rules: list[LifecycleRule]) -> list[LifecycleRule]:
    """Rules in order of age, an expiry only last: the checks that hold at every provider."""
    for index, (before, rule) in enumerate(itertools.pairwise(rules), start=1):
        if rule.after_days <= before.after_days:
            raise ValueError(
                f"rule {index} (after {rule.after_days}d) is not later than rule {index - 1}"
                f" (after {before.after_days}d): give the rules in order of age (ages out of order)"
            )
    for index, rule in enumerate(rules[:-1]):
        if rule.expire:
            raise ValueError(f"rule {index} expires the objects: an expiry must be the last rule")
    return rules


def describe_policy(rules: list[LifecycleRule], start_class: str) -> str:
    """A policy in one line: "standard -> 30d standard-ia -> 180d deep-archive -> 400d expire"."""
    steps = [start_class]
    for rule in rules:
        steps.append(f"{rule.after_days}d {'expire' if rule.expire else rule.to}")
    return " -> ".join(steps)


class IntelligentTiering(BaseModel):
    """A bucket's Intelligent-Tiering configuration (S3 ``IntelligentTieringConfiguration``): the opt-in
    archive tiers objects unread for the given days move to. It is the bucket's, not a lifecycle rule's: it
    applies to every object in the intelligent-tiering class, written there or moved there by a rule. The
    days each tier allows (S3: 90-730 and 180-730) are the provider's and are checked where it is priced."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    archive_access: Seconds | None = Field(
        default=None, description='days unread before objects move to the Archive Access tier, e.g. "90d" (S3: 90-730d)'
    )
    deep_archive_access: Seconds | None = Field(
        default=None,
        description='days unread before objects move to the Deep Archive Access tier, e.g. "180d" (S3: 180-730d)',
    )

    @model_validator(mode="after")
    def _tiers(self) -> IntelligentTiering:
        if self.archive_access is None and self.deep_archive_access is None:
            raise ValueError("give archive_access, deep_archive_access or both (e.g. archive_access: 90d)")
        for name in ("archive_access", "deep_archive_access"):
            value = getattr(self, name)
            if value is not None and value / DAY_S != int(value / DAY_S):
                raise ValueError(f"{name}: give whole days, e.g. {round(value / DAY_S)}d")
        days = self.days()
        deep, shallow = days.get("deep_archive_access"), days.get("archive_access")
        if deep is not None and shallow is not None and deep <= shallow:
            raise ValueError(f"deep_archive_access ({deep}d) must be later than archive_access ({shallow}d)")
        return self

    def days(self) -> dict[str, int]:
        """The tiers turned on, by field name, in days unread."""
        found = {"archive_access": self.archive_access, "deep_archive_access": self.deep_archive_access}
        return {name: int(value / DAY_S) for name, value in found.items() if value is not None}

    def describe(self) -> str:
        """ "archive access 90d, deep archive access 180d" """
        return ", ".join(f"{name.replace('_', ' ')} {days}d" for name, days in self.days().items())
