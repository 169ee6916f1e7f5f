"""Property-based bad input: random and mutated workloads, price overrides, profiles and options.

Every generated case either succeeds or ends in one line on stderr that starts with
``planner: `` and names the file, with exit code 2 and no traceback. Valid sizes in every unit
parse to the exact byte count, and a stored volume bills exactly its bytes / 10**9 GB-months.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import math
from decimal import Decimal, localcontext
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import planner
from planner.errors import InputError
from planner.measure.reference import parse_profile
from planner.units import MAX_BYTES, parse_size
from planner.workload import load_workload, parse_workload

from .conftest import AS_OF, EXAMPLES, RELIABLE, assert_clean_outcome, assert_one_line_error, invoke

# --------------------------------------------------------------------------- values


SIZE_FIELDS = [
    ("storage", "stored"),
    ("storage", "object_size"),
    ("storage", "growth_per_month"),
    ("traffic", "egress"),
    ("traffic", "internal_reads"),
    ("traffic", "inter_region"),
    ("client", "part_size"),
    ("client", "range_size"),
]
OTHER_FIELDS = [
    ("storage", "retention"),
    ("storage", "objects"),
    ("traffic", "reads"),
    ("traffic", "writes"),
    ("traffic", "heads"),
    ("traffic", "read_write_ratio"),
    ("traffic", "peak_factor"),
    ("performance", "p99_ttfb"),
    ("performance", "read_throughput"),
    ("client", "link"),
    ("client", "concurrency"),
    ("client", "read_streams"),
    ("constraints", "months"),
    ("constraints", "providers"),
]

numbers = st.one_of(
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -0.0, 1e400, -1e400, 1e-400, 10**30, 2**64, 1e308]),
)
number_text = st.one_of(
    numbers.map(str),
    st.sampled_from(
        ["NaN", "nan", "inf", "-inf", "Infinity", "1e999999999", "1e-999999999", "-0", "+5", "1_000", "1,5", "1,000"]
    ),
    st.sampled_from(["١٠", "１０", "²", "1.2.3", ".", "e5", "0x10", " 12 ", "\t7\n", "5\u00a0"]),
)
_UNITS = "B b KB kB Kb kb MB Mb GB Gb gb TB Tb PB EB Eb KiB Kib MiB GiB Gib TiB PiB bytes parsecs"
_OTHER_UNITS = "Gbps GBps GB/s ms MS M m d D s us µs weeks months y % GB-month"
unit_text = st.sampled_from(["", "TB TB", *_UNITS.split(), *_OTHER_UNITS.split()])
scalar = st.one_of(
    numbers,
    st.booleans(),
    st.none(),
    st.text(max_size=20),
    st.builds(lambda n, sep, u: f"{n}{sep}{u}", number_text, st.sampled_from(["", " ", "  "]), unit_text),
)
value = st.recursive(
    scalar,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=6,
)


def _base() -> dict[str, Any]:
    return {
        "name": "generated",
        "storage": {"stored": "20 TB", "object_size": "64 MiB", "retention": "90d", "growth_per_month": "1 TB"},
        "traffic": {"egress": "5 TB", "reads": 100000, "writes": 5000, "peak_factor": 2},
        "performance": {"p99_ttfb": "300 ms", "read_throughput": "1 Gbps"},
        "client": {"link": "10 Gbps", "concurrency": 32, "part_size": "64 MiB", "read_streams": 2},
        "constraints": {"providers": ["aws-s3", "backblaze-b2"], "months": 3},
    }


def _section(data: dict[str, Any], name: str) -> dict[str, Any]:
    if not isinstance(data.get(name), dict):
        data[name] = {}
    section: dict[str, Any] = data[name]
    return section


@st.composite
def mutated_workloads(draw: st.DrawFn) -> dict[str, Any]:
    data = _base()
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        kind = draw(st.sampled_from(["size", "other", "drop", "unknown", "section", "top"]))
        if kind == "size":
            section, key = draw(st.sampled_from(SIZE_FIELDS))
            _section(data, section)[key] = draw(scalar)
        elif kind == "other":
            section, key = draw(st.sampled_from(OTHER_FIELDS))
            _section(data, section)[key] = draw(value)
        elif kind == "drop":
            section = draw(st.sampled_from(sorted(data)))
            if isinstance(data[section], dict) and data[section] and draw(st.booleans()):
                data[section].pop(draw(st.sampled_from(sorted(data[section]))))
            else:
                data.pop(section)
        elif kind == "unknown":
            section = draw(st.sampled_from(sorted(k for k, v in data.items() if isinstance(v, dict)) or ["storage"]))
            _section(data, section)[draw(st.text(min_size=1, max_size=10))] = draw(value)
        elif kind == "section":
            data[draw(st.sampled_from(sorted(data)))] = draw(value)
        else:
            data[draw(st.text(min_size=1, max_size=10))] = draw(value)
    return data


def _dump(data: Any, style: str) -> str:
    if style == "json":
        return json.dumps(data, allow_nan=True, default=str)
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


# --------------------------------------------------------------------------- workloads


@settings(RELIABLE, max_examples=30)
@given(data=mutated_workloads(), style=st.sampled_from(["yaml", "json"]), cut=st.none() | st.floats(0, 1))
def test_mutated_workload_is_priced_or_refused_in_one_line(
    data: dict[str, Any], style: str, cut: float | None, tmp_path: Path
) -> None:
    text = _dump(data, style)
    if cut is not None:
        text = text[: int(len(text) * cut)]  # a file cut off mid-write
    path = tmp_path / f"w.{style}"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    assert_clean_outcome(invoke("cost", str(path), "-p", "aws-s3", "--as-of", AS_OF), source=str(path))


@settings(RELIABLE, max_examples=12)
@given(data=mutated_workloads())
def test_mutated_workload_in_recommend(data: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(_dump(data, "yaml"), encoding="utf-8")
    # 1 is "no option meets the targets": a valid answer, not an error.
    assert_clean_outcome(invoke("recommend", str(path), "--as-of", AS_OF), source=str(path), allow=(0, 1))


@settings(RELIABLE, max_examples=20)
@given(raw=st.one_of(st.binary(max_size=300), st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass"))))
def test_random_bytes_as_a_workload(raw: bytes, tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_bytes(raw)
    assert_clean_outcome(invoke("cost", str(path), "-p", "aws-s3", "--as-of", AS_OF), source=str(path))


@settings(RELIABLE, max_examples=200)
@given(raw=st.binary(max_size=400))
def test_random_bytes_through_the_library(raw: bytes, tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_bytes(raw)
    try:
        load_workload(path)
    except InputError as error:
        assert error.source == str(path) and len(str(error).splitlines()) == 1


@settings(RELIABLE, max_examples=15)
@given(example=st.sampled_from(sorted(EXAMPLES.glob("*.yaml"))), cut=st.integers(min_value=0, max_value=4000))
def test_truncated_examples(example: Path, cut: int, tmp_path: Path) -> None:
    path = tmp_path / example.name
    path.write_bytes(example.read_bytes()[:cut])
    assert_clean_outcome(invoke("cost", str(path), "-p", "wasabi", "--as-of", AS_OF), source=str(path))


@settings(RELIABLE, max_examples=200)
@given(data=mutated_workloads())
def test_library_raises_only_input_error(data: dict[str, Any]) -> None:
    """Through the library: a Workload, or an InputError naming the field, never another exception."""
    try:
        workload = parse_workload(data, source="generated.yaml")
    except InputError as error:
        assert error.source == "generated.yaml"
        assert "\n" not in str(error)
        return
    bill = planner.estimate_cost(workload, "aws-s3", as_of=dt.date(2026, 12, 1))
    assert bill.total_usd.is_finite() and bill.total_usd >= 0


# --------------------------------------------------------------------------- no silent misread

DECIMAL_UNITS = {"B": 0, "KB": 1, "MB": 2, "GB": 3, "TB": 4, "PB": 5}
BINARY_UNITS = {"KiB": 1, "MiB": 2, "GiB": 3, "TiB": 4, "PiB": 5}


def _exact_bytes(number: Decimal, unit: str) -> Decimal:
    if unit in DECIMAL_UNITS:
        return number * Decimal(1000) ** DECIMAL_UNITS[unit]
    return number * Decimal(1024) ** BINARY_UNITS[unit]


@settings(RELIABLE, max_examples=300)
@given(
    whole=st.integers(min_value=0, max_value=10**6),
    fraction=st.none() | st.integers(min_value=0, max_value=999_999),
    exponent=st.none() | st.integers(min_value=-6, max_value=6),
    unit=st.sampled_from([*DECIMAL_UNITS, *BINARY_UNITS]),
    space=st.sampled_from(["", " ", "  "]),
)
def test_every_unit_parses_to_the_exact_integer(
    whole: int, fraction: int | None, exponent: int | None, unit: str, space: str
) -> None:
    text = str(whole) + (f".{fraction:06d}" if fraction is not None else "") + (f"e{exponent}" if exponent else "")
    exact = _exact_bytes(Decimal(text), unit)
    written = f"{text}{space}{unit}"
    if exact > MAX_BYTES:
        with pytest.raises(ValueError, match="beyond any real workload"):
            parse_size(written)
        return
    if 0 < exact < 1:
        # nobody means half a byte: "0.5 B" of objects was 20 trillion objects priced without a word
        with pytest.raises(ValueError, match="less than one byte"):
            parse_size(written)
        return
    # Whole bytes, rounded up: a fraction of a byte above the first is still a byte stored.
    assert parse_size(written) == math.ceil(exact)
    assert parse_size(f" {written} ") == math.ceil(exact)


@RELIABLE
@given(
    unit=st.sampled_from(["Kb", "Mb", "Gb", "Tb", "Pb", "Eb", "kb", "mb", "gb", "tb", "pb", "b", "Kib", "Mib", "Gib"]),
    number=st.integers(min_value=1, max_value=10**6),
)
def test_bit_units_are_never_taken_for_bytes(unit: str, number: int) -> None:
    with pytest.raises(ValueError, match="sizes are bytes, not bits"):
        parse_size(f"{number} {unit}")


@RELIABLE
@given(
    number=st.integers(min_value=1, max_value=40),
    unit=st.sampled_from(["GB", "GiB", "TB", "TiB", "MB", "MiB"]),
)
def test_stored_volume_bills_exactly_its_bytes(number: int, unit: str) -> None:
    """AWS S3 Standard's first tier ($0.023 a GB-month of 2**30 bytes, up to 51,200 GB) is flat."""
    stored = _exact_bytes(Decimal(number), unit)
    workload = parse_workload({"name": "w", "storage": {"stored": f"{number} {unit}", "object_size": "1 MB"}})
    bill = planner.estimate_cost(workload, "aws-s3", as_of=dt.date(2026, 12, 1))
    storage = [item for item in bill.line_items if item.category == "storage"]
    assert len(storage) == 1
    assert storage[0].unit == "GB-month"
    with localcontext() as context:
        context.prec = 60
        assert storage[0].quantity == stored / Decimal(2**30)
        assert storage[0].amount_unrounded_usd == stored / Decimal(2**30) * Decimal("0.023")


