"""The default comparison's four non-AWS providers (R2, B2, Wasabi, IDrive e2) and three CDNs (Cloudflare,
Fastly, bunny.net), read again on 2026-12-05: every price of their current tables follows from a quote, and
each provider's bill at three sizes is computed by hand, every line's price checked against the words it
was read from.

Their storage ladders have one tier, so the three sizes are: inside the free allowance or the monthly
minimum, past it in the middle of the range, and at petabytes, where a tiered provider would be past its
last tier; a one-tier price must not change there.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from planner.pricing import catalog, cdn_prices, quotes, transition_rules
from planner.pricing.billing import bill
from planner.pricing.breakdown import CostBreakdown
from planner.pricing.models import PriceTable
from planner.pricing.usage import Usage

DAY = dt.date(2026, 12, 5)
GB = 10**9
TB = 10**12
PB = 10**15
GiB = 2**30
TiB = 2**40
PROVIDERS = ("cloudflare-r2", "backblaze-b2", "wasabi", "idrive-e2")
CDNS = ("cloudflare", "fastly", "bunny")


def _readings(table: PriceTable | cdn_prices.CdnTable) -> dict[str, quotes.Reading]:
    return {reading.field: reading for reading in quotes.readings(table)}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_price_of_the_current_table_follows_from_a_dated_quote(provider: str) -> None:
    table = catalog.table_for(provider, DAY)
    readings = list(quotes.readings(table))
    assert readings
    for reading in readings:
        assert reading.quote is not None, f"{table.version}: {reading.field} has no quote"
        assert quotes.problem(reading) is None, f"{table.version}: {reading.field}: {quotes.problem(reading)}"
        assert reading.quote.url and reading.quote.read == DAY


@pytest.mark.parametrize("cdn", CDNS)
def test_every_cdn_price_plan_fee_and_minimum_follows_from_a_dated_quote(cdn: str) -> None:
    table = cdn_prices.cdn_table_for(cdn, DAY)
    fields = set()
    for reading in quotes.readings(table):
        assert reading.quote is not None, f"{table.version}: {reading.field} has no quote"
        assert quotes.problem(reading) is None, f"{table.version}: {reading.field}: {quotes.problem(reading)}"
        assert reading.quote.read == DAY
        fields.add(reading.field)
    assert (
        fields
        == {
            "cloudflare": {"data_out.tiers.0.price", "plan.price"},
            "fastly": {"data_out.tiers.0.price", "requests.price", "monthly_minimum.price"},
            "bunny": {"data_out.tiers.0.price", "monthly_minimum.price"},
        }[cdn]
    )


def test_cloudflares_terms_on_video_and_large_files_are_a_note_of_its_table() -> None:
    notes = cdn_prices.cdn_table_for("cloudflare", DAY).notes
    terms = [note for note in notes if "video and large files" in note]
    assert len(terms) == 1 and "self-serve plans" in terms[0] and "R2, Stream or Images" in terms[0]


def _checked(table: PriceTable, cost: CostBreakdown, price_of: dict[str, str]) -> dict[str, Decimal]:
    """Each billed line's amount by description, after checking its unit price is the figure of the reading
    ``price_of`` names for it, and that the figure follows from that reading's quote."""
    readings = _readings(table)
    amounts: dict[str, Decimal] = {}
    for item in cost.line_items:
        if item.category == "free_allowance":
            continue
        field = next((f for prefix, f in price_of.items() if item.description.startswith(prefix)), None)
        assert field is not None, f"no price named for the line {item.description!r}"
        reading = readings[field]
        assert item.unit_price_usd == reading.figure, (item.description, item.unit_price_usd, reading.figure)
        assert reading.quote is not None and quotes.problem(reading) is None
        amounts[item.description] = item.amount_usd
    assert sum(amounts.values()) == cost.total_usd
    return amounts


