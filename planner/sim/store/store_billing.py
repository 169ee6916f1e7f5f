"""What an ``ObjectStore`` is billed for beyond its requests, and its bill: the restores of an archive
class's objects (retrieval requests and bytes) and the month of usage the cost engine prices.

``StoreBilling`` is a mixin of ``ObjectStore`` holding these rarely called methods; no request's path
goes through it.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import simpy

from planner.costing.bills import price_table
from planner.errors import InputError, a_day, real_number
from planner.pricing.billing import bill
from planner.pricing.breakdown import CostBreakdown
from planner.pricing.models import ErrorResponses
from planner.pricing.usage import Usage
from planner.sim.model import ProviderModel, error_billing
from planner.sim.store.store_records import MAX_TIME_S, Recorder

MAX_SCALE = 1e12
"""the largest ``scale`` a bill or usage takes (a month of a run of 3 microseconds)"""

__all__ = ["StoreBilling"]


class _Unset:
    """No argument given (None is one: a rule not stated)."""


_UNSET = _Unset()


def _usage_arguments(scale: Any, stored_bytes: Any, egress: Any) -> None:
    """Refuse, in one line naming it, a scale that is not a finite number of 0 or more, stored bytes that are
    not a whole number of 0 or more, an egress that is not True or False."""
    real_number(scale, "scale", low=0.0, high=MAX_SCALE, what="a scale")
    if stored_bytes is not None and (
        isinstance(stored_bytes, bool) or not isinstance(stored_bytes, int) or stored_bytes < 0
    ):
        raise InputError(
            f"stored_bytes {stored_bytes!r}: give a whole number of bytes of 0 or more", field="stored_bytes"
        )
    if not isinstance(egress, bool):
        raise InputError(f"egress {egress!r}: give True or False", field="egress")


class StoreBilling:
    """``ObjectStore``'s restores and bill (the store sets the attributes below)."""

    env: simpy.Environment
    model: ProviderModel
    storage_class: str
    archive: bool
    objects: dict[Any, int]
    restored: set[Any]
    recorder: Recorder

    def restore(self, key: str | int, *, ready_after_s: float) -> simpy.Event:
        """Restore an archived object: readable ``ready_after_s`` later (the restore tier's time, which
        the profile does not measure); billed as a retrieval request and its bytes."""
        if not self.archive:
            raise InputError(f"restore {key!r}: {self.storage_class} objects are read without a restore", field="key")
        ready_after_s = real_number(ready_after_s, "ready_after_s", low=0.0, high=MAX_TIME_S, what="a delay in seconds")
        if isinstance(key, bool) or not isinstance(key, str | int):
            raise InputError(f"restore {key!r}: a key is a string or a whole number", field="key")
        size = self.objects.get(key, 0)
        self.recorder.restores += 1
        self.recorder.restored_bytes += size
        restored = self.restored
        event = self.env.timeout(ready_after_s, key)
        event.callbacks.append(lambda _: restored.add(key))
        return event

    def usage(
        self,
        *,
        scale: float = 1.0,
        stored_bytes: int | None = None,
        egress: bool = True,
        error_responses: ErrorResponses | _Unset | None = _UNSET,
    ) -> Usage:
        """The month ``cost`` prices: the requests billed and bytes read so far times ``scale`` (e.g.
        ``planner.workload.MONTH_S / env.now`` for a month of this load), the bytes stored now (or
        ``stored_bytes``), reads as egress unless ``egress`` is False, restores as retrievals. Requests
        billed: every attempt less the error answers the provider does not bill, as ``error_responses``
        (default the model's, from its price table; None: not stated, every attempt billed) says."""
        _usage_arguments(scale, stored_bytes, egress)
        recorder = self.recorder
        rule = self.model.error_responses if isinstance(error_responses, _Unset) else error_responses
        requests = {op: round(n * scale) for op, n in recorder.billed_under(rule).items()}
        return Usage(
            stored_bytes=sum(self.objects.values()) if stored_bytes is None else stored_bytes,
            object_count=len(self.objects),
            requests=requests,
            egress_bytes=round(recorder.read_bytes * scale) if egress else 0,
            retrieval_requests=round(recorder.restores * scale),
            retrieval_bytes=round(recorder.restored_bytes * scale),
        )

    def bill(
        self,
        *,
        provider: str | None = None,
        as_of: dt.date | None = None,
        prices: Path | None = None,
        region: str | None = None,
        scale: float = 1.0,
        stored_bytes: int | None = None,
        egress: bool = True,
    ) -> CostBreakdown:
        """``usage`` priced by the cost engine (``planner cost``'s line items): ``provider``'s table in force
        on ``as_of`` (default the model's provider, today), or an override file ``prices``."""
        _usage_arguments(scale, stored_bytes, egress)
        as_of = a_day(as_of, "as_of")
        for name, value in (("provider", provider), ("region", region)):
            if value is not None and (not isinstance(value, str) or not value):
                raise InputError(f"{name} {value!r}: give a name", field=name)
        if prices is not None and not isinstance(prices, str | Path):
            raise InputError(f"prices {prices!r}: give the price file's path", field="prices")
        day = as_of or dt.date.today()
        table = price_table(provider or self.model.provider_id, day, prices, region)
        rule = table.billing.error_responses
        usage = self.usage(scale=scale, stored_bytes=stored_bytes, egress=egress, error_responses=rule)
        priced = bill(table, self.storage_class, usage, as_of=day)
        errors = sum(self.recorder.error_attempts.values())
        if not errors:
            return priced
        unbilled = self.recorder.unbilled_errors(rule)
        said = (
            f"{errors:,} error answer(s) so far, {unbilled:,} of them not billed; {error_billing(rule)}"
            f" ({table.version})"
        )
        return priced.model_copy(update={"assumptions": [*priced.assumptions, said]})
