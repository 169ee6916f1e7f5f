"""An object store as a SimPy component: a provider model inside the user's own SimPy model.

``ObjectStore(env, model)`` puts a ``ProviderModel`` (built from a measured profile, a shipped
reference profile or a provider id: ``from_profile``, ``for_provider``) on a SimPy environment the
user owns. Its operations, ``get``, ``put``, ``head``, ``list``, ``delete`` (and ``restore`` for an
archive class), return SimPy events a user's process yields; each event's value is the request's
``StoreRecord`` (time to first byte, latency, bytes, status, attempts).

The store is another driver of the engine's model, not a second model: it asks the provider set-up
of ``planner.sim.engine.provider_setup`` (latency draws per operation and size, the server capacity queues and
their service spread, the admission checks of the rate limits by key, prefix and bucket and of the
hot-object limit, the fluid network that shares the client's link, here on SimPy's clock with its
own timer) and takes the request steps the engine takes (``planner.sim.engine.request_life.RequestLife``,
one definition for both): a connection from the client's pool (``store.pool``, a SimPy resource
the model can size, probe and use), admission, the request through the server queue, first byte,
body on the shared link (``store.link``), a body's stall, the response, an error answered and
retried with capped exponential backoff and jitter, ranged GETs and multipart uploads split as the
client's policies and the provider's limits say. What it cannot know ahead, unlike a replication of
a workload, is the window's load: it runs the server queue for every request (as the engine does
for arrivals whose rate varies) and draws the latency of busy clients (the engine mixes in
idle-client latency by the window's mean load). Its clock is SimPy's: each step due later is a
``simpy.Timeout`` (public API only).

``store.recorder`` keeps what it did: percentiles per operation, throttled and failed counts,
throughput, billed requests and bytes (``planner.sim.store.store_records``: ``StoreRecord``, ``Recorder``);
``store.bill(...)`` prices them with the cost engine, line items as ``planner cost`` prints them
(``planner.sim.store.store_billing``, with ``restore``). This module holds the store's set-up, its
operations and the driver's part of each request's steps.
"""

from __future__ import annotations

import datetime as dt
import math
import weakref
import zlib
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import simpy

from planner.costing.bills import price_table
from planner.errors import InputError, a_day
from planner.evidence import Evidence, weakest
from planner.measure.profile import Profile
from planner.measure.reference import load_profile, load_reference
from planner.pricing.models import Limits
from planner.sim.engine import (
    B_GET,
    B_PUT,
    FIRST_BYTE,
    P_BILLED,
    P_ERROR,
    P_NBYTES,
    P_REQUEST,
    P_STEP,
    P_TRANSFER,
    RESPONSE,
    RETRY,
    BySizeClass,
    ConnectionPool,
    DrawTable,
    FlowClass,
    FluidNetwork,
    Part,
    Request,
    RequestLife,
    TailTable,
    admission_checks,
    build_network,
    build_server_queues,
    latency_draws,
)
from planner.sim.model import BILLED_OPERATIONS, Direction, LatencyModel, ProviderModel, provider_model_from_profile
from planner.sim.spec import ClientSpec, ClosedLoop, KeyPopularity, SimSpec, SizeDistribution
from planner.sim.store.store_billing import StoreBilling
from planner.sim.store.store_probes import Link
from planner.sim.store.store_records import FLUSH_AT, OPERATIONS, STATUS_OK, Record, Recorder, StoreRecord

__all__ = ["ObjectStore"]

_DELETE = 4
_B_DELETE = len(BILLED_OPERATIONS)  # billed as the price tables' "delete", which the engine never issues
_FIRST_BLOCK = 64  # the first block of draws of a size class (then twice the last, up to 1,024)
_PREFIX_BITS = 20
_LARGEST = 2**53  # bytes: a larger count is not exact as a float (the link's arithmetic)
_KEYS_KEPT = 1 << 12  # a key's id is its number << 20 | its prefix's: a rate limit per prefix takes it modulo 2**20
_Timeout = simpy.Timeout


_STORES_ON: weakref.WeakKeyDictionary[simpy.Environment, int] = weakref.WeakKeyDictionary()
"""how many stores were made on each environment (the default seed of the next one)"""


