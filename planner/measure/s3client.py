"""boto3 client construction and error classification, shared by the parent and the workers.

botocore's own retries are switched off (one attempt per call) so every 503 SlowDown, 429 or
timeout is seen and counted by our retry loop instead of hiding inside the latency. Checksums
are only sent where the API requires them: boto3 1.36+ defaults break R2 and others.
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

Addressing = Literal["auto", "path", "virtual"]

RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})


def sanitize_endpoint(url: str) -> str:
    """``scheme://host[:port][/path]``: drops userinfo, query and fragment (they may hold secrets)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def check_endpoint(url: str) -> str:
    """Validate an endpoint URL for use; returns the sanitised form or raises ValueError."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"{sanitize_endpoint(url) or 'the value'} is not an http(s) URL (use e.g. https://s3.example.com)"
        )
    if parts.username or parts.password:
        raise ValueError("the endpoint URL must not contain credentials; use the AWS credential chain")
    return sanitize_endpoint(url)


def make_client(
    endpoint: str | None,
    region: str | None,
    *,
    addressing: Addressing = "auto",
    max_pool_connections: int = 10,
    connect_timeout_s: float = 10.0,
    read_timeout_s: float = 60.0,
    verify_tls: bool = True,
) -> Any:
    """An S3 client with one attempt per call, checksums only when required, a pool sized to use."""
    import boto3
    from botocore.config import Config

    config = Config(
        region_name=region or "us-east-1",
        signature_version="s3v4",
        retries={"total_max_attempts": 1, "mode": "standard"},
        max_pool_connections=max(1, max_pool_connections),
        connect_timeout=connect_timeout_s,
        read_timeout=read_timeout_s,
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
        tcp_keepalive=True,
        s3={"addressing_style": addressing},
    )
    session = boto3.session.Session()
    return session.client("s3", endpoint_url=endpoint, config=config, verify=verify_tls)


class TruncatedBody(Exception):
    """The body ended before its Content-Length: the server closed the connection early."""


class RequestFailed(Exception):
    """A failed attempt of an engine other than botocore, already classified: a short cause label
    (the same labels as ``classify_error``'s) and whether to retry; the engine's message is not kept."""

    def __init__(self, label: str, retryable: bool) -> None:
        super().__init__(label)
        self.label = label
        self.retryable = retryable


def _causes(error: BaseException, depth: int = 6) -> list[BaseException]:
    """The error and what it wraps (botocore's ``error=`` keyword, urllib3's args, the chain)."""
    found: list[BaseException] = []
    pending = [error]
    while pending and len(found) < depth:
        current = pending.pop(0)
        if current in found:
            continue
        found.append(current)
        wrapped = getattr(current, "kwargs", {}).get("error")
        linked = (wrapped, *current.args, current.__cause__, current.__context__)
        pending += [e for e in linked if isinstance(e, BaseException)]
    return found


def classify_error(error: BaseException) -> tuple[str, bool]:
    """A short cause label (``"503 SlowDown"``, ``"timeout"``, ``"reset"``, ``"truncated"``) and
    whether to retry.

    The label never contains the error message: S3 messages can echo request details.
    """
    from http.client import IncompleteRead as HttpIncompleteRead

    from botocore.exceptions import (
        ClientError,
        ConnectionClosedError,
        ConnectTimeoutError,
        EndpointConnectionError,
        IncompleteReadError,
        ReadTimeoutError,
    )
    from urllib3.exceptions import IncompleteRead as Urllib3IncompleteRead

    if isinstance(error, RequestFailed):
        return error.label, error.retryable
    if isinstance(error, ClientError):
        meta = error.response.get("ResponseMetadata", {})
        status = int(meta.get("HTTPStatusCode") or 0)
        code = str(error.response.get("Error", {}).get("Code") or "")
        label = f"{status} {code}" if code and code != str(status) else str(status or code or "client-error")
        return label, status in RETRYABLE_STATUS or code in ("SlowDown", "RequestTimeout")
    causes = _causes(error)
    if any(isinstance(c, ConnectTimeoutError | ReadTimeoutError | TimeoutError) for c in causes):
        return "timeout", True
    truncated = TruncatedBody | IncompleteReadError | HttpIncompleteRead | Urllib3IncompleteRead
    if any(isinstance(c, truncated) for c in causes):
        return "truncated", True
    if any(isinstance(c, ConnectionClosedError | ConnectionResetError | BrokenPipeError) for c in causes):
        return "reset", True
    if isinstance(error, EndpointConnectionError | ConnectionError):
        return "connection", True
    name = type(error).__name__
    if "Timeout" in name:
        return "timeout", True
    if "Protocol" in name or "Reset" in name or "IncompleteRead" in name or "Streaming" in name:
        return "reset", True
    return name, False


def describe_client_error(error: BaseException) -> str:
    """One safe line for a user: status and S3 error code, never headers, URLs or keys."""
    label, _ = classify_error(error)
    return label
