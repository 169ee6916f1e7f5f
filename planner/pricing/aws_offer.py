"""Price tables from AWS's Price List offer files: AmazonS3 and, for internet egress, AWSDataTransfer.

An offer file lists products by SKU (attributes: regionCode or location, usagetype, operation,
productFamily) and their on-demand terms (price dimensions: beginRange, endRange, unit,
pricePerUnit.USD). ``import_offer`` maps the usage types it knows onto the table schema, one table
per region, each price citing its rate code; what the offer file does not say (minimum durations and
sizes, limits, billing units, request groups) comes from the default aws-s3 table in force on the
offer's date, and a price the file lacks keeps that table's figure marked unverified (and unquoted). Each
price the file gives is quoted from its price dimension: the ``description`` with the ``pricePerUnit`` and
``unit`` beside it, the region file's address in the offer's version, the day of the import, and the
scale from a price per request or object to the table's per 1,000 (``derive: '* 1000'``). Usage types it
does not price (S3 Select, replication, Express One Zone...) are skipped and counted; a known usage
type it cannot read (another unit, no USD price, gaps in a tier ladder, two SKUs at two prices) is
refused with a one-line ``InputError``.
"""

from __future__ import annotations

import datetime as dt
import enum
import re
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

import yaml
from pydantic import ValidationError

from planner.errors import InputError, PricingError, validation_problem
from planner.pricing import catalog
from planner.pricing.aws_usage_types import INTER_REGION, LOCATIONS, REGION_PREFIX, UNITS, USAGE_TYPES, Target
from planner.pricing.models import PriceTable
from planner.writing import safe_name

PROVIDER = "aws-s3"


@dataclass(frozen=True)
class _Step:
    begin: Decimal
    end: Decimal | None
    price: Decimal
    rate_code: str
    words: str = ""
    """The price dimension as the file words it: its description, pricePerUnit and unit."""


@dataclass(frozen=True)
class _Price:
    """One product's on-demand price: its steps, the SKU and usage type it came from, when it began."""

    steps: tuple[_Step, ...]
    sku: str
    usagetype: str
    offer: str
    effective: dt.date | None
    address: str = ""
    read: dt.date | None = None

    def cite(self, step: _Step) -> str:
        return f"{self.offer} SKU {self.sku} ({self.usagetype}), rate {step.rate_code}"

    def quote(self, step: _Step, scale: Decimal = Decimal(1)) -> dict[str, Any]:
        """The words ``step`` was read from, as a table's ``quote``; ``scale`` takes the file's price per
        request (or object) to the table's per 1,000."""
        found: dict[str, Any] = {
            "text": step.words,
            "url": self.address,
            "read": self.read or dt.date.today(),
            "note": self.cite(step),
        }
        if scale != 1:
            found["derive"] = f"* {_plain(scale)}"
        return found

    def same(self, other: _Price) -> bool:
        return [(s.begin, s.end, s.price) for s in self.steps] == [(s.begin, s.end, s.price) for s in other.steps]


@dataclass
class ImportedTable:
    """One region's table as written: where it goes, its text, and what the offer did not price."""

    region: str
    effective_from: dt.date
    path: str = ""
    text: str = ""
    table: PriceTable | None = None
    from_defaults: list[str] = field(default_factory=list)
    dropped_classes: list[str] = field(default_factory=list)


@dataclass
class ImportResult:
    tables: list[ImportedTable]
    skipped_usage_types: int


def _fail(source: str, message: str, where: str | None = None) -> InputError:
    return InputError(message, source=source, field=where)


MAX_OFFER_NUMBER = Decimal(10) ** 15
"""No price per unit nor tier bound in an offer comes near 10^15 (tiers end at tens of thousands of
TB, prices are cents): past it, a number is a mistake, and would overflow the engine's floats."""


def _decimal(text: Any, source: str, where: str) -> Decimal:
    if not isinstance(text, str | int | float) or isinstance(text, bool) or len(str(text)) > 40:
        shown = repr(text) if len(repr(text)) <= 40 else f"{repr(text)[:30]}..."
        raise _fail(source, f"{shown} is not a number", where)
    try:
        value = Decimal(str(text))
    except InvalidOperation:
        raise _fail(source, f"{text!r} is not a number", where) from None
    if not value.is_finite() or value < 0 or value > MAX_OFFER_NUMBER:
        raise _fail(source, f"{text!r} is not a price or a range bound (0 to 10^15)", where)
    return value


