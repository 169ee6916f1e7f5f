"""Every comparative and verdict sentence checked against the bills and verdicts it names, over workloads
drawn on the shapes of the examples (examples/*.yaml and the README's), their providers and CDNs.

recommend, cost, lifecycle and migrate run through the library; each sentence's numbers are checked
against the bills and figures it names: a cheaper-than compares the two totals it states, and they are
the options' totals; a break-even egress is where the two bills cross; "cheaper (or dearer) at every
egress" holds across the range; met and missed agree with the figure and the target. The fast tier
draws a few hundred workloads, seeded; ``-m slow`` draws 10,000.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.costing.bills import estimate_cost, price_table
from planner.costing.cdn_bills import behind, delivered_bill
from planner.decide.lifecycle_policy import propose_lifecycle
from planner.decide.migration.models import Endpoint, MigrationOptions
from planner.decide.migration.plan import estimate_migration
from planner.decide.recommendation import RankedOption, Recommendation, recommend
from planner.errors import InputError, PlannerError
from planner.evidence import BACKED, Sentence
from planner.present.text.ranking import recommendation as render
from planner.pricing.cdn_prices import cdn_tables
from planner.units import parse_size
from planner.workload import Workload, parse_workload
from tests.planner.conftest import EXAMPLES

from .test_sentences import README_WORKLOAD

NOW = dt.date(2026, 12, 1)
ROOT = Path(__file__).resolve().parents[3]

BASES: list[dict[str, Any]] = [yaml.safe_load(path.read_text()) for path in sorted(EXAMPLES.glob("*.yaml"))] + [
    yaml.safe_load(README_WORKLOAD)
]
PROVIDERS = ["aws-s3", "cloudflare-r2", "backblaze-b2", "wasabi", "idrive-e2", "aws-s3:onezone-ia"]
CDNS = sorted(cdn_tables())


@st.composite
def workloads(draw: st.DrawFn) -> dict[str, Any]:
    """A workload on one example's shape, its volumes, targets, client, providers and CDN redrawn."""
    base = draw(st.sampled_from(BASES))
    data: dict[str, Any] = {key: dict(value) if isinstance(value, dict) else value for key, value in base.items()}
    storage, traffic = data["storage"], data.setdefault("traffic", {})
    stored = parse_size(str(storage["stored"])) * draw(st.sampled_from([0.01, 0.2, 1.0, 3.0]))
    storage["stored"] = f"{max(round(stored), 10**9)} B"
    size = draw(st.sampled_from([None, "256 KiB", "4 MB", "64 MB", "256 MB", "1 GB"]))
    if size is not None:
        storage["object_size"] = size
    egress = draw(st.sampled_from([0.0, 0.05, 0.5, 1.0, 2.5, 5.0]))
    traffic["egress"] = f"{round(stored * egress)} B"
    traffic.pop("reads", None)  # reads follow egress and the object size
    if "hot_objects" in traffic and draw(st.booleans()):
        traffic.pop("hot_objects")
    performance = data.setdefault("performance", {})
    read_target = draw(st.sampled_from([None, "keep", "1 Gbps", "40 Gbps"]))
    if read_target != "keep":
        performance.pop("read_throughput", None)
        if read_target is not None:
            performance["read_throughput"] = read_target
    ttfb = draw(st.sampled_from([None, "keep", "50 ms", "500 ms"]))
    if ttfb != "keep":
        performance.pop("p99_ttfb", None)
        if ttfb is not None:
            performance["p99_ttfb"] = ttfb
    client = data.setdefault("client", {})
    client["location"] = draw(st.sampled_from(["internet", {"cloud": "aws", "region": "us-east-1"}]))
    constraints = data.setdefault("constraints", {})
    constraints["providers"] = draw(st.lists(st.sampled_from(PROVIDERS), min_size=1, max_size=3, unique=True))
    constraints.pop("storage_classes", None)
    constraints.pop("regions", None)
    constraints.pop("discounts", None)
    constraints["months"] = draw(st.integers(1, 12))
    if draw(st.booleans()):
        constraints["redundancy"] = {"zones": 2}
    cdn = draw(st.sampled_from([None, *CDNS]))
    data.pop("delivery", None)
    if cdn is not None:
        data["delivery"] = {"cdn": {"provider": cdn, "hit_ratio": draw(st.sampled_from([0.5, 0.9, 0.95]))}}
    return data


def _parsed(data: dict[str, Any]) -> Workload | None:
    try:
        return parse_workload(data)
    except InputError:
        return None


