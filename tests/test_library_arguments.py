"""Bad arguments to the library's entry points raise ``planner.InputError`` naming the keyword, whatever the
entry point and whatever the wrong value (a string for a date, a float for a month, NaN, a negative, the wrong
object), and never a bare TypeError, AttributeError or ValueError from deep inside, nor a silent answer.
"""

from __future__ import annotations

import datetime as dt
import math
import pickle
from collections.abc import Callable, Generator
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import simpy

import planner
from planner import InputError, MigrationOptions, ObjectStore
from planner.pricing import catalog
from planner.pricing.arrays import monthly_bills, monthly_totals
from planner.sim import Monitor

ROOT = Path(__file__).resolve().parents[1]
DAY = dt.date(2026, 12, 1)
WORKLOAD = planner.load_workload(ROOT / "examples" / "pipeline-scratch.yaml")

Call = Callable[..., Any]


def _store(env: simpy.Environment | None = None, **options: Any) -> ObjectStore:
    return ObjectStore.for_provider(env or simpy.Environment(), "aws-s3", as_of=DAY, **options)


def _refused(call: Call, field: str, **arguments: Any) -> InputError:
    with pytest.raises(InputError) as raised:
        call(**arguments)
    assert raised.value.field == field, str(raised.value)
    assert "\n" not in str(raised.value)
    return raised.value


# -- dates, months, seeds, callbacks: every entry point that takes them --

DATED: dict[str, Call] = {
    "estimate_cost": lambda as_of: planner.estimate_cost(WORKLOAD, "aws-s3", as_of=as_of),
    "project_costs": lambda as_of: planner.project_costs(WORKLOAD, "aws-s3", as_of=as_of, months=1),
    "recommend": lambda as_of: planner.recommend(WORKLOAD, as_of=as_of, simulate=False, curves=False),
    "simulate": lambda as_of: planner.simulate(WORKLOAD, "aws-s3", as_of=as_of, duration_s=1, replications=1),
    "for_provider": lambda as_of: ObjectStore.for_provider(simpy.Environment(), "aws-s3", as_of=as_of),
    "store.bill": lambda as_of: _store().bill(as_of=as_of),
}


@pytest.mark.parametrize("entry", sorted(DATED))
@pytest.mark.parametrize("value", ["2026-12-01", 20261201, 1.5])
def test_a_date_that_is_not_a_date_is_refused_by_name(entry: str, value: Any) -> None:
    error = _refused(DATED[entry], "as_of", as_of=value)
    assert "is not a date" in error.problem


@pytest.mark.parametrize("entry", ["estimate_cost", "project_costs"])
def test_a_datetime_is_taken_as_its_day(entry: str) -> None:
    # a datetime is a date to isinstance, but comparing one with a table's dates raised TypeError
    assert DATED[entry](dt.datetime(2026, 12, 1, 15, 30)) == DATED[entry](DAY)


@pytest.mark.parametrize("month", [1.5, math.nan, -1, True, "1", 120])
def test_a_bills_month_is_a_whole_number_within_the_longest_horizon(month: Any) -> None:
    _refused(planner.estimate_cost, "month", workload=WORKLOAD, provider="aws-s3", as_of=DAY, month=month)


@pytest.mark.parametrize("months", [0, -1, 1.5, "3", 121])
def test_a_projections_months_are_1_to_120(months: Any) -> None:
    # 0 had fallen back to the workload's horizon and -1 had answered an empty projection costing $0
    _refused(planner.project_costs, "months", workload=WORKLOAD, provider="aws-s3", as_of=DAY, months=months)


def test_the_projection_takes_the_workloads_horizon_only_when_months_is_left_out() -> None:
    projection = planner.project_costs(WORKLOAD, "aws-s3", as_of=DAY)
    assert len(projection.months) == WORKLOAD.constraints.months


SIMULATING: dict[str, Call] = {
    "simulate": lambda **kw: planner.simulate(WORKLOAD, "aws-s3", as_of=DAY, duration_s=1, **kw),
    "recommend": lambda **kw: planner.recommend(WORKLOAD, as_of=DAY, sim_duration_s=1, curves=False, **kw),
}


@pytest.mark.parametrize("entry", sorted(SIMULATING))
@pytest.mark.parametrize(
    ("keyword", "value"), [("seed", -1), ("seed", 1.5), ("seed", "x"), ("seed", None), ("progress", 5)]
)
def test_a_simulations_seed_and_progress_are_checked_first(entry: str, keyword: str, value: Any) -> None:
    _refused(SIMULATING[entry], keyword, **{keyword: value})


@pytest.mark.parametrize("replications", [0, 1.5, 1001, True])
def test_replications_are_bounded(replications: Any) -> None:
    # a billion replications had run on with no end in sight
    _refused(SIMULATING["simulate"], "replications", replications=replications)


