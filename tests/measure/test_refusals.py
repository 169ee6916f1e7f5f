"""Refusals that must be one line and prompt: an unwritable --out, a tampered journal, a silent endpoint."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.errors import MeasureError
from planner.measure.run.measurement import Measurement
from planner.measure.run.options import MeasureOptions, Reporter
from tests.measure.conftest import FaultProxy, S3Server, list_all

pytestmark = pytest.mark.server

CLI = [sys.executable, "-c", "import sys; from planner.cli import main; sys.argv[0] = 'planner'; main()"]


class Collecting(Reporter):
    def __init__(self) -> None:
        self.lines: list[str] = []

    def info(self, message: str) -> None:
        self.lines.append(message)


def _options(endpoint: str, bucket: str, out: Path, **extra: object) -> MeasureOptions:
    return MeasureOptions(
        endpoint=endpoint,
        bucket=bucket,
        out=out,
        sizes=[4096],
        concurrency=[1],
        duration_s=0.5,
        warmup_s=0.1,
        probes=[],
        ops=["put"],
        addressing="path",
        open_rates_per_s=[],
        open_peak_fractions=[],
        **extra,
    )  # type: ignore[arg-type]


def _unwritable_folder(tmp_path: Path) -> Path:
    """A folder this process cannot create files in (root ignores modes: then a sysfs folder)."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    for candidate in (folder, Path("/sys/kernel")):
        try:
            (candidate / f"probe-{uuid.uuid4().hex}").open("x").close()
        except OSError:
            return candidate
    pytest.skip("no folder here refuses this process a new file")


def test_out_in_a_read_only_folder_is_one_line_exit_2(s3_env: S3Server, bucket: str, tmp_path: Path) -> None:
    folder = _unwritable_folder(tmp_path)
    args = ["--endpoint", s3_env.endpoint, "--bucket", bucket, "--out", str(folder / "p.json"), "--sizes", "4KiB"]
    args += ["--concurrency", "1", "--duration", "1s", "--probes", "none", "--addressing", "path"]
    done = subprocess.run(
        [*CLI, "measure", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **s3_env.env},
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "cannot write the run's journal" in done.stderr and str(folder) in done.stderr
    assert list_all(s3_env, bucket) == []  # refused before the endpoint saw a request


def test_preflight_refusal_does_not_claim_a_profile_was_kept(s3_env: S3Server, tmp_path: Path) -> None:
    reporter = Collecting()
    with pytest.raises(MeasureError, match="does not exist"):
        Measurement(_options(s3_env.endpoint, "no-such-bucket-here", tmp_path / "p.json"), reporter).run()
    assert not (tmp_path / "p.json").exists()
    assert not any("kept in" in line for line in reporter.lines), reporter.lines
    assert any("no profile was written" in line for line in reporter.lines), reporter.lines


def _journal(path: Path, run_id: str, bucket: str, endpoint: str, prefix: str, keys: list[str]) -> None:
    lines = [{"run_id": run_id, "endpoint": endpoint, "bucket": bucket, "prefix": prefix}]
    lines += [{"put": key} for key in keys]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


@pytest.mark.parametrize(
    "prefix",
    ["", "planner-measure/other-run/", "planner-measure/tamper"],
)
def test_cleanup_refuses_a_journal_whose_prefix_is_not_its_runs(
    s3_env: S3Server, bucket: str, tmp_path: Path, prefix: str
) -> None:
    client = s3_env.client()
    victims = [f"{prefix}precious", "planner-measure/tamper2/precious"]
    for key in victims:
        client.put_object(Bucket=bucket, Key=key, Body=b"the user's data")
    _journal(tmp_path / "planner-measure-tamper.journal.jsonl", "tamper", bucket, s3_env.endpoint, prefix, victims)
    args = ["--run-id", "tamper", "--bucket", bucket, "--endpoint", s3_env.endpoint, "--addressing", "path"]
    done = subprocess.run(
        [*CLI, "measure", "cleanup", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **s3_env.env},
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "refusing to delete anything" in done.stderr and "Traceback" not in done.stderr
    assert sorted(list_all(s3_env, bucket)) == sorted(set(victims))


def test_cleanup_never_sends_a_key_that_climbs_out_of_the_run_prefix(
    s3_env: S3Server, bucket: str, tmp_path: Path, fault_proxy: FaultProxy
) -> None:
    from planner.measure.cleanup import cleanup_run

    ours, climbing = "planner-measure/r1/data/1", "planner-measure/r1/../../precious"
    s3_env.client().put_object(Bucket=bucket, Key=ours, Body=b"x")
    path = tmp_path / "j.jsonl"
    _journal(path, "r1", bucket, s3_env.endpoint, "planner-measure/r1/", [ours, climbing])
    report = cleanup_run(s3_env.client(fault_proxy.endpoint), bucket, path)
    assert report.deleted == 1 and report.clean
    assert fault_proxy.object_requests("DELETE") == 1 and fault_proxy.object_requests("DELETE", "..") == 0
    assert list_all(s3_env, bucket) == []


@pytest.fixture
def silent_endpoint() -> Iterator[tuple[str, list[socket.socket]]]:
    """A TCP listener that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    accepted: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            accepted.append(connection)

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}", accepted
    listener.close()
    for connection in accepted:
        connection.close()


def test_an_endpoint_that_never_answers_is_refused_after_one_short_wait(
    s3_env: S3Server, silent_endpoint: tuple[str, list[socket.socket]], tmp_path: Path
) -> None:
    endpoint, accepted = silent_endpoint
    options = _options(endpoint, "b", tmp_path / "p.json", read_timeout_s=60.0)
    with pytest.raises(MeasureError, match=r"cannot reach .* \(timeout\)"):
        Measurement(options).run()
    # one request, timed out by the safety checks' own timeout: not the cells' 60 s read timeout,
    # and no cleanup requests after it (nothing was written, so none is needed)
    assert len(accepted) == 1
    assert not (tmp_path / "p.json").exists()
    assert not list(tmp_path.glob("*.journal.jsonl"))
