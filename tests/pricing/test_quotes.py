"""A price follows from the words it was read from, or the table is refused in one line."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from planner.errors import InputError
from planner.pricing import catalog, quotes
from planner.pricing.models import ErrorResponses
from planner.pricing.primitives import Quote, Status

READ = dt.date(2026, 12, 5)


def _quote(text: str, derive: str | dict[str, str] | None = None) -> Quote:
    return Quote(text=text, url="https://example.com/pricing", read=READ, derive=derive)


@pytest.mark.parametrize(
    ("figure", "text", "derive"),
    [
        (Decimal("0.023"), "First 50 TB / Month $0.023 per GB", None),
        (Decimal("0.0045"), "Class A operations $4.50 / million requests", "/ 1000"),
        (Decimal("0.0004"), "Class B: $0.004 per 10,000 operations", "/ 10"),
        (Decimal("0.007"), "Standard: $7/TB per month", "/ 1000"),
        (Decimal("4.8910"), "EUR 0.0067 per TB-hour", "* 730 round 4"),
        (Decimal(0), "Egress: free", None),
        (Decimal(0), "There is no charge for data transfer in", None),
        (Decimal(1), "stored in a single Availability Zone", None),
    ],
)
def test_a_figure_follows_from_its_passage(figure: Decimal, text: str, derive: str | None) -> None:
    assert quotes.follows(figure, _quote(text, derive), "price")[0]


@pytest.mark.parametrize(
    ("figure", "text", "derive"),
    [
        (Decimal("0.005"), "Class B operations (per 1,000) $0.01", None),  # Coldline's pre-2022 rate
        (Decimal("0.0045"), "Class A operations $4.50 / million requests", None),  # the unit change not stated
        (Decimal(0), "$0.02 per GiB within North America", None),  # 0 from a passage that names a price
    ],
)
def test_a_figure_that_does_not_follow_is_caught(figure: Decimal, text: str, derive: str | None) -> None:
    assert not quotes.follows(figure, _quote(text, derive), "price")[0]


def test_a_model_with_several_prices_derives_each_by_field() -> None:
    quote = _quote("Retrieval $0.01 per GB, requests $10.00 per 10,000", {"per_1000_requests": "/ 10"})
    assert quotes.follows(Decimal("0.01"), quote, "per_gb")[0]
    assert quotes.follows(Decimal("1"), quote, "per_1000_requests")[0]


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("read", "1999-01-01", "1999-01-01 is not a day a page was read"),
        ("read", "2999-01-01", "2999-01-01 is not a day a page was read"),
        ("url", "see the page", "'see the page' is not an address"),
        ("derive", "x 730", "derive 'x 730': ops are"),
    ],
)
def test_a_quote_without_a_real_address_day_or_derivation_is_refused(field: str, value: str, message: str) -> None:
    raw = {"text": "$0.02 per GB", "url": "https://example.com/p", "read": "2026-12-05", field: value}
    with pytest.raises(ValueError, match=message):
        Quote.model_validate(raw)


def _table(price: str, quote: Mapping[str, object] | None) -> dict[str, object]:
    tier: dict[str, object] = {"price": price}
    if quote is not None:
        tier["quote"] = quote
    return {
        "schema_version": 1,
        "provider": "acme",
        "provider_name": "Acme",
        "region": "global",
        "currency": "USD",
        "status": "verified-primary",
        "sources": ["https://acme.example/pricing"],
        "egress": {"internet": {"unit": "GB", "unit_bytes": 10**9, "tiers": [{"price": "0"}]}},
        "classes": {
            "standard": {
                "name": "Acme Standard",
                "storage": {"unit": "GB-month", "unit_bytes": 10**9, "tiers": [tier]},
            }
        },
    }


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    tables = tmp_path / "tables" / "acme"
    tables.mkdir(parents=True)
    monkeypatch.setenv(catalog.TABLES_ENV, str(tmp_path / "tables"))
    catalog._load_all.cache_clear()
    yield tables
    catalog._load_all.cache_clear()


def test_a_table_whose_price_does_not_follow_is_refused_naming_table_field_and_both_figures(folder: Path) -> None:
    quote = {"text": "Storage: $0.006 per GB-month", "url": "https://acme.example/pricing", "read": "2026-12-05"}
    path = folder / "2026-01-01.yaml"  # named in errors by its place under the folder
    path.write_text(yaml.safe_dump(_table("0.0059", quote)))
    with pytest.raises(InputError) as caught:
        catalog.providers()
    assert str(caught.value) == (
        "tables/acme/2026-01-01.yaml: classes.standard.storage.tiers.0.price: "
        "0.0059 does not follow from its quote, which gives 0.006"
    )


def test_a_table_whose_quote_has_no_day_is_refused(folder: Path) -> None:
    path = folder / "2026-01-01.yaml"  # named in errors by its place under the folder
    path.write_text(yaml.safe_dump(_table("0.006", {"text": "$0.006", "url": "https://acme.example/p"})))
    with pytest.raises(InputError) as caught:
        catalog.providers()
    assert (
        str(caught.value)
        == "tables/acme/2026-01-01.yaml: classes.standard.storage.tiers.0.quote.read: required but missing"
    )


def test_an_unquoted_price_is_listed_as_unquoted(folder: Path) -> None:
    (folder / "2026-01-01.yaml").write_text(yaml.safe_dump(_table("0.006", None)))
    table = catalog.table_for("acme")
    found = {r.field: r for r in quotes.readings(table)}
    assert found["classes.standard.storage.tiers.0.price"].quote is None
    assert found["egress.internet.tiers.0.price"].figure == 0


def test_an_override_price_drops_the_quote_it_replaces(tmp_path: Path, folder: Path) -> None:
    quote = {"text": "Storage: $0.006 per GB-month", "url": "https://acme.example/pricing", "read": "2026-12-05"}
    (folder / "2026-01-01.yaml").write_text(yaml.safe_dump(_table("0.006", quote)))
    override = tmp_path / "deal.yaml"
    override.write_text(
        yaml.safe_dump(
            {"provider": "acme", "label": "deal", "classes": {"standard": {"storage": {"tiers": [{"price": "0.004"}]}}}}
        )
    )
    table = catalog.load_override(override)
    reading = next(r for r in quotes.readings(table) if r.field == "classes.standard.storage.tiers.0.price")
    assert (reading.figure, reading.quote) == (Decimal("0.004"), None)


def _rule(billed: list[str], not_billed: list[str]) -> ErrorResponses:
    quote = _quote("There is no charge for 5xx errors")
    return ErrorResponses(billed=billed, not_billed=not_billed, status=Status.verified_primary, quote=quote)


def test_error_responses_the_most_specific_code_decides() -> None:
    rule = _rule(["403"], ["5xx", "403-outside-account"])
    assert not rule.bills(503)
    assert not rule.bills(500)
    assert rule.bills(403)
    assert not rule.bills(403, outside_account=True)
    assert rule.bills(404)  # named by neither: billed like the request
    assert rule.bills(200)


def test_an_error_code_named_twice_or_malformed_is_refused() -> None:
    with pytest.raises(ValueError, match="503 is both billed and not billed"):
        _rule(["503"], ["503"])
    with pytest.raises(ValueError, match="'5XX' is not a status code"):
        _rule([], ["5XX"])