def test_one_tib_and_one_tb_bill_what_they_are() -> None:
    """The two figures a 1,024 misread would swap: at AWS (GB = 2**30 bytes, S3 FAQ) 1 TiB is 1,024
    GB-months and 1 TB is 931.322574615478515625."""
    quantities = {}
    for size in ("1 TiB", "1 TB"):
        workload = parse_workload({"name": "w", "storage": {"stored": size, "object_size": "1 GB"}})
        bill = planner.estimate_cost(workload, "aws-s3", as_of=dt.date(2026, 12, 1))
        quantities[size] = next(i.quantity for i in bill.line_items if i.category == "storage")
    assert quantities == {"1 TiB": Decimal(1024), "1 TB": Decimal("931.322574615478515625")}


# --------------------------------------------------------------------------- price overrides

OVERRIDE_PATHS: list[tuple[str, ...]] = [
    ("egress", "internet", "tiers", "0", "price"),
    ("egress", "internet", "unit_bytes"),
    ("egress", "internet", "unit"),
    ("egress", "internet", "free_per_month"),
    ("egress", "free_per_day"),
    ("billing", "month_days"),
    ("billing", "round_up"),
    ("classes", "standard", "storage", "tiers", "0", "price"),
    ("classes", "standard", "storage", "tiers", "0", "up_to"),
    ("classes", "standard", "minimum_billable_bytes"),
    ("classes", "standard", "min_duration_days"),
    ("classes", "standard", "requests"),
    ("provider",),
    ("label",),
    ("limits", "multipart", "max_parts"),
]


