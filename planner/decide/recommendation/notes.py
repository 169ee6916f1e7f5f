"""What bears on an option beside its bill and verdicts, each said by one function from the figures it names:
its tables' terms (a price table's notes, its egress policy's note, the CDN's terms), how many zones it
keeps copies in against what the workload needs (``constraints.redundancy``), and whether the workload's
peak fits the client's link at all."""

from __future__ import annotations

import datetime as dt

from planner.decide.recommendation.models import Rejection
from planner.evidence import Sentence
from planner.pricing.cdn_prices import cdn_table_for
from planner.pricing.models import ErrorResponses, PriceTable
from planner.units import format_bytes, format_rate
from planner.workload import MONTH_S, Workload
from planner.workload.cdn_split import store_requests


def terms(option: str, source: str, note: str) -> Sentence:
    """One term of a table, said under the option it applies to, naming the table it comes from."""
    return Sentence(kind="terms", text=f"{source}: {note}", option=option, numbers={"source": source})


def table_terms(
    option: str, workload: Workload, table: PriceTable, storage_class: str, cdn: str | None, day: dt.date
) -> list[Sentence]:
    """The notes of the option's price table, its egress policy's note (fair use, free-egress caps), and the
    notes of the CDN it is priced behind: each a term of the answer, under the option."""
    source = f"{table.provider}@{table.effective_from}"
    said = [terms(option, source, note) for note in table.notes]
    egress = table.egress_for(storage_class)
    if egress.note and (egress.fair_use_multiple_of_storage is not None or egress.free_multiple_of_storage is not None):
        said.append(terms(option, f"{source} egress policy", egress.note))
    name = cdn or (workload.delivery.cdn.provider if workload.delivery is not None else None)
    if name is not None:
        cdn_table = cdn_table_for(name, day)
        said += [terms(option, f"CDN {cdn_table.cdn}@{cdn_table.effective_from}", note) for note in cdn_table.notes]
    return said


def redundancy(
    option: str, workload: Workload, table: PriceTable, storage_class: str
) -> tuple[list[Rejection], list[Sentence], list[Sentence]]:
    """The class's redundancy against ``constraints.redundancy``: (rejections, unverified, warnings).

    A class that states fewer zones (or regions, for ``copies``) than needed is rejected; one whose table
    states nothing is unverified (unknown, never assumed). Without the constraint, a class that keeps its
    copies in one zone carries a one-line warning."""
    need = workload.constraints.redundancy
    fact = table.classes[storage_class].redundancy
    if need is None:
        if fact is not None and fact.zones == 1 and fact.regions == 1:
            return [], [], [single_zone(option, fact.zones, fact.quote.text)]
        return [], [], []
    if fact is None:
        text = (
            f"redundancy unknown: the {table.provider} table states no zones for {storage_class}, so whether it"
            f" meets constraints.redundancy ({need.text()}) is not known"
        )
        return [], [Sentence(kind="redundancy-unknown", text=text, option=option, numbers={"needed": need.text()})], []
    zones = max(fact.zones, fact.regions)  # copies in several regions are in several zones
    short: list[str] = []
    if need.zones is not None and zones < need.zones:
        short.append(f"it keeps copies in {fact.zones} zone(s), constraints.redundancy needs {need.zones}")
    if need.copies is not None and fact.regions < need.copies:
        short.append(
            f"it keeps copies in {fact.regions} region(s), constraints.redundancy needs {need.copies} copies across"
            " regions or providers (a replica elsewhere is not priced here)"
        )
    if not short:
        return [], [], []
    statement = f'redundancy: {"; ".join(short)} (table: "{fact.quote.text}")'
    return [Rejection(kind="redundancy", statement=statement)], [], []


def single_zone(option: str, zones: int, quote: str) -> Sentence:
    """The warning on a class whose table says it keeps copies in one zone, with the table's words."""
    text = f'single zone: {option} keeps its copies in {zones} availability zone; a zone\'s loss loses them ("{quote}")'
    return Sentence(kind="single-zone", text=text, option=option, numbers={"zones": zones})