def _entropy(env: simpy.Environment, seed: int | None, name: str | None) -> int | list[int]:
    """A store's seed: ``seed`` as given; with a ``name``, ``seed`` (default 0) and the name's CRC-32; with
    neither, the store's number on ``env`` (the first store: 0). Two stores of one model draw the same
    numbers only if given the same seed and name."""
    number = _STORES_ON.get(env, 0)
    _STORES_ON[env] = number + 1
    if name is not None:
        return [0 if seed is None else seed, zlib.crc32(name.encode())]
    if seed is not None:
        return seed
    return 0 if number == 0 else [0, number]


def _delete_latency(model: ProviderModel, options: dict[str, Any]) -> list[str]:
    """A profile measures no DELETE: unless the model has a DELETE cell or ``options`` give one, DELETE takes
    HEAD's latency (both answer with headers only), and the assumption is said."""
    if "delete" in model.latency_by_size or options.get("delete_latency") is not None:
        return []
    options["delete_latency"] = model.latency("head")
    return [
        "DELETE's latency: assumed equal to HEAD's (a request answered with headers only; the profile measures no "
        "DELETE)"
    ]


def _count(value: Any, name: str, what: str) -> int:
    """``value`` as a whole number of 0 or more (1 or more for prefixes), or a one-line refusal naming ``name``."""
    least = 1 if name == "prefixes" else 0
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < least:
        raise InputError(f"{name} {value!r}: give {what} as a whole number of {least} or more", field=name)
    return int(value)


def _key(key: Any, what: str) -> None:
    """Refuse a key that is neither a string nor a whole number."""
    if isinstance(key, bool) or not isinstance(key, str | int | np.integer):
        raise InputError(f"{what} {key!r}: a key is a string or a whole number", field="key")


def _range_length(key: Any, byte_range: Any, stored: int | None) -> int:
    """A ranged GET's length, once ``byte_range`` is checked to be (first byte, length) in whole bytes of 0 or more;
    of an object ``stored`` bytes long (None: not PUT here), as S3 answers it: the bytes up to its end (a range
    that begins past the end is refused: S3's 416 InvalidRange)."""
    if (
        not isinstance(byte_range, tuple | list)
        or len(byte_range) != 2
        or any(isinstance(n, bool) or not isinstance(n, int | np.integer) or not 0 <= n <= _LARGEST for n in byte_range)
    ):
        raise InputError(
            f"GET {key!r}: byte_range {byte_range!r} is not (first byte, length) in whole bytes of 0 or more",
            field="byte_range",
        )
    first, length = int(byte_range[0]), int(byte_range[1])
    if stored is None or not length:
        return length
    if first >= stored:
        raise InputError(
            f"GET {key!r}: byte_range {byte_range!r} begins past the end of the {stored:,} B object PUT to it",
            field="byte_range",
        )
    return min(length, stored - first)


