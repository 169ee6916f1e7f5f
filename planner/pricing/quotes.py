"""Whether each price follows from the words it was read from.

A price carries a ``Quote``: the passage of its source, the address and the day it was read, and
``derive``, the steps from a number in the passage to the figure when the unit changes ("$4.50 per
million" priced per 1,000 is ``/ 1000``). A figure follows from its quote when some number in the
passage, put through those steps, is the figure exactly; a price of 0 follows from a passage that says
the thing is free. Every loader (price tables, CDN tables, routes, lifecycle rules; shipped, ``--prices``
or ``PLANNER_PRICE_TABLES``) refuses a table with a figure that does not, in one line naming the table,
the field and the two figures.

``readings`` lists every price of a table with its quote (or none), for the audit and for the date of a
bill's oldest reading.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext
from types import UnionType
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel

from planner.errors import InputError
from planner.pricing.primitives import PriceMark, Quote

# A number as a page writes it: 1,000 / 4.50 / .023 / 10 (a date's parts are numbers too, and harmless), or
# with a decimal comma after a lone zero, as European pages write prices (Scaleway's "€0,0000165/GB/hour"): no
# page groups thousands after a leading 0, so "0,0000165" is 0.0000165 and never 165.
_NUMBER = re.compile(r"(?<![\d.,])0,\d+|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d*\.\d+|\d+")
_DECIMAL_COMMA = re.compile(r"0,\d+")
_WORDS = {
    "zero": 0,
    "one": 1,
    "single": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "hundred": 100,
    "thousand": 1000,
    "million": 1_000_000,
}
_WORD = re.compile(r"\b(" + "|".join(_WORDS) + r")\b", re.IGNORECASE)
# How pages say a thing costs nothing.
_FREE = re.compile(
    r"\bfree\b|no charge|not charged|no cost|at no (?:additional |extra )?(?:cost|charge)|\$0(?![.\d])|\$0\.0+\b"
    r"|\bincluded\b|no fees?\b|not billed|(?:don't|do not|does not|doesn't|never) (?:charge|bill)|\bwaived\b"
    r"|no (?:egress|retrieval|request|transaction|operation|api) (?:fees?|charges?)|\bunlimited\b|\bzero\b",
    re.IGNORECASE,
)


def figures(text: str) -> list[Decimal]:
    """Every number the passage states, in digits or in words ("a single zone", "one million")."""
    found = [_decimal(m.group()) for m in _NUMBER.finditer(text)]
    found += [Decimal(_WORDS[m.group().lower()]) for m in _WORD.finditer(text)]
    return found


def _decimal(number: str) -> Decimal:
    if _DECIMAL_COMMA.fullmatch(number):
        return Decimal(number.replace(",", "."))
    return Decimal(number.replace(",", ""))


def derive(ops: str, figure: Decimal) -> Decimal:
    """``figure`` put through ``ops`` ('/ N', '* N', 'round N'; 'free' leaves it)."""
    tokens = ops.replace("*", " * ").replace("/", " / ").split()
    value = figure
    with localcontext() as context:
        context.prec = 50
        index = 0
        while index < len(tokens):
            op = tokens[index]
            if op == "free":
                index += 1
                continue
            operand = Decimal(tokens[index + 1].replace(",", ""))
            if op == "*":
                value *= operand
            elif op == "/":
                value /= operand
            else:  # round
                value = value.quantize(Decimal(1).scaleb(-int(operand)), rounding=ROUND_HALF_UP)
            index += 2
    return value


def ops_for(quote: Quote, field: str) -> str:
    if isinstance(quote.derive, Mapping):
        return quote.derive.get(field, "")
    return quote.derive or ""


def follows(figure: Decimal, quote: Quote, field: str) -> tuple[bool, list[Decimal]]:
    """Whether ``figure`` follows from ``quote`` (for the price in ``field``), and what the passage gives."""
    ops = ops_for(quote, field)
    given: list[Decimal] = []
    for number in figures(quote.text):
        try:
            given.append(derive(ops, number))
        except (InvalidOperation, ZeroDivisionError, IndexError):
            continue
    if any(value == figure for value in given):
        return True, given
    if figure == 0 and ("free" in ops.split() or _FREE.search(quote.text)):
        return True, given
    return False, given


@dataclass(frozen=True)
class Reading:
    """One price of a table (or figure of a rule file) and the quote it was read from, if any."""

    field: str
    figure: Decimal
    quote: Quote | None

    @property
    def read(self) -> dt.date | None:
        return self.quote.read if self.quote is not None else None


def _price_fields(model: type[BaseModel]) -> list[str]:
    return [
        name
        for name, info in model.model_fields.items()
        if any(isinstance(m, PriceMark) for m in info.metadata)
        or any(isinstance(m, PriceMark) for m in getattr(info.annotation, "__metadata__", ()))
        or _optional_price(info.annotation)
    ]


def _optional_price(annotation: Any) -> bool:
    """``Price | None``: the mark sits on the union's first member."""
    if get_origin(annotation) not in (Union, UnionType):
        return False
    for member in get_args(annotation):
        if any(isinstance(m, PriceMark) for m in getattr(member, "__metadata__", ())):
            return True
    return False


