"""Which client sends a task's requests: obstore for small objects, boto3 for everything else.

botocore spends about 1.5-2 ms of CPU on each request (building, signing and parsing it in
Python), so on a fast endpoint the client, not the endpoint, limited small-object cells. obstore
(Rust ``object_store`` behind a thin Python layer) sends a 4 KiB GET for about 0.2 ms of CPU and
releases the GIL while it waits, so the worker's threads keep their requests in flight. boto3
stays the engine for large transfers, where it moves as many bytes per second as any client, for
LIST (one call is one request in boto3; obstore pages through everything), DELETE (obstore sends
a bulk ``POST ?delete``) and multipart parts.

The obstore store is set up like the boto3 client (``measure.s3client.make_client``): its own
retries off (every attempt, a 503 SlowDown included, is seen and counted by the worker's loop),
no additional checksums, the same addressing style, connect and read timeouts, TLS verification,
and credentials from the boto3 credential chain, handed over in memory and never logged or
stored. A failed attempt becomes a ``RequestFailed`` with a short cause label (``"503
SlowDown"``, ``"timeout"``, ``"reset"``, ``"truncated"``); obstore's message, which names the URL
and echoes the server's answer, is parsed for the status and S3 error code and then dropped.
"""

from __future__ import annotations

import re
import time
from datetime import timedelta
from functools import cache
from typing import TYPE_CHECKING, Literal

from planner.measure.s3client import RETRYABLE_STATUS, Addressing, RequestFailed, TruncatedBody

if TYPE_CHECKING:
    from obstore.store import ClientConfig, RetryConfig, S3Config, S3Store

EngineName = Literal["boto3", "obstore"]
EngineChoice = Literal["auto", "boto3", "obstore"]
ENGINE_CHOICES: tuple[EngineChoice, ...] = ("auto", "boto3", "obstore")

SMALL_OBJECT_MAX_BYTES = 4 << 20
"""GETs and PUTs of at most this many bytes (a GET's range, if any) go through obstore under
``auto``. Measured on a local SeaweedFS, GET at 8 connections: in one process's threads, obstore
moved 3.6-5x boto3's MiB/s at 64 KiB, 2.8x at 256 KiB, 1.6-4x at 1 MiB and 1.2-1.4x at 4 MiB for
less CPU per request at each (0.28 against 2.1-2.4 ms at 64 KiB, 2.3-2.7 against 3.1-3.4 ms at
4 MiB), but 1.3-1.6x boto3's CPU at 16 MiB (its body reaches Python in the pieces the socket
delivers); planner's own cells (``benchmarks/measure_client.py --threshold-sizes 4MiB,16MiB``)
gave 666 against 286 MiB/s at 4 MiB (3.1 against 5.3 ms CPU) and 699 against 600 at 16 MiB
(7.1 against 7.2 ms), and at 64 MiB obstore was behind (0.7x boto3's MiB/s at 3x the CPU). CPU
is what a client sharing its host runs out of first, so the line sits at the largest size where
obstore won on both counts; large transfers stay with boto3."""

SMALL_ENGINE_KINDS = frozenset({"get", "put", "head", "put_keys"})
"""Task kinds obstore can send as the same single S3 request boto3 sends (a HEAD is small
whatever the object's size)."""

_STREAM_CHUNK = 1
"""obstore's stream hands over each piece of the body as it arrives (its default gathers 10 MB
first, which would put the first byte's time at the end of a small body)."""


@cache
def obstore_available() -> bool:
    try:
        import obstore  # noqa: F401
    except ImportError:
        return False
    return True


def obstore_version() -> str | None:
    if not obstore_available():
        return None
    import obstore

    return str(obstore.__version__)


def engine_for(kind: str, request_bytes: int, choice: EngineChoice = "auto") -> EngineName:
    """The engine for a task of ``kind`` whose requests move ``request_bytes`` each."""
    if choice == "boto3" or kind not in SMALL_ENGINE_KINDS or not obstore_available():
        return "boto3"
    if choice == "obstore" or kind == "head":
        return "obstore"
    return "obstore" if request_bytes <= SMALL_OBJECT_MAX_BYTES else "boto3"


# -- errors ---------------------------------------------------------------------------------------

_STATUS = re.compile(r"status code: (\d{3})")
_S3_CODE = re.compile(r"<Code>([A-Za-z0-9.]{1,64})</Code>")
_KIND = re.compile(r"kind: (\w+)")