def _by_name(result: Recommendation) -> dict[str, RankedOption]:
    """Each option under the names sentences give it: "label class" and "label:class"."""
    named: dict[str, RankedOption] = {}
    for o in result.ranking:
        named.setdefault(f"{o.label} {o.storage_class}", o)
        named.setdefault(f"{o.label}:{o.storage_class}", o)
    return named


def _bill(workload: Workload, option: RankedOption, egress: float) -> Decimal:
    """Month one's bill of ``option`` at ``egress`` bytes a month, priced as break-even points price it."""
    variant = workload.model_copy(update={"traffic": workload.traffic.model_copy(update={"egress": round(egress)})})
    table = price_table(option.provider, NOW, None, option.region)
    return delivered_bill(behind(variant, option.cdn), table, option.storage_class, NOW).total_usd


def _usd(sentence: Sentence, key: str) -> Decimal:
    return Decimal(str(sentence.numbers[key]))


def _check_comparison(result: Recommendation, sentence: Sentence) -> None:
    named = _by_name(result)
    option = named[sentence.option or ""]
    if sentence.kind == "lowest":
        assert _usd(sentence, "total_usd") == option.horizon_cost_usd, sentence.text
        same = [o for o in result.ranking if o.status == option.status]
        assert all(o.horizon_cost_usd >= option.horizon_cost_usd for o in same), sentence.text
        return
    other = named[sentence.other or ""]
    total, other_total = _usd(sentence, "option_total_usd"), _usd(sentence, "other_total_usd")
    assert (total, other_total) == (option.horizon_cost_usd, other.horizon_cost_usd), sentence.text
    if sentence.kind == "saves":
        assert _usd(sentence, "saving_usd") == other_total - total >= 0, sentence.text
    if sentence.kind == "cheaper-than":
        assert total < other_total and "although cheaper" in sentence.text, sentence.text
    elif "although cheaper" in sentence.text:
        raise AssertionError(f"'cheaper' without the totals saying so: {sentence.text}")


def _check_break_even(workload: Workload, result: Recommendation, sentence: Sentence) -> None:
    named = _by_name(result)
    option, other = named[sentence.option or ""], named[sentence.other or ""]
    now = float(sentence.numbers["egress_now_bytes"] or 0)
    mine, theirs = _usd(sentence, "option_usd"), _usd(sentence, "other_usd")
    assert (mine, theirs) == (_bill(workload, option, now), _bill(workload, other, now)), sentence.text
    assert f"${mine:,.2f} against ${theirs:,.2f}" in sentence.text
    if sentence.kind in ("stays-cheaper-until", "cheaper-everywhere"):
        assert mine <= theirs, sentence.text
    else:
        assert mine > theirs, sentence.text
    if sentence.kind in ("cheaper-everywhere", "dearer-everywhere"):
        up_to = float(sentence.numbers["up_to_bytes"] or 0)
        for egress in (up_to * 0.001, up_to * 0.25, up_to * 0.5, up_to * 0.999):
            difference = _bill(workload, option, egress) - _bill(workload, other, egress)
            if sentence.kind == "cheaper-everywhere":
                assert difference <= Decimal("0.01"), (sentence.text, egress, difference)
            else:
                assert difference >= Decimal("-0.01"), (sentence.text, egress, difference)
    elif sentence.numbers.get("where") == "bills cross":
        at = float(sentence.numbers["egress_bytes"] or 0)
        a, b = _bill(workload, option, at), _bill(workload, other, at)
        # the bills are piecewise linear in egress: at the crossing they agree (to the cents lines round to)
        assert abs(a - b) <= max(Decimal("0.10"), (a + b) * Decimal("0.0005")), (sentence.text, a, b)


def _check_verdict(sentence: Sentence) -> None:
    numbers = sentence.numbers
    wanted, achieved = numbers.get("wanted"), numbers.get("achieved")
    if not isinstance(wanted, float) or not isinstance(achieved, float):
        return
    higher = numbers.get("higher_is_better") == "true"
    good = achieved >= wanted if higher else achieved <= wanted
    bound = numbers.get("bound")
    if sentence.kind == "met":
        assert good and numbers["evidence"] in BACKED, sentence.text
        assert bound == "estimate" or (bound == "at least") == higher, sentence.text
        assert "meets the" in sentence.text
    elif sentence.kind == "missed":
        assert not good, sentence.text
        assert bound == "estimate" or (bound == "at least") != higher, sentence.text


