"""Answers under uncertainty: inputs as ranges, and a case with a known answer.

Two options, R2 Standard and B2 Standard, 10 TB stored: B2's egress is free up to 3x the stored
volume and $0.01 a GB beyond, R2's is free, R2's storage costs more. Their bills cross at one
egress E* (found here with the exact engine, as `recommend` reports break-even points); with egress
uniform on [20 TB, 60 TB], B2 is the cheaper in (E* - 20 TB) / 40 TB of outcomes."""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from planner.costing.bills import estimate_cost
from planner.decide.uncertainty import at, sample
from planner.errors import InputError
from planner.workload import load_workload

AS_OF = dt.date(2026, 12, 1)
TB = 10**12
TEXT = """name: two options
storage: {stored: 10 TB, object_size: 64 MiB}
traffic:
  egress: {low: 20 TB, high: 60 TB}
constraints: {providers: [backblaze-b2, cloudflare-r2], storage_classes: [standard]}
"""


@pytest.fixture
def workload_file(tmp_path: Path) -> Path:
    path = tmp_path / "w.yaml"
    path.write_text(TEXT)
    return path


def _bill(workload: object, provider: str, egress: float) -> float:
    varied = at(workload, {"traffic.egress": egress})  # type: ignore[arg-type]
    return float(estimate_cost(varied, provider, "standard", as_of=AS_OF).total_usd)


def test_ranges_load_at_their_central_value(workload_file: Path) -> None:
    workload = load_workload(workload_file)
    assert workload.traffic.egress == 40 * TB  # the uniform's midpoint
    (egress,) = workload.uncertain
    assert (egress.field, egress.kind, egress.low, egress.high) == ("traffic.egress", "uniform", 20 * TB, 60 * TB)


def test_the_probability_of_being_cheapest_matches_the_break_even(workload_file: Path) -> None:
    workload = load_workload(workload_file)
    low, high = 20.0 * TB, 60.0 * TB
    # bisection on the exact bills: below E* B2 is cheaper, above it R2
    a, b = low, high
    assert _bill(workload, "backblaze-b2", a) < _bill(workload, "cloudflare-r2", a)
    assert _bill(workload, "backblaze-b2", b) > _bill(workload, "cloudflare-r2", b)
    for _ in range(50):
        mid = (a + b) / 2
        a, b = (mid, b) if _bill(workload, "backblaze-b2", mid) < _bill(workload, "cloudflare-r2", mid) else (a, mid)
    share = (a - low) / (high - low)
    n = 2000
    answer = sample(workload, workload.uncertain, n, seed=7, as_of=AS_OF)
    b2 = next(o for o in answer.options if o.option == "backblaze-b2:standard")
    r2 = next(o for o in answer.options if o.option == "cloudflare-r2:standard")
    sigma = math.sqrt(share * (1 - share) / n)
    assert abs(b2.p_cheapest - share) <= 4 * sigma, (b2.p_cheapest, share)
    assert b2.p_cheapest + r2.p_cheapest == pytest.approx(1.0)
    # B2's bill rises with egress, so its percentiles are its bill at egress's: 24, 40 and 56 TB
    for got, q in ((b2.p10_usd, 0.1), (b2.p50_usd, 0.5), (b2.p90_usd, 0.9)):
        expected = _bill(workload, "backblaze-b2", low + q * (high - low))
        # a quantile of 2,000 uniform draws is within ~0.7 % of the range (1 sd); B2 bills $10 a TB
        assert abs(got - expected) <= 4 * 0.0067 * 40 * 10 + 0.01, (q, got, expected)
    # the regret of the favourite is what it costs above the cheapest, averaged
    assert answer.options[0].expected_regret_usd <= min(o.expected_regret_usd for o in answer.options)
    assert "cheapest in" in answer.statement and "traffic.egress" in answer.statement


def test_same_seed_same_answer(workload_file: Path) -> None:
    workload = load_workload(workload_file)
    one = sample(workload, workload.uncertain, 50, seed=3, as_of=AS_OF)
    two = sample(workload, workload.uncertain, 50, seed=3, as_of=AS_OF)
    assert one == two


def test_triangular_and_lognormal_draws() -> None:
    from planner.decide.uncertainty import Uncertain

    rng = np.random.default_rng(0)
    tri = Uncertain(field="f", kind="triangular", low=0, likely=10, high=40).sample(rng, 200_000)
    assert tri.mean() == pytest.approx((0 + 10 + 40) / 3, rel=0.01)
    logn = Uncertain(field="f", kind="lognormal", low=10, high=1000).sample(rng, 200_000)
    assert np.percentile(logn, 10) == pytest.approx(10, rel=0.03)
    assert np.percentile(logn, 90) == pytest.approx(1000, rel=0.03)


