"""The shipped tables: each loads, each field is read by the engine, bad files fail in one line."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from planner.errors import InputError, PlannerError
from planner.pricing import catalog
from planner.pricing.billing import bill
from planner.pricing.models import PriceTable
from planner.pricing.primitives import OPERATIONS, Status
from planner.pricing.usage import Deletion, Usage

GB = 10**9
TB = 10**12

# Fields that document a table for people (shown by `planner pricing show`) rather than price it.
DOCUMENTATION = {"sources", "notes", "note", "region", "effective_from_status", "free_scope", "time", "provider_name"}
DOCUMENTATION |= {"source"}  # where a price was read (an offer file's SKU and rate code, a page)
DOCUMENTATION |= {"quote", "quotes"}  # the words a figure was read from (the loader checks the figure follows)
# Facts read outside a month's bill: a class's zones (durability constraints) and which error responses are
# billed (the simulator's and ObjectStore's attempts).
DOCUMENTATION |= {"redundancy", "error_responses"}
# Read by the workload compiler (multipart part counts, object size checks), not by the bill.
NOT_BILLING = {"limits", "schema_version", "provider", "currency", "effective_from", "label"}
# The table-wide status is the fallback for figures without their own; every class states its own.
NOT_BILLING |= {"status"}
# Which regions a table prices is the catalog's choice of table, not the bill's.
NOT_BILLING |= {"regions", "regional_folder"}
# Which providers and classes a comparison ranks unasked is the recommendation's choice, not the bill's.
DOCUMENTATION |= {"compared_by_default"}
# The words a price was read from, and where a class keeps its copies: what a reader checks, not what a bill sums.
DOCUMENTATION |= {"quote", "quotes", "redundancy"}
# Which error responses are billed: read where attempts are counted (simulator, ObjectStore, migrate), not by a
# month's bill of a usage; skipped like documentation here.
DOCUMENTATION |= {"error_responses"}


def probe_usages(table: PriceTable, class_id: str) -> list[Usage]:
    """Usages that together touch every rule: all tiers, all operations, every retrieval option."""
    storage_class = table.classes[class_id]
    options = list(storage_class.retrieval.options) if storage_class.retrieval else [None]
    shares = {tier: Decimal(1) / (len(storage_class.access_tiers) + 1) for tier in storage_class.access_tiers}
    known = [op for rc in storage_class.requests for op in rc.operations] + storage_class.free_operations
    common: dict[str, Any] = {
        "requests": {op: 2_000_000 * (i + 1) + 17 for i, op in enumerate(known)},
        "deletions": [Deletion(bytes=3 * TB, objects=10, age_days=0.5)],
        "retrieval_requests": 5000,
        "inter_region_bytes": 7 * TB,
        "buckets": 250_000,
        "upload_bytes": 3 * TB,  # a per-GB request payload charge (S3 Express One Zone)
        "replica_regions": 2,  # a replication surcharge (Tigris)
        "request_allowance_used": {rc.id: 7 for rc in storage_class.requests},  # shared with other classes (OCI)
    }
    usages = []
    for option in [*options, None]:
        # 777 GB and a byte: a quantity short of a whole unit, where rounding up shows
        # 900 TB of 900 MB objects: shares of every access tier, the opt-in ones too (S3 Intelligent-Tiering's
        # archive tiers, which no unread_shares reach), on objects large enough to be monitored
        sizes = [(0, 0, 0), (777 * GB + 1, 10**7, 5 * TB), (900 * TB, 10**6, 0), (2000 * TB, 10**6, 300 * TB)]
        for stored, objects, egress in sizes:
            # The largest usage places its bytes from how long they go unread; the others give the shares.
            access: dict[str, Any] = (
                {"unread_shares": {30: Decimal("0.6"), 90: Decimal("0.25"), 180: Decimal("0.1")}}
                if stored > 1000 * TB
                else {"access_tier_shares": shares}
            )
            usages.append(
                Usage(
                    **access,
                    stored_bytes=stored,
                    object_count=objects,
                    egress_bytes=egress,
                    retrieval_bytes=stored // 3,
                    retrieval_option=option,
                    egress_allowance_used_bytes=GB,
                    **common,
                )
            )
    # a calendar month of 31 days reads the days a storage price is for (billing.storage_period_days)
    # and an empty month, where a minimum monthly charge is all there is to bill (Storj)
    return [*usages, usages[-1].model_copy(update={"month_days": 31}), Usage()]


def outcome(table: PriceTable, class_id: str) -> list[str]:
    results = []
    for usage in probe_usages(table, class_id):
        try:
            results.append(bill(table, class_id, usage).model_dump_json())
        except PlannerError as error:
            results.append(f"error: {error}")
    return results


def leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(node, dict):
        return [p for key, value in node.items() for p in leaves(value, (*path, key))]
    if isinstance(node, list):
        return [p for i, value in enumerate(node) for p in leaves(value, (*path, i))]
    return [path]


def perturbations(value: Any) -> list[Any]:
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, Status):
        return [s for s in Status if s != value]  # every other: a weaker status can show where a stronger cannot
    if isinstance(value, int | Decimal):
        return [value * 2 + 1, value + Decimal("0.5"), value / 2, value + 10**6]
    if isinstance(value, str):
        return [value + "x", *OPERATIONS]
    return []


def replace(node: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(node, dict):
        return {**node, head: replace(node[head], rest, value)}
    copy = list(node)
    copy[head] = replace(copy[head], rest, value)
    return copy


ALL_VERSIONS = [t for versions in catalog.shipped_tables().values() for t in versions] + [
    t for versions in catalog.regional_tables().values() for t in versions
]


FIVE = {"aws-s3", "cloudflare-r2", "backblaze-b2", "wasabi", "idrive-e2"}
FIELD = {"gcs", "azure-blob", "tigris", "digitalocean-spaces", "hetzner", "storj", "scaleway", "akamai", "oci"}


def test_every_provider_and_class_is_shipped() -> None:
    latest = {p: catalog.table_for(p, dt.date(2026, 12, 1)) for p in catalog.providers()}
    assert set(latest) == FIVE | FIELD
    # the default comparison stays the five; the others are ranked when named
    assert {p for p, table in latest.items() if table.compared_by_default} == FIVE
    assert set(latest["aws-s3"].classes) == {
        "standard",
        "standard-ia",
        "onezone-ia",
        "glacier-ir",
        "glacier-flexible",
        "deep-archive",
        "intelligent-tiering",
        "express-one-zone",
    }
    assert not latest["aws-s3"].classes["express-one-zone"].compared_by_default
    assert set(latest["cloudflare-r2"].classes) == {"standard", "infrequent-access"}
    for provider in ("backblaze-b2", "wasabi", "idrive-e2"):
        assert set(latest[provider].classes) == {"standard"}


@pytest.mark.parametrize("table", ALL_VERSIONS, ids=lambda t: t.version)
def test_every_pricing_field_changes_some_bill(table: PriceTable) -> None:
    """Perturb each field in turn: if no bill of any probe usage changes, the engine never read it."""
    raw = table.model_dump(mode="python")
    baseline = {class_id: outcome(table, class_id) for class_id in table.classes}
    unread = []
    for path in leaves(raw):
        if DOCUMENTATION & set(map(str, path)) or path[0] in NOT_BILLING or _get(raw, path) in (None, {}, []):
            continue  # documentation, not billing, or an absent optional part
        if path == ("billing", "status") or (path[:1] == ("billing",) and path[-1] == "status"):
            continue  # how well the billing conventions are sourced: documentation
        if path == ("billing", "month_days") and not _uses_days(table):
            continue  # only prorating and per-day allowances count days
        if (
            path[-1] == "free_shared"
            and not _get(raw, path[:-1])["free_per_month"] | _get(raw, path[:-1])["free_per_day"]
        ):
            continue  # whether an allowance is shared cannot matter where there is none
        # A field of one class can only change that class's bills (and those that borrow its price).
        affected = (
            list(table.classes)
            if path[0] != "classes"
            else [path[1]]
            + [
                c
                for c, sc in table.classes.items()
                if sc.object_overhead and sc.object_overhead.standard_rate_class == path[1]
            ]
        )
        original = _get(raw, path)
        read = valid = False
        for candidate in perturbations(original):
            try:
                changed = PriceTable.model_validate(replace(raw, path, candidate))
            except ValueError:
                continue  # not a valid table; try another perturbation
            valid = True
            if any(outcome(changed, c) != baseline[c] for c in affected if c in changed.classes):
                read = True
                break
        if valid and not read:  # a field the schema allows no other value for cannot be probed
            unread.append(".".join(map(str, path)))
    assert unread == [], f"{table.version}: fields no bill depends on: {unread}"


def _uses_days(table: PriceTable) -> bool:
    per_day = table.egress.free_per_day or any(rc.free_per_day for sc in table.classes.values() for rc in sc.requests)
    return bool(per_day or any(sc.min_duration_days for sc in table.classes.values()))


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        node = node[key]
    return node


def test_as_of_selects_the_version_in_force() -> None:
    assert catalog.table_for("wasabi", dt.date(2026, 6, 30)).version == "wasabi@2023-07-31"
    assert catalog.table_for("wasabi", dt.date(2026, 7, 1)).version == "wasabi@2026-07-01"
    assert catalog.table_for("backblaze-b2", dt.date(2023, 10, 2)).version == "backblaze-b2@2018-03-19"
    assert catalog.table_for("backblaze-b2", dt.date(2023, 10, 3)).version == "backblaze-b2@2023-10-03"


def test_a_version_inherits_what_it_does_not_change() -> None:
    before = catalog.table_for("aws-s3", dt.date(2021, 11, 30))
    after = catalog.table_for("aws-s3", dt.date(2021, 12, 1))
    assert before.egress.internet.free_per_month == 1 and after.egress.internet.free_per_month == 100
    assert before.classes == after.classes


# ---------------------------------------------------------------- overrides and bad files


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "prices.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_override_layers_a_negotiated_egress_price(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "provider: aws-s3\nlabel: edp-2026\negress:\n  internet:\n    tiers:\n      - {price: '0.02'}\n",
    )
    table = catalog.load_override(path, dt.date(2026, 12, 1))
    assert table.version == "aws-s3@2025-12-01+edp-2026"
    usage = Usage(egress_bytes=10 * 2**40)
    assert bill(table, "standard", usage).total_usd == Decimal("202.80")  # 10,140 GB (of 2**30 bytes) x 0.02
    assert table.classes == catalog.table_for("aws-s3", dt.date(2026, 12, 1)).classes


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "an override file must be a mapping"),
        ("provider: [\n", "malformed YAML"),
        ("label: x\n", "provider: required"),
        ("provider: aws-s3\n", "label: required"),
        ("provider: nope\nlabel: x\n", "unknown provider 'nope'"),
        ("provider: aws-s3\nlabel: x\negress: {internet: {tiers: [{price: '-1'}]}}\n", "egress.internet.tiers"),
        ("provider: aws-s3\nlabel: x\nclasses: {standard: {storage: {unit_bytes: 0}}}\n", "unit_bytes"),
        ("provider: aws-s3\nlabel: x\nbogus: 1\n", "bogus: unknown key"),
        ("provider: aws-s3\nlabel: x\nschema_version: 2\n", "schema_version"),
        (
            "provider: aws-s3\nlabel: x\n"
            "classes: {standard: {storage: {tiers: [{up_to: 5, price: 1}, {up_to: 3, price: 1}, {price: 1}]}}}\n",
            "strictly increasing",
        ),
    ],
)
def test_bad_override_files_fail_in_one_line(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        catalog.load_override(path, dt.date(2026, 12, 1))
    assert message in str(caught.value)
    assert str(path) in str(caught.value)
    assert "\n" not in str(caught.value)


def test_missing_override_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        catalog.load_override(tmp_path / "absent.yaml")


@pytest.mark.parametrize("table", ALL_VERSIONS, ids=lambda t: t.version)
def test_every_version_states_its_providers_gb_and_tb(table: PriceTable) -> None:
    units = table.billing.units
    assert units is not None and units.sources
    # GCS and Spaces quote GiB, Tigris "measures storage in gibibytes (GiB, base-2)"; OCI assumed
    binary = {"aws-s3", "wasabi", "gcs", "digitalocean-spaces", "oci", "tigris"}
    expected = 2**30 if table.provider in binary else 10**9
    assert units.gb_bytes == expected and units.tb_bytes in (10**12, 2**40)
    # AWS's GB is verified on its own FAQ, Storj's and Tigris's on their pricing pages ("simple base 10
    # conversion", "1 GiB = 2^30 bytes"), Google's from 2026-12-05 on its pricing page ("1 JEDEC GB is 2^30
    # bytes"); the others' byte counts are not stated by any page read.
    google = table.provider == "gcs" and table.effective_from >= dt.date(2026, 12, 5)
    assert (units.status == Status.verified_primary) == (table.provider in ("aws-s3", "storj", "tigris") or google)


def test_the_shipped_tables_read_the_same_with_libyaml() -> None:
    """planner's own tables are read with libyaml's parser (every command reads them: about five
    times faster); each must give the very values, Decimals included, that the strict reader gives."""
    import yaml

    from planner.files import load_yaml

    assert yaml.__with_libyaml__, "PyYAML without libyaml: the shipped tables fall back to the pure reader"
    files = sorted(Path(catalog.__file__).with_name("tables").rglob("*.yaml"))
    assert len(files) > 20
    for path in files:
        text = path.read_text(encoding="utf-8")
        strict, shipped = load_yaml(text, str(path)), load_yaml(text, str(path), shipped=True)
        assert shipped == strict, path
        assert repr(shipped) == repr(strict), path  # the same types too: 0.09 a Decimal, not a float


def test_the_libyaml_reader_keeps_the_strict_rules() -> None:
    from planner.files import load_yaml

    for text, problem in (("a: 1\na: 2\n", "duplicate key"), ("a: 0777\n", "octal"), ("a: 1:30:00\n", "base-60")):
        with pytest.raises(InputError, match=problem):
            load_yaml(text, "t.yaml", shipped=True)
