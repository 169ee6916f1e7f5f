"""A run's safety: refusing a bucket it must not touch, turning SIGTERM into an exception so the
cleanup runs, shielding the cleanup from a second signal, and writing output atomically."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from planner.errors import MeasureError
from planner.measure import journal
from planner.measure.s3client import describe_client_error

PREFLIGHT_READ_TIMEOUT_S = 5.0
"""The safety checks' read timeout: an endpoint that accepts the connection and never answers a
HEAD bucket within this long is refused (a measured request may take longer: ``read_timeout_s``)."""


class Unsupported(MeasureError):
    """The server refused every request of one operation as unsupported (400, 405 or 501)."""

    def __init__(self, operation: str, error: str) -> None:
        super().__init__(f"the server does not support {operation} ({error})")
        self.operation = operation
        self.error = error


UNSUPPORTED_STATUS = ("400", "405", "501")
"""Answers that say the server does not do what was asked (501 NotImplemented; 400 and 405 from
servers that lack an operation, e.g. a 400 to CreateMultipartUpload), unlike 403/404 or a 5xx."""


def refuses(label: str) -> bool:
    """Whether an error label is a refusal of the operation itself (see ``UNSUPPORTED_STATUS``)."""
    return label.split(" ", 1)[0] in UNSUPPORTED_STATUS or "NotImplemented" in label


def s3_operation(kind: str, fields: dict[str, Any]) -> str:
    """The S3 API call a load sends, as the server's documentation names it."""
    if kind == "get" and (fields.get("byte_range") is not None or fields.get("thread_ranges")):
        return "GetObject with a Range header"
    names = {
        "get": "GetObject",
        "put": "PutObject",
        "put_keys": "PutObject",
        "head": "HeadObject",
        "list": "ListObjectsV2",
        "delete": "DeleteObject",
        "upload_part": "UploadPart",
    }
    return names.get(kind, kind)


class Terminated(BaseException):
    """SIGTERM, turned into an exception so the cleanup in ``finally`` runs."""


def write_atomic(path: Path, text: str) -> None:
    """Write a file so a reader (or a crash) sees the old or the new content, never half."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)  # no half-written file left behind
        raise


@contextmanager
def signals_as_exceptions() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # handlers can only be set there; a run in a thread is stopped by whoever started it
        return

    def on_term(signum: int, frame: FrameType | None) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def shielded() -> Iterator[None]:
    """Ignore SIGINT/SIGTERM while cleaning up so a second Ctrl-C does not leave objects behind."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
    old_term = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)


def preflight(client: Any, bucket: str, prefix: str, endpoint: str, journal_file: Path) -> None:
    """Refuse an unreachable or unwritable bucket, or a run prefix that already holds objects."""
    from botocore.exceptions import NoCredentialsError

    where = f"bucket {bucket!r} at {endpoint}"
    try:
        client.head_bucket(Bucket=bucket)
    except NoCredentialsError:
        raise MeasureError(
            "no credentials found (set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE)"
        ) from None
    except Exception as error:
        label = describe_client_error(error)
        if label.startswith("404"):
            raise MeasureError(f"{where} does not exist") from None
        if label.startswith("403"):
            raise MeasureError(f"no permission to access {where} ({label})") from None
        raise MeasureError(f"cannot reach {where} ({label})") from None
    try:
        listed = client.list_objects_v2(Bucket=bucket, Prefix=prefix, MaxKeys=1)
    except Exception as error:
        raise MeasureError(f"cannot list {where} ({describe_client_error(error)})") from None
    if listed.get("KeyCount", len(listed.get("Contents", []))):
        raise MeasureError(f"run prefix {prefix} in {where} already holds objects; refusing to touch it")
    probe_key = f"{prefix}.write-check"
    journal.append(journal_file, {"put": probe_key})
    try:
        client.put_object(Bucket=bucket, Key=probe_key, Body=b"planner write check")
    except Exception as error:
        raise MeasureError(
            f"cannot write to {where} ({describe_client_error(error)}); planner measure needs permission"
            " to put and delete objects (use a scratch bucket)"
        ) from None
    try:
        client.delete_object(Bucket=bucket, Key=probe_key)
    except Exception as error:
        raise MeasureError(
            f"can write but not delete in {where} ({describe_client_error(error)}); refusing to leave objects"
        ) from None