def peak_rates(workload: Workload) -> tuple[float, float] | None:
    """GETs and PUTs a second at the peak, as the store sees them: traffic.peak_rate's share, else the
    month's at traffic.peak_factor; None for a closed loop (traffic.workers), whose rate is what the
    provider answers."""
    store, _ = store_requests(workload)
    traffic = store.traffic
    if traffic.workers is not None:
        return None
    reads, writes = store.reads_per_month(), store.writes_per_month()
    total = reads + writes + traffic.heads + traffic.lists
    if not total:
        return 0.0, 0.0
    factor = traffic.peak_rate / (total / MONTH_S) if traffic.peak_rate is not None else traffic.peak_factor
    return reads / MONTH_S * factor, writes / MONTH_S * factor


def no_get_in_window(workload: Workload, window_s: float, replications: int, unfinished: float) -> Sentence:
    """Why the simulated peak has no GET figure: the client saturated (requests still open when the window
    ended), or, none open, too few GETs to arrive in the window at the workload's peak rate."""
    rates = peak_rates(workload)
    per_s = rates[0] if rates is not None else None
    numbers: dict[str, float | str | None] = {
        "window_s": window_s,
        "replications": replications,
        "unfinished_requests": unfinished,
        "peak_gets_per_s": per_s,
    }
    if unfinished > 0:
        text = (
            f"simulated peak: no GET completed inside the window ({window_s:g} s x {replications}) and"
            f" {unfinished:,.4g} requests were still open when it ended (the client is saturated)"
        )
        return Sentence(kind="client-saturated", text=text, numbers=numbers)
    expected = "" if per_s is None else f": at {per_s:.3g} GETs a second the window expects {per_s * window_s:.3g}"
    text = (
        f"simulated peak: no GET arrived inside the window ({window_s:g} s x {replications}){expected}; no GET figure"
    )
    return Sentence(kind="no-get-in-window", text=text, numbers=numbers)


def link_fit(workload: Workload) -> list[Sentence]:
    """The peak's reads (and writes) in bits a second against the client's link: a sentence for each way
    the peak cannot pass it. The peak is traffic.peak_rate's share of reads, else the month's reads at
    traffic.peak_factor; a closed loop (traffic.workers) asks only what the provider answers, so none."""
    rates = peak_rates(workload)
    if rates is None:
        return []
    mean = workload.storage.mean_object_bytes
    link = workload.client.link
    said = []
    for direction, per_s in zip(("reads", "writes"), rates, strict=True):
        bits = per_s * mean * 8
        if bits > link:
            text = (
                f"the peak's {direction} ask {format_rate(bits)} ({per_s:,.4g} a second of {format_bytes(mean)}) of a"
                f" {format_rate(link)} client link (client.link): they cannot pass it"
            )
            said.append(
                Sentence(
                    kind="link-fit",
                    text=text,
                    numbers={"direction": direction, "demand_bits_per_s": bits, "link_bits_per_s": link},
                )
            )
    return said


def lifecycle_unpriced(workload: Workload) -> list[Sentence]:
    """A workload with ``storage.lifecycle``: the ranking prices each class holding all the data, so the
    policy is not in its bills; the sentence says so and names the commands that price it."""
    rules = workload.storage.lifecycle
    if not rules:
        return []
    policy = "; ".join(rule.describe() for rule in rules)
    text = (
        f"storage.lifecycle ({policy}) is not in these bills: each option is priced holding all the data in its"
        " class; planner lifecycle prices the policy at each provider, and planner cost prices it month by month"
    )
    return [Sentence(kind="lifecycle-unpriced", text=text, numbers={"rules": len(rules)})]


def throttle_billing(kinds: str, errors: ErrorResponses | None) -> str:
    """Whether the provider bills the throttled attempts named in ``kinds`` ("503 SlowDown, 429 ..."), as its
    table's error-response rule says (no rule: billed as successes are, as the simulator bills them)."""
    statuses = sorted({int(kind[:3]) for kind in kinds.split(", ") if kind[:3].isdigit()})
    if errors is None:
        return "the price table does not say which error answers are billed, so they are billed as successes are"
    billed = [status for status in statuses if errors.bills(status)]
    if not billed:
        return "the price table bills no throttled attempt"
    if len(billed) == len(statuses):
        return "the price table bills every attempt, throttled ones included"
    return f"the price table bills the {', '.join(map(str, billed))} answers among them"
