"""The billing rules' arithmetic: each one small function over a price table's parameters. The rules
themselves, each writing a bill's lines, are listed in billing order in ``planner.pricing.bill_rules``.

A function takes its quantities as ``Decimal`` (the line-item engine, exact) or as numpy float64
arrays (the sweep, many usage points at once) and answers in the same kind. The engine and the
sweep both call these, so a rule's arithmetic is written once for both paths.
Only the four primitives at the top know which kind they hold; numpy is imported only when an
array is given, so the exact path never loads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_CEILING, ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, ROUND_UP, Decimal
from typing import TYPE_CHECKING, TypeVar, cast

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from planner.pricing.models import LineRounding
    from planner.pricing.primitives import Tier, TieredPrice
    from planner.pricing.storage_classes import EgressRules, RequestClass

Q = TypeVar("Q", Decimal, "npt.NDArray[np.float64]")
"""A quantity: one exact ``Decimal`` or an array of float64 points."""

ZERO = Decimal(0)

# ----------------------------------------------------------------------------- primitives


def scalar(like: Q, value: Decimal | int) -> Q:
    """A table's parameter in the kind of ``like``: exact for a Decimal, a float beside an array."""
    if isinstance(like, Decimal):
        return Decimal(value)
    return cast("Q", float(value))


def minimum(a: Q, b: Q) -> Q:
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return min(a, b)
    import numpy as np

    return cast("Q", np.minimum(a, b))


def maximum(a: Q, b: Q) -> Q:
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return max(a, b)
    import numpy as np

    return cast("Q", np.maximum(a, b))


def round_units(quantity: Q, round_up: bool) -> Q:
    """A metered quantity as billed: up to a whole unit where the provider rounds up (R2), else as is."""
    if not round_up:
        return quantity
    if isinstance(quantity, Decimal):
        return quantity.to_integral_value(rounding=ROUND_CEILING)
    import numpy as np

    # Float division leaves noise far below a billing unit: do not let it round 2.0000000000001 up to 3.
    return cast("Q", np.ceil(quantity - 1e-12 * np.maximum(quantity, 1.0)))


def where_at_least(size: Q, bound: int, value: Q) -> Q:
    """``value`` where ``size`` is at least ``bound``, else 0."""
    if isinstance(size, Decimal) and isinstance(value, Decimal):
        return value if size >= bound else ZERO
    import numpy as np

    return cast("Q", np.where(size >= bound, value, 0.0))


# ----------------------------------------------------------------------------- tiered prices


def tier_quantities(quantity: Q, tiers: Sequence[Tier]) -> list[tuple[Tier, Decimal, Q]]:
    """(tier, its lower bound, units of ``quantity`` within it) for each tier of a marginal ladder."""
    found: list[tuple[Tier, Decimal, Q]] = []
    lower = ZERO
    zero = scalar(quantity, 0)
    for tier in tiers:
        top = quantity if tier.up_to is None else minimum(quantity, scalar(quantity, tier.up_to))
        found.append((tier, lower, maximum(top - scalar(quantity, lower), zero)))
        if tier.up_to is None:
            break
        lower = tier.up_to
    return found


def ladder_slices(start: Q, quantity: Q, tiers: Sequence[Tier]) -> list[tuple[Tier, Decimal, Q]]:
    """(tier, its lower bound, units within it) of ``quantity`` units laid on a marginal ladder above
    ``start`` units already on it: what a second usage sharing the first one's tiers adds (S3 Glacier's
    per-object 8 KB at S3 Standard rates, or a restored copy, over the account's Standard storage)."""
    before = tier_quantities(start, tiers)
    after = tier_quantities(start + quantity, tiers)
    return [(tier, lower, units - held) for (tier, lower, units), (_, _, held) in zip(after, before, strict=True)]


def ladder_cost(quantity: Q, tiers: Sequence[Tier]) -> Q:
    """USD of ``quantity`` units on a marginal ladder, no allowance."""
    total = scalar(quantity, 0)
    for tier, _, units in tier_quantities(quantity, tiers):
        total = total + units * scalar(quantity, tier.price)
    return total


