"""Lifecycle policies priced month by month (planner.costing.lifecycle_bills), each figure computed by hand.

Prices (aws-s3 table of 2025-12-01 as in force on 2026-12-01 and 2026-01-01, cloudflare-r2 of 2024-01-01):
S3 Standard $0.023/GB-month (GB = 2^30), Standard-IA $0.0125 (30-day minimum, 128 KiB minimum object),
transitions into Standard-IA and Intelligent-Tiering $0.01 per 1,000, into Deep Archive $0.05 per 1,000;
Deep Archive $0.00099 (180-day minimum, 32 KiB per object at its rate + 8 KiB at Standard's, restores $0.02/GB
+ $0.10 per 1,000); Intelligent-Tiering monitoring $0.0025 per 1,000 objects of 128 KiB or more, infrequent
tier $0.0125 after 30 days unread; AWS lines under a cent bill as $0.01.
R2 Standard $0.015/GB-month (GB = 10^9, 10 GB free), Infrequent Access $0.01, its Class A $9.00 and Class B
$0.90 per million, retrieval $0.01/GB; every R2 unit rounds up.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from planner.costing.lifecycle_bills import price_lifecycle
from planner.decide.lifecycle_policy import parse_age_range, propose_lifecycle, sweep_rule_age
from planner.errors import InputError
from planner.workload import Constraints, load_workload, parse_workload
from planner.workload.aging import LifecycleRule
from tests.planner.conftest import EXAMPLES

D = Decimal
DEC_2026 = dt.date(2026, 12, 1)


def _lines(cost: Any, month: int) -> dict[str, Decimal]:
    return {i.description: i.amount_usd for i in cost.months[month - 1].line_items}


def _find(cost: Any, month: int, *words: str) -> Decimal:
    found = [amount for text, amount in _lines(cost, month).items() if all(w in text for w in words)]
    assert len(found) == 1, (words, list(_lines(cost, month)))
    return found[0]


# --------------------------------------------------------------------------- the NixOS shape


def _cache_bucket() -> Any:
    # 10,000,000 objects: 8 M of 160 KiB (monitored, and moved by lifecycle) and 2 M of 8 KiB (never moved),
    # half written in the last 30 days; the bucket sits in Standard-IA today.
    return parse_workload(
        {
            "name": "binary cache",
            "storage": {
                "stored": "1327104000000 B",
                "size_distribution": [{"size": "160 KiB", "share": "80%"}, {"size": "8 KiB", "share": "20%"}],
                "age": {"0-30d": "50%", "30-90d": "50%"},
            },
            "traffic": {"writes": 0, "reads": 0},
        }
    )


def test_intelligent_tiering_costs_more_than_standard_ia_for_a_bucket_of_small_objects() -> None:
    workload = _cache_bucket()
    stay = price_lifecycle(workload, "aws-s3", [], start_class="standard-ia", as_of=DEC_2026, months=12)
    move = price_lifecycle(
        workload,
        "aws-s3",
        [],
        start_class="intelligent-tiering",
        current_class="standard-ia",
        as_of=DEC_2026,
        months=12,
    )
    # Standard-IA: 1,310,720,000,000 + 16,384,000,000 B = 1,235.9619140625 GB x $0.0125 = $15.45, and the 2 M
    # small objects padded by 122,880 B each = 228.8818359375 GB x $0.0125 = $2.86: $18.31 every month.
    assert stay.month_totals() == [D("18.31")] * 12
    first = _lines(move, 1)
    # Intelligent-Tiering, month 1: 8 M objects of 160 KiB move (the 8 KiB ones stay in Standard-IA):
    # 8,000 x $0.01 = $80.00 of transition requests (once), 8,000 x $0.0025 = $20.00 of monitoring, their
    # 1,220.703125 GB at the frequent tier's $0.023 = $28.08; the half that was under 30 days old in Standard-IA
    # pays its 30 remaining days: 610.3515625 GB x $0.0125 = $7.63.
    assert _find(move, 1, "monitoring and automation: 8,000,000 objects") == D("20.00")
    assert _find(move, 1, "lifecycle-transition requests") == D("80.00")
    assert _find(move, 1, "deleted at 0 days, before the 30-day minimum") == D("7.63")
    assert _find(move, 1, "S3 Intelligent-Tiering storage (frequent access)") == D("28.08")
    # the small objects left in Standard-IA: 15.2587890625 GB x $0.0125 = $0.19, padding $2.86
    assert _find(move, 1, "S3 Standard-Infrequent Access storage") == D("0.19")
    assert sum(first.values()) == move.months[0].total_usd == D("138.76")
    # months 2-3: the moved data has gone 30 days unread: infrequent tier 1,220.703125 x $0.0125 = $15.26, and
    # monitoring still $20.00: $38.31 a month; from month 4, 90 days unread, archive instant 1,220.703125 x
    # $0.004 = $4.88: $27.93 a month, still above Standard-IA's $18.31 (the monitoring alone is $20.00)
    assert move.month_totals()[1:] == [D("38.31")] * 2 + [D("27.93")] * 9
    assert move.one_time_usd == D("80.00")
    assert move.total_usd - stay.total_usd == D("138.76") + 2 * D("38.31") + 9 * D("27.93") - 12 * D("18.31")


# --------------------------------------------------------------------------- S3: 30d IA, 180d Deep Archive


def _archive_workload(**extra: Any) -> Any:
    return parse_workload(
        {
            "name": "logs",
            "storage": {
                "stored": "1000 GiB",
                "object_size": "1 MiB",
                "age": {"0-30d": "100%"},
                "lifecycle": [
                    {"after": "30d", "to": "standard-ia"},
                    {"after": "180d", "to": "deep-archive"},
                    {"after": "300d", "expire": True},
                ],
                **extra,
            },
            "traffic": {
                "writes": 0,
                "reads": 1000,
                "egress": "1 GiB",
                "reads_by_age": {"0-30d": "50%", "30-180d": "25%", "180d+": "25%"},
            },
            "performance": {"max_restore": "48h"},
        }
    )


def test_standard_ia_then_deep_archive_over_24_months() -> None:
    cost = price_lifecycle(_archive_workload(), "aws-s3", as_of=dt.date(2026, 1, 1), months=24)
    # 1,000 GB of 1 MiB objects (1,024,000 objects), written in the month before the policy starts.
    # Month 1, S3 Standard: 1,000 x $0.023 = $23.00; 500 GETs (50%) = $0.0002, billed $0.01.
    assert cost.months[0].total_usd == D("23.01")
    # Month 2, Standard-IA: 1,000 x $0.0125 = $12.50; 1,024,000 transitions = 1,024 x $0.01 = $10.24;
    # 250 GETs x $0.001/1,000 and 0.25 GB retrieved x $0.01 bill $0.01 each.
    assert _find(cost, 2, "S3 Standard-Infrequent Access, ages 30-180d", "lifecycle-transition") == D("10.24")
    assert cost.months[1].total_usd == D("22.76")
    assert [m.total_usd for m in cost.months[2:6]] == [D("12.52")] * 4
    # Month 7, Deep Archive: 1,000 x $0.00099 = $0.99; overhead 31.25 GB x $0.00099 = $0.03 and 7.8125 GB at
    # Standard's $0.023 = $0.18; transitions 1,024 x $0.05 = $51.20; 250 restores: 0.25 GB x $0.02 = $0.01 and
    # 0.25 x $0.10 = $0.03; the restored copies 0.25 GB for a day, $0.01; 250 GETs $0.01.
    assert _find(cost, 7, "Deep Archive, ages 180-300d", "lifecycle-transition") == D("51.20")
    assert _find(cost, 7, "retrieval requests (standard)") == D("0.03")
    assert _find(cost, 7, "restored copies") == D("0.01")
    assert cost.months[6].total_usd == D("52.46")
    assert [m.total_usd for m in cost.months[7:10]] == [D("1.26")] * 3
    # Month 11: expired at 300 days, 120 days into Deep Archive's 180: 60 remaining days of 1,000 GB =
    # 2,000 GB-months x $0.00099 = $1.98.
    assert _find(cost, 11, "deleted at 120 days, before the 180-day minimum") == D("1.98")
    assert cost.months[10].total_usd == D("1.98")
    assert [m.total_usd for m in cost.months[11:]] == [D("0.00")] * 13
    assert cost.total_usd == D("23.01") + D("22.76") + 4 * D("12.52") + D("52.46") + 3 * D("1.26") + D("1.98")


# --------------------------------------------------------------------------- R2: Standard to Infrequent Access


def test_r2_standard_to_infrequent_access() -> None:
    workload = parse_workload(
        {
            "name": "media",
            "storage": {
                "stored": "1000 GB",
                "object_size": "10 MB",
                "age": {"0-30d": "100%"},
                "lifecycle": [{"after": "30d", "to": "infrequent-access"}],
            },
            "traffic": {"writes": 0, "reads": 1000, "egress": "100 GB"},
        }
    )
    cost = price_lifecycle(workload, "cloudflare-r2", as_of=DEC_2026, months=3)
    # Month 1, R2 Standard: (1,000 - 10 free) GB x $0.015 = $14.85; the 1,000 GETs are within 10 M free.
    assert cost.months[0].total_usd == D("14.85")
    # Month 2, Infrequent Access: 1,000 GB x $0.01 = $10.00; 100,000 transitions are Class A, 0.1 M rounded up
    # to 1 M x $9.00 = $9.00; 1,000 GETs round up to 1 M x $0.90; 100 GB retrieved x $0.01 = $1.00.
    assert _find(cost, 2, "R2 Infrequent Access, ages 30d+", "class-a") == D("9.00")
    assert _find(cost, 2, "data retrieval") == D("1.00")
    assert cost.months[1].total_usd == D("20.90")
    assert cost.months[2].total_usd == D("11.90")


# --------------------------------------------------------------------------- bad input


def _with_rules(rules: list[dict[str, Any]]) -> Any:
    return parse_workload(
        {"name": "x", "storage": {"stored": "1 TB", "object_size": "1 MB", "lifecycle": rules}}, "w.yaml"
    )


@pytest.mark.parametrize(
    ("rules", "as_of", "message"),
    [
        (
            [{"after": "30d", "to": "infrequent-access"}],
            DEC_2026,
            "storage.lifecycle[0].to: 'infrequent-access' is not a storage class of aws-s3@2025-12-01",
        ),
        (
            [{"after": "30d", "to": "deep-archive"}, {"after": "60d", "to": "standard-ia"}],
            DEC_2026,
            "storage.lifecycle[1].to: standard-ia is warmer than deep-archive, where the objects are by then:"
            " aws-s3 lifecycle rules move objects only to colder classes",
        ),
        (
            [{"after": "10d", "to": "standard-ia"}],
            dt.date(2026, 1, 1),
            "storage.lifecycle[0].after: 10d is earlier than aws-s3 allows: objects move to standard-ia at 30 days"
            " at the earliest",
        ),
        (
            [{"after": "30d", "to": "standard-ia"}, {"after": "40d", "to": "deep-archive"}],
            DEC_2026,
            "storage.lifecycle[1].after: 40d leaves the objects 10 days in standard-ia: aws-s3 moves them on after"
            " 30 days there at the earliest",
        ),
    ],
)
def test_a_policy_the_provider_cannot_run_is_one_line_naming_the_rule(
    rules: list[dict[str, Any]], as_of: dt.date, message: str
) -> None:
    with pytest.raises(InputError) as caught:
        price_lifecycle(_with_rules(rules), "aws-s3", as_of=as_of, months=1)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_standard_ia_at_10_days_is_allowed_since_july_2026() -> None:
    # pricing-research.md, 2026-07-16: transitions to Standard-IA no longer need 30 days of age
    cost = price_lifecycle(_with_rules([{"after": "10d", "to": "standard-ia"}]), "aws-s3", as_of=DEC_2026, months=1)
    assert cost.months[0].total_usd > 0


@pytest.mark.parametrize(
    ("storage", "traffic", "message"),
    [
        ({"age": {"0-30d": "50%", "30d+": "40%"}}, {}, "w.yaml: storage.age: the shares add up to 90%, not 100%"),
        (
            {},
            {"reads_by_age": {"30-90d": "50%", "0-30d": "50%"}},
            "w.yaml: traffic.reads_by_age: '0-30d' comes after '30-90d': ages out of order",
        ),
        (
            {"lifecycle": [{"after": "180d", "to": "deep-archive"}, {"after": "30d", "to": "standard-ia"}]},
            {},
            "w.yaml: storage.lifecycle: rule 1 (after 30d) is not later than rule 0 (after 180d): give the rules in"
            " order of age (ages out of order)",
        ),
        (
            {"lifecycle": [{"after": "400d", "expire": True}, {"after": "500d", "to": "deep-archive"}]},
            {},
            "w.yaml: storage.lifecycle: rule 0 expires the objects: an expiry must be the last rule",
        ),
    ],
)
def test_ages_and_shares_that_do_not_add_up_are_one_line_naming_the_field(
    storage: dict[str, Any], traffic: dict[str, Any], message: str
) -> None:
    with pytest.raises(InputError) as caught:
        parse_workload(
            {"name": "x", "storage": {"stored": "1 TB", "object_size": "1 MB", **storage}, "traffic": traffic},
            "w.yaml",
        )
    assert str(caught.value) == message


def test_a_rule_is_either_a_move_or_an_expiry() -> None:
    assert LifecycleRule.model_validate({"after": "30d", "to": "standard-ia"}).describe() == "after 30d to standard-ia"


# --------------------------------------------------------------------------- the proposal


def _cold_bucket() -> Any:
    # 1,000 GB of 1 MiB objects (1,024,000), all over 30 days old and never read, in S3 Standard today
    return parse_workload(
        {
            "name": "old uploads",
            "storage": {"stored": "1000 GiB", "object_size": "1 MiB", "age": {"30d+": "100%"}},
            "traffic": {"writes": 0, "reads": 0},
        }
    )


def test_the_proposal_keeps_to_the_classes_the_workload_allows() -> None:
    # constraints.storage_classes had been ignored: Glacier Instant Retrieval proposed though not allowed
    constraints = {"storage_classes": ["standard", "standard-ia"]}
    allowed = _cold_bucket().model_copy(update={"constraints": Constraints(**constraints)})
    proposal = propose_lifecycle(allowed, "aws-s3", as_of=DEC_2026, months=3)
    used = {p.start_class for p in proposal.ranking} | {r.to for p in proposal.ranking for r in p.rules if r.to}
    assert used <= {"standard", "standard-ia"} and proposal.allowed_classes == ["standard", "standard-ia"]
    assert "standard-ia" in proposal.proposed.policy  # $47.74 over 3 months against Standard's $69.00
    assert "glacier-ir" in propose_lifecycle(_cold_bucket(), "aws-s3", as_of=DEC_2026, months=3).proposed.policy


def test_the_proposal_shows_saving_one_time_cost_and_payback_month() -> None:
    proposal = propose_lifecycle(_cold_bucket(), "aws-s3", as_of=DEC_2026, months=3)
    # today: 1,000 GB x $0.023 = $23.00 a month. Glacier Instant Retrieval: 1,000 x $0.004 = $4.00 a month and
    # 1,024 x $0.02 = $20.48 of transitions once: $24.48, $4.00, $4.00 = $32.48 against Standard-IA's $47.74
    # ($12.50 + $10.24), One Zone-IA's $40.24, Glacier Flexible's $42.39 and Deep Archive's $54.80 over 3 months.
    assert proposal.current.month_totals() == [D("23.00")] * 3
    assert proposal.proposed.month_totals() == [D("24.48"), D("4.00"), D("4.00")]
    assert "glacier-ir" in proposal.proposed.policy
    assert proposal.saving_per_month_usd == D("19.00")
    assert proposal.one_time_usd == D("20.48")
    # -$1.48 after month 1, +$17.52 after month 2
    assert proposal.payback_month == 2


def test_the_ranking_says_why_intelligent_tiering_loses_for_small_objects() -> None:
    proposal = propose_lifecycle(_cache_bucket(), "aws-s3", current_class="standard-ia", as_of=DEC_2026, months=12)
    assert proposal.proposed.policy == "standard-ia"
    tiering = next(r for r in proposal.ranking if r.policy == "intelligent-tiering")
    # the month-by-month figures of test_intelligent_tiering_costs_more_than_standard_ia_for_a_bucket_of_small_objects
    assert tiering.total_usd == D("466.75")
    assert tiering.why == (
        "its storage is $80.60 cheaper, but it pays monitoring and automation $240.00, transition requests $80.00,"
        " early deletion $7.63 more; 20% of the objects are under 131,072 bytes and never move or tier"
    )


def test_planner_lifecycle_prints_today_the_proposal_and_the_payback(tmp_path: Path, run_cli: Any) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(
        "name: old uploads\nstorage:\n  stored: 1000 GiB\n  object_size: 1 MiB\n  age: {30d+: 100%}\n"
        "traffic:\n  writes: 0\n  reads: 0\n",
        encoding="utf-8",
    )
    result = run_cli("--wide", "lifecycle", str(path), "-p", "aws-s3", "--as-of", "2026-12-01", "--months", "3")
    assert result.code == 0, result.err
    assert "today     standard " in result.out
    assert (
        "Saving $19.00 a month (month 3); one-time transitions of the data stored today $20.48; pays back in"
        " month 2." in result.out
    )


def test_planner_lifecycle_names_the_file_and_rule_of_a_bad_policy(tmp_path: Path, run_cli: Any) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(
        "name: x\nstorage:\n  stored: 1 TB\n  object_size: 1 MB\n  lifecycle: [{after: 30d, to: glacier}]\n",
        encoding="utf-8",
    )
    result = run_cli("lifecycle", str(path), "-p", "aws-s3", "--price-only", "--as-of", "2026-12-01")
    assert result.code == 2
    assert result.err.strip().splitlines() == [
        f"planner: {path}: storage.lifecycle[0].to: 'glacier' is not a storage class of aws-s3@2025-12-01"
        " (classes: standard, standard-ia, onezone-ia, intelligent-tiering, glacier-flexible, deep-archive,"
        " glacier-ir, express-one-zone)"
    ]


def test_an_ingested_bucket_is_compared_as_placed(tmp_path: Path, run_cli: Any) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(
        "name: ingested bucket\nstorage:\n  placement: {standard: 500 GiB, standard-ia: 500 GiB}\n"
        "  object_size: 1 MiB\n  age: {30d+: 100%}\ntraffic:\n  writes: 0\n  reads: 0\n",
        encoding="utf-8",
    )
    result = run_cli("--wide", "lifecycle", str(path), "-p", "aws-s3", "--as-of", "2026-12-01", "--months", "3")
    assert result.code == 0, result.err
    # today, as placed: 500 GB x $0.023 + 500 GB x $0.0125 = $11.50 + $6.25 = $17.75 a month, $53.25 in 3.
    # Glacier Instant Retrieval: all 1,024,000 objects move (from Standard and from Standard-IA, 30 days there):
    # $20.48 once, then 1,000 x $0.004 = $4.00 a month: $32.48; -$6.73 after month 1, +$7.02 after month 2.
    assert "today     standard (placed today: standard 500 GiB, standard-ia 500 GiB)  $53.25" in result.out
    assert "proposed  standard -> 0d glacier-ir" in result.out
    assert (
        "Saving $13.75 a month (month 3); one-time transitions of the data stored today $20.48; pays back in"
        " month 2." in result.out
    )


# --------------------------------------------------------------------------- a rule's age as a range


def test_a_rule_age_given_as_a_range_is_priced_at_each_age() -> None:
    rule, ages = parse_age_range("1=40d..180d:3")
    assert (rule, ages) == (1, [40, 110, 180])
    swept = sweep_rule_age(_archive_workload(), "aws-s3", rule, ages, as_of=dt.date(2026, 1, 1), months=24)
    refused, middle, last = swept.points
    # 40 days leaves the objects 10 days in Standard-IA; S3 moves them on after 30 there
    assert refused.total_usd is None
    assert refused.refused is not None and "leaves the objects 10 days in standard-ia" in refused.refused
    # at 180 days: the hand-computed $154.07 of test_standard_ia_then_deep_archive_over_24_months
    assert last.total_usd == D("154.07")
    assert middle.total_usd is not None and middle.total_usd < last.total_usd
    assert swept.cheapest_days == 110


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1=30d-90d:3", "--vary-age: '1=30d-90d:3' is not RULE=LOW..HIGH:N (e.g. 0=30d..180d:6)"),
        ("1=90d..30d:3", "--vary-age: '1=90d..30d:3': the range must rise (from 90d to 30d)"),
        # past six digits it had said the text was not RULE=LOW..HIGH:N
        ("0=30d..180d:100000000", "--vary-age: '0=30d..180d:100000000': 100000000 points; give 2 to 100"),
        ("1=30d..90d:1", "--vary-age: '1=30d..90d:1': 1 points; give 2 to 100"),
    ],
)
def test_a_bad_age_range_is_one_line_naming_the_option(text: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_age_range(text)
    assert str(caught.value) == message


def test_data_no_rule_can_move_waits_for_a_move_one_can_make() -> None:
    workload = parse_workload(
        {
            "name": "x",
            "storage": {"stored": "1000 GiB", "object_size": "1 MiB", "age": {"0-30d": "100%"}},
            "traffic": {"writes": 0, "reads": 0},
        }
    )
    rules = [LifecycleRule.model_validate({"after": "30d", "to": "deep-archive"})]
    cost = price_lifecycle(
        workload, "aws-s3", rules, start_class="standard", current_class="standard-ia", as_of=DEC_2026, months=2
    )
    # month 1: the policy puts new data in Standard, but no rule moves Standard-IA back: 1,000 GB x $0.0125
    assert cost.months[0].total_usd == D("12.50")
    # month 2, at 30 days: Standard-IA to Deep Archive is a rule's move: 1,024 x $0.05 = $51.20, 1,000 x $0.00099
    # = $0.99, overhead 31.25 GB x $0.00099 = $0.03 and 7.8125 GB x $0.023 = $0.18 (30 days in Standard-IA: no
    # early deletion)
    assert cost.months[1].total_usd == D("52.40")
    assert not any("early" in i.category for i in cost.months[1].line_items)


def test_a_provider_without_lifecycle_rules_moves_nothing_but_expires() -> None:
    workload = _with_rules([{"after": "30d", "expire": True}])
    cost = price_lifecycle(workload, "hetzner", as_of=DEC_2026, months=1)
    assert cost.rules_version == "no lifecycle transitions for hetzner: only expiry"
    with pytest.raises(InputError) as caught:
        price_lifecycle(_with_rules([{"after": "30d", "to": "standard"}]), "hetzner", as_of=DEC_2026, months=1)
    assert str(caught.value) == (
        "storage.lifecycle[0].to: the objects are already in standard (rule 0 moves them nowhere)"
    )


_PLACED = (
    "name: ingested bucket\nstorage:\n  placement: {standard: 500 GiB, standard-ia: 500 GiB}\n"
    "  object_size: 1 MiB\n  age: {30d+: 100%}\ntraffic:\n  writes: 0\n  reads: 0\n"
)


def test_recommend_lifecycle_shows_the_placement_the_proposal_and_the_payback(tmp_path: Path, run_cli: Any) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(_PLACED, encoding="utf-8")
    result = run_cli("--wide", "recommend", str(path), "--as-of", "2026-12-01", "--no-simulate", "--lifecycle")
    assert result.code == 0, result.err
    # today $17.75 a month (see test_an_ingested_bucket_is_compared_as_placed); over 12 months Deep Archive wins:
    # 1,024 x $0.05 = $51.20 once, then $0.99 + overhead $0.03 + $0.18 at Standard's rate = $1.20 a month;
    # -$34.65, -$18.10, -$1.55, then +$15.00 after month 4
    assert "today     standard (placed today: standard 500 GiB, standard-ia 500 GiB)  $213.00" in result.out
    assert "proposed  standard -> 0d deep-archive" in result.out
    assert (
        "Saving $16.55 a month (month 12); one-time transitions of the data stored today $51.20; pays back in"
        " month 4." in result.out
    )
    assert "Not proposed at backblaze-b2, cloudflare-r2, idrive-e2, wasabi: the data is placed in classes" in result.out


def test_recommend_lifecycle_gives_its_proposals_in_json(tmp_path: Path, run_cli: Any) -> None:
    """The JSON carries what the text shows: aws-s3's proposal, and the providers without the placed classes."""
    path = tmp_path / "w.yaml"
    path.write_text(_PLACED, encoding="utf-8")
    result = run_cli("recommend", str(path), "--no-simulate", "--lifecycle", "-f", "json")
    assert result.code == 0, result.err
    lifecycle = json.loads(result.out)["lifecycle"]
    assert [p["provider"] for p in lifecycle["proposals"]] == ["aws-s3"]
    assert lifecycle["not_proposed"] == ["backblaze-b2", "cloudflare-r2", "idrive-e2", "wasabi"]