def _set(data: dict[str, Any], path: tuple[str, ...], new: Any) -> None:
    cursor: Any = data
    for key in path[:-1]:
        if isinstance(cursor, list):
            cursor = cursor[int(key)] if cursor else cursor
            continue
        if not isinstance(cursor.get(key), dict | list):
            cursor[key] = [{}] if key == "tiers" else {}
        cursor = cursor[key]
    if isinstance(cursor, list):
        cursor.append(new)
    else:
        cursor[path[-1]] = new


@settings(RELIABLE, max_examples=25)
@given(
    changes=st.lists(st.tuples(st.sampled_from(OVERRIDE_PATHS), value), min_size=1, max_size=3),
    style=st.sampled_from(["yaml", "json"]),
)
def test_mutated_price_override(changes: list[tuple[tuple[str, ...], Any]], style: str, tmp_path: Path) -> None:
    data: dict[str, Any] = {
        "provider": "aws-s3",
        "label": "edp",
        "egress": {"internet": {"tiers": [{"price": "0.02"}]}},
    }
    for path, new in changes:
        _set(data, path, new)
    file = tmp_path / f"prices.{style}"
    file.write_text(_dump(data, style), encoding="utf-8", errors="surrogatepass")
    result = invoke("pricing", "show", "aws-s3", "--prices", str(file), "--as-of", AS_OF)
    assert_clean_outcome(result, source=str(file))