def check_recommendation(workload: Workload, result: Recommendation) -> None:
    statuses = [o.status for o in result.ranking]
    assert statuses == sorted(statuses, key=["ok", "unverified", "rejected"].index)
    for option in result.ranking:  # a miss on any figure, assumed ones included, rejects
        if any(v.verdict == "missed" for v in option.verdicts):
            assert option.status == "rejected", option.label
    text = render(result, "plain")
    for sentence in result.sentences:
        if sentence.kind in ("lowest", "saves", "cheaper-than"):
            _check_comparison(result, sentence)
            assert sentence.text in text, sentence.text
        elif sentence.kind in ("stays-cheaper-until", "becomes-cheaper-at", "cheaper-everywhere", "dearer-everywhere"):
            _check_break_even(workload, result, sentence)
            assert sentence.text in text, sentence.text
        elif sentence.kind in ("met", "missed", "unverified"):
            _check_verdict(sentence)
        elif sentence.kind == "at-risk":
            low, high, wanted = (sentence.numbers[k] for k in ("band_low", "band_high", "wanted"))
            assert low is not None and wanted is not None and float(low) <= float(wanted)
            assert high is None or float(wanted) <= float(high)
        elif sentence.kind == "link-fit":
            assert float(sentence.numbers["demand_bits_per_s"] or 0) > float(sentence.numbers["link_bits_per_s"] or 0)
    for option in result.ranking:
        table = price_table(option.provider, NOW, None, option.region)
        fact = table.classes[option.storage_class].redundancy
        zoned = [n for n in option.notes if n.kind == "single-zone"]
        assert bool(zoned) == (
            workload.constraints.redundancy is None and fact is not None and fact.zones == 1 and fact.regions == 1
        )
        assert not any("saturated" in w for w in option.warnings)  # nothing is simulated here


_MIGRATE = re.compile(r"^([\w-]+) costs \$([\d,.]+) over the (\d+) months(?:, \$([\d,.]+) less than ([\w-]+))?")
_MORE = re.compile(r"^\$([\d,.]+) more")


def _money(text: str) -> Decimal:
    return Decimal(text.replace(",", ""))


def check_migration(workload: Workload, source: str, destination: str) -> None:
    options = MigrationOptions(source=Endpoint(provider=source), destination=Endpoint(provider=destination), start=NOW)
    try:
        plan = estimate_migration(workload, options)
    except PlannerError:
        return
    found = _MIGRATE.match(plan.chosen_because)
    assert found is not None, plan.chosen_because
    totals = {c.strategy: c.total_move_usd for c in plan.compared if c.total_move_usd is not None}
    assert found[1] == plan.strategy and _money(found[2]) == totals[plan.strategy]
    if found[4] is not None:
        assert _money(found[4]) == totals[found[5]] - totals[plan.strategy] >= 0  # type: ignore[index, operator]


def check_lifecycle(workload: Workload, provider: str) -> None:
    try:
        proposal = propose_lifecycle(workload, provider, as_of=NOW, months=1)
    except PlannerError:
        return
    winner = min(
        (r for r in proposal.ranking if r.feasible), key=lambda r: r.total_usd, default=None
    )  # the cheapest feasible policy is the one proposed
    if winner is None:
        return
    assert proposal.proposed.total_usd == winner.total_usd
    for ranked in proposal.ranking:
        if ranked.why is None or not ranked.feasible:
            continue
        assert ranked.total_usd > winner.total_usd, ranked.why
        more = _MORE.match(ranked.why)
        if more is not None:
            assert _money(more[1]) == ranked.total_usd - winner.total_usd, ranked.why


def _run(data: dict[str, Any], lifecycle: bool) -> None:
    workload = _parsed(data)
    if workload is None:
        return
    try:
        result = recommend(workload, as_of=NOW, simulate=False, curves=False)
    except PlannerError:
        return
    check_recommendation(workload, result)
    first = result.ranking[0]
    bill = estimate_cost(workload, first.provider, first.storage_class, as_of=NOW)
    assert bill.total_usd == sum((item.amount_usd for item in bill.line_items), Decimal(0))
    providers = [p.partition(":")[0] for p in workload.constraints.providers]
    if len(set(providers)) > 1:
        check_migration(workload, providers[0], providers[1])
    if lifecycle:
        check_lifecycle(workload, providers[-1])


FAST = settings(
    max_examples=200,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    database=None,
)


@FAST
@given(workloads())
def test_every_sentence_follows_from_the_numbers_it_names(data: dict[str, Any]) -> None:
    _run(data, lifecycle=False)


@settings(FAST, max_examples=15)
@given(workloads())
def test_lifecycle_sentences_follow_from_their_bills(data: dict[str, Any]) -> None:
    _run(data, lifecycle=True)


@pytest.mark.slow
@settings(FAST, max_examples=10_000)
@given(workloads())
def test_every_sentence_follows_from_the_numbers_it_names_at_scale(data: dict[str, Any]) -> None:
    _run(data, lifecycle=True)
