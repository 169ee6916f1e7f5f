"""The requests part of a bill: requests by request class after their free allowances, free
operations, and per-GB charges on the bytes requests carry (S3 Express One Zone).
"""

from __future__ import annotations

from decimal import Decimal

from planner.errors import PricingError
from planner.pricing import rules
from planner.pricing.bill_lines import ZERO, _BillLines


class _RequestLines(_BillLines):
    """Request lines: operations billed by request class, and request payload."""

    def requests(self) -> None:
        sc = self.storage_class
        by_class: dict[str, int] = {}
        free_ops: dict[str, int] = {}
        owner = {op: rc.id for rc in sc.requests for op in rc.operations}
        for op, count in self.usage.requests.items():
            if count == 0:
                continue
            if op in sc.free_operations:
                free_ops[op] = free_ops.get(op, 0) + count
            elif op in owner:
                by_class[owner[op]] = by_class.get(owner[op], 0) + count
            else:
                raise PricingError(
                    f"{self.table.version} {self.storage_class_id}: operation {op!r} is not priced and not free"
                )
        for op, count in free_ops.items():
            self.add("requests", f"{op} requests: free", Decimal(count), "requests", ZERO, self.status())
        month_days = self.month_days
        for index, rc in enumerate(sc.requests):
            count = by_class.get(rc.id, 0)
            if not count:
                continue
            status = self.status(rc.status)
            unit = f"{rc.per:,} requests"
            used = self.usage.request_allowance_used.get(rc.id, 0) if rc.free_shared else 0
            days = self.usage.request_days
            free = min(count, rules.request_allowance(rc, month_days, used, days))
            if rc.free_shared and free:
                self.allowance_taken[rc.id] = free
            if free:
                how = f"{rc.free_per_day:,} a day" if rc.free_per_day else f"{rc.free_per_month:,} a month"
                if rc.free_per_day and days is not None and days < month_days:
                    how += f" on the {days} day{'s' if days != 1 else ''} with requests"
                if used:
                    how += f", {used:,} of them taken by the account's other classes"
                self.add(
                    "free_allowance",
                    f"{rc.id} requests: free allowance ({how})",
                    Decimal(free) / rc.per,
                    unit,
                    ZERO,
                    status,
                )
            billable = rules.request_units(Decimal(count), rc, month_days, self.table.billing.round_up, used, days)
            if billable > 0:
                ops = ", ".join(op for op in rc.operations if self.usage.requests.get(op))
                self.add(
                    "requests",
                    f"{rc.id} requests ({ops})",
                    billable,
                    unit,
                    rc.price,
                    status,
                    field=f"{self.class_path}.requests.{index}.price",
                    quote=rc.quote,
                )

    def request_payload(self) -> None:
        """Charges per unit of the bytes requests carry (S3 Express One Zone's upload and retrieval per GB)."""
        payload, usage = self.storage_class.request_payload, self.usage
        if payload is None:
            return
        status = self.status(payload.status)
        round_up = self.table.billing.round_up
        for what, count, price in (
            ("upload", usage.upload_bytes, payload.upload),
            ("retrieval", usage.retrieval_bytes, payload.retrieval),
        ):
            if count:
                units = rules.units_of(Decimal(count), payload.unit_bytes, round_up)
                self.add(
                    "requests",
                    f"{self.storage_class.name} {what} per {payload.unit} of request payload",
                    units,
                    payload.unit,
                    price,
                    status,
                    field=f"{self.class_path}.request_payload.{what}",
                    quote=payload.quote,
                )
