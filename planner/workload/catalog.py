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
    default_providers: tuple[str, ...] | None = None
    """The providers a workload that names none is compared across (None: every one)."""

    @property
    def compared_by_default(self) -> tuple[str, ...]:
        return self.providers if self.default_providers is None else self.default_providers

    @classmethod
    def of_tables(cls, tables: Mapping[str, Iterable[PriceTable]]) -> Catalog:
        """The names the tables of each provider define (any version: a class may come or go); the providers
        compared by default are those whose latest table says so (``compared_by_default``)."""
        latest = {provider: list(versions)[-1:] for provider, versions in tables.items()}
        return cls(
            providers=tuple(sorted(tables)),
            storage_classes=frozenset(cls_id for versions in tables.values() for t in versions for cls_id in t.classes),
            default_providers=tuple(p for p in sorted(tables) if all(t.compared_by_default for t in latest[p])),
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