def free_units(quantity: Q, price: TieredPrice, extra_free: Q) -> Q:
    """Units the allowance covers: the month's free units plus any extra (per day, per stored volume)."""
    return minimum(quantity, scalar(quantity, price.free_per_month) + extra_free)


def billed_tiers(quantity: Q, price: TieredPrice, free: Q, round_up: bool) -> list[tuple[Tier, Q, Q]]:
    """(tier, where its billed units begin, billed units) after ``free`` units.

    Where the free units sit follows the table: before the tiers (the bounds count only the units
    beyond the allowance), or inside the first tier (the bounds count every unit and the free units
    are the first ones, so they cost what they displace).
    """
    if price.free_position == "first-tier":
        used = tier_quantities(quantity, price.tiers)
        taken = tier_quantities(free, price.tiers)
        return [
            (tier, scalar(quantity, lower) + covered, round_units(units - covered, round_up))
            for (tier, lower, units), (_, _, covered) in zip(used, taken, strict=True)
        ]
    billable = round_units(quantity - free, round_up)
    return [(tier, scalar(quantity, lower), units) for tier, lower, units in tier_quantities(billable, price.tiers)]


def tiered_cost(quantity: Q, price: TieredPrice, extra_free: Q, round_up: bool) -> Q:
    """USD of ``quantity`` units on a tiered price after its allowance."""
    free = free_units(quantity, price, extra_free)
    total = scalar(quantity, 0)
    for tier, _, units in billed_tiers(quantity, price, free, round_up):
        total = total + units * scalar(quantity, tier.price)
    return total


def units_of(amount: Q, unit_bytes: int, round_up: bool) -> Q:
    """Bytes (or objects) in a price's unit, rounded as the provider rounds.

    Arrays that round up do it by the remainder, not by the quotient: 100,000 GB and one byte is
    100,001 GB, though the float quotient's last digits are within ``round_units``' noise guard.
    A remainder under half a byte (or a count's noise, 1e-15 of it) is float noise, not usage."""
    if not round_up or isinstance(amount, Decimal):
        return round_units(amount / scalar(amount, unit_bytes), round_up)
    import numpy as np

    remainder = np.fmod(amount, unit_bytes)
    whole = (amount - remainder) / unit_bytes  # exact below 2^53 bytes
    return whole + (remainder > np.maximum(0.5, 1e-15 * np.abs(amount)))


# ----------------------------------------------------------------------------- storage


def padding_bytes(object_bytes: Q, count: Q, min_object_bytes: int) -> Q:
    """Bytes added by billing ``count`` objects of ``object_bytes`` as at least ``min_object_bytes``."""
    short = maximum(scalar(object_bytes, min_object_bytes) - object_bytes, scalar(object_bytes, 0))
    return short * count


def shortfall_bytes(billed_bytes: Q, minimum_billable_bytes: int) -> Q:
    """Bytes a month's minimum billable storage adds to what is stored (padding included)."""
    return maximum(scalar(billed_bytes, minimum_billable_bytes) - billed_bytes, scalar(billed_bytes, 0))


def monitored_objects(object_bytes: Q, count: Q, min_object_bytes: int) -> Q:
    """Objects a per-object monitoring fee counts: those of at least its size."""
    return where_at_least(object_bytes, min_object_bytes, count)


# ----------------------------------------------------------------------------- requests and egress


def request_allowance(
    requests: RequestClass, month_days: int, used_elsewhere: int = 0, request_days: int | None = None
) -> int:
    """Free requests of a class in a month: the monthly allowance plus the daily one over the days requests are
    made (``request_days``; none: every day of the month), less what other classes of the account already took
    from it when it is one allowance for all of them."""
    days = month_days if request_days is None else min(request_days, month_days)
    return max(0, requests.free_per_month + requests.free_per_day * days - used_elsewhere)


def request_units(
    count: Q,
    requests: RequestClass,
    month_days: int,
    round_up: bool,
    used_elsewhere: int = 0,
    request_days: int | None = None,
) -> Q:
    """Billed units (of ``per`` requests) after the allowance."""
    free = request_allowance(requests, month_days, used_elsewhere, request_days)
    billable = maximum(count - scalar(count, free), scalar(count, 0))
    return units_of(billable, requests.per, round_up)