class ObjectStore(StoreBilling, RequestLife):
    """A provider's object storage on a SimPy ``env``, as ``model`` describes it.

    ``link`` is the client's link in bits a second (None: unlimited), ``client`` the rest of the
    client (connection pool, round trip, multipart and ranged-GET policies, retry policy: the engine's
    ``ClientSpec``). Keys are strings (their prefix is what precedes the last ``/``) or integers
    (spread round-robin over ``prefixes``, as the engine spreads its keys). ``archive``: objects are
    read only after a ``restore`` (an archive class). ``delete_latency`` is DELETE's latency where
    the model has no ``latency_by_size["delete"]`` (the engine never issues a DELETE). ``record``:
    what ``recorder`` keeps of each operation, for ``summary`` and ``table``: ``"all"``, ``"none"``
    (the bill and its counts only, memory flat in the number of operations) or N (one operation in N).
    ``seed`` and ``name`` seed its draws (``_entropy``): unseeded stores of one model draw apart.
    """

    def __init__(
        self,
        env: simpy.Environment,
        model: ProviderModel,
        *,
        link: float | None = None,
        client: ClientSpec | None = None,
        prefixes: int = 1,
        storage_class: str = "standard",
        archive: bool = False,
        delete_latency: LatencyModel | None = None,
        seed: int | None = None,
        record: Record = "all",
        name: str | None = None,
        pool: ConnectionPool | None = None,
        limits: Limits | None = None,
        strict: bool = False,
    ) -> None:
        client = client if client is not None else ClientSpec()
        if not isinstance(env, simpy.Environment):
            raise InputError(f"env {env!r}: give the simpy.Environment the store runs on", field="env")
        if not isinstance(model, ProviderModel):
            raise InputError(f"model {type(model).__name__}: give a ProviderModel", field="model")
        if not isinstance(client, ClientSpec):
            raise InputError(f"client {type(client).__name__}: give a ClientSpec (or None)", field="client")
        if delete_latency is not None and not isinstance(delete_latency, LatencyModel):
            raise InputError(
                f"delete_latency {type(delete_latency).__name__}: give a LatencyModel (or None)", field="delete_latency"
            )
        if not isinstance(storage_class, str) or not storage_class:
            raise InputError(f"storage_class {storage_class!r}: give a class name", field="storage_class")
        if not isinstance(strict, bool):
            raise InputError(f"strict {strict!r}: give True or False", field="strict")
        if not isinstance(archive, bool):
            raise InputError(f"archive {archive!r}: give True or False", field="archive")
        if limits is not None and not isinstance(limits, Limits):
            raise InputError(f"limits {type(limits).__name__}: give a price table's Limits (or None)", field="limits")
        if seed is not None:
            seed = _count(seed, "seed", "a seed")
        if name is not None and (not isinstance(name, str) or not name):
            raise InputError(f"name {name!r}: give the store a name (a string) or None", field="name")
        prefixes = _count(prefixes, "prefixes", "a number of prefixes")
        if link is not None:
            if isinstance(link, bool) or not isinstance(link, int | float) or not link > 0 or not math.isfinite(link):
                raise InputError(
                    f"link {link!r} bits/s: give the client's link speed in bits a second above 0 (None: unlimited)",
                    field="link",
                )
            client = client.model_copy(update={"link_bits_per_s": float(link)})
        if prefixes < 1:
            raise InputError(f"prefixes {prefixes!r}: give 1 or more", field="prefixes")
        self.env, self.model, self.client = env, model, client
        self.storage_class, self.archive, self.prefixes = storage_class, archive, prefixes
        self.name = name
        self.rng = np.random.default_rng(_entropy(env, seed, name))
        # the engine's provider set-up, on SimPy's clock (``provider_setup``): the spec carries the client and a
        # prefix modulus for the rate limits per prefix (a key's id modulo it is its prefix's number)
        spec = SimSpec(
            arrivals=ClosedLoop(workers=1),
            sizes=SizeDistribution.fixed(1),
            keys=KeyPopularity(prefixes=1 << _PREFIX_BITS),
            client=client,
        )
        queued = [True] * len(BILLED_OPERATIONS)
        unloaded = [0.0] * len(BILLED_OPERATIONS)
        # what the model answers at a size, asked once per size class (``answer_tables.size_class``) and drawn in
        # blocks that start small: memory does not grow with the number of distinct sizes a model moves
        self.latencies: dict[int, Iterator[float]] = BySizeClass(
            DrawTable(model, self.rng, client.round_trip_s, 0.0, unloaded, queued, first_block=_FIRST_BLOCK), 3
        )
        self.body_tails = (
            BySizeClass(TailTable(model, self.rng, first_block=_FIRST_BLOCK), 0) if model.body_tail_by_size else None
        )
        queues, service_s, spreads = build_server_queues(model, queued, self.rng)
        self.service_s: dict[int, float] = BySizeClass(service_s, 3)
        self.queues = [*queues, None]
        self.spreads = [*spreads, None]
        self.network: FluidNetwork
        self.network, read_flows, write_flows = build_network(spec, model, env, self._on_transfer_done)
        self.link = Link(self.network, client.link_bits_per_s)
        """the client's link as the transfers share it (``store_probes.Link``): transfers on it, rate, use"""
        self.read_flows: dict[int, FlowClass | None] = BySizeClass(read_flows, 0)
        self.write_flows: dict[int, FlowClass | None] = BySizeClass(write_flows, 0)
        self.read_flows[0] = self.write_flows[0] = None  # no bytes, no transfer
        admission, self.hot_counts = admission_checks(spec, model)
        self.admission = [*admission, []]
        sized_delete = model.latency_by_size.get("delete")
        self.delete_latency = delete_latency
        self.delete_draws: dict[int, Iterator[float]] = {}
        self._sized_delete = sized_delete
        if pool is None:
            pool = ConnectionPool(client.connections, env)
        elif not isinstance(pool, ConnectionPool) or pool.env is not env or pool.owner is not None:
            raise InputError(
                f"pool {pool!r}: give a ConnectionPool(capacity, env) of this environment that no other store uses",
                field="pool",
            )
        pool.owner = self
        self.pool = pool
        """the client's connections (``ConnectionPool``): a SimPy resource the model can size, probe and use"""
        self.ready: deque[Part] = deque()  # parts to begin, in order (``RequestLife``)
        self.limits = limits
        """the provider's documented limits (a price table's): single-PUT size, parts of a multipart upload"""
        self.warmup_s, self.duration_s = 0.0, math.inf  # every request counted
        retry = client.retry
        self.max_attempts, self.retry_base_s, self.retry_cap_s = retry.max_attempts, retry.base_s, retry.max_backoff_s
        self.joint_tails = None
        self.split_from = [
            client.ranged_get.threshold_bytes if client.ranged_get else math.inf,
            client.multipart.threshold_bytes if client.multipart else math.inf,
        ]
        single = limits.max_single_put_bytes if limits is not None else None
        self.single_put_max: float = single if single is not None else math.inf
        """the largest PUT in one request the provider takes (``limits``; larger: a multipart upload)"""
        largest = limits.max_object_bytes if limits is not None else None
        self.largest: int = largest if largest is not None else _LARGEST
        """the largest object a GET or PUT moves (``limits``; without them 2**53 B, past which a float miscounts)"""
        self.key_ids: dict[Any, int] = {}
        # a limit per key or on a hot object tells keys apart; without one a key's id is its prefix's and
        # no id is kept per key past the first ``_KEYS_KEPT`` (a model of millions of keys stays small)
        self._keys_matter = model.hot_object is not None or any(r.scope == "key" for r in model.rate_limits)
        self.prefix_ids: dict[Any, int] = {}
        self.objects: dict[Any, int] = {}
        """bytes of each object stored (its PUT answered, no DELETE answered since)"""
        self.assumptions: list[str] = [
            "the load is not known ahead: every request waits in its server queue, if the model has one, and "
            "draws the latency of busy clients (no idle-client latency, no load excess of open-loop cells)"
        ]
        """what the store assumes beyond its model (and, from a profile, how the model was built)"""
        self.restored: set[Any] = set()
        self.recorder = Recorder(record)
        self.recorder.marks = self._marks = self.figure_evidence
        self.strict = strict
        """refuse an operation whose figures rest on an assumption (``figure_evidence``), at its first use"""
        self._unchecked: set[int] = set(range(len(OPERATIONS))) if strict else set()
        self.billed = self.recorder.billed  # counted where a part begins
        self._every, self._issued = self.recorder.every, 0
        # where recorded operations and transfers go, flushed to the recorder's arrays (with record="none"
        # no operation is sampled)
        self._records = self.recorder.pending_records
        self._transfers = self.recorder.pending_transfers
        self._uniforms: list[float] = []
        # a part's next step is a SimPy timeout whose value is the part; every one has these callbacks (one
        # list, shared: SimPy only reads an event's callbacks, and nothing else sees these timeouts)
        self._on_step_callbacks: list[Callable[[Any], None]] = [self._on_step]

    # -- constructors --

    @classmethod
    def for_provider(
        cls,
        env: simpy.Environment,
        provider: str,
        *,
        profile: Profile | str | Path | None = None,
        storage_class: str = "standard",
        as_of: dt.date | None = None,
        **options: Any,
    ) -> ObjectStore:
        """A priced provider's store: its shipped reference profile (or ``profile``: a file or a ``Profile``)
        under the documented request rates of the price table in force on ``as_of``; an archive class
        (the table says it is read only after a restore) asks for ``restore`` before a GET."""
        if "archive" in options:
            raise InputError(
                "for_provider takes it from the storage class (the price table says which classes are read "
                "only after a restore); give storage_class",
                field="archive",
            )
        table = price_table(provider, a_day(as_of, "as_of") or dt.date.today())
        if storage_class not in table.classes:
            raise InputError(
                f"{table.version} has no storage class {storage_class!r} (classes: {', '.join(table.classes)})",
                field="storage_class",
            )
        if profile is None:
            profile = load_reference(provider)
        elif not isinstance(profile, Profile):
            profile = load_profile(profile)
        model, notes = provider_model_from_profile(profile, table.limits)
        model = model.model_copy(update={"provider_id": provider, "error_responses": table.billing.error_responses})
        archive = table.restore_required(storage_class)
        notes += _delete_latency(model, options)
        options.setdefault("limits", table.limits)
        store = cls(env, model, storage_class=storage_class, archive=archive, **options)
        store.assumptions += notes
        return store

    @classmethod
    def from_profile(cls, env: simpy.Environment, profile: Profile | str | Path, **options: Any) -> ObjectStore:
        """The store of a measured profile (a file ``planner measure`` wrote, or a ``Profile``), without a
        price table's documented limits (``for_provider`` adds them)."""
        if not isinstance(profile, Profile):
            profile = load_profile(profile)
        model, notes = provider_model_from_profile(profile)
        notes += _delete_latency(model, options)
        store = cls(env, model, **options)
        store.assumptions += notes
        return store

    # -- operations: each returns an event whose value is the operation's ``StoreRecord`` --

    def get(self, key: str | int, size: int | None = None, *, byte_range: tuple[int, int] | None = None) -> simpy.Event:
        """GET ``key``: the whole object (``size`` bytes, default what was PUT), split into ranged GETs from
        the client's ``ranged_get`` threshold; or ``byte_range`` (first byte, length), one request."""
        if self.archive:
            _key(key, "GET")  # before the look-up: a list is no key
            if key not in self.restored:
                raise InputError(
                    f"GET {key!r}: {self.storage_class} objects are read only after a restore "
                    f"(yield store.restore({key!r}, ready_after_s=...) first)",
                    field="key",
                )
        try:
            stored = self.objects.get(key)
        except TypeError:  # not hashable (a list, a mapping): not a key
            _key(key, "GET")
            raise
        if byte_range is not None:
            return self._issue(B_GET, key, _range_length(key, byte_range, stored), False)
        if size is None:
            if stored is None:
                raise InputError(f"GET {key!r}: no such object (PUT it first, or give its size)", field="size")
            return self._issue(B_GET, key, stored, True)
        if size.__class__ is not int or size < 0 or size > self.largest:
            size = self._size(key, size, "GET")
        if stored is not None and size != stored:
            raise InputError(
                f"GET {key!r}: size {size:,} B is not the {stored:,} B object PUT to it (leave size out)", field="size"
            )
        return self._issue(B_GET, key, size, True)

    def put(self, key: str | int, size: int) -> simpy.Event:
        """PUT ``size`` bytes to ``key``: one request, or a multipart upload from the client's threshold."""
        if size.__class__ is not int or size < 0 or size > self.largest:
            size = self._size(key, size, "PUT")
        return self._issue(B_PUT, key, size, True)

    def head(self, key: str | int) -> simpy.Event:
        return self._issue(2, key, 0, False)

    def list(self, prefix: str = "") -> simpy.Event:
        """One LIST request (a page of keys under ``prefix``)."""
        if not isinstance(prefix, str):
            raise InputError(f"LIST {prefix!r}: a prefix is a string", field="prefix")
        return self._issue(3, prefix, 0, False)

    def delete(self, key: str | int) -> simpy.Event:
        if self._sized_delete is None and self.delete_latency is None:
            raise InputError(
                f"DELETE {key!r}: the {self.model.provider_id} model has no latency_by_size['delete'] cell "
                "(give ObjectStore(..., delete_latency=LatencyModel(...)))",
                field="latency_by_size.delete",
            )
        return self._issue(_B_DELETE, key, 0, False)

    # -- one operation's life: the engine's steps (``Replication._loop``), on SimPy's clock --

    def _size(self, key: Any, size: int, what: str) -> int:
        if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 0:
            raise InputError(
                f"{what} {key!r}: size {size!r} is not a byte count (give an int of 0 or more)", field="size"
            )
        if size > self.largest:
            whose = f"{self.model.provider_id}'s largest object" if self.limits else "the largest the store takes"
            raise InputError(f"{what} {key!r}: size {size:,} B is past {whose}, {self.largest:,} B", field="size")
        return int(size)

    def _key_id(self, key: Any, what: str) -> int:
        """A new key's id: its number << 20 | its prefix's number (a limit per prefix takes it modulo 2**20)."""
        _key(key, what)
        label = key % self.prefixes if isinstance(key, int) else str(key).rpartition("/")[0]
        prefix = self.prefix_ids.setdefault(label, len(self.prefix_ids) & ((1 << _PREFIX_BITS) - 1))
        if self._keys_matter:
            key_id = self.key_ids[key] = len(self.key_ids) << _PREFIX_BITS | prefix
        else:  # no check tells keys apart: a key's id is its prefix's, kept for the first keys only
            key_id = prefix
            if len(self.key_ids) < _KEYS_KEPT:
                self.key_ids[key] = key_id
        return key_id

    def _issue(self, billed: int, key: Any, size: int, split: bool) -> simpy.Event:
        env = self.env
        now = env.now
        lop = _DELETE if billed == _B_DELETE else billed
        try:
            key_id = self.key_ids.get(key)
        except TypeError:  # not hashable: not a key
            key_id = self._key_id(key, OPERATIONS[lop])
        if key_id is None:
            key_id = self._key_id(key, OPERATIONS[lop])
        if self._unchecked and lop in self._unchecked:
            self._refuse_assumed(lop, size)
        event = env.event()
        operation = StoreRecord(event, lop, key, key_id, size, now)
        operation.marks = self._marks
        every = self._every
        if every != 1:  # one in ``every`` recorded (none at 0)
            self._issued += 1
            operation.sampled = every != 0 and self._issued % every == 1
        if split and size >= self.split_from[lop]:
            operation.split = True
            self._split(operation, now)
            self._begin_ready(now)
        else:
            if lop == B_PUT and size > self.single_put_max:
                self._too_large(key, size)
            # ``request_parts._new_part(lop, billed, key_id, size, now, operation)``, written out
            self._begin([RESPONSE, lop, billed, key_id, size, now, -1.0, -1.0, now, 1, 0, -1, operation, "", -1.0], now)
            if self.ready:
                self._begin_ready(now)
        return event

    # -- how the figures are backed --

    def model_evidence(self, operation: str, size: float = 0) -> dict[str, Evidence]:
        """How each part of the model an ``operation`` of ``size`` bytes rests on is backed, by the model's
        key (``ProviderModel.evidence``): its latency, a body's stream rate, the latency's tail."""
        model, key = self.model, operation.lower()
        parts: dict[str, Evidence] = {f"latency.{key}": model.evidence_of(f"latency.{key}")}
        if key in ("get", "put") and size > 0:
            direction: Direction = "read" if key == "get" else "write"
            parts[f"stream.{direction}"] = model.stream_evidence(direction, max(1, round(size)))
        parts["latency.tail"] = model.evidence_of("latency.tail")
        return parts

    def figure_evidence(self, operation: str, size: float = 0) -> dict[str, Evidence]:
        """How each figure a summary of ``operation`` (mean size ``size`` bytes) reports is backed, by the
        ``OperationSummary`` field's name: a simulated figure is at best derived, and no better than the
        model's parts it rests on (``model_evidence``); counts of errors rest on the provider's documented
        limits (a price table's: ``for_provider``) or are assumed (a model without them)."""
        parts = self.model_evidence(operation, size)
        ttfb = weakest("derived", parts[f"latency.{operation.lower()}"])
        body = [e for k, e in parts.items() if k.startswith("stream.")]
        latency = weakest(ttfb, *body)
        tail = parts["latency.tail"]
        limits: Evidence = "derived" if self.limits is not None else "assumed"
        return {
            "requests": "derived",
            "failed": limits,
            "throttled": limits,
            "retries": limits,
            "mean_latency_s": latency,
            "latency_p50_s": latency,
            "latency_p95_s": weakest(latency, tail),
            "latency_p99_s": weakest(latency, tail),
            "mean_ttfb_s": ttfb,
            "ttfb_p50_s": ttfb,
            "ttfb_p95_s": weakest(ttfb, tail),
            "ttfb_p99_s": weakest(ttfb, tail),
            "throughput_bytes_per_s": weakest("derived", *body) if body else "derived",
        }

    def _refuse_assumed(self, lop: int, size: int) -> None:
        """``strict``: the first ``lop`` asked refuses to run if its latency or stream rate is assumed."""
        self._unchecked.discard(lop)
        name = OPERATIONS[lop]
        parts = self.model_evidence(name, size)
        del parts["latency.tail"]  # the tail's spread only widens the upper percentiles, marked as it is
        assumed = [key for key, evidence in parts.items() if evidence == "assumed"]
        if assumed:
            raise InputError(
                f"{name} on the {self.model.provider_id} model rests on assumed figures: "
                f"{', '.join(assumed)} (measure them: planner measure; or run without strict=True)",
                field="strict",
            )

    def _too_large(self, key: Any, size: int) -> None:
        raise InputError(
            f"PUT {key!r}: {size:,} B is past {self.model.provider_id}'s single-PUT limit of {self.single_put_max:,} B "
            "(give the client a MultipartPolicy whose threshold is at most that)",
            field="size",
        )

    # -- the driver's part of ``RequestLife``: SimPy's clock, the recorder --

    def _after(self, part: Part, delay: float, now: float) -> None:
        _Timeout(self.env, delay, part).callbacks = self._on_step_callbacks

    def _at(self, part: Part, at: float, now: float) -> None:
        _Timeout(self.env, at - now, part).callbacks = self._on_step_callbacks

    def _draw(self, billed: int, nbytes: int) -> float:
        if billed != _B_DELETE:
            return next(self.latencies[billed | nbytes << 3])
        draws = self.delete_draws.get(nbytes)
        if draws is None:
            model = self._sized_delete.at(nbytes) if self._sized_delete is not None else self.delete_latency
            assert model is not None  # ``delete`` asked
            draws = self.delete_draws[nbytes] = latency_draws(model, self.rng, self.client.round_trip_s)
        return next(draws)

    def _on_step(self, due: Any) -> None:
        """A part's next step is due (``due``: the SimPy timeout whose value is the part)."""
        now = self.env.now
        part: Part = due.value
        step = part[P_STEP]  # ``RequestLife._step``, its dispatch written out
        if step == FIRST_BYTE:
            self._first_byte(part, now)
        elif step == RETRY:
            self.ready.append(part)
        else:
            self._end(part, now)
        if self.ready:
            self._begin_ready(now)

    def _on_transfer_done(self, part: Part) -> None:
        now = self.env.now
        self._body_done(part, now)
        if self.ready:
            self._begin_ready(now)

    def _transfer(self, part: Part, lop: int, now: float) -> None:
        nbytes = part[P_NBYTES]
        if lop == B_GET:
            self.recorder.read_bytes += nbytes
        if part[P_REQUEST].sampled:
            self._transfers.extend((lop, part[P_TRANSFER], now, nbytes))

    def _error_billed(self, error: str) -> bool:
        return True  # the store counts every request sent; its bill takes the unbilled answers off (``bill``)

    def _count_error(self, part: Part, retried: bool, now: float) -> None:
        error = part[P_ERROR]
        operation = part[P_REQUEST]
        if operation.sampled:
            self.recorder.errors.append((now, part[1], error, retried))  # 1: _P_LOP
        attempts = self.recorder.error_attempts
        attempts[part[P_BILLED], error] = attempts.get((part[P_BILLED], error), 0) + 1
        if not retried:
            operation.status = error

    def _ended(self, part: Part, request: Request | None, ok: bool, now: float) -> None:
        """The operation ended: its record is kept (if sampled) and its event succeeds with it."""
        operation: StoreRecord = request  # type: ignore[assignment]  # the store's every part has its record
        if operation.t_first < 0.0:
            operation.t_first = now
        operation.t_end = now
        size = operation.size
        lop = operation.lop
        if operation.status:  # a part ran out of attempts: its refusal is the operation's
            ok_code = 0
        else:
            operation.status = STATUS_OK
            if lop == B_PUT:  # the object is there once its PUT is answered, gone once its DELETE is
                self.objects[operation.key] = size
            elif lop == _DELETE:
                self.objects.pop(operation.key, None)
                self.restored.discard(operation.key)
            # ok 2: a whole GET's record stands for its transfer too (``RawRun.recorded``)
            ok_code = 1
            if lop == B_GET and size and not operation.split:
                ok_code = 2
                self.recorder.read_bytes += size
        if operation.sampled:
            records = self._records
            records.extend((lop, operation.t_arrival, operation.t_conn, operation.t_first, now, size, ok_code))
            if len(records) >= FLUSH_AT:
                self.recorder.flush()
        event: simpy.Event = operation.event  # type: ignore[assignment]  # set until it ends, here
        operation.event = None  # no cycle between the record and its event: both freed by reference counts
        event.succeed(operation)

    def _uniform(self) -> float:
        if not self._uniforms:
            self._uniforms = self.rng.random(8192).tolist()[::-1]
        return self._uniforms.pop()
