"""``planner measure --dask``: two Dask workers measure SeaweedFS at the same moments, one merged profile."""

from __future__ import annotations

import math
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from planner.cli.measure import app
from planner.cluster import require_distributed
from planner.measure.distributed import measure_on_cluster, plan_hosts, releasable
from planner.measure.profile import Profile
from planner.measure.run.options import MeasureOptions, Reporter
from tests.measure.conftest import SECRET_KEY, Fault, FaultProxy, S3Server, _environment, list_all

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def scheduler(s3_server: S3Server) -> Iterator[str]:
    """Two single-threaded worker processes; their environment holds the server's credentials (a
    worker host's own credential chain), the test process's does not need to."""
    pytest.importorskip("distributed")
    import dask

    LocalCluster = require_distributed().LocalCluster

    # a worker starts the measurement's own processes, which a daemonic process may not (the
    # setting stays for workers the nanny restarts)
    with dask.config.set({"distributed.worker.daemon": False}):
        with _environment(s3_server.env):
            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        try:
            yield cluster.scheduler_address
        finally:
            cluster.close()


def _options(
    endpoint: str, bucket: str, out: Path, run_id: str, concurrency: tuple[int, ...] = (1, 2)
) -> MeasureOptions:
    return MeasureOptions(
        endpoint=endpoint,
        bucket=bucket,
        out=out,
        sizes=[4096],
        concurrency=list(concurrency),
        duration_s=1.0,
        warmup_s=0.3,
        ops=["get"],
        probes=[],
        addressing="path",
        processes=1,
        run_id=run_id,
        open_rates_per_s=[],
        open_peak_fractions=[],
    )


def _host_labels(scheduler: str) -> list[str]:
    with require_distributed().Client(scheduler) as client:
        return [host.label for host in plan_hosts(client, scheduler)]


def test_two_workers_measure_together_and_merge(
    s3_server: S3Server, scheduler: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)  # the coordinator needs no credentials: none travel
    labels = sorted(_host_labels(scheduler))
    # one host writes slowly (its test objects take 0.5 s each), so it reaches each cell later
    # than the other, which must wait for it: the cells still start together
    proxy = FaultProxy(upstream_port=int(s3_server.endpoint.rsplit(":", 1)[1]))
    proxy.faults = [Fault(kind="latency", seconds=0.5, methods=("PUT",), key_contains=f"dask-ok/{labels[1]}/")]
    proxy.start()
    bucket = s3_server.new_bucket()
    out = tmp_path / "merged.json"
    args = ["--endpoint", proxy.endpoint, "--bucket", bucket, "--out", str(out), "--sizes", "4KiB"]
    args += ["--concurrency", "1,2", "--duration", "1s", "--warmup", "0.3s", "--ops", "get", "--probes", "none"]
    args += ["--open-loop", "none", "--addressing", "path", "--processes", "1", "--run-id", "dask-ok"]
    try:
        result = CliRunner().invoke(app, [*args, "--dask", scheduler])
    finally:
        proxy.stop()
    assert result.exit_code == 0, result.output
    assert proxy.injected["latency"] >= 4

    merged = Profile.model_validate_json(out.read_text())
    hosts = {label: Profile.model_validate_json((tmp_path / f"merged.{label}.json").read_text()) for label in labels}
    assert merged.source.kind == "merged" and merged.merge is not None and merged.merge.overlapped
    assert merged.run is not None and merged.run.complete and merged.run.prefix == "planner-measure/dask-ok/"
    assert [c.concurrency for c in merged.cells] == [2, 4]  # each host's 1 and 2, summed
    for index, cell in enumerate(merged.cells):
        assert sorted(cell.hosts) == labels
        # every host's requests ran in the common window: the aggregate is the sum over hosts
        host_cells = [hosts[label].cells[index] for label in labels]
        assert all(c.samples and c.ops_per_s for c in host_cells)
        assert math.isclose(cell.ops_per_s or 0.0, sum(c.ops_per_s or 0.0 for c in host_cells), rel_tol=1e-9)
        assert cell.samples == sum(c.samples or 0 for c in host_cells)
        assert "sum of 2 hosts" in (cell.note or "")
    assert merged.merge.inputs and merged.run.options["common_start"]["start_lead_s"] >= 0.5
    if merged.run.options["common_start"]["late_starts"] == 0:
        # a common start: on the coordinator's clock every host's window begins at the same instant,
        # within the offsets' uncertainty (half of each round trip) and the stored rounding (1 ms); each
        # host records the scheduled instant it was given, not a second reading of its clock
        skew_s = sum(entry.clock_rtt_s or 0.0 for entry in merged.merge.inputs) / 2 + 0.002
        offsets = {entry.hostname: entry.clock_offset_s or 0.0 for entry in merged.merge.inputs}
        for index in range(len(merged.cells)):
            starts = [(hosts[label].cells[index].window_start_unix or 0.0) - offsets[label] for label in labels]
            assert max(starts) - min(starts) <= skew_s, (starts, skew_s)
    for entry in merged.merge.inputs:
        assert entry.hostname in labels and entry.complete and entry.error is None
        assert entry.prefix == f"planner-measure/dask-ok/{entry.hostname}/"
        # one machine, one clock: the measured offset is within half the round trip it came from
        assert entry.clock_offset_s is not None and entry.clock_rtt_s is not None
        assert abs(entry.clock_offset_s) <= entry.clock_rtt_s / 2 + 1e-3
    for label, profile in hosts.items():
        assert profile.run is not None and profile.run.prefix == f"planner-measure/dask-ok/{label}/"
    assert list_all(s3_server, bucket) == []
    for written in [out, *(tmp_path / f"merged.{label}.json" for label in labels)]:
        assert SECRET_KEY not in written.read_text()