def test_a_seed_may_be_a_numpy_integer() -> None:
    one = planner.simulate(WORKLOAD, "aws-s3", as_of=DAY, duration_s=1, replications=1, seed=np.int64(3))
    other = planner.simulate(WORKLOAD, "aws-s3", as_of=DAY, duration_s=1, replications=1, seed=3)
    assert one == other


# -- the wrong object where the library wants one of its own --

OBJECTS: list[tuple[str, Call, str]] = [
    ("estimate_cost workload", lambda: planner.estimate_cost(None, "aws-s3"), "workload"),  # type: ignore[arg-type]
    ("estimate_cost provider", lambda: planner.estimate_cost(WORKLOAD, 5), "provider"),  # type: ignore[arg-type]
    ("estimate_cost options", lambda: planner.estimate_cost(WORKLOAD, "aws-s3", options=None), "options"),  # type: ignore[arg-type]
    ("project_costs workload", lambda: planner.project_costs({}, "aws-s3"), "workload"),  # type: ignore[arg-type]
    ("recommend workload", lambda: planner.recommend(None), "workload"),  # type: ignore[arg-type]
    ("recommend profiles_dir", lambda: planner.recommend(WORKLOAD, profiles_dir=Path("/nonexistent")), "profiles_dir"),
    ("recommend prices", lambda: planner.recommend(WORKLOAD, prices="/x"), "prices"),  # type: ignore[arg-type]
    ("recommend cdns", lambda: planner.recommend(WORKLOAD, cdns="cloudflare"), "cdns"),  # type: ignore[arg-type]
    ("simulate workload", lambda: planner.simulate("w.yaml", "aws-s3"), "workload"),  # type: ignore[arg-type]
    ("simulate profile", lambda: planner.simulate(WORKLOAD, "aws-s3", profile="x"), "profile"),  # type: ignore[arg-type]
    (
        "estimate_migration options",
        lambda: planner.estimate_migration(WORKLOAD, {"source": "aws-s3"}),  # type: ignore[arg-type]
        "options",
    ),
    ("for_provider archive", lambda: _store(archive=True), "archive"),
    ("ObjectStore limits", lambda: _store(limits=5), "limits"),
    ("Monitor env", lambda: Monitor(5, 1, 1), "env"),  # type: ignore[arg-type]
    ("Monitor pool", lambda: Monitor(simpy.Environment(), 1, 3, pool=5), "pool"),  # type: ignore[arg-type]
    ("Monitor link", lambda: Monitor(simpy.Environment(), 1, 3, link=5), "link"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("call", "field"), [(c, f) for _, c, f in OBJECTS], ids=[n for n, _, _ in OBJECTS])
def test_the_wrong_object_is_refused_by_name(call: Call, field: str) -> None:
    _refused(call, field)


# -- the store: an error inside a process, sizes, ranges, times, scales --


def test_a_refusal_inside_a_process_keeps_its_field() -> None:
    # SimPy re-raises a process's error as type(error)(*error.args): the copy had lost the field
    env = simpy.Environment()
    store = _store(env)

    def model(env: simpy.Environment) -> Generator[Any, Any, None]:
        yield store.put("k", -1)

    env.process(model(env))
    with pytest.raises(InputError) as raised:
        env.run()
    assert raised.value.field == "size"
    assert str(raised.value) == "size: PUT 'k': size -1 is not a byte count (give an int of 0 or more)"


def test_an_input_error_pickles_whole() -> None:
    # as a Dask worker's error reaches the client
    error = pickle.loads(pickle.dumps(InputError("bad", source="w.yaml", field="storage.stored")))
    assert (error.problem, error.source, error.field) == ("bad", "w.yaml", "storage.stored")
    assert str(error) == "w.yaml: storage.stored: bad"


def _read(store: ObjectStore, key: str, **arguments: Any) -> planner.StoreRecord:
    env = store.env
    records: list[planner.StoreRecord] = []

    def model(env: simpy.Environment) -> Generator[Any, Any, None]:
        yield store.put(key, 100)
        records.append((yield store.get(key, **arguments)))

    env.process(model(env))
    env.run()
    return records[0]


def test_a_range_running_past_the_end_reads_to_the_end_as_s3_answers() -> None:
    store = _store()
    record = _read(store, "k", byte_range=(50, 1000))
    assert record.size == 50
    assert store.recorder.read_bytes == 50


@pytest.mark.parametrize(("arguments", "field"), [({"byte_range": (100, 10)}, "byte_range"), ({"size": 10**9}, "size")])
def test_a_read_past_or_unlike_the_object_put_is_refused(arguments: dict[str, Any], field: str) -> None:
    _refused(lambda: _read(_store(), "k", **arguments), field)


@pytest.mark.parametrize("operation", ["get", "put"])
def test_a_size_past_the_largest_object_is_refused(operation: str) -> None:
    # past the table's largest object (S3's: 50,000 GiB since December 2025); 10**30 B had run, for 8.7e21 s
    store = _store(client=planner.ClientSpec(multipart=planner.MultipartPolicy(part_size_bytes=5 * 2**30)))
    largest = catalog.table_for("aws-s3", DAY).limits.max_object_bytes
    assert largest == 50_000 * 2**30
    getattr(store, operation)("fits", largest)
    error = _refused(lambda: getattr(store, operation)("big", largest + 1), "size")
    assert f"past aws-s3's largest object, {largest:,} B" in error.problem


def test_an_archive_store_checks_the_key_before_looking_it_up() -> None:
    store = _store(storage_class="deep-archive")
    _refused(lambda: store.get(["x"], 10), "key")  # type: ignore[arg-type]


def _one_put(storage_class: str = "standard") -> ObjectStore:
    store = _store(storage_class=storage_class)
    store.put("k", 100)
    store.env.run()
    return store


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: _one_put().bill(scale=1e308), "scale"),
        (lambda: _one_put().recorder.summary(since=0, until=1e308), "until"),
        (lambda: _one_put().recorder.summary(since=math.nan), "since"),
        (lambda: _one_put("deep-archive").restore("k", ready_after_s=1e308), "ready_after_s"),
    ],
)
def test_times_and_scales_past_what_a_float_keeps_are_refused(call: Call, field: str) -> None:
    # a scale of 1e308 had raised OverflowError, a window to 1e308 s answered NaN, and a restore ready at
    # 1e308 s read its object in 0 s (a float at 1e308 has no room for a latency)
    _refused(call, field)


