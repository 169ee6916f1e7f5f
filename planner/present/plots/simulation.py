"""A simulation: latency percentiles per operation, and throughput and requests over time."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from planner.present.plots.common import OPERATION_COLOURS, drawing, plot_target

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from planner.evidence import TargetVerdict
    from planner.sim.result import Estimate, SimulationResult

_PERCENTILES = ((0.5, "p50"), (0.95, "p95"), (0.99, "p99"), (0.999, "p999"))


def _finite(estimate: Estimate) -> bool:
    return math.isfinite(estimate.mean)


def save_simulation_plot(
    result: SimulationResult, path: Path, *, judged: Sequence[TargetVerdict] | None = None
) -> None:
    """Latency and TTFB percentiles per operation as a CDF, and throughput and requests over time.

    ``judged`` are the workload's targets judged on evidence (``WorkloadSimulation.slo``); without
    them the window's raw comparisons are shown.
    """
    target = plot_target(path)
    with drawing(10.0, 11.0, target) as figure:
        cdf, throughput, requests = figure.subplots(3, 1, height_ratios=[1.5, 1, 1])
        _latency_cdf(cdf, result)
        _over_time(throughput, requests, result)
        verdicts = (
            "; ".join(f"{v.target} {v.verdict} ({v.evidence})" for v in judged)
            if judged is not None
            else "; ".join(
                f"{v.target} {'met' if v.met else 'MISSED'}{'' if v.certain else ' (uncertain)'}" for v in result.slo
            )
        )
        figure.suptitle(
            f"Simulated {result.provider_id}: {result.window_s:g} s window, {result.replications} replication"
            f"{'s' if result.replications != 1 else ''}, seed {result.seed}"
            + (f"\nTargets: {verdicts}" if verdicts else ""),
            fontsize=12,
            fontweight="bold",
        )


def _latency_cdf(cdf: Axes, result: SimulationResult) -> None:
    """Each operation's latency and TTFB percentiles on a logit scale, with 95 % intervals when the
    run had more than one replication."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator

    drawn = 0
    for name, stats in result.operations.items():
        colour = OPERATION_COLOURS.get(name.upper(), "#444444")
        for kind, style in (("latency", "-"), ("ttfb", "--")):
            points = [(share, getattr(stats, f"{kind}_{tag}_s")) for share, tag in _PERCENTILES]
            points = [(share, e) for share, e in points if _finite(e) and e.mean > 0]
            if not points:
                continue
            shares = [share for share, _ in points]
            ms = [e.mean * 1000 for _, e in points]
            spread = [(e.ci95_half_width or 0.0) * 1000 for _, e in points]
            cdf.errorbar(
                ms,
                shares,
                xerr=spread if any(spread) else None,
                color=colour,
                linestyle=style,
                marker="o" if kind == "latency" else "s",
                markersize=5,
                capsize=3,
                label=f"{name} {'latency' if kind == 'latency' else 'time to first byte'}",
            )
            drawn += 1
    if drawn:
        cdf.set_xscale("log")
        cdf.set_yscale("logit")
        cdf.yaxis.set_major_locator(FixedLocator([share for share, _ in _PERCENTILES]))
        cdf.yaxis.set_minor_locator(NullLocator())
        cdf.yaxis.set_major_formatter(FuncFormatter(lambda value, _position: f"{value * 100:g}%"))
        cdf.set_ylim(0.3, 0.9995)
        cdf.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 3.0, 5.0)))
        cdf.xaxis.set_minor_locator(NullLocator())
        cdf.xaxis.set_major_formatter(FuncFormatter(lambda value, _position: f"{value:,.6g}"))
        cdf.legend(loc="lower right")
    else:
        cdf.text(0.5, 0.5, "no request succeeded: no latency to show", ha="center", transform=cdf.transAxes)
    cdf.set_xlabel("time from the request (ms, log scale)")
    cdf.set_ylabel("share of requests at or below")
    ci = ", bars = 95% confidence interval" if result.replications > 1 else ""
    cdf.set_title(f"Latency percentiles by operation (p50, p95, p99, p99.9{ci})", loc="left")


def _over_time(throughput: Axes, requests: Axes, result: SimulationResult) -> None:
    """Throughput, requests and errors per time bin of the window, the warm-up shaded."""
    import numpy as np

    series = result.time_series
    count = len(series.bytes)
    end = result.warmup_s + result.window_s
    edges = np.minimum(np.arange(count + 1, dtype=float) * series.bin_s, max(end, series.bin_s * count))
    edges[-1] = max(edges[-1], edges[-2] + 1e-9) if count else 0.0
    widths = np.diff(edges) if count else np.zeros(0)
    safe = np.where(widths > 0, widths, 1.0)
    for ax in (throughput, requests):
        if result.warmup_s > 0:
            ax.axvspan(0, result.warmup_s, color="#999999", alpha=0.2, label="warm-up (not in the statistics)")
    if count:
        throughput.stairs(
            np.asarray(series.bytes) * 8 / safe / 1e9, edges, color="#0072B2", linewidth=1.5, label="bytes moved"
        )
        requests.stairs(
            np.asarray(series.requests) / safe, edges, color="#333333", linewidth=1.2, label="requests ended"
        )
        if any(series.errors):
            requests.stairs(
                np.asarray(series.errors) / safe, edges, color="#D55E00", linewidth=1.2, label="error responses"
            )
    for ax in (throughput, requests):
        ax.set_xlim(0, edges[-1] if count else max(end, 1.0))
        ax.set_ylim(bottom=0)
        ax.set_xlabel("time into the simulated window (s)")
        ax.legend(loc="upper right")
    throughput.set_ylabel("throughput (Gbps)")
    throughput.set_title(f"Throughput over time ({series.bin_s:g} s bins)", loc="left")
    requests.set_ylabel("per second")
    requests.set_title("Requests and errors per second", loc="left")