@settings(RELIABLE, max_examples=15)
@given(
    changes=st.lists(st.tuples(st.sampled_from(OVERRIDE_PATHS[:11]), value), min_size=1, max_size=2),
)
def test_mutated_price_override_in_cost(changes: list[tuple[tuple[str, ...], Any]], tmp_path: Path) -> None:
    data: dict[str, Any] = {"provider": "aws-s3", "label": "edp"}
    for path, new in changes:
        _set(data, path, new)
    file = tmp_path / "prices.yaml"
    file.write_text(_dump(data, "yaml"), encoding="utf-8", errors="surrogatepass")
    workload = str(EXAMPLES / "pipeline-scratch.yaml")
    assert_clean_outcome(
        invoke("cost", workload, "-p", "aws-s3", "--prices", str(file), "--as-of", AS_OF), source=str(file)
    )


# --------------------------------------------------------------------------- profiles

PROFILES = Path(__file__).resolve().parents[2] / "planner" / "measure" / "profiles"
PROFILE = json.loads((PROFILES / "aws-s3.json").read_text())


def _number_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _number_paths(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _number_paths(v, (*path, i))]
    return [path] if isinstance(value, int | float) and not isinstance(value, bool) else []


PROFILE_NUMBERS = _number_paths(PROFILE)
bad_figures = st.one_of(
    st.sampled_from([float("nan"), float("inf"), float("-inf"), -1, -0.5, 0, 1e308, 10**30, True, "12", None, [], {}]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**20), max_value=10**20),
)


@st.composite
def mutated_profiles(draw: st.DrawFn) -> str:
    data = copy.deepcopy(PROFILE)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        path = draw(st.sampled_from(PROFILE_NUMBERS))
        cursor: Any = data
        for key in path[:-1]:
            cursor = cursor[key]
        cursor[path[-1]] = draw(bad_figures)
    text = json.dumps(data)
    if draw(st.booleans()) and draw(st.booleans()):
        text = text[: draw(st.integers(min_value=0, max_value=len(text)))]
    return text