def test_a_failing_host_leaves_the_others_results(
    s3_env: S3Server, scheduler: str, fault_proxy: FaultProxy, tmp_path: Path
) -> None:
    good, bad = sorted(_host_labels(scheduler))
    # every PUT under the failing host's prefix is refused: its write check fails before any cell
    fault_proxy.faults = [Fault(kind="500", methods=("PUT",), key_contains=f"dask-bad/{bad}/")]
    bucket = s3_env.new_bucket()
    out = tmp_path / "p.json"
    run = measure_on_cluster(_options(fault_proxy.endpoint, bucket, out, "dask-bad", (2,)), scheduler)

    assert set(run.failed) == {bad}
    assert "cannot write" in run.failed[bad] and "500" in run.failed[bad]
    assert fault_proxy.injected["500"] >= 1
    merged = Profile.model_validate_json(out.read_text())
    assert merged.cells and all(cell.hosts == [good] and cell.samples for cell in merged.cells)
    assert merged.run is not None and not merged.run.complete and bad in (merged.run.stopped_reason or "")
    assert merged.merge is not None
    errors = {entry.hostname: entry.error for entry in merged.merge.inputs}
    assert errors[good] is None and "cannot write" in (errors[bad] or "")
    assert all(run.outcomes[label].cleanup_clean for label in (good, bad))
    assert list_all(s3_env, bucket) == []


def test_a_lost_worker_is_cleaned_up_from_its_journal(s3_env: S3Server, scheduler: str, tmp_path: Path) -> None:
    with require_distributed().Client(scheduler) as client:
        hosts = plan_hosts(client, scheduler)
        pids = client.run(os.getpid)
    kept, lost = hosts[0], hosts[1]

    class KillAfterFirstCell(Reporter):
        """SIGKILLs the second host's Dask worker once it has measured a cell (its objects exist)."""

        killed = False

        def info(self, message: str) -> None:
            if not self.killed and message.startswith(f"{lost.label}: get "):
                os.kill(pids[lost.address], signal.SIGKILL)
                self.killed = True

    bucket = s3_env.new_bucket()
    reporter = KillAfterFirstCell()
    run = measure_on_cluster(_options(s3_env.endpoint, bucket, tmp_path / "p.json", "dask-lost"), scheduler, reporter)

    assert reporter.killed
    assert set(run.failed) == {lost.label} and "left the cluster" in run.failed[lost.label]
    assert run.profile is not None and run.outcomes[kept.label].complete
    assert all(cell.hosts for cell in run.profile.cells)
    assert [c.hosts for c in run.profile.cells if c.concurrency == 2] == [[kept.label]]  # measured after the loss
    # the lost host wrote its test objects; a task on the same machine deleted them from its journal
    outcome = run.outcomes[lost.label]
    assert outcome.cleanup_clean and outcome.cleanup_deleted >= 4
    assert list_all(s3_env, bucket) == []


def test_dask_without_distributed_is_one_line_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from planner.cli import main

    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now fails
    argv = ["planner", "measure", "--endpoint", "http://127.0.0.1:9", "--bucket", "b", "--out", str(tmp_path / "p")]
    monkeypatch.setattr(sys, "argv", [*argv, "--dask", "tcp://127.0.0.1:8786"])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "--dask: needs Dask distributed" in error and "objstore-planner[dask]" in error
    assert list(tmp_path.iterdir()) == []


def test_the_barrier_waits_for_hosts_behind_and_not_for_hosts_ahead() -> None:
    running = {"a", "b"}
    # b is still running the load before: a waits for it
    assert releasable({"a": (3, 0)}, {"a": (3, 0), "b": (2, 1)}, running) is None
    # b arrived at the same load: both start together
    assert releasable({"a": (3, 0), "b": (3, 0)}, {"a": (3, 0), "b": (3, 0)}, running) == ((3, 0), ["a", "b"])
    # a measures a DELETE cell once more (3, 1) while b moved on to the next step: a goes alone
    assert releasable({"a": (3, 1), "b": (4, 0)}, {"a": (3, 1), "b": (4, 0)}, running) == ((3, 1), ["a"])
    # a host that finished (or failed) holds nobody
    assert releasable({"a": (5, 0)}, {"a": (5, 0), "b": (1 << 62, 0)}, {"a"}) == ((5, 0), ["a"])