R2_STANDARD = {
    "R2 Standard storage": "classes.standard.storage.tiers.0.price",  # "| Storage | $0.015 / GB-month |"
    "class-a requests": "classes.standard.requests.0.price",  # "| Class A Operations | $4.50 / million requests |"
    "class-b requests": "classes.standard.requests.1.price",  # "| Class B Operations | $0.36 / million requests |"
    "internet egress": "egress.internet.tiers.0.price",  # "| Egress (data transfer to Internet) | Free |"
    "buckets beyond": "buckets.price",  # "First 100,000 included + $0.10 per additional bucket per month"
}
R2_IA = {
    "R2 Infrequent Access storage": "classes.infrequent-access.storage.tiers.0.price",  # "$0.01 / GB-month"
    "class-a requests": "classes.infrequent-access.requests.0.price",  # "$9.00 / million requests"
    "class-b requests": "classes.infrequent-access.requests.1.price",  # "$0.90 / million requests"
    "R2 Infrequent Access data retrieval": "classes.infrequent-access.retrieval.options.standard.per_gb",  # $0.01/GB
}


def test_r2_inside_the_free_tier_bills_nothing() -> None:
    # "10 GB-month / month", "1 million requests / month" (Class A), "10 million requests / month" (Class B)
    table = catalog.table_for("cloudflare-r2", DAY)
    usage = Usage(stored_bytes=5 * GB, requests={"put": 500_000, "get": 8_000_000})
    assert _checked(table, bill(table, "standard", usage), R2_STANDARD) == {}


def test_r2_standard_past_the_free_tier() -> None:
    table = catalog.table_for("cloudflare-r2", DAY)
    usage = Usage(
        stored_bytes=2 * TB, egress_bytes=10 * TB, requests={"put": 3_000_000, "get": 25_000_000}, buckets=100_010
    )
    assert _checked(table, bill(table, "standard", usage), R2_STANDARD) == {
        "R2 Standard storage": Decimal("29.85"),  # (2,000 - 10) GB-month x $0.015
        "class-a requests (put)": Decimal("9.00"),  # (3 - 1) million x $4.50
        "class-b requests (get)": Decimal("5.40"),  # (25 - 10) million x $0.36
        "internet egress": Decimal("0.00"),  # 10 TB, free
        "buckets beyond the 100,000 included": Decimal("1.00"),  # 10 x $0.10
    }


def test_r2_infrequent_access_at_petabytes_rounds_operations_up_to_the_next_million() -> None:
    # "If you have performed one million and one operations, you will be billed for two million operations."
    table = catalog.table_for("cloudflare-r2", DAY)
    usage = Usage(stored_bytes=2 * PB, retrieval_bytes=50 * TB, requests={"put": 1_000_001, "get": 2_000_000})
    amounts = _checked(table, bill(table, "infrequent-access", usage), R2_IA)
    assert amounts == {
        "R2 Infrequent Access storage": Decimal("20000.00"),  # 2,000,000 GB-month x $0.01 (no free tier for IA)
        "class-a requests (put)": Decimal("18.00"),  # 2 million (rounded up) x $9.00
        "class-b requests (get)": Decimal("1.80"),  # 2 million x $0.90
        "R2 Infrequent Access data retrieval (standard)": Decimal("500.00"),  # 50,000 GB x $0.01
    }
    assert sum(amounts.values()) == Decimal("20519.80")


B2 = {
    "B2 Cloud Storage storage": "classes.standard.storage.tiers.0.price",  # "$6.95 per TB per 30 days"
    "event-notifications requests": "classes.standard.requests.0.price",  # "$0.004 per 10,000" (Class B)
    "internet egress": "egress.internet.tiers.0.price",  # "above that, $0.01 per GB"
}


def test_b2_inside_the_free_allowances_bills_nothing() -> None:
    # "First 10 GB storage is free"; egress "free up to 3x average monthly storage"; standard calls free
    table = catalog.table_for("backblaze-b2", DAY)
    usage = Usage(stored_bytes=5 * GB, egress_bytes=10 * GB, requests={"get": 1_000_000, "list": 100_000})
    cost = bill(table, "standard", usage)
    assert cost.total_usd == 0
    free = [item for item in cost.line_items if item.category == "requests"]
    assert {item.description for item in free} == {"get requests: free", "list requests: free"}
    assert all(item.unit_price_usd == 0 for item in free)