def readings(model: BaseModel, path: str = "") -> Iterator[Reading]:
    """Every price in ``model`` (a price table, a CDN table, a route table), with its quote."""
    prefix = f"{path}." if path else ""
    quote = getattr(model, "quote", None)
    for name in _price_fields(type(model)):
        value = getattr(model, name)
        if value is not None:
            yield Reading(f"{prefix}{name}", Decimal(value), quote if isinstance(quote, Quote) else None)
    quotes = getattr(model, "quotes", None)
    access = getattr(model, "access_tiers", None)
    if isinstance(access, Mapping) and isinstance(quotes, Mapping):
        for tier, price in access.items():
            yield Reading(f"{prefix}access_tiers.{tier}", Decimal(price), quotes.get(f"access_tiers.{tier}"))
    for name in type(model).model_fields:
        value = getattr(model, name)
        yield from _children(value, f"{prefix}{name}")


def _children(value: Any, path: str) -> Iterator[Reading]:
    if isinstance(value, Quote):
        return
    if isinstance(value, BaseModel):
        yield from readings(value, path)
    elif isinstance(value, Mapping):
        for key, child in value.items():
            yield from _children(child, f"{path}.{key}")
    elif isinstance(value, list | tuple):
        for index, child in enumerate(value):
            yield from _children(child, f"{path}.{index}")


def _number(value: Decimal) -> str:
    return format(value.normalize(), "f")


def problem(reading: Reading) -> str | None:
    """Why ``reading``'s figure does not follow from its quote (None: it does, or it has no quote)."""
    if reading.quote is None:
        return None
    ok, given = follows(reading.figure, reading.quote, reading.field.rsplit(".", 1)[-1])
    if ok:
        return None
    ops = ops_for(reading.quote, reading.field.rsplit(".", 1)[-1])
    how = f" after {ops!r}" if ops else ""
    numbers = ", ".join(dict.fromkeys(_number(g) for g in given)) or "no number"
    return f"{_number(reading.figure)} does not follow from its quote, which gives {numbers}{how}"


def check(model: BaseModel, source: str) -> None:
    """Refuse ``model`` in one line at its first figure that does not follow from its quote."""
    for reading in readings(model):
        why = problem(reading)
        if why is not None:
            raise InputError(why, source=source, field=reading.field)


def check_figures(values: Mapping[str, Decimal], quotes: Mapping[str, Quote], source: str, prefix: str = "") -> None:
    """Refuse figures (by dotted field) that do not follow from the quotes given for them (rule files)."""
    for field, quote in quotes.items():
        if field not in values:
            where = f"{prefix}quotes.{field}"
            raise InputError("a quote for a figure this file does not give", source=source, field=where)
        why = problem(Reading(field, values[field], quote))
        if why is not None:
            raise InputError(why, source=source, field=f"{prefix}{field}")
