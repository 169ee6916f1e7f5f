"""A price read from its quote: the test names the words of the provider's page that give it, checks the table's
quote holds those words and that the price follows from them (through the quote's derivation), and hands the
price to the hand-computed bill."""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel

from planner.pricing import quotes
from planner.pricing.primitives import Quote


def quoted(table: BaseModel, field: str, words: str, expected: str) -> Decimal:
    """The price at ``field``: ``words`` are in its quote, the price follows from them, and it is ``expected``."""
    found = {reading.field: reading for reading in quotes.readings(table)}
    reading = found[field]
    assert reading.quote is not None, f"{field} has no quote"
    assert words in reading.quote.text, f"{field}: {words!r} is not in its quote {reading.quote.text!r}"
    narrow = Quote(text=words, url=reading.quote.url, read=reading.quote.read, derive=reading.quote.derive)
    follows, given = quotes.follows(reading.figure, narrow, field.rsplit(".", 1)[-1])
    assert follows, f"{field}: {reading.figure} does not follow from {words!r} (gives {given})"
    assert reading.figure == Decimal(expected), f"{field}: {reading.figure}, not {expected}"
    return reading.figure


def unquoted(table: BaseModel) -> list[str]:
    """The fields of ``table`` whose price has no quote."""
    return [reading.field for reading in quotes.readings(table) if reading.quote is None]


def problems(table: BaseModel) -> list[str]:
    """Every price of ``table`` that does not follow from its quote, with why."""
    return [f"{r.field}: {why}" for r in quotes.readings(table) if (why := quotes.problem(r)) is not None]
