"""Where the read bytes go: egress split by destination, and a CDN in front of the bucket.

``traffic.egress`` may be a mapping of destinations instead of one size::

    egress: {internet: 20 TB, cdn: 180 TB, same_region: 5 TB, other_region: {bytes: 1 TB, region: eu-west-1}}
    egress: {total: 200 TB, cdn: 90%, internet: 10%}

The split is folded into the fields the engine already prices: ``egress`` holds the bytes that leave
toward viewers (internet and CDN), ``internal_reads`` the same-region reads (no egress), ``inter_region``
the other-region copies; ``egress_to`` keeps the split itself. ``delivery.cdn`` names the CDN that
serves the ``cdn`` part (all of a plain ``egress`` when there is no split) and its hit ratio.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from planner.pricing import cdn_prices
from planner.units import format_bytes, parse_monthly_size

if TYPE_CHECKING:  # parts imports this module for the egress split
    from planner.workload.parts import HotObjects

DESTINATIONS = ("internet", "cdn", "same_region", "other_region")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EgressTo(_Model):
    """The read bytes a month by destination, as the workload split them."""

    internet: int = Field(default=0, ge=0)
    cdn: int = Field(default=0, ge=0)
    same_region: int = Field(default=0, ge=0)
    other_region: int = Field(default=0, ge=0)
    other_region_name: str | None = Field(default=None, description="the region the other-region bytes go to")


class CdnChoice(_Model):
    provider: str = Field(description="the CDN's id: a folder of planner/pricing/cdn (cloudfront, cloudflare, ...)")
    hit_ratio: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="share of the CDN's requests and bytes served from its cache (left out: derived from"
        " traffic.hot_objects, see planner.workload.delivery.hot_set_hit_ratio)",
    )

    @field_validator("provider")
    @classmethod
    def _known(cls, provider: str) -> str:
        known = cdn_prices.cdn_ids()
        if provider not in known:
            raise ValueError(f"unknown CDN {provider!r} (known: {', '.join(known)})")
        return provider

    @property
    def ratio(self) -> float:
        """The hit ratio, given or derived (a validated workload always holds one)."""
        assert self.hit_ratio is not None, "a workload derives the hit ratio it is not given"
        return self.hit_ratio

    @property
    def hit(self) -> Decimal:
        return Decimal(str(self.ratio))


class Delivery(_Model):
    """How the reads reach viewers: through a CDN whose cache serves ``hit_ratio`` of them."""

    cdn: CdnChoice


def hot_set_hit_ratio(hot: HotObjects, reads: int, read_bytes: int, mean_object_bytes: float) -> float:
    """The hit ratio a CDN reaches on the workload's hot set, when the workload gives no hit ratio.

    The CDN serves the hot objects' reads from its cache after one fetch of each cached copy a month
    (``count x replicas`` misses); every other read is counted a miss, since the workload says nothing of
    how often the rest is read again. The hits are ``share_of_reads x reads - count x replicas`` GETs; the
    ratio is the smaller of their share of the GETs and their share of the bytes read (each hit fetches
    ``read_size``, else a mean object), since one ratio prices both: a floor for a CDN whose cache keeps the
    hot set all month, not a measured figure."""
    if not reads or not read_bytes:
        return 0.0
    hits = max(0.0, hot.share_of_reads * reads - hot.count * hot.replicas)
    hit_bytes = hits * (hot.read_size if hot.read_size is not None else mean_object_bytes)
    return min(hits / reads, hit_bytes / read_bytes, 1.0)


def with_hit_ratio(
    delivery: Delivery | None, hot: HotObjects | None, reads: int, read_bytes: int, mean_object_bytes: float
) -> Delivery | None:
    """``delivery`` with its hit ratio derived from the hot set when it gives none; refused without one."""
    if delivery is None or delivery.cdn.hit_ratio is not None:
        return delivery
    if hot is None:
        raise ValueError("cdn.hit_ratio: give the CDN's hit ratio (e.g. 0.9), or traffic.hot_objects to derive it from")
    ratio = hot_set_hit_ratio(hot, reads, read_bytes, mean_object_bytes)
    return delivery.model_copy(update={"cdn": delivery.cdn.model_copy(update={"hit_ratio": ratio})})


def _share(value: object) -> Decimal | None:
    """A share written as "90%" (or "90 %"), else None."""
    if isinstance(value, str) and value.strip().endswith("%"):
        try:
            share = Decimal(value.strip()[:-1].strip())
        except ArithmeticError:
            return None
        if share.is_finite():
            return share / 100
    return None


def _size(key: str, value: object) -> int:
    try:
        return parse_monthly_size(value, allow_bare=False)
    except ValueError as error:
        raise ValueError(f"egress.{key}: {error}") from None


_SIZE_OR_SHARE = {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "pattern": "^.+$"}]}


def egress_split_schema(schema: dict[str, Any]) -> None:
    """``traffic.egress``'s JSON Schema: a size, or a split by destination (sizes, or shares of a total)."""
    destinations = {key: _SIZE_OR_SHARE for key in ("total", "internet", "cdn", "same_region")}
    other = {
        "type": "object",
        "additionalProperties": False,
        "required": ["bytes"],
        "properties": {"bytes": _SIZE_OR_SHARE, "region": {"type": "string"}},
    }
    schema["anyOf"] = [
        *schema.get("anyOf", []),
        {
            "type": "object",
            "additionalProperties": False,
            "minProperties": 1,
            "properties": {**destinations, "other_region": {"anyOf": [*_SIZE_OR_SHARE["anyOf"], other]}},
        },
    ]
    schema["description"] = (
        f"{schema.get('description', '')}; or split by destination, e.g. {{internet: 20 TB, cdn: 180 TB,"
        ' same_region: 5 TB, other_region: {bytes: 1 TB, region: eu-west-1}} or {total: 200 TB, cdn: "90%",'
        ' internet: "10%"}'
    )


