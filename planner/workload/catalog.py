"""The provider and storage-class names a workload may use, given to validation as data.

A workload names providers (``constraints.providers``, ``discounts``, ``regions``) and storage
classes (``storage.placement``); each name must be one a price table defines. Validation reads
those names from a ``Catalog`` in pydantic's validation context
(``Workload.model_validate(data, context=with_catalog(catalog))``), so a workload validates the
same wherever the caller's catalog is the same. Without one it is ``shipped_catalog()``: the
tables ``planner.pricing.catalog`` prices with, the shipped ones and those of
``PLANNER_PRICE_TABLES`` folders.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from planner.pricing import catalog as price_tables
from planner.pricing.models import PriceTable

CATALOG = "catalog"
"""The key of the ``Catalog`` in a validation context."""


@dataclass(frozen=True)
class Catalog:
    """The names of the providers (in the order validation lists them) and of every storage class."""

    providers: tuple[str, ...]
    storage_classes: frozenset[str]

    @classmethod
    def of_tables(cls, tables: Mapping[str, Iterable[PriceTable]]) -> Catalog:
        """The names the tables of each provider define (any version: a class may come or go)."""
        return cls(
            providers=tuple(sorted(tables)),
            storage_classes=frozenset(cls_id for versions in tables.values() for t in versions for cls_id in t.classes),
        )


def shipped_catalog() -> Catalog:
    """The names of the installed price tables: the shipped ones and those of ``PLANNER_PRICE_TABLES``."""
    return Catalog.of_tables(price_tables.shipped_tables())


def with_catalog(catalog: Catalog | None, context: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A validation context holding ``catalog`` (with the keys of ``context``); None leaves the default."""
    return {**(context or {}), **({CATALOG: catalog} if catalog is not None else {})}


def catalog_in(context: Any) -> Catalog:
    """The catalog a validation context gives, or the shipped one."""
    given = context.get(CATALOG) if isinstance(context, Mapping) else None
    if given is None:
        return shipped_catalog()
    if not isinstance(given, Catalog):
        raise TypeError(f"the validation context's {CATALOG!r} is a {type(given).__name__}, not a Catalog")
    return given
