"""The storage part of a bill: the stored bytes (by access tier), what is billed with them (minimum
object size, per-object overhead, monitoring, minimum billable storage), early deletion before a
class's minimum duration, and replication to more regions.
"""

from __future__ import annotations

from decimal import Decimal

from planner.errors import PricingError
from planner.pricing import rules
from planner.pricing.bill_lines import ZERO, _BillLines, _number
from planner.pricing.usage import SizeBin


class _StorageLines(_BillLines):
    """Storage lines: what the stored bytes and objects cost this month."""

    def object_bins(self) -> list[SizeBin] | None:
        """The stored objects as a size histogram, or None when the usage gives no count."""
        usage = self.usage
        if usage.object_sizes is not None:
            return list(usage.object_sizes)
        if usage.object_count:
            mean = usage.stored_bytes // usage.object_count
            return [SizeBin(bytes=mean, count=usage.object_count)]
        return None

    def access_shares(self) -> dict[str, Decimal]:
        """Shares of the monitored bytes in each extra access tier: as given, or placed from how long data goes unread.

        An object moves into a tier after ``access_tier_after_days`` without a read, so a tier holds the
        data unread for at least its days but not for the next tier's. The unread share for N days is
        the workload's figure for the shortest period of at least N days it gives (0 when none): a lower
        bound on the data that has moved, never an overstatement of the saving.
        """
        usage, sc = self.usage, self.storage_class
        if usage.access_tier_shares or not usage.unread_shares or not sc.access_tier_after_days:
            return dict(usage.access_tier_shares)

        def unread(days: int) -> Decimal:
            longer = [d for d in usage.unread_shares if d >= days]
            return usage.unread_shares[min(longer)] if longer else ZERO

        ordered = sorted(sc.access_tier_after_days.items(), key=lambda item: item[1])
        shares: dict[str, Decimal] = {}
        for index, (tier_id, days) in enumerate(ordered):
            colder = unread(ordered[index + 1][1]) if index + 1 < len(ordered) else ZERO
            share = unread(days) - colder
            if share > 0:
                shares[tier_id] = share
        return shares

    def storage(self) -> None:
        """Storage and what is billed with it, line by line in this order: the stored bytes (by access
        tier where the class has tiers), the minimum billable object size, per-object overhead,
        monitoring and the minimum billable storage."""
        sc, usage = self.storage_class, self.usage
        bins = self.object_bins()
        needs_objects = sc.min_object_bytes or sc.object_overhead or sc.monitoring
        if needs_objects and bins is None and usage.stored_bytes:
            self.warnings.append(
                f"{sc.name}: no object count given, so per-object charges (minimum object size, "
                "overhead, monitoring) are left out"
            )
        self._stored_bytes(bins)
        padding = ZERO
        if bins is not None:
            padding = self._minimum_object_size(bins)
            self._object_overhead(bins)
            self._access_tier_overhead(bins)
            self._monitoring(bins)
        self._minimum_storage(Decimal(usage.stored_bytes) + padding)

    def _stored_bytes(self, bins: list[SizeBin] | None) -> None:
        """The stored bytes; in a class with extra access tiers (Intelligent-Tiering), each tier's share
        of the monitored objects' bytes at its price and the rest as frequent access."""
        sc, usage = self.storage_class, self.usage
        price = sc.storage
        unit_bytes = Decimal(price.unit_bytes)
        stored = Decimal(usage.stored_bytes)
        tier_bytes: dict[str, Decimal] = {}
        if sc.access_tiers:
            eligible = stored
            if sc.monitoring and bins is not None:
                eligible = Decimal(sum(b.bytes * b.count for b in bins if b.bytes >= sc.monitoring.min_object_bytes))
            for tier_id, share in self.access_shares().items():
                if tier_id not in sc.access_tiers:
                    raise PricingError(
                        f"{self.table.version} {self.storage_class_id}: no access tier {tier_id!r} "
                        f"(tiers: {', '.join(sc.access_tiers)})"
                    )
                tier_bytes[tier_id] = eligible * share
        elif usage.access_tier_shares:
            raise PricingError(f"{self.table.version} {self.storage_class_id} has no access tiers")
        frequent = stored - sum(tier_bytes.values(), ZERO)
        label = f"{sc.name} storage" + (" (frequent access)" if sc.access_tiers else "")
        hourly_free = (price.free_per_hour or ZERO) * self.hours
        self.tiered(
            "storage",
            label + self.period_note,
            price,
            frequent / unit_bytes * self.storage_scale,
            path=f"{self.class_path}.storage",
            extra_free=hourly_free,
        )
        for tier_id, tier_b in tier_bytes.items():
            if tier_b > 0:
                self.add(
                    "storage",
                    f"{sc.name} storage ({tier_id} access)",
                    self.round(tier_b / unit_bytes * self.storage_scale),
                    price.unit,
                    sc.access_tiers[tier_id],
                    self.status(price.status),
                    field=f"{self.class_path}.access_tiers.{tier_id}",
                    quote=sc.quotes.get(f"access_tiers.{tier_id}"),
                )

    def _minimum_object_size(self, bins: list[SizeBin]) -> Decimal:
        """Objects under the class's minimum billable size billed as that size; the bytes it adds."""
        sc = self.storage_class
        price = sc.storage
        if not sc.min_object_bytes:
            return ZERO
        small = [b for b in bins if b.bytes < sc.min_object_bytes and b.count]
        padding = sum(
            (rules.padding_bytes(Decimal(b.bytes), Decimal(b.count), sc.min_object_bytes) for b in bins), ZERO
        )
        if padding > 0:
            count = sum(b.count for b in small)
            self.add(
                "minimum",
                f"minimum billable object size: {count:,} objects under {sc.min_object_bytes:,} bytes "
                "billed as that size",
                rules.units_of(padding * self.storage_scale, price.unit_bytes, self.table.billing.round_up),
                price.unit,
                price.tiers[0].price,
                self.status(price.status),
                field=self.first_tier_field,
                quote=price.tiers[0].quote,
            )
        return padding

    def _object_overhead(self, bins: list[SizeBin]) -> None:
        """Glacier's per-object overhead: bytes at the class's own rate and bytes at a standard rate."""
        sc = self.storage_class
        overhead = sc.object_overhead
        objects = sum(b.count for b in bins)
        if overhead is None or not objects:
            return
        price = sc.storage
        status = self.status(overhead.status)
        self.add(
            "storage",
            f"per-object overhead: {objects:,} objects x {overhead.class_rate_bytes:,} bytes at {sc.name} rate",
            self.round(Decimal(objects * overhead.class_rate_bytes) / Decimal(price.unit_bytes) * self.storage_scale),
            price.unit,
            price.tiers[0].price,
            status,
            field=self.first_tier_field,
            quote=price.tiers[0].quote,
        )
        standard = self.table.classes[overhead.standard_rate_class].storage
        self.on_standard_tiers(
            "storage",
            f"per-object overhead: {objects:,} objects x {overhead.standard_rate_bytes:,} bytes",
            overhead.standard_rate_class,
            Decimal(objects * overhead.standard_rate_bytes) / Decimal(standard.unit_bytes) * self.storage_scale,
            status,
        )

    def _access_tier_overhead(self, bins: list[SizeBin]) -> None:
        """The per-object overhead of the objects in an access tier that has one (S3 Intelligent-Tiering's
        Archive Access and Deep Archive Access: "8 KB ... billed at S3 Standard storage rates and 32 KB ...
        billed at S3 Glacier Flexible Retrieval and S3 Glacier Deep Archive storage rates"). A tier holds its
        share of the monitored objects, as of their bytes: every monitored object alike."""
        sc = self.storage_class
        if not sc.access_tier_overhead:
            return
        least = sc.monitoring.min_object_bytes if sc.monitoring is not None else 0
        monitored = Decimal(sum(b.count for b in bins if b.bytes >= least))
        price = sc.storage
        for tier_id, share in self.access_shares().items():
            overhead = sc.access_tier_overhead.get(tier_id)
            objects = monitored * share
            if overhead is None or not objects:
                continue
            status = self.status(overhead.status)
            count = _number(self.round(objects))
            self.add(
                "storage",
                f"per-object overhead: {count} objects in the {tier_id} access tier x"
                f" {overhead.class_rate_bytes:,} bytes at its rate",
                self.round(objects * overhead.class_rate_bytes / Decimal(price.unit_bytes) * self.storage_scale),
                price.unit,
                sc.access_tiers[tier_id],
                status,
                field=f"{self.class_path}.access_tiers.{tier_id}",
                quote=sc.quotes.get(f"access_tiers.{tier_id}"),
            )
            standard = self.table.classes[overhead.standard_rate_class].storage
            self.on_standard_tiers(
                "storage",
                f"per-object overhead: {count} objects in the {tier_id} access tier x"
                f" {overhead.standard_rate_bytes:,} bytes",
                overhead.standard_rate_class,
                objects * overhead.standard_rate_bytes / Decimal(standard.unit_bytes) * self.storage_scale,
                status,
            )

    def _monitoring(self, bins: list[SizeBin]) -> None:
        """Intelligent-Tiering's monitoring and automation charge, per object large enough to monitor."""
        monitoring = self.storage_class.monitoring
        if monitoring is None:
            return
        least = monitoring.min_object_bytes
        monitored = sum((rules.monitored_objects(Decimal(b.bytes), Decimal(b.count), least) for b in bins), ZERO)
        if monitored:
            self.add(
                "storage",
                f"monitoring and automation: {monitored:,} objects of at least {least:,} bytes",
                rules.units_of(monitored, monitoring.per, self.table.billing.round_up),
                f"{monitoring.per:,} objects",
                monitoring.price,
                self.status(monitoring.status),
                field=f"{self.class_path}.monitoring.price",
                quote=monitoring.quote,
            )

    def _minimum_storage(self, billed_bytes: Decimal) -> None:
        """The shortfall below the class's minimum billable storage (Wasabi's and IDrive e2's 1 TB)."""
        sc = self.storage_class
        price = sc.storage
        if not sc.minimum_billable_bytes:
            return
        shortfall = rules.shortfall_bytes(billed_bytes, sc.minimum_billable_bytes)
        if shortfall > 0:
            self.add(
                "minimum",
                f"minimum billable storage of {_number(sc.minimum_billable_bytes / Decimal(price.unit_bytes))} "
                f"{price.unit}: the shortfall",
                rules.units_of(shortfall * self.storage_scale, price.unit_bytes, self.table.billing.round_up),
                price.unit,
                price.tiers[0].price,
                self.status(price.status),
                field=self.first_tier_field,
                quote=price.tiers[0].quote,
            )

    def early_deletion(self) -> None:
        """Objects deleted before the class's minimum duration pay for the remaining days.

        In a class with a minimum billable object size, a smaller object's remaining days are billed
        on the padded size, as its storage is: AWS meters that part separately (usage types
        EarlyDelete-SIA-SmObjects, EarlyDelete-ZIA-SmObjects, EarlyDelete-GIR-SmObjects: "prorated
        storage usage for small objects (smaller than 128 KB) ... deleted before the minimum").
        A deletion gives bytes and an object count; the objects are taken as all of the mean size.
        """
        sc = self.storage_class
        if not sc.min_duration_days:
            return
        month_days = Decimal(self.month_days)
        price = sc.storage
        hourly = rules.hourly_scale(price.per_hour, self.month_days)  # an hourly price bills the month's hours
        for deletion in self.usage.deletions:
            age = Decimal(str(deletion.age_days))
            remaining = Decimal(sc.min_duration_days) - age
            days = self.month_days
            round_up = self.table.billing.round_up
            if remaining <= 0 or deletion.bytes == 0:
                continue
            when = (
                f"deleted at {_number(age)} days, before the {sc.min_duration_days}-day minimum; "
                f"{_number(remaining)} remaining days over a {month_days}-day month"
            )
            status = self.status(price.status)
            self.add(
                "early_deletion",
                f"{sc.name}: {when}",
                rules.early_deletion_units(Decimal(deletion.bytes), price.unit_bytes, remaining, days, round_up)
                * hourly,
                price.unit,
                price.tiers[0].price,
                status,
                field=self.first_tier_field,
                quote=price.tiers[0].quote,
            )
            padded = deletion.objects * sc.min_object_bytes
            if sc.min_object_bytes and padded > deletion.bytes:
                self.add(
                    "early_deletion",
                    f"{sc.name}: small objects padded to {sc.min_object_bytes:,} bytes, {when} "
                    f"({deletion.objects:,} objects averaging {_number(Decimal(deletion.bytes) / deletion.objects)} "
                    "bytes)",
                    rules.early_deletion_units(
                        Decimal(padded - deletion.bytes), price.unit_bytes, remaining, days, round_up
                    )
                    * hourly,
                    price.unit,
                    price.tiers[0].price,
                    status,
                    field=self.first_tier_field,
                    quote=price.tiers[0].quote,
                )

    def replication(self) -> None:
        """The class's storage billed again in each region it is replicated to beyond the first."""
        replication, usage = self.storage_class.replication, self.usage
        if replication is None or not usage.replica_regions or not usage.stored_bytes:
            return
        stored_units = Decimal(usage.stored_bytes) / Decimal(replication.unit_bytes)
        self.add(
            "storage",
            f"{self.storage_class.name} replication to {usage.replica_regions} more region"
            f"{'' if usage.replica_regions == 1 else 's'}",
            self.round(rules.replicated_units(stored_units, usage.replica_regions)),
            replication.unit,
            replication.price,
            self.status(replication.status),
            field=f"{self.class_path}.replication.price",
            quote=replication.quote,
        )
