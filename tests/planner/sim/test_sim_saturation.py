"""Near saturation, a band: the knee of a hand-built ladder over rounds, the band a window near it
rests on, and a target inside that band at risk, not met (``planner.sim.model.saturation``)."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import pytest

from planner.cli.app import main
from planner.evidence import TargetVerdict
from planner.measure.profile import Cell, Percentiles, Profile, Source
from planner.sim import LatencyModel, OpenLoop, ProviderModel, SimSpec, SizeDistribution, SLOTargets, simulate_spec
from planner.sim.model.profile_adapter import provider_model_from_profile
from planner.sim.model.provider import BandwidthCurve
from planner.sim.model.saturation import Knee, band_line, capacity_band, fit_knee, knee_from_cells
from planner.sim.result import BandFigure, judge_simulated
from planner.sim.spec import OperationMix

MS = 0.001


def _run(completed: float, ttfb_p99_ms: float) -> tuple[float, float, dict[str, float]]:
    return completed, 60.0, {"ttfb_p99_s": ttfb_p99_ms * MS}


# Three rounds at 100, 200, 300 and 400/s offered. Round 1 falls behind at 400/s (completes 350/s),
# round 2 already at 300/s (270/s), round 3 never (400/s at 400/s: its capacity is a lower bound).
# TTFB p99 of the 200/s rung: 8, 10, 14 ms (0.8x to 1.4x its median); of the 300/s rung: 10, 20, 40 ms.
LADDER = [
    (100.0, [_run(100, 5), _run(100, 5), _run(100, 5)]),
    (200.0, [_run(200, 10), _run(199, 14), _run(200, 8)]),
    (300.0, [_run(300, 20), _run(270, 40), _run(300, 10)]),
    (400.0, [_run(350, 90), _run(290, 200), _run(400, 30)]),
]


def _knee() -> Knee:
    knee = fit_knee(LADDER, size_bytes=4096)
    assert knee is not None
    return knee


def test_the_knee_is_each_rounds_first_rung_that_fell_behind() -> None:
    knee = _knee()
    assert (knee.capacity_per_s.low, knee.capacity_per_s.median, knee.capacity_per_s.high) == (270, 350, 400)
    assert not knee.bounded  # round 3 never fell behind
    rung = knee.rungs[2]
    assert rung.offered_per_s == 300 and rung.rounds == 3
    assert rung.ttfb_p99_s is not None
    assert (rung.ttfb_p99_s.low, rung.ttfb_p99_s.median, rung.ttfb_p99_s.high) == (10 * MS, 20 * MS, 40 * MS)


def test_a_window_near_the_knee_is_a_band_of_the_rungs_it_rests_on() -> None:
    knee = _knee()
    assert capacity_band(knee, 170.0, {"ttfb_p99_s": 0.010}) is None  # under half the median capacity (175/s)
    band = capacity_band(knee, 250.0, {"ttfb_p99_s": 0.020})
    assert band is not None and not band.may_saturate
    # resting on 200/s (0.8x .. 1.4x) and 300/s (0.5x .. 2x): 20 ms -> 10 ms .. 40 ms
    ttfb = band.figures["ttfb_p99_s"]
    assert (ttfb.low, ttfb.high) == pytest.approx((10 * MS, 40 * MS))
    assert band.rests_on == "the ladder's rungs at 200/s and 300/s over 3 round(s)"
    # at 290/s the slowest round's capacity (270/s) is reached: no upper bound
    saturating = capacity_band(knee, 290.0, {"ttfb_p99_s": 0.020})
    assert saturating is not None and saturating.may_saturate
    assert saturating.figures["ttfb_p99_s"].high is None
    assert band_line(saturating) == (
        "near capacity: GET 290/s offered, capacity 270 to 400/s over the ladder's rounds; at or above the slowest"
        " round's capacity: it may saturate; as a band (the ladder's rungs at 200/s and 300/s over 3 round(s)):"
        " TTFB p99 10 ms .. unbounded"
    )


def test_a_profile_with_repeated_open_loop_cells_gives_the_knee() -> None:
    cells = [
        Cell(
            op="get",
            object_size_bytes=4096,
            concurrency=64,
            mode="open",
            offered_per_s=rate,
            ops_per_s=completed,
            duration_s=window_s,
            latency_s=Percentiles(p50=figures["ttfb_p99_s"] / 2, p99=figures["ttfb_p99_s"] * 1.1),
            ttfb_s=Percentiles(p50=figures["ttfb_p99_s"] / 2, p99=figures["ttfb_p99_s"]),
        )
        for rate, runs in LADDER
        for completed, window_s, figures in runs
    ]
    knee = knee_from_cells(cells)
    assert knee == _knee().model_copy(update={"rungs": knee.rungs if knee else []})
    assert knee is not None and knee.rungs[1].latency_p99_s is not None
    assert knee_from_cells(cells[::3]) is None  # one round: no spread to show


def test_a_target_inside_the_band_is_at_risk_not_met() -> None:
    model = ProviderModel(
        provider_id="test",
        ttfb_get=LatencyModel(p50_s=0.010, p99_s=0.020, floor_s=0.005),
        stream_read=BandwidthCurve.flat(1e10),
        stream_write=BandwidthCurve.flat(1e10),
        evidence={"latency.get": "measured", "latency.tail": "measured"},
        knee=_knee(),
        source="test",
    )

    def judged(target_s: float) -> tuple[str, str, float]:
        verdict = judged_verdict(target_s)
        band = verdict_band[0]
        return verdict.verdict, verdict.reason, band.simulated

    verdict_band: list[BandFigure] = []

    def judged_verdict(target_s: float) -> TargetVerdict:
        spec = SimSpec(
            arrivals=OpenLoop(mean_rate_per_s=250.0),
            mix=OperationMix(get=1.0, put=0.0),
            sizes=SizeDistribution.fixed(4096),
            slo=SLOTargets(p99_ttfb_s=target_s),
        )
        result = simulate_spec(spec, model, 20.0, seed=2)
        assert result.near_capacity is not None
        verdict = judge_simulated(
            result.slo, model, mean_bytes=4096, demonstrated_bits_per_s={}, judged_on="simulated peak"
        )[0]
        band = result.near_capacity.figures["ttfb_p99_s"]
        assert (band.low, band.high) == pytest.approx((0.5 * band.simulated, 2.0 * band.simulated))
        verdict_band[:] = [band]
        return verdict

    # simulated p99 about 20 ms; the band about 10 ms .. 40 ms: 30 ms is met by the figure, but inside the band
    verdict, reason, simulated = judged(0.030)
    assert simulated == pytest.approx(0.020, rel=0.05)
    assert verdict == "unverified"
    assert reason.startswith("p99 TTFB ")
    assert "meets the 30 ms target, but at risk: near capacity the p99 TTFB" in reason
    assert reason.endswith("over the rounds of the ladder's rungs at 200/s and 300/s over 3 round(s)")
    assert judged(0.050)[0] == "met"  # above the band
    # the sentence is said as at risk, with the band it spans beside the target
    risky = judged_verdict(0.030)
    band = verdict_band[0]
    sentence = risky.sentence("test standard")
    assert sentence.kind == "at-risk" and sentence.text == risky.reason
    assert sentence.numbers["band_low"] == band.low and sentence.numbers["band_high"] == band.high
    assert band.low <= float(sentence.numbers["wanted"] or 0) <= (band.high or 0)
    assert judged_verdict(0.050).sentence().kind == "met"


def test_simulate_shows_the_band_of_a_profile_whose_ladder_ran_in_rounds(tmp_path: Path) -> None:
    """A measured profile with the ladder's cells once per round: the model keeps the knee, and
    ``planner simulate`` prints the peak window near it as a band."""
    cells = [
        Cell(op="get", object_size_bytes=4096, concurrency=c, samples=1000, ops_per_s=ops,
             latency_s=Percentiles(mean=p50 * 1.1, p50=p50, p90=p50 * 1.5, p99=p50 * 3),
             ttfb_s=Percentiles(p50=p50 * 0.9, p90=p50 * 1.4, p99=p50 * 2.8))
        for c, ops, p50 in ((1, 200.0, 0.005), (4, 330.0, 0.012), (16, 350.0, 0.045))
    ] + [
        Cell(op="get", object_size_bytes=4096, concurrency=64, mode="open", offered_per_s=rate, ops_per_s=completed,
             duration_s=window_s, samples=int(completed * window_s),
             latency_s=Percentiles(mean=figures["ttfb_p99_s"] / 2, p50=figures["ttfb_p99_s"] / 3,
                                   p90=figures["ttfb_p99_s"] / 1.5, p99=figures["ttfb_p99_s"] * 1.1),
             ttfb_s=Percentiles(p50=figures["ttfb_p99_s"] / 3.2, p90=figures["ttfb_p99_s"] / 1.6,
                                p99=figures["ttfb_p99_s"]))
        for rate, runs in LADDER
        for completed, window_s, figures in runs
    ]  # fmt: skip
    profile = Profile(provider=None, cells=cells, source=Source(kind="measured"))
    model, notes = provider_model_from_profile(profile)
    assert model.knee is not None and model.knee.capacity_per_s.median == 350
    knee_note = "GET knee from 4 open-loop rates over 3 rounds: capacity 270/s to 400/s (median 350/s)"
    assert any(note.startswith(knee_note) for note in notes)
    profile_path = tmp_path / "profile.json"
    profile_path.write_text(profile.model_dump_json(), encoding="utf-8")
    workload = tmp_path / "w.yaml"  # 648 million reads a month: 250/s
    workload.write_text(
        "name: near\nstorage: {stored: 1 TB, object_size: 4 KiB}\ntraffic: {reads: 648000000}\n", encoding="utf-8"
    )
    out = io.StringIO()
    argv = sys.argv
    sys.argv = ["planner", "--wide", "simulate", str(workload), "--profile", str(profile_path), "--duration", "20s",
                "--replications", "1"]  # fmt: skip
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            main()
    finally:
        sys.argv = argv
    lines = [line for line in out.getvalue().splitlines() if line.startswith("near capacity:")]
    assert len(lines) == 2  # peak and mean: the workload has no peak factor, both run at 250/s
    assert lines[0].startswith(
        "near capacity: GET 250/s offered, capacity 270 to 400/s over the ladder's rounds; as a band (the ladder's"
        " rungs at 200/s and 300/s over 3 round(s)): TTFB p99 "
    )