def _region_of(attributes: dict[str, Any], *, transfer: bool) -> str | None:
    code = attributes.get("fromRegionCode" if transfer else "regionCode")
    if isinstance(code, str) and code:
        return code
    location = attributes.get("fromLocation" if transfer else "location")
    return LOCATIONS.get(location) if isinstance(location, str) else None


def _target(usagetype: str, operation: str | None, attributes: dict[str, Any]) -> tuple[Target | None, str]:
    stripped = REGION_PREFIX.sub("", usagetype)
    if INTER_REGION.match(usagetype):
        return ("inter_region", "", usagetype), stripped
    found = USAGE_TYPES.get((stripped, operation)) or USAGE_TYPES.get((stripped, None))
    if found is not None and found[0] == "egress":
        outbound = attributes.get("transferType", "AWS Outbound") == "AWS Outbound"
        external = attributes.get("toLocation", "External") == "External"
        if not (outbound and external) or usagetype.startswith("Global-"):
            return None, stripped
    return found, stripped


def _steps(sku: str, terms: Any, source: str, expected_units: tuple[str, ...], usagetype: str) -> _Price:
    where = f"terms.OnDemand.{sku}"
    if not isinstance(terms, dict) or len(terms) != 1:
        raise _fail(source, f"{usagetype}: expected one on-demand term, found {len(terms or {})}", where)
    (term_code, term), *_ = terms.items()
    if not isinstance(term, dict) or not isinstance(term.get("priceDimensions"), dict):
        raise _fail(source, f"{usagetype}: the term has no priceDimensions", f"{where}.{term_code}")
    effective = None
    if isinstance(term.get("effectiveDate"), str):
        try:
            effective = dt.date.fromisoformat(term["effectiveDate"][:10])
        except ValueError:
            raise _fail(source, f"effectiveDate {term['effectiveDate']!r} is not a date", where) from None
    steps = []
    for rate_code, dimension in term["priceDimensions"].items():
        at = f"{where}.{term_code}.priceDimensions.{rate_code}"
        if not isinstance(dimension, dict):
            raise _fail(source, "a price dimension must be a mapping", at)
        unit = dimension.get("unit")
        if unit not in expected_units:
            raise _fail(source, f"{usagetype}: unit {unit!r} where {' or '.join(expected_units)} was expected", at)
        per_unit = dimension.get("pricePerUnit")
        if not isinstance(per_unit, dict):
            raise _fail(source, f"{usagetype}: pricePerUnit must be a mapping of currencies to prices", at)
        usd = per_unit.get("USD")
        if usd is None:
            raise _fail(source, f"{usagetype}: no USD price (only USD tables are written)", at)
        description = dimension.get("description")
        said = f"{description} " if isinstance(description, str) and description.strip() else ""
        words = f"{said}(pricePerUnit.USD {usd}, unit {unit})"[:1000]
        end_text = dimension.get("endRange", "Inf")
        end = None if end_text in ("Inf", "", None) else _decimal(end_text, source, f"{at}.endRange")
        begin = _decimal(dimension.get("beginRange", "0") or "0", source, f"{at}.beginRange")
        steps.append(_Step(begin, end, _decimal(usd, source, f"{at}.pricePerUnit.USD"), str(rate_code), words))
    steps.sort(key=lambda s: s.begin)
    if not steps:
        raise _fail(source, f"{usagetype}: the term has no price dimensions", where)
    expected = Decimal(0)
    for index, step in enumerate(steps):
        if step.begin != expected:
            raise _fail(
                source, f"{usagetype}: tiers leave a gap or overlap at {step.begin} (expected {expected})", where
            )
        if step.end is None and index != len(steps) - 1:
            raise _fail(source, f"{usagetype}: only the last tier may be open-ended", where)
        if step.end is not None and step.end <= step.begin:
            raise _fail(source, f"{usagetype}: a tier ends at or before it begins ({step.begin}-{step.end})", where)
        expected = step.end if step.end is not None else expected
    if steps[-1].end is not None:
        raise _fail(source, f"{usagetype}: the last tier ends at {steps[-1].end}; it must be open-ended", where)
    return _Price(tuple(steps), sku, usagetype, "", effective)