def test_b2_past_the_free_egress_and_the_daily_free_event_notifications() -> None:
    table = catalog.table_for("backblaze-b2", DAY)
    usage = Usage(stored_bytes=20 * TB, egress_bytes=70 * TB, requests={"event-notification": 1_000_000})
    assert _checked(table, bill(table, "standard", usage), B2) == {
        "B2 Cloud Storage storage": Decimal("138.93"),  # (20 - 0.01) TB x $6.95 = $138.9305
        # 2,500 a day x 30 days = 75,000 free; 925,000 = 92.5 x 10,000 x $0.004 = $0.37
        "event-notifications requests (event-notification)": Decimal("0.37"),
        "internet egress": Decimal("100.00"),  # 70 TB - 3 x 20 TB = 10,000 GB x $0.01
    }


def test_b2_at_petabytes() -> None:
    table = catalog.table_for("backblaze-b2", DAY)
    usage = Usage(stored_bytes=2 * PB, egress_bytes=7 * PB)
    assert _checked(table, bill(table, "standard", usage), B2) == {
        "B2 Cloud Storage storage": Decimal("13899.93"),  # (2,000 - 0.01) TB x $6.95 = $13,899.9305
        "internet egress": Decimal("10000.00"),  # 7 PB - 6 PB free = 1,000,000 GB x $0.01
    }


def test_b2_class_b_and_c_read_again_from_the_transactions_page() -> None:
    # The newer stored copy of backblaze.com/b2/b2-transactions-price.html: Class B "The first 2,500 of these
    # calls are free each day, then $0.004 per 10,000"; Class C "... then $0.004 per 1,000". Standard calls
    # are free from 2026-05-01.
    before = catalog.table_for("backblaze-b2", dt.date(2026, 4, 30))
    found = _readings(before)
    class_b, class_c = before.classes["standard"].requests
    assert (class_b.id, class_b.price, class_b.per, class_b.free_per_day) == ("class-b", Decimal("0.004"), 10_000, 2500)
    assert (class_c.id, class_c.price, class_c.per, class_c.free_per_day) == ("class-c", Decimal("0.004"), 1000, 2500)
    for index, words in ((0, "then $0.004 per 10,000"), (1, "then $0.004 per 1,000")):
        reading = found[f"classes.standard.requests.{index}.price"]
        assert reading.quote is not None and words in reading.quote.text and quotes.problem(reading) is None
    assert "event-notification" in class_b.operations  # "Outbound Calls Event Notification" is Class B
    usage = Usage(stored_bytes=10 * GB, requests={"get": 1_000_000, "list": 100_000})
    items = {item.description: item.amount_usd for item in bill(before, "standard", usage).line_items}
    assert items["class-b requests (get)"] == Decimal("0.37")  # (1,000,000 - 75,000) / 10,000 x $0.004
    assert items["class-c requests (list)"] == Decimal("0.10")  # (100,000 - 75,000) / 1,000 x $0.004
    after = bill(catalog.table_for("backblaze-b2", dt.date(2026, 5, 1)), "standard", usage)
    assert after.total_usd == 0


WASABI = {
    "Wasabi pay-as-you-go storage": "classes.standard.storage.tiers.0.price",  # "amount: 7.99 ... unit: TB/month"
    "minimum billable storage": "classes.standard.storage.tiers.0.price",  # the 1 TB minimum, at the same price
    "internet egress": "egress.internet.tiers.0.price",  # "No egress fees"
}


def test_wasabi_under_the_1_tb_minimum_bills_the_whole_terabyte() -> None:
    table = catalog.table_for("wasabi", DAY)
    usage = Usage(stored_bytes=500 * GiB, egress_bytes=100 * GiB)
    amounts = _checked(table, bill(table, "standard", usage), WASABI)
    assert amounts == {
        "Wasabi pay-as-you-go storage": Decimal("3.90"),  # 500 / 1,024 TB x $7.99 = $3.9014
        "minimum billable storage of 1 TB-month: the shortfall": Decimal("4.09"),  # 524 / 1,024 TB x $7.99
        "internet egress": Decimal("0.00"),
    }
    assert sum(amounts.values()) == Decimal("7.99")


