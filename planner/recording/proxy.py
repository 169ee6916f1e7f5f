"""The recording proxy: an HTTP/1.1 reverse proxy on loopback in front of an S3 endpoint, which passes every
request and answer through unchanged (bodies streamed, never held whole) and records what each one was.

Requests keep their ``Host`` header, so a signature the client made for the proxy's address is the one the
server checks: the endpoint behind must be one that checks signatures against the host it is sent (a local
SeaweedFS, MinIO, moto), which is why ``planner record`` puts it in front of those. Credentials pass through
in the headers as the client sent them and are never read, printed or stored; a presigned URL's query is
reduced to its operation before anything is recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from planner.errors import InputError
from planner.recording.operations import classify, presigned

_HEAD_LIMIT = 64 * 1024
_IDLE_S = 600.0
_COPY_CHUNK = 256 * 1024
_DELETE_BODY_LIMIT = 4 * 2**20  # DeleteObjects takes at most 1,000 keys: its body is far smaller


@dataclass(frozen=True)
class ProxyRecord:
    """One request through the proxy, as recorded (no header, query value or body kept)."""

    time_s: float
    method: str
    s3_operation: str
    operation: str | None
    status: int
    bytes_in: int
    bytes_out: int
    object_size: int
    bucket: str
    key: str
    ranged: bool
    presigned: bool
    keys: int
    duration_s: float


def _headers(block: bytes) -> tuple[str, list[tuple[str, str]]]:
    lines = block.decode("latin-1").split("\r\n")
    pairs = []
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            pairs.append((name.strip(), value.strip()))
    return lines[0], pairs


async def _pipe_body(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, headers: dict[str, str], keep: bool = False
) -> tuple[int, bytes]:
    """Copy one message body from ``reader`` to ``writer`` as framed by its headers; (body bytes, kept body)."""
    kept = bytearray()
    total = 0
    if "chunked" in headers.get("transfer-encoding", "").lower():
        while True:
            size_line = await asyncio.wait_for(reader.readuntil(b"\r\n"), _IDLE_S)
            writer.write(size_line)
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while True:  # trailers, then the blank line
                    trailer = await asyncio.wait_for(reader.readuntil(b"\r\n"), _IDLE_S)
                    writer.write(trailer)
                    if trailer == b"\r\n":
                        break
                break
            data = await asyncio.wait_for(reader.readexactly(size + 2), _IDLE_S)
            writer.write(data)
            total += size
            if keep and len(kept) < _DELETE_BODY_LIMIT:
                kept += data[:size]
            await writer.drain()
        await writer.drain()
        return total, bytes(kept)
    remaining = int(headers.get("content-length", "0") or 0)
    while remaining > 0:
        data = await asyncio.wait_for(reader.read(min(remaining, _COPY_CHUNK)), _IDLE_S)
        if not data:
            raise ConnectionError("the body ended early")
        writer.write(data)
        remaining -= len(data)
        total += len(data)
        if keep and len(kept) < _DELETE_BODY_LIMIT:
            kept += data
        await writer.drain()
    return total, bytes(kept)


async def _pipe_until_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> int:
    total = 0
    while data := await asyncio.wait_for(reader.read(_COPY_CHUNK), _IDLE_S):
        writer.write(data)
        total += len(data)
        await writer.drain()
    return total


class RecordingProxy:
    """A reverse proxy to ``upstream`` (``http://host:port`` or ``https://...``) on a loopback port.

    ``on_record`` is called (in the proxy's thread) with each request's record as its answer ends;
    ``hash_keys`` records each key as the first 16 hex digits of its SHA-256.
    """

    def __init__(self, upstream: str, on_record: Callable[[ProxyRecord], None], *, hash_keys: bool = False) -> None:
        parts = urlsplit(upstream)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InputError(f"{upstream!r} is not an http:// or https:// address", field="--endpoint")
        self._scheme = parts.scheme
        self._host = parts.hostname
        self._port = parts.port or (443 if parts.scheme == "https" else 80)
        self._on_record = on_record
        self._hash_keys = hash_keys
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._started = time.monotonic()
        self.port = 0

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> str:
        ready = threading.Event()

        async def serve() -> None:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0, limit=_HEAD_LIMIT)
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()

        def run() -> None:
            asyncio.set_event_loop(self._loop)
            self._loop.run_until_complete(serve())
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, name="planner-record-proxy", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("the recording proxy did not start")
        self._started = time.monotonic()
        return self.endpoint

    def stop(self) -> None:
        if self._thread is None:
            return

        async def close() -> None:
            if self._server is not None:
                self._server.close()
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
        self._thread = None

    async def _open_upstream(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        context = ssl.create_default_context() if self._scheme == "https" else None
        return await asyncio.wait_for(
            asyncio.open_connection(self._host, self._port, ssl=context, limit=_HEAD_LIMIT), 30
        )

    async def _handle(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        upstream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        try:
            while True:
                try:
                    head = await asyncio.wait_for(client_reader.readuntil(b"\r\n\r\n"), _IDLE_S)
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, TimeoutError):
                    return
                if upstream is None:
                    upstream = await self._open_upstream()
                keep = await self._exchange(head, client_reader, client_writer, *upstream)
                if not keep:
                    return
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError, OSError):
            return
        finally:
            if upstream is not None:
                upstream[1].close()
            client_writer.close()
            with contextlib.suppress(Exception):
                await client_writer.wait_closed()
            if task is not None:
                self._connections.discard(task)

    async def _exchange(
        self,
        head: bytes,
        client_reader: asyncio.StreamReader,
        client_writer: asyncio.StreamWriter,
        up_reader: asyncio.StreamReader,
        up_writer: asyncio.StreamWriter,
    ) -> bool:
        started = time.monotonic()
        request_line, pairs = _headers(head)
        method, target, _version = ([*request_line.split(" ", 2), "", ""])[:3]
        headers = {name.lower(): value for name, value in pairs}
        operation = classify(method, headers.get("host", ""), target, headers, self._host)
        if "100-continue" in headers.get("expect", "").lower():
            # answered here: the upstream gets the body at once (Expect is never among the signed headers)
            client_writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            await client_writer.drain()
            head = _without_header(head, b"expect")
        up_writer.write(head)
        is_delete_many = operation.s3 == "DeleteObjects"
        bytes_in, body = await _pipe_body(client_reader, up_writer, headers, keep=is_delete_many)
        await up_writer.drain()
        while True:
            response_head = await asyncio.wait_for(up_reader.readuntil(b"\r\n\r\n"), _IDLE_S)
            status_line, response_pairs = _headers(response_head)
            status = int(status_line.split(" ", 2)[1])
            if status >= 200 or status == 101:
                break
            client_writer.write(response_head)  # an interim answer (100 Continue) passes through
        response_headers = {name.lower(): value for name, value in response_pairs}
        client_writer.write(response_head)
        framed = "content-length" in response_headers or "chunked" in response_headers.get("transfer-encoding", "")
        bodiless = method.upper() == "HEAD" or status in (204, 304) or 100 <= status < 200
        if bodiless:
            bytes_out = 0
        elif framed:
            bytes_out, _ = await _pipe_body(up_reader, client_writer, response_headers)
        else:
            bytes_out = await _pipe_until_close(up_reader, client_writer)
        await client_writer.drain()
        self._on_record(
            ProxyRecord(
                time_s=started - self._started,
                method=method.upper(),
                s3_operation=operation.s3,
                operation=operation.billed,
                status=status,
                bytes_in=bytes_in,
                bytes_out=bytes_out,
                object_size=_object_size(method.upper(), headers, response_headers, bytes_in, bytes_out),
                bucket=operation.bucket,
                key=self._key(operation.key),
                ranged="range" in headers,
                presigned=presigned(target),
                keys=body.count(b"<Key>") if is_delete_many else (1 if operation.billed == "delete" else 0),
                duration_s=time.monotonic() - started,
            )
        )
        closing = "close" in headers.get("connection", "").lower()
        closing |= "close" in response_headers.get("connection", "").lower()
        return not closing and (framed or bodiless)

    def _key(self, key: str) -> str:
        if not self._hash_keys or not key:
            return key
        return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def _without_header(head: bytes, name: bytes) -> bytes:
    lines = head.split(b"\r\n")
    kept = [lines[0]] + [line for line in lines[1:] if not line.lower().startswith(name + b":")]
    return b"\r\n".join(kept)


def _object_size(method: str, request: dict[str, str], response: dict[str, str], bytes_in: int, bytes_out: int) -> int:
    """The size of the object a request wrote or read: a PUT's decoded length (aws-chunked uploads frame
    their bytes with signatures), a GET's whole object (Content-Range's total for a ranged read)."""
    if method == "PUT":
        decoded = request.get("x-amz-decoded-content-length")
        return int(decoded) if decoded and decoded.isdigit() else bytes_in
    content_range = response.get("content-range", "")
    if "/" in content_range and content_range.rsplit("/", 1)[1].isdigit():
        return int(content_range.rsplit("/", 1)[1])
    length = response.get("content-length", "")
    if method == "HEAD" and length.isdigit():
        return int(length)
    return bytes_out