def test_recommend_lifecycle_refuses_csv_before_printing(tmp_path: Path, run_cli: Any) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(_PLACED, encoding="utf-8")
    result = run_cli("recommend", str(path), "--no-simulate", "--lifecycle", "-f", "csv")
    assert result.code == 2
    assert result.out == ""
    assert (
        result.err.strip()
        == "planner: --lifecycle: prints proposals, not csv rows: give --format table, markdown or json"
    )


def _money(text: str) -> list[Decimal]:
    return [Decimal(found.replace(",", "")) for found in re.findall(r"\$([\d,]+\.\d\d)", text)]


@pytest.mark.parametrize(
    ("example", "provider"), [("data-lake", "gcs"), ("data-lake", "aws-s3"), ("backup-archive", "azure-blob")]
)
def test_why_a_policy_loses_names_amounts_that_add_up_to_what_it_loses_by(example: str, provider: str) -> None:
    """Each "why it loses" names every kind of charge that differs from the proposal's, so its amounts add up
    to the difference in the totals beside it (more, less what is less); a sentence naming storage $3,873.11
    as the reason for a $1,875.79 difference hid the $1,997.32 it saves elsewhere."""
    proposal = propose_lifecycle(load_workload(EXAMPLES / f"{example}.yaml"), provider, as_of=dt.date(2026, 12, 1))
    checked = 0
    for ranked in proposal.ranking:
        if not ranked.feasible or ranked.why is None:
            continue
        text = re.sub(r"; \d+% of the objects are under .*$", "", ranked.why)
        less = re.search(r" \(and (.*) less\)$", text)
        saved = sum(_money(less.group(1)), Decimal(0)) if less else Decimal(0)
        text = text[: less.start()] if less else text
        lost_by = ranked.total_usd - proposal.proposed.total_usd
        if text.startswith("its storage is $"):
            cheaper, *more = _money(text)
            assert sum(more, Decimal(0)) - cheaper - saved == lost_by, ranked.why
        else:
            stated, *more = _money(text)
            assert stated == lost_by, ranked.why
            assert sum(more, Decimal(0)) - saved == lost_by, ranked.why
        checked += 1
    assert checked >= 3