def test_wasabi_in_the_middle_and_at_petabytes() -> None:
    table = catalog.table_for("wasabi", DAY)
    middle = _checked(table, bill(table, "standard", Usage(stored_bytes=20 * TiB, egress_bytes=10 * TiB)), WASABI)
    assert middle == {"Wasabi pay-as-you-go storage": Decimal("159.80"), "internet egress": Decimal("0.00")}
    large = _checked(table, bill(table, "standard", Usage(stored_bytes=2 * 2**50)), WASABI)
    assert large == {"Wasabi pay-as-you-go storage": Decimal("16363.52")}  # 2,048 TB x $7.99


IDRIVE = {
    "IDrive e2 storage": "classes.standard.storage.tiers.0.price",  # "a minimum storage fee of $5 ... 1 TB"
    "minimum billable storage": "classes.standard.storage.tiers.0.price",
    "internet egress": "egress.internet.tiers.0.price",  # "no additional charges for ingress, egress, ..."
}


@pytest.mark.parametrize(
    ("stored", "egress", "expected"),
    [
        # the FAQ's own example: "if you store 900 GB ... you will still be charged $5 for the 1 TB base storage"
        (
            900 * GB,
            0,
            {"IDrive e2 storage": "4.50", "minimum billable storage of 1 TB-month: the shortfall": "0.50"},
        ),
        (20 * TB, 40 * TB, {"IDrive e2 storage": "100.00", "internet egress": "0.00"}),  # 20 TB x $5
        (2 * PB, 0, {"IDrive e2 storage": "10000.00"}),  # 2,000 TB x $5
    ],
)
def test_idrive_e2_at_three_sizes(stored: int, egress: int, expected: dict[str, str]) -> None:
    table = catalog.table_for("idrive-e2", DAY)
    amounts = _checked(table, bill(table, "standard", Usage(stored_bytes=stored, egress_bytes=egress)), IDRIVE)
    assert amounts == {description: Decimal(amount) for description, amount in expected.items()}


@pytest.mark.parametrize("provider", ("cloudflare-r2", "backblaze-b2", "wasabi"))
def test_every_class_says_where_it_keeps_copies_in_the_providers_words(provider: str) -> None:
    for class_id, storage_class in catalog.table_for(provider, DAY).classes.items():
        redundancy = storage_class.redundancy
        assert redundancy is not None, f"{provider} {class_id}"
        assert redundancy.quote.read == DAY
        # the zone count is a number of the passage, or the note says how it was read from the passage's words
        follows = quotes.follows(Decimal(redundancy.zones), redundancy.quote, "zones")[0]
        assert follows or redundancy.note, f"{provider} {class_id}: {redundancy.zones} zones, unexplained"


def test_r2_bills_no_failed_authentication_and_bills_a_failed_precondition() -> None:
    # "Requests that fail during authentication or authorization are not charged" (401, 403); "A PutObject
    # returning HTTP 412 ... counts as a Class A operation"
    rule = catalog.table_for("cloudflare-r2", DAY).billing.error_responses
    assert rule is not None
    assert (rule.bills(401), rule.bills(403), rule.bills(412), rule.bills(400)) == (False, False, True, True)
    # the 2024 revision named 401 only: a 403 was billed then
    older = catalog.table_for("cloudflare-r2", dt.date(2025, 1, 1)).billing.error_responses
    assert older is not None and (older.bills(401), older.bills(403)) == (False, True)


@pytest.mark.parametrize("provider", ("backblaze-b2", "wasabi", "idrive-e2"))
def test_a_provider_that_states_no_rule_for_error_responses_has_none(provider: str) -> None:
    assert catalog.table_for(provider, DAY).billing.error_responses is None


@pytest.mark.parametrize(("provider", "words"), [("cloudflare-r2", "No minimum object size"), ("idrive-e2", "0 B")])
def test_the_lifecycle_files_quote_their_minimum_object_size(provider: str, words: str) -> None:
    rules = transition_rules.lifecycle_rules(provider, DAY)
    quote = rules.quotes["default_min_object_bytes"]
    assert rules.default_min_object_bytes == 0 and quote.read == DAY and words in quote.text