@settings(RELIABLE, max_examples=200)
@given(text=mutated_profiles())
def test_mutated_profile_is_refused_or_sound(text: str) -> None:
    """A profile loads with finite, non-negative figures in its summary, or is an InputError."""
    try:
        profile = parse_profile(text, source="aws-s3.json")
    except InputError as error:
        assert error.source == "aws-s3.json" and "\n" not in str(error)
        return
    summary = profile.summary()
    figures = [summary.ttfb_p50_s, summary.ttfb_p99_s, summary.read_ceiling_bytes_per_s]
    figures += [summary.write_ceiling_bytes_per_s, summary.per_key_write_per_s, *summary.ops_per_s.values()]
    figures += [bps for _, bps in summary.get_stream_bytes_per_s]
    for figure in figures:
        assert figure is None or (math.isfinite(figure) and figure >= 0), figure


@settings(RELIABLE, max_examples=5)
@given(text=mutated_profiles())
def test_mutated_profile_in_recommend(text: str, tmp_path: Path) -> None:
    (tmp_path / "aws-s3.json").write_text(text, encoding="utf-8")
    result = invoke("recommend", str(EXAMPLES / "web-assets.yaml"), "--as-of", AS_OF, "--profiles", str(tmp_path))
    assert_clean_outcome(result, source=str(tmp_path / "aws-s3.json"), allow=(0, 1))


# --------------------------------------------------------------------------- options

FIRST_TABLE = {"aws-s3": dt.date(2019, 3, 27), "wasabi": dt.date(2017, 7, 1), "cloudflare-r2": dt.date(2022, 9, 21)}


@settings(RELIABLE, max_examples=40)
@given(
    day=st.dates(min_value=dt.date(1, 1, 1), max_value=dt.date(9999, 12, 31)),
    provider=st.sampled_from(sorted(FIRST_TABLE)),
)
def test_any_date_is_a_table_or_one_line(day: dt.date, provider: str) -> None:
    """Far future: the latest table. Before the first version: one line, exit code 2."""
    result = invoke("pricing", "show", provider, "--as-of", day.isoformat(), "--format", "json")
    if day >= FIRST_TABLE[provider]:
        assert result.code == 0, result.err
        assert dt.date.fromisoformat(json.loads(result.out)["effective_from"]) <= day
    else:
        assert_clean_outcome(result)
        assert "the earliest begins" in result.err


@settings(RELIABLE, max_examples=25)
@given(text=st.text(max_size=25))
def test_any_as_of_text(text: str) -> None:
    if text.startswith("-"):
        text = " " + text  # an option-looking value is typer's usage error, tested below
    result = invoke("cost", str(EXAMPLES / "web-assets.yaml"), "-p", "aws-s3", "--as-of", text)
    assert_clean_outcome(result)
    if result.code == 2:
        assert "--as-of" in result.err or "price table" in result.err


@settings(RELIABLE, max_examples=30)
@given(
    option=st.sampled_from(["--months", "--format", "--class", "-p", "--prices", "--bogus", "--as-of"]),
    text=st.text(max_size=15),
)
def test_any_option_value(option: str, text: str, tmp_path: Path) -> None:
    args = ["cost", str(EXAMPLES / "web-assets.yaml"), "-p", "aws-s3", "--as-of", AS_OF, option, text]
    if option == "--prices":
        args[-1] = str(tmp_path / (text.replace("/", "_").replace("\x00", "") or "none"))
    result = invoke(*args)
    assert "Traceback" not in result.err
    assert_clean_outcome(result)  # typer's own usage errors are one line too


@settings(RELIABLE, max_examples=20)
@given(months=st.integers(min_value=-(10**6), max_value=10**6))
def test_months_range(months: int) -> None:
    result = invoke(
        "cost", str(EXAMPLES / "pipeline-scratch.yaml"), "-p", "idrive-e2", "--as-of", AS_OF, "--months", str(months)
    )
    if 1 <= months <= 120:
        assert result.code == 0, result.err
    else:
        assert_one_line_error(result, expect="--months")