@pytest.mark.parametrize(
    ("egress", "message"),
    [
        ("{low: 60 TB, high: 20 TB}", "must rise"),
        ("{low: 1 TB, p90: 2 TB}", "give {low, likely, high}"),
        ("{p10: 0 TB, p90: 2 TB}", "must be above 0"),
    ],
)
def test_bad_ranges_are_one_line(tmp_path: Path, egress: str, message: str) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(TEXT.replace("{low: 20 TB, high: 60 TB}", egress))
    with pytest.raises(InputError, match=message) as caught:
        load_workload(path)
    assert caught.value.field == "traffic.egress"


def test_horizon_percentiles_sum_each_month_with_growth(tmp_path: Path) -> None:
    """B2 Standard (table 2026-05-01): $6.95 a TB-month after 0.01 TB free, every request free, egress
    free up to 3x the stored volume and $0.01 a GB ($10 a TB) beyond (table 2023-10-03). Stored 10,
    11 and 12 TB in the three months (1 TB growth): storage $69.43 + $76.38 + $83.33 = $229.14 (each
    month's line rounded to the cent), and egress E costs $10 x [(E - 30) + (E - 33) + (E - 36)] where
    positive. Egress uniform on [20, 60] TB: its p10 / p50 / p90 are 24 / 40 / 56 TB, so the horizon's
    are $229.14, $229.14 + $10 x (10 + 7 + 4) = $439.14 and $229.14 + $10 x (26 + 23 + 20) = $919.14."""
    path = tmp_path / "grows.yaml"
    path.write_text(
        TEXT.replace("object_size: 64 MiB}", "object_size: 64 MiB, growth_per_month: 1 TB}").replace(
            "storage_classes: [standard]}", "storage_classes: [standard], months: 3}"
        )
    )
    workload = load_workload(path)
    n = 2000
    answer = sample(workload, workload.uncertain, n, seed=7, as_of=AS_OF)
    assert answer.months == 3
    b2 = next(o for o in answer.options if o.option == "backblaze-b2:standard")
    assert b2.horizon_p10_usd == pytest.approx(229.14, abs=1e-9)  # egress there is below 3 x 10 TB
    # a quantile of 2,000 uniform draws is within ~0.27 TB of its own (1 sd); 30 dollars a TB there
    assert abs(b2.horizon_p50_usd - 439.14) <= 4 * 0.27 * 30, b2.horizon_p50_usd
    assert abs(b2.horizon_p90_usd - 919.14) <= 4 * 0.27 * 30, b2.horizon_p90_usd
    # the month's percentiles are the first month's: 10 TB stored, $69.43 of storage
    assert b2.p10_usd == pytest.approx(69.43, abs=1e-9)


def test_first_order_indices_of_a_bill_linear_in_two_inputs(tmp_path: Path) -> None:
    """S3 Standard (aws-s3@2025-12-01) within its first tiers is linear: $0.023 a GiB-month stored
    (first 50 TiB) and $0.09 a GiB of egress (first 10 TiB after 100 GiB free); GETs derived from
    egress add $0.0004 per 1,000, 16 a GiB of 64 MiB objects, 0.007 % of egress's slope. With stored
    uniform over 30 TB and egress over 8 TB, independent, Var(bill) = a^2 Var(S) + b^2 Var(E), so
    stored explains 0.023^2 x 30^2 / (0.023^2 x 30^2 + 0.09^2 x 8^2) = 0.4761 / 0.9945 = 47.9 % of it
    alone and egress 52.1 %."""
    path = tmp_path / "linear.yaml"
    path.write_text(
        "name: linear\n"
        "storage: {stored: {low: 10 TB, high: 40 TB}, object_size: 64 MiB}\n"
        "traffic: {egress: {low: 1 TB, high: 9 TB}}\n"
        "constraints: {providers: [aws-s3], storage_classes: [standard]}\n"
    )
    workload = load_workload(path)
    answer = sample(workload, workload.uncertain, 10_000, seed=2, as_of=AS_OF)
    index = {s.field: s.first_order_index for s in answer.tornado}
    stored, egress = index["storage.stored"], index["traffic.egress"]
    assert stored is not None and egress is not None
    # binning 10,000 outcomes into 100 bins: within about 0.01 (sampling) plus 0.01 (the bins' own noise)
    assert abs(stored - 0.4787) <= 0.03, stored
    assert abs(egress - 0.5213) <= 0.03, egress
    assert [s.field for s in answer.tornado] == ["traffic.egress", "storage.stored"]  # egress swings more


