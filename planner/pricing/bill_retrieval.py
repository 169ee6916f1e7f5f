"""The data-out part of a bill: retrieval fees of classes that charge for reads, the temporary copy a
restore makes of an archived object, internet egress after its allowances (and the free-egress
policy's limit), and inter-region transfer.
"""

from __future__ import annotations

from decimal import Decimal

from planner.errors import PricingError
from planner.pricing import rules
from planner.pricing.bill_lines import _BillLines, _number
from planner.pricing.breakdown import PolicyBreach
from planner.units import format_bytes


class _RetrievalLines(_BillLines):
    """Retrieval, restored-copy, egress and transfer lines."""

    def retrieval(self) -> None:
        sc, usage = self.storage_class, self.usage
        if sc.retrieval is None or not (usage.retrieval_bytes or usage.retrieval_requests):
            return
        name = usage.retrieval_option or sc.retrieval.default
        if name not in sc.retrieval.options:
            raise PricingError(
                f"{self.table.version} {self.storage_class_id}: no retrieval option {name!r} "
                f"(options: {', '.join(sc.retrieval.options)})"
            )
        option = sc.retrieval.options[name]
        status = self.status(option.status)
        if usage.retrieval_bytes:
            quantity = rules.units_of(
                Decimal(usage.retrieval_bytes), sc.retrieval.unit_bytes, self.table.billing.round_up
            )
            self.add(
                "retrieval",
                f"{sc.name} data retrieval ({name})",
                quantity,
                sc.retrieval.unit,
                option.per_gb,
                status,
                field=f"{self.class_path}.retrieval.options.{name}.per_gb",
                quote=option.quote,
            )
        if usage.retrieval_requests and option.per_1000_requests:
            self.add(
                "retrieval",
                f"{sc.name} retrieval requests ({name})",
                rules.units_of(Decimal(usage.retrieval_requests), 1000, self.table.billing.round_up),
                "1,000 requests",
                option.per_1000_requests,
                status,
                field=f"{self.class_path}.retrieval.options.{name}.per_1000_requests",
                quote=option.quote,
            )

    def restored_copies(self) -> None:
        """The temporary copy each restore of an archived object makes, billed at the table's restored-copy
        class's storage price (S3 Standard) for the days it is kept, over the month: the bytes restored are
        the bytes read from the class (``retrieval_bytes``), each copy kept ``restored_copy_days``."""
        usage, table = self.usage, self.table
        if not table.restore_required(self.storage_class_id) or not usage.retrieval_bytes:
            return
        rule = table.limits.restored_copy
        if rule is None:
            self.warnings.append(
                f"{self.storage_class.name}: the temporary copy each restore makes is not priced ({table.version}"
                " states no price for it)"
            )
            return
        days = usage.restored_copy_days
        if not days:
            return
        price = table.classes[rule.storage_class].storage
        units = Decimal(usage.retrieval_bytes) / Decimal(price.unit_bytes) * days / Decimal(self.month_days)
        self.on_standard_tiers(
            "storage",
            f"restored copies: {format_bytes(usage.retrieval_bytes)} kept {_number(days)} day"
            f"{'' if days == 1 else 's'} of a {self.month_days}-day month",
            rule.storage_class,
            units,
            rule.status,
        )

    def egress(self) -> None:
        egress_rules, usage = self.table.egress_for(self.storage_class_id), self.usage
        price = egress_rules.internet
        unit_bytes = Decimal(price.unit_bytes)
        quantity = Decimal(usage.egress_bytes) / unit_bytes
        stored_units = Decimal(usage.stored_bytes) / unit_bytes
        multiple = egress_rules.fair_use_multiple_of_storage
        if multiple is not None and rules.exceeds_multiple(quantity, multiple, stored_units):
            statement = (
                f"{self.table.provider_name}: egress of {format_bytes(usage.egress_bytes)} exceeds "
                f"{_number(multiple)}x the stored {format_bytes(usage.stored_bytes)}; "
                "the free-egress policy allows no more, and sustained excess may be limited or suspended"
            )
            self.breaches.append(
                PolicyBreach(
                    policy="free-egress",
                    used_bytes=usage.egress_bytes,
                    limit_bytes=int(multiple * usage.stored_bytes),
                    limit_multiple_of_storage=multiple,
                    stored_bytes=usage.stored_bytes,
                    statement=statement,
                )
            )
            self.warnings.append(statement)
        if quantity == 0:
            return
        used_elsewhere = min(Decimal(usage.egress_allowance_used_bytes) / unit_bytes, price.free_per_month)
        extra = rules.egress_extra_free(egress_rules, stored_units, self.month_days, used_elsewhere)
        labels = []
        if egress_rules.free_multiple_of_storage:
            labels.append(f"{_number(egress_rules.free_multiple_of_storage)}x average stored")
        if egress_rules.free_per_day:
            labels.append(f"{_number(egress_rules.free_per_day)} {price.unit} a day")
        if price.free_per_month:
            labels.append(f"{_number(price.free_per_month)} {price.unit} a month")
        own = self.storage_class.egress is not None
        self.tiered(
            "egress",
            "internet egress",
            price,
            quantity,
            path=f"{self.class_path}.egress.internet" if own else "egress.internet",
            extra_free=extra,
            free_label="free allowance" + (f" ({', '.join(labels)})" if labels else ""),
        )

    def transfer(self) -> None:
        usage, egress_rules = self.usage, self.table.egress
        if not usage.inter_region_bytes:
            return
        if egress_rules.inter_region is None:
            self.warnings.append(f"{self.table.provider_name} publishes no inter-region transfer price; none charged")
            return
        price = egress_rules.inter_region
        self.tiered(
            "transfer",
            "inter-region transfer",
            price,
            Decimal(usage.inter_region_bytes) / Decimal(price.unit_bytes),
            path="egress.inter_region",
        )
