"""Documented request rates from the price tables: the simulator's token buckets, the prefixes a
workload's peak needs, what recommend warns and how migrate is bounded."""

from __future__ import annotations

import datetime as dt

import pytest

from planner.decide.migration import Endpoint, MigrationOptions, estimate_migration
from planner.decide.recommendation import prefix_warnings
from planner.measure.profile import ProfileSummary
from planner.measure.reference import load_reference
from planner.pricing import catalog
from planner.sim import provider_model_from_profile, simulate
from planner.sim.front.workload_adapter import adapt_workload, prefixes_needed
from planner.sim.model.profile_adapter import provider_model_from_summary
from planner.workload import Workload, parse_workload

NOW = dt.date(2026, 12, 1)
S3 = catalog.table_for("aws-s3", NOW)
R2 = catalog.table_for("cloudflare-r2", NOW)


def _thumbnails(prefixes: int | None) -> Workload:
    storage: dict[str, object] = {"stored": "50 TB", "object_size": "64 KiB"}
    if prefixes is not None:
        storage["prefixes"] = prefixes
    return parse_workload(
        {
            "name": "thumbnails",
            "storage": storage,
            # 20e9 GETs and 2e8 PUTs over a 2,592,000 s month, at a peak factor of 2:
            # 15,432.1 GET/s and 154.3 PUT/s at peak
            "traffic": {"reads": 20_000_000_000, "writes": 200_000_000, "peak_factor": 2},
            "client": {"link": "100 Gbps", "concurrency": 4096},
        }
    )


def test_the_tables_carry_the_documented_rates() -> None:
    rates = {(r.scope, r.per_s, tuple(r.operations), r.error) for r in S3.limits.request_rates}
    assert ("prefix", 5500, ("get", "head"), "503 SlowDown") in rates
    writes = [r for r in S3.limits.request_rates if "put" in r.operations]
    assert len(writes) == 1 and writes[0].per_s == 3500 and "upload-part" in writes[0].operations
    (same_key,) = R2.limits.request_rates
    assert (same_key.scope, same_key.per_s, same_key.error) == ("key", 1, "429 Too Many Requests")
    for provider in ("backblaze-b2", "wasabi", "idrive-e2"):
        assert catalog.table_for(provider, NOW).limits.request_rates == []


def test_prefixes_needed_at_the_peak() -> None:
    writes, reads = prefixes_needed(_thumbnails(None), S3.limits)  # in the table's order
    assert reads.rate.per_s == 5500 and writes.rate.per_s == 3500
    assert reads.peak_per_s == pytest.approx(20e9 / 2_592_000 * 2)  # 15,432.1/s
    assert reads.prefixes == 3  # 15,432 / 5,500 = 2.8
    assert writes.peak_per_s == pytest.approx(2e8 / 2_592_000 * 2) and writes.prefixes == 1
    assert prefixes_needed(_thumbnails(None), catalog.table_for("wasabi", NOW).limits) == []


def test_unstated_prefixes_are_the_fewest_the_peak_needs() -> None:
    adapted = adapt_workload(_thumbnails(None), window="peak", limits=S3.limits)
    assert adapted.spec.keys.prefixes == 3
    assert any("storage.prefixes not stated" in note and "3 prefix(es)" in note for note in adapted.assumptions)
    stated = adapt_workload(_thumbnails(2), window="peak", limits=S3.limits)
    assert stated.spec.keys.prefixes == 2
    assert any("no allowance for the partitioning" in note for note in stated.assumptions)


def test_model_takes_the_tables_rates_and_they_replace_the_profiles_own() -> None:
    model, _ = provider_model_from_profile(load_reference("aws-s3"), S3.limits)
    scoped = {(limit.scope, limit.per_s) for limit in model.rate_limits}
    assert scoped == {("prefix", 3500), ("prefix", 5500)}
    # copy, post and delete are not simulated requests: they are left out of the bucket
    writes = next(limit for limit in model.rate_limits if limit.per_s == 3500)
    assert writes.operations == ["put", "create-multipart", "upload-part", "complete-multipart"]
    r2, _ = provider_model_from_profile(load_reference("cloudflare-r2"), R2.limits)
    assert [(limit.scope, limit.per_s, limit.error) for limit in r2.rate_limits] == [
        ("key", 1.0, "429 Too Many Requests")
    ]
    without, _ = provider_model_from_profile(load_reference("aws-s3"))
    assert without.rate_limits == []


def test_one_prefix_at_three_times_its_rate_is_throttled_and_three_are_not() -> None:
    one = simulate(_thumbnails(1), "aws-s3", duration_s=3, replications=1, as_of=NOW).peak.operations["GET"]
    enough = simulate(_thumbnails(None), "aws-s3", duration_s=3, replications=1, as_of=NOW).peak.operations["GET"]
    # 15,432 GET/s offered to a 5,500/s bucket: most first attempts are refused, and retries at
    # the same overload fail again
    assert one.errors["503 SlowDown"].mean > one.requests.mean
    assert one.failed.mean > 0.3 * one.requests.mean
    assert enough.errors == {} and enough.failed.mean == 0


def test_recommend_warns_about_the_layout() -> None:
    assumed = prefix_warnings(_thumbnails(None), S3.limits)
    assert len(assumed) == 1 and "at least 3 prefixes" in assumed[0] and "not stated" in assumed[0]
    (exceeded,) = prefix_warnings(_thumbnails(1), S3.limits)
    assert "15,432 GET/HEAD requests/s over 1 prefix(es)" in exceeded and "503 SlowDown" in exceeded
    assert prefix_warnings(_thumbnails(3), S3.limits) == []
    assert prefix_warnings(_thumbnails(1), R2.limits) == []  # R2's rate is per key


def test_a_lower_bound_ceiling_is_not_enforced() -> None:
    base = {"provider": "x", "source_kind": "published", "ttfb_p50_s": 0.02, "read_ceiling_bytes_per_s": 66e6}
    exact = provider_model_from_summary(ProfileSummary.model_validate(base))
    assert exact.read_ceiling_bits_per_s == pytest.approx(528e6)
    lower = provider_model_from_summary(
        ProfileSummary.model_validate(
            {**base, "notes": {"read_ceiling_bytes_per_s": "best cell observed (a lower bound on the service ceiling)"}}
        )
    )
    assert lower.read_ceiling_bits_per_s is None
    assert "read ceiling (not enforced: 0.528 Gbps demonstrated is a lower bound)" in lower.source


def test_migrate_divides_the_per_prefix_bound_by_the_prefixes() -> None:
    def bound(prefixes: int | None) -> float:
        storage: dict[str, object] = {"stored": "10 TB", "objects": 110_000_000}
        if prefixes is not None:
            storage["prefixes"] = prefixes
        plan = estimate_migration(
            parse_workload({"name": "move", "storage": storage}),
            MigrationOptions(
                source=Endpoint.parse("aws-s3", "--from"), destination=Endpoint.parse("wasabi", "--to"), start=NOW
            ),
        )
        (found,) = [b for b in plan.bounds if b.name == "source GET rate per prefix"]
        return found.hours

    # 110,000,000 GETs at 5,500/s = 20,000 s
    assert bound(None) == pytest.approx(20_000 / 3600)
    assert bound(4) == pytest.approx(5_000 / 3600)