def test_numpy_scalars_are_numbers_where_the_store_takes_a_time() -> None:
    store = _store()
    store.put("k", 100)
    store.env.run()
    assert store.recorder.summary(since=np.float64(0.0), until=np.int64(10))["PUT"].requests == 1


def test_a_put_that_nothing_bounds_moves_its_bytes_in_its_time() -> None:
    # no link and no stream rate in the profile: the body moves as it is sent; the summary had said 0 B/s
    store = _store()
    store.put("k", 5 * 10**8)
    store.env.run()
    assert store.recorder.summary()["PUT"].throughput_bytes_per_s == pytest.approx(5 * 10**8 / store.env.now)


# -- the array engine and the migration options --


@pytest.mark.parametrize(
    ("points", "field"),
    [
        ({"stored_bytes": math.nan}, "stored_bytes"),
        ({"stored_bytes": -1e12}, "stored_bytes"),
        ({"stored_bytes": [1e12, math.inf]}, "stored_bytes"),
        ({"stored_bytes": 1e12, "egress_bytes": -1}, "egress_bytes"),
        ({"stored_bytes": 1e12, "requests": {"get": math.nan}}, "requests.get"),
        ({"egress_bytes": 1e12}, "stored_bytes"),
        ({"stored_bytes": 1e12, "egres_bytes": 1}, "egres_bytes"),
    ],
)
def test_the_array_engine_refuses_points_that_are_no_usage(points: dict[str, Any], field: str) -> None:
    table = catalog.table_for("backblaze-b2", DAY)
    _refused(lambda: monthly_totals(table, "standard", **points), field)


@pytest.mark.parametrize("discount", [Decimal("NaN"), Decimal("-0.5"), Decimal(1), Decimal(2), 0.5])
def test_a_discount_is_a_decimal_share_below_one(discount: Any) -> None:
    # -0.5 had raised the bill by half and 2 had made it $0
    table = catalog.table_for("backblaze-b2", DAY)
    _refused(lambda: monthly_bills(table, "standard", discount=discount, stored_bytes=1e12), "discount")


@pytest.mark.parametrize("field", ["data_age_days", "verify_days"])
def test_a_migrations_days_are_finite(field: str) -> None:
    # an infinite data age had planned an infinite copy costing $0
    with pytest.raises(ValueError, match=field):
        MigrationOptions(
            source={"provider": "aws-s3"}, destination={"provider": "cloudflare-r2"}, start=DAY, **{field: math.inf}
        )


@pytest.mark.parametrize(
    ("field", "value", "used_by"),
    [("never_read_share", 0.5, "copy-on-read"), ("sweep_after_days", 90, "copy-on-read"),
     ("age_out_within_days", 180, "hybrid")],
)  # fmt: skip
def test_an_option_the_forced_strategy_does_not_use_is_refused(field: str, value: float, used_by: str) -> None:
    # with --strategy bulk they had been ignored without a word
    endpoints: dict[str, Any] = {"source": {"provider": "aws-s3"}, "destination": {"provider": "cloudflare-r2"}}
    with pytest.raises(ValueError, match=rf"{field}: applies to the {used_by} strategy only, not to bulk"):
        MigrationOptions(**endpoints, strategy="bulk", **{field: value})
    MigrationOptions(**endpoints, strategy=used_by, **{field: value})  # type: ignore[arg-type]