def classify_obstore_error(error: BaseException) -> RequestFailed:
    """An obstore failure as a cause label and whether to retry, keeping nothing of its message."""
    text = str(error)
    status_match = _STATUS.search(text)
    if status_match:
        status = int(status_match.group(1))
        code_match = _S3_CODE.search(text)
        code = code_match.group(1) if code_match else ""
        label = f"{status} {code}" if code and code != str(status) else str(status)
        return RequestFailed(label, status in RETRYABLE_STATUS or code in ("SlowDown", "RequestTimeout"))
    kinds = set(_KIND.findall(text))
    if "Timeout" in kinds or "TimedOut" in text:
        return RequestFailed("timeout", True)
    if "IncompleteBody" in text or "UnexpectedEof" in text:
        return RequestFailed("truncated", True)
    if "Connect" in kinds:
        return RequestFailed("connection", True)
    if kinds & {"Interrupted", "Request"}:
        return RequestFailed("reset", True)
    return RequestFailed(type(error).__name__, False)


# -- the client -----------------------------------------------------------------------------------


def _seconds(value: float) -> timedelta:
    return timedelta(seconds=value)


def _virtual_hosted(endpoint: str | None, region: str, addressing: Addressing) -> bool:
    """The addressing boto3 would use: ``auto`` is botocore's own choice for this endpoint."""
    if addressing != "auto":
        return addressing == "virtual"
    import boto3
    from botocore import UNSIGNED
    from botocore.config import Config

    probe = boto3.session.Session().client(
        "s3", endpoint_url=endpoint, region_name=region, config=Config(signature_version=UNSIGNED)
    )
    url = str(probe.generate_presigned_url("get_object", Params={"Bucket": "planner-probe", "Key": "k"}))
    return "//planner-probe." in url


def make_store(
    endpoint: str | None,
    region: str | None,
    bucket: str,
    *,
    addressing: Addressing = "auto",
    connect_timeout_s: float = 10.0,
    read_timeout_s: float = 60.0,
    verify_tls: bool = True,
) -> S3Store:
    """An obstore S3 store set up as ``make_client`` sets up boto3 (see the module docstring)."""
    import boto3
    from obstore.auth.boto3 import Boto3CredentialProvider
    from obstore.store import S3Store

    session = boto3.session.Session()
    region_name = region or session.region_name or "us-east-1"
    client_options: ClientConfig = {
        "connect_timeout": _seconds(connect_timeout_s),
        "read_timeout": _seconds(read_timeout_s),
        # obstore's overall limit (30 s by default) would cut a slow but live transfer short;
        # silence is caught by the read timeout, as in boto3
        "timeout": _seconds(24 * 3600),
        "allow_http": bool(endpoint and endpoint.startswith("http://")),
        "allow_invalid_certificates": not verify_tls,
    }
    retry_config: RetryConfig = {
        "max_retries": 0,
        "retry_timeout": _seconds(0),
        "backoff": {"init_backoff": _seconds(0.01), "max_backoff": _seconds(1), "base": 2.0},
    }
    config: S3Config = {
        "region": region_name,
        "virtual_hosted_style_request": _virtual_hosted(endpoint, region_name, addressing),
    }
    if endpoint:
        config["endpoint"] = endpoint
    return S3Store(
        bucket,
        config=config,
        client_options=client_options,
        retry_config=retry_config,
        credential_provider=Boto3CredentialProvider(session),
    )


class SmallObjectClient:
    """GET, PUT and HEAD of one bucket through obstore, timed as the worker times boto3's calls.

    Each method is one attempt (one HTTP request); a failure raises ``RequestFailed``.
    """

    def __init__(self, store: S3Store) -> None:
        self._store = store

    def get(self, key: str, byte_range: tuple[int, int] | None, started: float) -> tuple[float, int]:
        """Read the whole body; returns (seconds from ``started`` to the first body byte, bytes)."""
        import obstore

        try:
            if byte_range is None:
                result = obstore.get(self._store, key)
            else:  # obstore's ranges end before ``end``; S3's (and ours) end on it
                result = obstore.get(self._store, key, options={"range": (byte_range[0], byte_range[1] + 1)})
            expected_start, expected_end = result.range
            ttfb = 0.0
            size = 0
            for chunk in result.stream(min_chunk_size=_STREAM_CHUNK):
                if not size:
                    ttfb = time.time() - started
                size += len(chunk)
        except Exception as error:
            raise classify_obstore_error(error) from None
        if size != expected_end - expected_start:
            raise TruncatedBody()
        if not size:
            ttfb = time.time() - started
        return ttfb, size

    def put(self, key: str, body: bytes) -> None:
        import obstore

        try:
            obstore.put(self._store, key, body, use_multipart=False)
        except Exception as error:
            raise classify_obstore_error(error) from None

    def head(self, key: str) -> None:
        import obstore

        try:
            obstore.head(self._store, key)
        except Exception as error:
            raise classify_obstore_error(error) from None
