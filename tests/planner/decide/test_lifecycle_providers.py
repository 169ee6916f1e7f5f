"""Lifecycle rules of the providers beyond S3 and R2 (``pricing/lifecycle_rules/<provider>.yaml``), and a GCS policy
priced month by month by hand.

GCS prices (gcs table of 2026-09-20, us-central1; GiB = 2^30): Standard $0.020 per GiB-month with 5 GiB free
(Always Free), Class B $0.0004 per 1,000 with 50,000 free; Nearline $0.010 per GiB-month, 30-day minimum,
Class A (which lists lifecycle-transition) $0.01 per 1,000, Class B $0.001 per 1,000, retrieval $0.01 per GiB
(transcription of https://cloud.google.com/storage/pricing read 2026-09-20; Nearline's operations from
oneuptime.com 2026-02-17). Lines round to the cent.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from planner.costing.lifecycle_bills import price_lifecycle
from planner.errors import InputError
from planner.pricing import catalog
from planner.pricing.transition_rules import lifecycle_rules
from planner.workload import parse_workload

D = Decimal
DEC_2026 = dt.date(2026, 12, 1)
PROVIDERS = ["gcs", "azure-blob", "tigris", "scaleway", "oci", "backblaze-b2", "wasabi", "idrive-e2"]


def _bucket(rules: list[dict[str, Any]], **traffic: Any) -> Any:
    # 1,000 GiB of 1 MiB objects (1,024,000), written in the month before the policy starts
    return parse_workload(
        {
            "name": "archive",
            "storage": {"stored": "1000 GiB", "object_size": "1 MiB", "age": {"0-30d": "100%"}, "lifecycle": rules},
            "traffic": {"writes": 0, "reads": 0, **traffic},
        }
    )


def _lines(cost: Any, month: int) -> dict[str, Decimal]:
    return {i.description: i.amount_usd for i in cost.months[month - 1].line_items if i.amount_usd}


def test_gcs_standard_then_nearline_at_30_days_over_12_months() -> None:
    workload = _bucket([{"after": "30d", "to": "nearline"}], reads=10000, internal_reads="10 GiB")
    cost = price_lifecycle(workload, "gcs", as_of=DEC_2026, months=12)
    assert cost.rules_version == "gcs lifecycle rules of 2026-09-20 (verified-secondary)"
    # Month 1 (ages 0-30d), Standard: (1,000 - 5 free) GiB x $0.020 = $19.90; 10,000 GETs within the 50,000 free.
    assert _lines(cost, 1) == {"GCS Standard, ages 0-30d: GCS Standard storage": D("19.90")}
    # Month 2, Nearline: 1,000 GiB x $0.010 = $10.00; 1,024,000 SetStorageClass moves x $0.01 / 1,000 = $10.24;
    # 10,000 GETs x $0.001 / 1,000 = $0.01; 10 GiB retrieved x $0.01 = $0.10.
    assert _lines(cost, 2) == {
        "GCS Nearline, ages 30d+: GCS Nearline storage": D("10.00"),
        "GCS Nearline, ages 30d+: class-a requests (lifecycle-transition)": D("10.24"),
        "GCS Nearline, ages 30d+: class-b requests (get)": D("0.01"),
        "GCS Nearline, ages 30d+: GCS Nearline data retrieval (standard)": D("0.10"),
    }
    # Months 3-12: the same without the moves.
    for month in range(3, 13):
        assert _lines(cost, month) == {
            "GCS Nearline, ages 30d+: GCS Nearline storage": D("10.00"),
            "GCS Nearline, ages 30d+: class-b requests (get)": D("0.01"),
            "GCS Nearline, ages 30d+: GCS Nearline data retrieval (standard)": D("0.10"),
        }
    assert cost.month_totals() == [D("19.90"), D("20.35")] + [D("10.11")] * 10
    assert cost.total_usd == D("141.35")


def test_gcs_nearline_at_30_days_then_coldline_at_90() -> None:
    # Coldline (us-central1): $0.004 per GiB-month ($0.000005479 per GiB-hour x 730), 90-day minimum; its Class A
    # rate is what each SetStorageClass into it pays ($0.01 per 1,000 in gcs@2026-09-20, $0.02 from 2026-12-05).
    rules = [{"after": "30d", "to": "nearline"}, {"after": "90d", "to": "coldline"}]
    cost = price_lifecycle(_bucket(rules), "gcs", as_of=DEC_2026, months=5)
    # month 2: Nearline 1,000 GiB x $0.010 = $10.00 and 1,024,000 moves x $0.01 / 1,000 = $10.24
    assert _lines(cost, 2) == {
        "GCS Nearline, ages 30-90d: GCS Nearline storage": D("10.00"),
        "GCS Nearline, ages 30-90d: class-a requests (lifecycle-transition)": D("10.24"),
    }
    # month 4 (ages 90-120d, March 2027, priced by gcs@2026-12-05): Coldline 1,000 GiB x $0.004 = $4.00 and
    # 1,024,000 moves x $0.02 / 1,000 = $20.48 (cloud.google.com/storage/pricing read 2026-12-05: "Coldline
    # storage $0.02" Class A per 1,000, "billed at the Class A operation rate for Coldline storage");
    # the objects spent 60 days in Nearline, past its 30-day minimum: no early deletion
    assert _lines(cost, 4) == {
        "GCS Coldline, ages 90d+: GCS Coldline storage": D("4.00"),
        "GCS Coldline, ages 90d+: class-a requests (lifecycle-transition)": D("20.48"),
    }
    assert cost.month_totals() == [D("19.90"), D("20.24"), D("10.00"), D("24.48"), D("4.00")]


def test_gcs_nearline_left_before_30_days_pays_the_rest() -> None:
    # moved to Nearline at 30 days and expired at 45: 15 of Nearline's 30 days unused, 1,000 GiB x 15/30 x $0.010
    cost = price_lifecycle(
        _bucket([{"after": "30d", "to": "nearline"}, {"after": "45d", "expire": True}]), "gcs", as_of=DEC_2026, months=3
    )
    early = [i for i in cost.months[1].line_items if i.category == "early_deletion"]
    assert [i.amount_usd for i in early] == [D("5.00")]
    # Nearline storage for the 15 days it held them: 500 GiB-months x $0.010
    assert _lines(cost, 2)["GCS Nearline, ages 30-45d: GCS Nearline storage"] == D("5.00")
    assert cost.month_totals()[2] == D("0.00")


def test_gcs_lifecycle_move_out_of_nearline_early_pays_no_early_deletion() -> None:
    # "Early deletion charges do not apply in the following cases: When Object Lifecycle Management changes an
    # object's storage class." (cloud.google.com/storage/pricing, Minimum storage duration, read 2026-12-06).
    # Nearline at 30 days, Coldline at 45: 15 of Nearline's 30 days, and no charge for the other 15. Month 2
    # (January 2027, gcs@2026-12-05): Nearline 1,000 GiB x 15/30 x $0.010 = $5.00; Coldline 1,000 GiB x 15/30 x
    # $0.004 = $2.00; the moves 1,024,000 x $0.01 / 1,000 = $10.24 into Nearline, x $0.02 / 1,000 = $20.48 into
    # Coldline.
    rules: list[dict[str, Any]] = [{"after": "30d", "to": "nearline"}, {"after": "45d", "to": "coldline"}]
    cost = price_lifecycle(_bucket(rules), "gcs", as_of=DEC_2026, months=3)
    assert _lines(cost, 2) == {
        "GCS Nearline, ages 30-45d: GCS Nearline storage": D("5.00"),
        "GCS Nearline, ages 30-45d: class-a requests (lifecycle-transition)": D("10.24"),
        "GCS Coldline, ages 45d+: GCS Coldline storage": D("2.00"),
        "GCS Coldline, ages 45d+: class-a requests (lifecycle-transition)": D("20.48"),
    }
    assert not [i for month in cost.months for i in month.line_items if i.category == "early_deletion"]
    # an expiry is a Delete action, not a change of class: 15 days into Coldline's 90, the other 75 are paid,
    # 1,000 GiB x 75/30 x $0.004 = $10.00
    cost = price_lifecycle(_bucket([*rules, {"after": "60d", "expire": True}]), "gcs", as_of=DEC_2026, months=3)
    early = [i.amount_usd for month in cost.months for i in month.line_items if i.category == "early_deletion"]
    assert early == [D("10.00")]


def test_azure_tier_move_out_of_cool_early_still_pays_the_rest() -> None:
    # "A blob in the cool tier in a general-purpose v2 account is subject to an early deletion penalty if it's
    # deleted or moved to a different tier before 30 days has elapsed." (learn.microsoft.com access-tiers-overview,
    # MicrosoftDocs/azure-docs). Moved to Archive at 15 of Cool's 30 days: the other 15 are paid, 1,000 GiB =
    # 1,073.741824 GB x 15/30 x $0.0152 (Cool LRS per GB-month, azure-blob@2026-12-05) = $8.16, as much as the 15
    # days of Cool storage.
    rules = [{"after": "30d", "to": "cool"}, {"after": "45d", "to": "archive"}]
    cost = price_lifecycle(_bucket(rules), "azure-blob", as_of=DEC_2026, months=3)
    month = _lines(cost, 2)
    early = [i.amount_usd for i in cost.months[1].line_items if i.category == "early_deletion"]
    assert early == [month["Azure Cool (LRS), ages 30-45d: Azure Cool (LRS) storage, first 51,200 GB-month"]]
    assert early == [D("8.16")]
    assert lifecycle_rules("azure-blob", DEC_2026).early_deletion_on_move
    assert not lifecycle_rules("gcs", DEC_2026).early_deletion_on_move


@pytest.mark.parametrize("provider", PROVIDERS)
def test_each_rules_file_names_only_the_classes_its_table_prices(provider: str) -> None:
    rules = lifecycle_rules(provider, DEC_2026)
    table = catalog.table_for(provider, DEC_2026, None)
    assert rules.sources and rules.classes_by_warmth
    assert set(rules.classes_by_warmth) <= set(table.classes), sorted(set(rules.classes_by_warmth) - set(table.classes))
    for source, targets in rules.transitions.items():
        assert all(rules.warmer(source, target) for target in targets), (source, targets)


@pytest.mark.parametrize(
    ("provider", "start", "rules", "message"),
    [
        (
            "azure-blob",
            "hot",
            [{"after": "30d", "to": "archive"}, {"after": "60d", "to": "cool"}],
            "storage.lifecycle[1].to: cool is warmer than archive, where the objects are by then: azure-blob lifecycle"
            " rules move objects only to colder classes",
        ),
        (
            "tigris",
            "standard",
            [{"after": "30d", "to": "infrequent-access"}, {"after": "90d", "to": "archive"}],
            "storage.lifecycle[1].to: tigris lifecycle rules do not move objects from infrequent-access to archive"
            " (from infrequent-access: none; https://tigrisdata.com/docs/buckets/object-lifecycle-rules",
        ),
        (
            "scaleway",
            "standard",
            [{"after": "10d", "to": "onezone-ia"}],
            "storage.lifecycle[0].after: 10d is earlier than scaleway allows: objects move to onezone-ia at 30 days"
            " at the earliest",
        ),
        (
            "oci",
            "standard",
            [{"after": "30d", "to": "archive"}, {"after": "60d", "to": "infrequent-access"}],
            "storage.lifecycle[1].to: infrequent-access is warmer than archive",
        ),
        (
            "wasabi",
            "standard",
            [{"after": "30d", "to": "archive"}],
            "storage.lifecycle[0].to: 'archive' is not a storage class of wasabi@2026-07-01",
        ),
    ],
)
def test_a_move_the_provider_does_not_make_is_one_line_naming_the_rule(
    provider: str, start: str, rules: list[dict[str, Any]], message: str
) -> None:
    with pytest.raises(InputError) as caught:
        price_lifecycle(_bucket(rules), provider, start_class=start, as_of=DEC_2026, months=1)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_scaleway_allowed_one_zone_at_10_days_before_april_2026() -> None:
    cost = price_lifecycle(_bucket([{"after": "10d", "to": "onezone-ia"}]), "scaleway", as_of=dt.date(2026, 1, 1))
    assert cost.rules_version == "scaleway lifecycle rules of 2019-05-14 (verified-primary)"
    # Scaleway includes requests in its prices: the table prices no transition, and the bill says so
    assert cost.warnings[0].startswith("scaleway@2025-04-02 onezone-ia: the table prices no lifecycle transition")


@pytest.mark.parametrize(("provider", "since"), [("backblaze-b2", "2015-09-22"), ("wasabi", "2017-07-01")])
def test_single_class_providers_only_expire(provider: str, since: str) -> None:
    rules = lifecycle_rules(provider, DEC_2026)
    assert rules.transitions == {}
    cost = price_lifecycle(_bucket([{"after": "60d", "expire": True}]), provider, as_of=DEC_2026, months=3)
    assert cost.rules_version == f"{provider} lifecycle rules of {since} (verified-primary)"
    assert cost.months[2].stored_bytes == 0