def test_an_input_that_does_not_move_the_bill_explains_none_of_it() -> None:
    from planner.decide.uncertainty import first_order_index

    rng = np.random.default_rng(0)
    x, noise = rng.uniform(0, 1, 10_000), rng.uniform(0, 1, 10_000)
    unrelated = first_order_index(noise, x)
    assert unrelated is not None and unrelated < 0.02  # only the binning's bias, about 100 / 10,000
    assert first_order_index(3 * x + 1, x) == pytest.approx(1.0, abs=1e-3)
    assert first_order_index(np.full(100, 5.0), x[:100]) is None
    # the same bill summed in another order: rounding noise of a part in 10^16, not a share of anything
    rounded = 1798.2 + np.where(x[:100] > 0.5, 2.3e-13, 0.0)
    assert first_order_index(rounded, x[:100]) is None


def test_the_tornado_gives_no_share_to_an_input_that_moves_nothing(run_cli: Any, tmp_path: Path) -> None:
    """R2 bills no egress: the favourite's bill is the same in every outcome, so egress explains none of
    its (zero) variance; float rounding once showed it as 100 %."""
    path = tmp_path / "free-egress.yaml"
    path.write_text(
        "name: free-egress\n"
        "storage: {stored: 10 TB, object_size: 64 MiB}\n"
        "traffic: {egress: {low: 1 TB, high: 9 TB}}\n"
        "constraints: {providers: [cloudflare-r2], storage_classes: [standard]}\n"
    )
    result = run_cli("--wide", "recommend", str(path), "--samples", "2000")
    assert result.code == 0, result.err
    row = next(line for line in result.out.splitlines() if line.startswith("traffic.egress"))
    assert row.split()[-1] == "-", row
    assert "$1,798.20  $1,798.20" in row


CORRELATED = """name: correlated
storage:
  stored: {low: 10 TB, high: 50 TB}
  object_size: 64 MiB
traffic:
  egress: {low: 20 TB, likely: 30 TB, high: 80 TB}
  reads: {p10: 1M, p90: 9M}
correlate:
  - [traffic.egress, storage.stored, 0.8]
  - [traffic.reads, storage.stored, -0.5]
constraints: {providers: [backblaze-b2, cloudflare-r2], storage_classes: [standard]}
"""


def _ranks(values: np.ndarray) -> np.ndarray:
    return np.argsort(np.argsort(values)).astype(float)


def test_correlated_inputs_keep_their_distributions_and_take_the_copulas_rank_correlation(tmp_path: Path) -> None:
    """A Gaussian copula with correlation rho between normal scores gives a rank (Spearman) correlation
    of (6 / pi) asin(rho / 2): 0.7859 for 0.8 and -0.4826 for -0.5; each input keeps its own
    distribution (uniform 10..50 TB: mean 30 TB; triangular 20 / 30 / 80 TB: mean 130 / 3 = 43.33 TB;
    lognormal with p10 1M and p90 9M: median sqrt(9) M = 3M)."""
    from planner.decide.uncertainty import draw

    path = tmp_path / "c.yaml"
    path.write_text(CORRELATED)
    workload = load_workload(path)
    assert [(c.first, c.second, c.rho) for c in workload.correlations] == [
        ("traffic.egress", "storage.stored", 0.8),
        ("traffic.reads", "storage.stored", -0.5),
    ]
    n = 40_000
    values = draw(workload.uncertain, n, np.random.default_rng(1), workload.correlations)
    stored, egress, reads = values["storage.stored"], values["traffic.egress"], values["traffic.reads"]
    spearman = np.corrcoef(_ranks(egress), _ranks(stored))[0, 1]
    assert abs(spearman - 6 / math.pi * math.asin(0.4)) < 0.01, spearman
    spearman = np.corrcoef(_ranks(reads), _ranks(stored))[0, 1]
    assert abs(spearman - 6 / math.pi * math.asin(-0.25)) < 0.015, spearman
    # a pair the file does not name has uncorrelated scores (the matrix holds 0 there)
    spearman = np.corrcoef(_ranks(reads), _ranks(egress))[0, 1]
    assert abs(spearman) < 0.015, spearman
    assert stored.min() >= 10 * TB and stored.max() <= 50 * TB
    assert abs(stored.mean() - 30 * TB) < 0.2 * TB
    assert abs(egress.mean() - 130 / 3 * TB) < 0.3 * TB
    assert egress.min() >= 20 * TB and egress.max() <= 80 * TB
    assert abs(np.median(reads) - 3e6) < 0.06e6
    assert abs(np.percentile(reads, 90) - 9e6) < 0.3e6
    assert (reads == np.round(reads)).all()  # a count stays whole