def split_egress(data: Any) -> Any:
    """A traffic mapping whose ``egress`` is a split, folded into the fields the engine prices (see the
    module's docstring); anything else is returned as it came."""
    if not isinstance(data, dict) or not isinstance(data.get("egress"), dict):
        return data
    split: dict[str, Any] = dict(data["egress"])
    unknown = [k for k in split if k not in (*DESTINATIONS, "total")]
    if unknown:
        raise ValueError(f"egress.{unknown[0]}: unknown destination (give {', '.join(DESTINATIONS)} and total)")
    region_name = None
    other = split.get("other_region")
    if isinstance(other, dict):
        extra = [k for k in other if k not in ("bytes", "region")]
        if extra or "bytes" not in other:
            raise ValueError("egress.other_region: give {bytes: <size>, region: <name>} or a size")
        region_name = other.get("region")
        if region_name is not None and not isinstance(region_name, str):
            raise ValueError("egress.other_region.region: a region name is text, e.g. eu-west-1")
        split["other_region"] = other["bytes"]
    total = _size("total", split["total"]) if "total" in split else None
    sizes: dict[str, int] = {}
    for key in DESTINATIONS:
        if key not in split:
            continue
        share = _share(split[key])
        if share is not None:
            if total is None:
                raise ValueError(f"egress.{key}: a share ({split[key]}) needs egress.total to be a share of")
            if not 0 <= share <= 1:
                raise ValueError(f"egress.{key}: a share is from 0% to 100%, not {split[key]}")
            sizes[key] = round(total * share)
        else:
            sizes[key] = _size(key, split[key])
    if not sizes:
        raise ValueError(f"egress: give at least one destination ({', '.join(DESTINATIONS)})")
    added = sum(sizes.values())
    if total is not None:
        shares = [_share(split[k]) for k in sizes]
        if all(s is not None for s in shares):
            summed = sum((s for s in shares if s is not None), Decimal(0))
            if summed != 1:
                raise ValueError(f"egress: the shares add up to {float(summed * 100):g}%, not 100%")
            sizes[next(iter(sizes))] += total - added  # rounding of the shares, to the byte
        elif not math.isclose(added, total, rel_tol=1e-9, abs_tol=1):
            raise ValueError(
                f"egress: the destinations add up to {format_bytes(added)}, not the total {format_bytes(total)}"
            )
    for key, field in (("same_region", "internal_reads"), ("other_region", "inter_region")):
        if sizes.get(key) and data.get(field):
            raise ValueError(f"egress.{key}: give these bytes here or as traffic.{field}, not both")
    egress_to = EgressTo(
        internet=sizes.get("internet", 0),
        cdn=sizes.get("cdn", 0),
        same_region=sizes.get("same_region", 0),
        other_region=sizes.get("other_region", 0),
        other_region_name=region_name,
    )
    # sizes in bytes with their unit: a file's fields take no bare numbers
    folded = {**data, "egress": f"{egress_to.internet + egress_to.cdn} B", "egress_to": egress_to}
    if egress_to.same_region:
        folded["internal_reads"] = f"{egress_to.same_region} B"
    if egress_to.other_region:
        folded["inter_region"] = f"{egress_to.other_region} B"
    return folded


def cdn_bytes(egress: int, egress_to: EgressTo | None, delivery: Delivery | None) -> int:
    """The bytes a month the CDN serves: the split's ``cdn`` part, or all of a plain egress behind a CDN."""
    if delivery is None:
        return 0
    return egress_to.cdn if egress_to is not None else egress


def delivery_problem(egress_to: EgressTo | None, delivery: Delivery | None) -> str | None:
    """Why a split and a delivery section disagree, or None."""
    if egress_to is not None and egress_to.cdn and delivery is None:
        return (
            f"traffic.egress.cdn sends {format_bytes(egress_to.cdn)} through a CDN, but no CDN is named"
            " (e.g. delivery: {cdn: {provider: cloudfront, hit_ratio: 0.9}})"
        )
    if egress_to is not None and not egress_to.cdn and delivery is not None:
        return "traffic.egress is split and sends nothing to the CDN (give traffic.egress.cdn)"
    return None


def drop_unset_delivery(data: dict[str, Any]) -> None:
    """Leave ``delivery`` and ``traffic.egress_to`` out of a serialised workload that sets neither."""
    if data.get("delivery", True) is None:
        del data["delivery"]
    traffic = data.get("traffic")
    if isinstance(traffic, dict) and traffic.get("egress_to", True) is None:
        del traffic["egress_to"]
