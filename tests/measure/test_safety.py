"""Safety: refusals, dry run, SIGINT and SIGKILL recovery, no credentials in any output."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planner.errors import InputError, MeasureError
from planner.measure.run.measurement import Measurement
from planner.measure.run.options import MeasureOptions
from tests.measure.conftest import (
    ACCESS_KEY,
    READONLY_ACCESS_KEY,
    READONLY_SECRET_KEY,
    SECRET_KEY,
    S3Server,
    list_all,
)

pytestmark = pytest.mark.server

CLI = [sys.executable, "-c", "import sys; from planner.cli import main; sys.argv[0] = 'planner'; main()"]


def _options(server: S3Server, bucket: str, out: Path, **extra: object) -> MeasureOptions:
    return MeasureOptions(
        endpoint=server.endpoint,
        bucket=bucket,
        out=out,
        sizes=[4096],
        concurrency=[1],
        duration_s=0.5,
        warmup_s=0.1,
        probes=[],
        addressing="path",
        open_rates_per_s=[],
        open_peak_fractions=[],
        **extra,
    )  # type: ignore[arg-type]


def test_refuses_prefix_that_holds_objects(s3_env: S3Server, bucket: str, tmp_path: Path) -> None:
    key = "planner-measure/taken-run/someone-elses"
    s3_env.client().put_object(Bucket=bucket, Key=key, Body=b"x")
    with pytest.raises(MeasureError, match="already holds objects"):
        Measurement(_options(s3_env, bucket, tmp_path / "p.json", run_id="taken-run")).run()
    assert list_all(s3_env, bucket) == [key]  # untouched
    assert not (tmp_path / "p.json").exists()


def test_refuses_bucket_it_cannot_write(
    s3_env: S3Server, bucket: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", READONLY_ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", READONLY_SECRET_KEY)
    with pytest.raises(MeasureError, match="cannot write to bucket") as caught:
        Measurement(_options(s3_env, bucket, tmp_path / "p.json")).run()
    message = str(caught.value)
    assert "\n" not in message and READONLY_SECRET_KEY not in message and READONLY_ACCESS_KEY not in message
    assert list_all(s3_env, bucket) == []


def test_refuses_missing_bucket(s3_env: S3Server, tmp_path: Path) -> None:
    with pytest.raises(MeasureError, match="does not exist"):
        Measurement(_options(s3_env, "no-such-bucket-here", tmp_path / "p.json")).run()


def test_dry_run_touches_nothing(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    # nothing listens on port 9: a dry run must not even try
    done = subprocess.run(
        [
            *CLI,
            "measure",
            "--endpoint",
            "http://127.0.0.1:9",
            "--bucket",
            "b",
            "--out",
            str(out),
            "--sizes",
            "4KiB",
            "--concurrency",
            "1,2",
            "--dry-run",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())  # lines wrap at the terminal width
    assert "bucket b prefix planner-measure/" in said and "get 4KiB x2" in said
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_bad_option_is_one_line_exit_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [*CLI, "measure", "--bucket", "b", "--out", str(tmp_path / "p.json"), "--concurrency", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "--concurrency" in done.stderr


@pytest.mark.parametrize("value", ["fast", "0/s", "2x", "-1"])
def test_bad_open_loop_rate_is_one_line_exit_2(tmp_path: Path, value: str) -> None:
    done = subprocess.run(
        [*CLI, "measure", "--bucket", "b", "--out", str(tmp_path / "p.json"), "--open-loop", value, "--dry-run"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stdout
    assert done.stderr.strip().count("\n") == 0 and "--open-loop" in done.stderr


def test_dry_run_lists_the_open_loop_cells(tmp_path: Path) -> None:
    base = [*CLI, "measure", "--bucket", "b", "--out", str(tmp_path / "p.json"), "--sizes", "4KiB"]
    shown = subprocess.run([*base, "--concurrency", "1,8", "--dry-run"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    for rate in ("10/s", "0.5x peak", "0.8x peak"):
        assert f"get 4KiB x8 open {rate}" in shown.stdout and f"put 4KiB x8 open {rate}" in shown.stdout
    assert "head 4KiB x8 open" not in shown.stdout and "delete 4KiB x8 open" not in shown.stdout
    none = subprocess.run([*base, "--open-loop", "none", "--dry-run"], capture_output=True, text=True, timeout=60)
    assert none.returncode == 0 and " open " not in none.stdout


def _no_secrets(*texts: str) -> None:
    for text in texts:
        assert SECRET_KEY not in text and ACCESS_KEY not in text


def _wait_for_cells(out: Path, count: int, process: subprocess.Popen[str], deadline_s: float = 90) -> None:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        assert process.poll() is None, "planner measure ended before it was interrupted"
        try:
            if len(json.loads(out.read_text())["cells"]) >= count:
                return
        except (FileNotFoundError, json.JSONDecodeError, KeyError):
            pass
        time.sleep(0.1)
    raise AssertionError(f"no {count} finished cells within {deadline_s} s")


def _start(server: S3Server, bucket: str, out: Path) -> subprocess.Popen[str]:
    env = {**os.environ, **server.env}
    return subprocess.Popen(
        [
            *CLI,
            "measure",
            "--endpoint",
            server.endpoint,
            "--bucket",
            bucket,
            "--out",
            str(out),
            "--sizes",
            "4KiB,64KiB",
            "--concurrency",
            "1,2,3",
            "--duration",
            "1s",
            "--warmup",
            "0.2s",
            "--probes",
            "none",
            "--open-loop",
            "none",
            "--addressing",
            "path",
            "--run-id",
            f"sig-{out.stem}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=out.parent,
    )


def test_sigint_keeps_finished_cells_and_cleans_up(s3_env: S3Server, bucket: str, tmp_path: Path) -> None:
    out = tmp_path / "int.json"
    process = _start(s3_env, bucket, out)
    _wait_for_cells(out, 2, process)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=90)
    assert process.returncode == 130, stderr
    profile = json.loads(out.read_text())
    assert len(profile["cells"]) >= 2 and profile["run"]["complete"] is False
    assert profile["run"]["stopped_reason"] == "interrupted (SIGINT)"
    assert all(cell["samples"] > 0 for cell in profile["cells"])
    assert list_all(s3_env, bucket) == []
    journal_text = (tmp_path / "planner-measure-sig-int.journal.jsonl").read_text()
    assert '"cleaned":true' in journal_text
    assert s3_env.endpoint in stderr and "planner-measure/sig-int/" in stderr  # what it touches, up front
    _no_secrets(stdout, stderr, out.read_text(), journal_text)


def test_sigterm_keeps_finished_cells_and_cleans_up(s3_env: S3Server, bucket: str, tmp_path: Path) -> None:
    out = tmp_path / "term.json"
    process = _start(s3_env, bucket, out)
    _wait_for_cells(out, 1, process)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=90)
    assert process.returncode == 130, stderr
    profile = json.loads(out.read_text())
    assert profile["cells"] and profile["run"]["complete"] is False
    assert profile["run"]["stopped_reason"] == "terminated (SIGTERM)"
    assert list_all(s3_env, bucket) == []
    assert '"cleaned":true' in (tmp_path / "planner-measure-sig-term.journal.jsonl").read_text()


def test_sigkill_then_cleanup_command(s3_env: S3Server, bucket: str, tmp_path: Path) -> None:
    out = tmp_path / "kill.json"
    process = _start(s3_env, bucket, out)
    _wait_for_cells(out, 1, process)
    process.kill()
    process.communicate(timeout=30)
    journal_file = tmp_path / "planner-measure-sig-kill.journal.jsonl"
    # orphaned workers notice the parent is gone and stop; wait until the journal stops growing
    size, stable_since = -1, time.monotonic()
    while time.monotonic() - stable_since < 1.5:
        now = journal_file.stat().st_size
        if now != size:
            size, stable_since = now, time.monotonic()
        time.sleep(0.1)
    assert list_all(s3_env, bucket)  # the kill left objects behind
    # the profile was written after every cell: the kill lost at most the cell that was running
    kept = json.loads(out.read_text())
    assert kept["cells"] and kept["run"]["complete"] is False and kept["run"]["finished_at"] is None
    assert all(cell["samples"] > 0 and cell["requests"]["attempts"] > 0 for cell in kept["cells"])
    env = {**os.environ, **s3_env.env}
    base = [*CLI, "measure", "cleanup", "--run-id", "sig-kill", "--endpoint", s3_env.endpoint, "--addressing", "path"]
    wrong = subprocess.run(
        [*base, "--bucket", "other"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60
    )
    assert wrong.returncode == 2 and "journal is for bucket" in wrong.stderr
    done = subprocess.run(
        [*base, "--bucket", bucket], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert list_all(s3_env, bucket) == []
    _no_secrets(done.stdout, done.stderr, journal_file.read_text(), out.read_text())


def test_endpoint_with_credentials_is_refused(tmp_path: Path) -> None:
    from planner.cli.measure_options import build_options

    with pytest.raises(InputError, match="must not contain credentials") as caught:
        build_options(
            endpoint=f"http://{ACCESS_KEY}:{SECRET_KEY}@127.0.0.1:1",
            bucket="b",
            out=tmp_path / "p.json",
            provider=None,
            region=None,
            sizes="4KiB",
            concurrency="1",
            duration="1s",
            warmup="0s",
            ops="get",
            probes="none",
            link=None,
            addressing="path",
            no_verify_tls=False,
            processes=None,
            max_attempts=3,
            run_id=None,
            probe_duration="1s",
            hot_object_max=8,
            part_sizes="5MiB",
            queue_depths="1",
            range_object_size="8MiB",
            range_streams="4",
            rate_concurrency="4",
        )
    _no_secrets(str(caught.value))