def test_correlation_moves_the_answer_and_is_reported(tmp_path: Path, run_cli: Any) -> None:
    """Egress rising with stored keeps more outcomes inside B2's free 3x allowance than independence."""
    path = tmp_path / "c.yaml"
    path.write_text(CORRELATED)
    workload = load_workload(path)
    together = sample(workload, workload.uncertain, 3000, seed=4, as_of=AS_OF, correlations=workload.correlations)
    apart = sample(workload, workload.uncertain, 3000, seed=4, as_of=AS_OF)
    share = {o.option: o.p_cheapest for o in together.options}
    alone = {o.option: o.p_cheapest for o in apart.options}
    assert share["backblaze-b2:standard"] > alone["backblaze-b2:standard"] + 0.05
    result = run_cli("recommend", str(path), "--no-simulate", "--samples", "200", "--as-of", "2026-12-01")
    assert result.code == 0, result.err
    assert "traffic.egress and storage.stored 0.8" in result.out.replace("\n", " ")


@pytest.mark.parametrize(
    ("correlate", "message"),
    [
        ("[[traffic.egress, storage.objects, 0.5]]", "'storage.objects' is not an input given as a range"),
        ("[[traffic.egress, storage.stored, 1.5]]", "a correlation is a number from -1 to 1"),
        ("[[traffic.egress, traffic.egress, 0.5]]", "two different fields"),
        ("[traffic.egress, storage.stored, 0.5]", "give a list of [field, field, correlation]"),
        (
            "[[traffic.egress, storage.stored, 0.9], [traffic.reads, storage.stored, 0.9],"
            " [traffic.reads, traffic.egress, -0.9]]",
            "cannot hold together",
        ),
    ],
)
def test_bad_correlations_are_one_line_naming_the_field(tmp_path: Path, correlate: str, message: str) -> None:
    path = tmp_path / "c.yaml"
    text = CORRELATED.split("correlate:")[0] + f"correlate: {correlate}\n"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_workload(path)
    assert message in str(caught.value) and "correlate" in str(caught.value)


def test_growth_as_a_share_a_month_given_as_a_range(tmp_path: Path) -> None:
    """B2 Standard (2026-05-01: $6.95 a TB-month after 0.01 TB free), no egress, 10 TB stored growing
    by r a month, compounding, over three months: 10, 10(1 + r) and 10(1 + r)^2 TB. With r uniform on
    [0 %, 10 %] its median is 5 %: 10, 10.5 and 11.025 TB, so the bills are 6.95 x 9.99 = $69.43,
    6.95 x 10.49 = $72.91 and 6.95 x 11.015 = $76.55 (each rounded to the cent), $218.89 in all;
    at r's p10 (1 %): 10, 10.1, 10.201 TB, $69.43 + $70.13 + $70.83 = $210.39."""
    path = tmp_path / "rate.yaml"
    path.write_text(
        "name: compounding\n"
        "storage: {stored: 10 TB, object_size: 64 MiB, growth_rate: {low: 0%, high: 10%}}\n"
        "constraints: {providers: [backblaze-b2], storage_classes: [standard], months: 3}\n"
    )
    workload = load_workload(path)
    (rate,) = workload.uncertain
    assert (rate.field, rate.low, rate.high) == ("storage.growth_rate", 0.0, 0.1)
    assert workload.stored_bytes(2) == round(10 * TB * 1.05**2)  # read at the range's centre
    n = 2000
    (b2,) = sample(workload, workload.uncertain, n, seed=3, as_of=AS_OF).options
    # the horizon bill rises about $215 per unit of r there; r's quantiles of 2,000 draws are within
    # about 0.0011 of their own (1 sd)
    assert abs(b2.horizon_p50_usd - 218.89) <= 4 * 0.0011 * 215, b2.horizon_p50_usd
    assert abs(b2.horizon_p10_usd - 210.39) <= 4 * 0.0011 * 215, b2.horizon_p10_usd
    assert b2.p50_usd == pytest.approx(69.43, abs=1e-9)  # the first month has not grown yet