def _read_offer(offer: Any, source: str, expected_code: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    if not isinstance(offer, dict):
        raise _fail(source, "not an AWS Price List offer file (a JSON object with products and terms)")
    code = offer.get("offerCode")
    if code is not None and code != expected_code:
        raise _fail(source, f"an offer for {code!r}, not {expected_code}", "offerCode")
    products = offer.get("products")
    terms = (offer.get("terms") or {}).get("OnDemand") if isinstance(offer.get("terms"), dict) else None
    if not isinstance(products, dict) or not isinstance(terms, dict):
        raise _fail(source, "not an AWS Price List offer file: no products or no terms.OnDemand")
    label = f"{expected_code} {offer.get('version', '(unversioned)')}"
    return products, terms, label


OFFERS = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws"


def _address(code: str, version: Any, region: str, source: str) -> str:
    """The region file of the offer's version at AWS (where a version is given), else the file read."""
    if isinstance(version, str) and re.fullmatch(r"[0-9]{14}", version) and _REGION_NAME.fullmatch(region):
        return f"{OFFERS}/{code}/{version}/{region}/index.json"
    return source if len(source) >= 8 and ("/" in source or "." in source) else f"{OFFERS}/{code}/current/{region}"


def _collect(
    offer: Any, source: str, expected_code: str, *, transfer: bool, read: dt.date | None = None
) -> tuple[dict[str, dict[Target, _Price]], int, dict[str, Any]]:
    """Every mapped price by region and target; the count of usage types skipped; the offer's header."""
    products, terms, label = _read_offer(offer, source, expected_code)
    found: dict[str, dict[Target, _Price]] = {}
    inter: dict[str, list[_Price]] = {}
    skipped: set[str] = set()
    for sku, product in products.items():
        attributes = product.get("attributes") if isinstance(product, dict) else None
        if not isinstance(attributes, dict) or not isinstance(attributes.get("usagetype"), str):
            raise _fail(source, "a product without attributes.usagetype", f"products.{sku}")
        usagetype = attributes["usagetype"]
        operation = attributes.get("operation") or None
        target, stripped = _target(usagetype, operation, attributes)
        if target is None or (transfer and target[0] not in ("egress", "inter_region")):
            skipped.add(stripped)
            continue
        region = _region_of(attributes, transfer=transfer)
        if region is None:
            raise _fail(source, f"{usagetype}: neither a region code nor a known location", f"products.{sku}")
        if sku not in terms:
            raise _fail(source, f"{usagetype}: no on-demand term for SKU {sku}", "terms.OnDemand")
        price = _steps(sku, terms[sku], source, UNITS[target[0]], usagetype)
        address = _address(expected_code, offer.get("version"), region, source)
        price = _Price(price.steps, price.sku, price.usagetype, label, price.effective, address, read)
        if target[0] == "egress" and all(step.price == 0 for step in price.steps):
            continue  # the free allowance's own SKU (same attributes, $0): the table states the allowance
        if target[0] == "inter_region":
            inter.setdefault(region, []).append(price)
            continue
        mine = found.setdefault(region, {})
        if target in mine and not mine[target].same(price):
            raise _fail(
                source,
                f"{usagetype}: SKUs {mine[target].sku} and {sku} price it differently in {region};"
                " cannot tell which applies",
                f"products.{sku}",
            )
        mine.setdefault(target, price)
    for region, prices in inter.items():
        # One price per destination; the table has one inter-region price: the commonest.
        firsts = Counter(p.steps[0].price for p in prices if len(p.steps) == 1)
        if firsts:
            common = firsts.most_common(1)[0][0]
            chosen = sorted(
                (p for p in prices if len(p.steps) == 1 and p.steps[0].price == common), key=lambda p: p.sku
            )
            found.setdefault(region, {})[("inter_region", "", "")] = chosen[0]
    header = {k: offer.get(k) for k in ("version", "publicationDate", "offerCode")}
    return found, len(skipped), header


def _tiers(price: _Price, scale: Decimal = Decimal(1)) -> list[dict[str, Any]]:
    return [
        {
            **({"up_to": _plain(step.end)} if step.end is not None else {}),
            "price": _plain(step.price * scale),
            "status": "verified-primary",
            "source": price.cite(step),
            "quote": price.quote(step, scale),
        }
        for step in price.steps
    ]


def _unquoted(tiers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tiers kept from the template: its quotes are of its own region's page, not this region's."""
    return [{k: v for k, v in tier.items() if k != "quote"} for tier in tiers]


def _plain(value: Decimal) -> Decimal:
    """A Decimal without trailing zeros or an exponent: 0.0230000000 -> 0.023, 51200 stays 51200."""
    normal = value.normalize()
    return normal.quantize(Decimal(1)) if normal == normal.to_integral() else normal


def _single(price: _Price, source: str, what: str) -> tuple[Decimal, str]:
    if len(price.steps) != 1:
        raise _fail(source, f"{price.usagetype}: {what} has {len(price.steps)} tiers; one price was expected")
    return price.steps[0].price, price.cite(price.steps[0])


def _region_table(
    region: str, prices: dict[Target, _Price], template: PriceTable, sources: list[str], source: str
) -> ImportedTable:
    """One region's table: the template's shape (units, limits, request groups) with every price the
    offer states, and what it does not state kept from the template and marked unverified."""
    folder = PROVIDER if region == template.region else f"{PROVIDER}/{_region_folder(region, source)}"
    effective = _effective(region, prices, source)
    raw = _region_header(region, template, sources)
    imported = ImportedTable(region=region, effective_from=effective)
    _price_egress(raw["egress"], prices, template, imported)
    classes: dict[str, Any] = {}
    for class_id, storage_class in raw["classes"].items():
        if ("storage", class_id, "") not in prices:
            imported.dropped_classes.append(class_id)
            continue
        classes[class_id], inherited = _class_entry(class_id, storage_class, prices, template, source)
        imported.from_defaults += [f"{class_id}: {what}" for what in inherited]
    raw["classes"] = classes
    # which classes must be restored before a read is a property of the class, not of the offer
    raw["limits"]["restore_required"] = [c for c in template.limits.restore_required if c in classes]
    _restored_copy(raw, region, template, effective)
    overhead_classes = {c.get("object_overhead", {}).get("standard_rate_class") for c in classes.values()}
    if not overhead_classes - {None} <= set(classes):
        raise _fail(source, f"{region}: a class's overhead is priced as a class the offer does not price")
    try:
        imported.table = PriceTable.model_validate({**raw, "effective_from": effective})
    except ValidationError as error:
        where, message = validation_problem(error)
        raise _fail(source, f"{region}: the table it makes is invalid: {message}", where) from None
    imported.path = f"{folder}/{effective.isoformat()}.yaml"
    imported.text = render_yaml(
        raw,
        [
            f"Amazon S3, {region}: prices from AWS's Price List ({', '.join(sources)}).",
            "Written by `planner pricing import aws`; each price cites its SKU and rate code.",
        ],
    )
    return imported


def _restored_copy(raw: dict[str, Any], region: str, template: PriceTable, effective: dt.date) -> None:
    """The temporary copy a restore makes, billed as the shipped table of ``region`` bills it (the notes
    cite that table), else not priced and the notes say so: which class it pays (S3 Standard, or Reduced
    Redundancy where that is cheaper) is not in the offer file, and differs by region."""
    shipped = template if region == template.region else _shipped_region(region, effective)
    copy = shipped.limits.restored_copy if shipped is not None else None
    if shipped is None or copy is None or copy.storage_class not in raw["classes"]:
        raw["limits"].pop("restored_copy", None)
        whose = f"{shipped.version} does not price it" if shipped is not None else f"no table of {region} is shipped"
        raw["notes"].append(
            f"The temporary copy a restore makes (limits.restored_copy) is not priced: {whose}, and the offer file"
            " does not say which class bills it (S3 Standard, or Reduced Redundancy where that is cheaper)."
        )
        return
    raw["limits"]["restored_copy"] = copy.model_dump(mode="python", exclude_none=True, exclude_defaults=True)
    raw["notes"].append(
        f"The temporary copy a restore makes (limits.restored_copy) is billed as {shipped.version} bills it."
    )


def _shipped_region(region: str, effective: dt.date) -> PriceTable | None:
    """The shipped table of ``region`` in force on ``effective`` (else its earliest), or None."""
    tables = catalog.regional_tables().get((PROVIDER, region), ())
    in_force = [t for t in tables if t.effective_from <= effective]
    return in_force[-1] if in_force else (tables[0] if tables else None)


_REGION_NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def _region_folder(region: str, source: str) -> str:
    """A region code from the offer as the name of its tables' folder: only a plain region name
    (lower-case letters, digits and '-', e.g. us-west-2) ever becomes part of a path."""
    if len(region) > 64 or not _REGION_NAME.fullmatch(region):
        shown = region if len(region) <= 64 else region[:61] + "..."
        raise _fail(
            source,
            f"regionCode {shown!r} is not a region name (lower-case letters, digits and '-', e.g. us-west-2):"
            " it would name the tables' folder",
        )
    return safe_name(region, "regionCode", source)


def _effective(region: str, prices: dict[Target, _Price], source: str) -> dt.date:
    """The table's date: the latest effectiveDate of its terms, once the prices a table needs are there."""
    if ("storage", "standard", "") not in prices:
        raise _fail(source, f"{region}: no S3 Standard storage price (TimedStorage-ByteHrs); cannot write its table")
    if ("egress", "", "internet") not in prices:
        raise _fail(
            source,
            f"{region}: no internet egress price (DataTransfer-Out-Bytes); pass the AWSDataTransfer offer"
            " with --transfer",
        )
    effective = max((p.effective for p in prices.values() if p.effective is not None), default=None)
    if effective is None:
        raise _fail(source, f"{region}: no effectiveDate on any term; cannot date the table")
    return effective


def _region_header(region: str, template: PriceTable, sources: list[str]) -> dict[str, Any]:
    """The template's fields as the region's table starts them: its region, status, sources and notes."""
    raw = template.model_dump(
        mode="python", exclude_none=True, exclude_defaults=True, exclude={"effective_from", "regional_folder", "label"}
    )
    raw.pop("regions", None)
    raw["region"] = region
    raw["status"] = "verified-primary"
    raw["effective_from_status"] = "unverified"
    raw["sources"] = [*sources, *[s for s in template.sources if "pricing.us-east-1.amazonaws.com" not in s]]
    raw["notes"] = [
        "Prices read from AWS's Price List offer files; each cites its SKU and rate code. The table's date is"
        " the latest effectiveDate of its terms: the prices may have held earlier.",
        f"Billing units, minimum durations and sizes, limits and request groups are not in the offer file: they"
        f" are those of {template.version}.",
        *[n for n in template.notes if "GB is 2^30" in n],
    ]
    return raw


def _price_egress(
    egress: dict[str, Any], prices: dict[Target, _Price], template: PriceTable, imported: ImportedTable
) -> None:
    """Internet egress from the offer's tiers; inter-region transfer from it too, else the template's."""
    internet = prices[("egress", "", "internet")]
    egress["internet"] = {
        **egress["internet"],
        "tiers": _tiers(internet),
        "status": "verified-primary",
        "note": "Tiers as the offer file states them, in GB of 2^30 bytes.",
    }
    if ("inter_region", "", "") in prices:
        inter = prices[("inter_region", "", "")]
        egress["inter_region"] = {
            **{
                k: v
                for k, v in egress.get("inter_region", {"unit": "GB", "unit_bytes": 2**30}).items()
                if k != "status"
            },
            "tiers": _tiers(inter),
            "note": "The price to most other regions (the commonest of the offer's per-destination prices).",
        }
    elif "inter_region" in egress:
        egress["inter_region"]["tiers"] = _unquoted(egress["inter_region"]["tiers"])
        egress["inter_region"]["status"] = "unverified"
        egress["inter_region"]["note"] = f"Not in the offer files: {template.version}'s price."
        imported.from_defaults.append("inter-region transfer")


def _class_entry(
    class_id: str, storage_class: dict[str, Any], prices: dict[Target, _Price], template: PriceTable, source: str
) -> tuple[dict[str, Any], list[str]]:
    """One storage class priced from the offer, and what it kept of the template's (unverified)."""
    inherited: list[str] = []
    entry = dict(storage_class)
    entry.pop("note", None)
    entry["status"] = "verified-primary"
    # each tier states its own status; a price-wide one would be read by no bill (no allowance here)
    entry["storage"] = {**entry["storage"], "tiers": _tiers(prices[("storage", class_id, "")])}
    entry["storage"].pop("note", None)
    entry["storage"].pop("status", None)
    requests = [
        _request_group(group, prices.get(("request", class_id, group["id"])), template, source, inherited)
        for group in entry.get("requests", [])
    ]
    if requests:
        entry["requests"] = requests
    if "retrieval" in entry:
        options = {
            option_id: _retrieval_option(option_id, option, class_id, prices, template, source, inherited)
            for option_id, option in entry["retrieval"]["options"].items()
        }
        entry["retrieval"] = {**entry["retrieval"], "options": options}
    entry.pop("quotes", None)
    if "access_tiers" in entry:
        entry["access_tiers"], quotes = _access_tiers(entry["access_tiers"], class_id, prices, source, inherited)
        if quotes:
            entry["quotes"] = quotes
    if "monitoring" in entry:
        entry["monitoring"] = _monitoring(entry["monitoring"], prices.get(("monitoring", class_id, "")), source)
        if entry["monitoring"]["status"] == "unverified":
            inherited.append("monitoring")
    if inherited:
        entry["note"] = f"Not in the offer file, so {template.version}'s figure (unverified): {', '.join(inherited)}."
    return entry, inherited


def _request_group(
    group: dict[str, Any], price: _Price | None, template: PriceTable, source: str, inherited: list[str]
) -> dict[str, Any]:
    group = {k: v for k, v in group.items() if k not in ("note", "quote")}
    if price is None:
        group.update(status="unverified", source=f"not in the offer file: {template.version}'s price")
        inherited.append(f"{group['id']} requests")
    else:
        per_request, cite = _single(price, source, "a request price")
        quote = price.quote(price.steps[0], Decimal(1000))
        group.update(price=_plain(per_request * 1000), per=1000, status="verified-primary", source=cite, quote=quote)
    return group


def _retrieval_option(
    option_id: str,
    option: dict[str, Any],
    class_id: str,
    prices: dict[Target, _Price],
    template: PriceTable,
    source: str,
    inherited: list[str],
) -> dict[str, Any]:
    option = {k: v for k, v in option.items() if k != "quote"}
    per_gb = prices.get(("retrieval", class_id, option_id))
    per_restore = prices.get(("retrieval_requests", class_id, option_id))
    cites = []
    words = []
    if per_gb is not None:
        option["per_gb"], cite = _single(per_gb, source, "a retrieval price")
        option["per_gb"] = _plain(option["per_gb"])
        cites.append(cite)
        words.append(per_gb.quote(per_gb.steps[0]))
    if per_restore is not None:
        value, cite = _single(per_restore, source, "a retrieval request price")
        option["per_1000_requests"] = _plain(value * 1000)
        cites.append(cite)
        words.append(per_restore.quote(per_restore.steps[0], Decimal(1000)))
    missing = per_gb is None or (per_restore is None and option.get("per_1000_requests"))
    option["status"] = "unverified" if missing else "verified-primary"
    if missing:
        inherited.append(f"{option_id} retrieval")
        cites.append(f"otherwise {template.version}'s price")
    else:
        # per_gb's words first; a restore price's beside them, or none: the file prices no restore request
        assert per_gb is not None
        quote = words[0]
        if per_restore is not None:
            quote["text"] = f"{quote['text']} | {words[1]['text']}"
            quote["note"] = f"{quote['note']}; {words[1]['note']}"
            quote["derive"] = {"per_1000_requests": "* 1000"}
        else:
            quote["derive"] = {"per_1000_requests": "free"}
            quote["note"] = f"{quote['note']}; the file prices no retrieval request for this class"
        option["quote"] = quote
    option["source"] = "; ".join(cites)
    return option


def _access_tiers(
    tiers: dict[str, Any], class_id: str, prices: dict[Target, _Price], source: str, inherited: list[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The access tiers' prices from the offer (the template's where it has none) and the quotes of those
    it gives, by ``access_tiers.<tier>``."""
    tiers = dict(tiers)
    quotes = {}
    for tier_id in tiers:
        tier_price = prices.get(("access_tier", class_id, tier_id))
        if tier_price is None:
            inherited.append(f"{tier_id} access tier")
        else:
            tiers[tier_id] = _plain(_single(tier_price, source, "an access-tier price")[0])
            quotes[f"access_tiers.{tier_id}"] = tier_price.quote(tier_price.steps[0])
    return tiers, quotes


def _monitoring(monitoring: dict[str, Any], price: _Price | None, source: str) -> dict[str, Any]:
    monitoring = {k: v for k, v in monitoring.items() if k != "quote"}
    if price is None:
        return {**monitoring, "status": "unverified"}
    per_object, _ = _single(price, source, "a monitoring price")
    quote = price.quote(price.steps[0], Decimal(monitoring["per"]))
    return {**monitoring, "price": _plain(per_object * monitoring["per"]), "status": "verified-primary", "quote": quote}


def import_offer(
    offer: Any,
    offer_source: str,
    transfer: Any | None = None,
    transfer_source: str | None = None,
    *,
    regions: list[str] | None = None,
    read: dt.date | None = None,
) -> ImportResult:
    """Tables for every region the S3 offer prices (or only ``regions``), egress from the S3 offer or the
    data-transfer offer, each price quoted from its price dimension as read on ``read`` (default today).
    Raises InputError (one line) on what it cannot map."""
    s3_prices, skipped, header = _collect(offer, offer_source, "AmazonS3", transfer=False, read=read)
    sources = [_describe(header, "AmazonS3")]
    if transfer is not None:
        transfer_prices, skipped_transfer, transfer_header = _collect(
            transfer, transfer_source or "--transfer", "AWSDataTransfer", transfer=True, read=read
        )
        skipped += skipped_transfer
        sources.append(_describe(transfer_header, "AWSDataTransfer"))
        for region, prices in transfer_prices.items():
            if region in s3_prices:
                for target, price in prices.items():
                    s3_prices[region].setdefault(target, price)
    if not s3_prices:
        raise _fail(offer_source, "no S3 storage, request or retrieval price this planner knows in the offer file")
    wanted = sorted(s3_prices) if regions is None else regions
    for region in wanted:
        if region not in s3_prices:
            raise _fail(
                offer_source, f"no prices for region {region!r} (the offer prices: {', '.join(sorted(s3_prices))})"
            )
    tables = []
    for region in wanted:
        prices = s3_prices[region]
        effective = max((p.effective for p in prices.values() if p.effective is not None), default=None)
        try:
            template = catalog.table_for(PROVIDER, effective)
        except PricingError as error:
            raise _fail(offer_source, f"{region}: {error}") from None
        tables.append(_region_table(region, prices, template, sources, offer_source))
    return ImportResult(tables=tables, skipped_usage_types=skipped)


def _describe(header: dict[str, Any], code: str) -> str:
    version = header.get("version") or "(unversioned)"
    published = f", published {header['publicationDate']}" if header.get("publicationDate") else ""
    return f"{code} offer {version}{published}"


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # a table spells every value out: no &id001 anchors


def _represent_decimal(dumper: yaml.SafeDumper, value: Decimal) -> yaml.Node:
    if value == value.to_integral() and abs(value) < 10**15:
        return dumper.represent_int(int(value))
    return dumper.represent_scalar("tag:yaml.org,2002:str", format(value, "f"), style='"')


def _represent_enum(dumper: yaml.SafeDumper, value: enum.Enum) -> yaml.Node:
    return dumper.represent_str(str(value.value))


def _represent_date(dumper: yaml.SafeDumper, value: dt.date) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:timestamp", value.isoformat())


_Dumper.add_representer(Decimal, _represent_decimal)
_Dumper.add_representer(dt.date, _represent_date)
_Dumper.add_multi_representer(enum.Enum, _represent_enum)


def render_yaml(raw: dict[str, Any], comments: list[str]) -> str:
    """A table as the project writes them: prices quoted (read back exactly), keys in schema order."""
    body = yaml.dump(raw, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)
    header = "".join(f"# {line}\n" for line in comments)
    return header + body