def egress_extra_free(rules: EgressRules, stored_units: Q, month_days: int, used_elsewhere: Q) -> Q:
    """Free egress units beyond the price's monthly allowance: per day over the month and a multiple of
    the stored volume (B2: 3x), less what the account used elsewhere."""
    extra = scalar(stored_units, rules.free_per_day * month_days) - used_elsewhere
    if rules.free_multiple_of_storage:
        extra = extra + scalar(stored_units, rules.free_multiple_of_storage) * stored_units
    return extra


def exceeds_multiple(quantity: Q, multiple: Decimal, of: Q) -> bool | npt.NDArray[np.bool_]:
    """Whether ``quantity`` is above ``multiple`` times ``of`` (a free-egress policy's cap on egress
    as a multiple of the stored volume)."""
    return cast("bool | npt.NDArray[np.bool_]", quantity > scalar(of, multiple) * of)


def early_deletion_units(deleted_bytes: Q, unit_bytes: int, remaining_days: Q, month_days: int, round_up: bool) -> Q:
    """Storage units a deletion before a class's minimum duration bills: its bytes for the remaining
    days, prorated over the billing month."""
    units = deleted_bytes / scalar(deleted_bytes, unit_bytes) * remaining_days
    return round_units(units / scalar(units, month_days), round_up)


# ----------------------------------------------------------------------------- the invoice

_ROUNDING = {"half-up": ROUND_HALF_UP, "half-even": ROUND_HALF_EVEN, "up": ROUND_UP, "down": ROUND_DOWN}


def round_amount(amount: Q, rule: LineRounding | None) -> Q:
    """A line's amount as the invoice rounds it: to ``rule.places`` in ``rule.mode``, a line above zero
    but below the minimum charge billed as that (no rule: to the cent, half-up)."""
    places, mode = (rule.places, rule.mode) if rule is not None else (2, "half-up")
    floor = rule.minimum_charge if rule is not None else None
    if isinstance(amount, Decimal):
        if floor is not None and 0 < amount < floor:
            return floor.quantize(Decimal(1).scaleb(-places))
        return amount.quantize(Decimal(1).scaleb(-places), rounding=_ROUNDING[mode])
    import numpy as np

    scale = 10.0**places
    # Float products carry noise far below a millionth of the last place; snap it away so an
    # amount exactly on a half (1.5 cents) rounds as the Decimal path rounds it.
    minor = np.round(amount * scale, 6)
    if mode == "half-up":
        minor = np.floor(minor + 0.5)
    elif mode == "half-even":
        minor = np.round(minor)
    elif mode == "up":
        minor = np.ceil(minor)
    else:
        minor = np.floor(minor)
    rounded = minor / scale
    if floor is not None:
        least = float(floor.quantize(Decimal(1).scaleb(-places)))
        rounded = np.where((amount > 0) & (amount < float(floor)), least, rounded)
    return rounded


# ----------------------------------------------------------------------------- fees, hours, currencies


def hours_in_month(month_days: int) -> int:
    """Hours an hourly price bills in a month of ``month_days`` days: 744 in 31 days, 720 in 30."""
    return 24 * month_days


def hourly_scale(per_hour: bool, month_days: int) -> int:
    """What a quantity held all month is multiplied by on a price: its hours for an hourly one, else 1."""
    return hours_in_month(month_days) if per_hour else 1


def replicated_units(stored_units: Q, replica_regions: int) -> Q:
    """Storage units billed again for the regions an object is replicated to beyond its first."""
    return stored_units * scalar(stored_units, replica_regions)


def minimum_shortfall(charged: Q, minimum: Decimal) -> Q:
    """What raises a month's charges to the provider's minimum (Storj's $5): 0 when they reach it."""
    return maximum(scalar(charged, minimum) - charged, scalar(charged, 0))


def in_usd(amount: Q, usd_per_unit: Decimal | None) -> Q:
    """An amount in a table's currency in US dollars at its rate (None: the table is in USD)."""
    if usd_per_unit is None:
        return amount
    return amount * scalar(amount, usd_per_unit)
