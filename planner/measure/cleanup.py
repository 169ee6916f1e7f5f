"""Delete what a run wrote (and only that), abort its multipart uploads, verify the prefix is empty."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.errors import MeasureError
from planner.measure import journal
from planner.measure.s3client import describe_client_error


@dataclass
class CleanupReport:
    deleted: int = 0
    aborted_uploads: int = 0
    remaining: list[str] = field(default_factory=list)  # journaled keys still present
    foreign: list[str] = field(default_factory=list)  # keys under the prefix we did not write
    errors: dict[str, int] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return not self.remaining


def _delete_one(client: Any, bucket: str, key: str) -> str | None:
    try:
        client.delete_object(Bucket=bucket, Key=key)
    except Exception as error:
        return describe_client_error(error)
    return None


def _list_prefix(client: Any, bucket: str, prefix: str) -> list[str]:
    keys: list[str] = []
    token: str | None = None
    while True:
        kwargs: dict[str, Any] = {"Bucket": bucket, "Prefix": prefix, "MaxKeys": 1000}
        if token:
            kwargs["ContinuationToken"] = token
        page = client.list_objects_v2(**kwargs)
        keys += [item["Key"] for item in page.get("Contents", [])]
        if not page.get("IsTruncated"):
            return keys
        token = page.get("NextContinuationToken")


def _abort_uploads(client: Any, bucket: str, prefix: str, known: dict[str, str], report: CleanupReport) -> None:
    uploads = dict(known)
    try:
        listed = client.list_multipart_uploads(Bucket=bucket, Prefix=prefix)
        for upload in listed.get("Uploads", []):
            # every upload under the run's unique prefix was started by this run
            uploads.setdefault(upload["UploadId"], upload["Key"])
    except Exception as error:
        label = describe_client_error(error)
        report.errors[f"list uploads: {label}"] = report.errors.get(f"list uploads: {label}", 0) + 1
    for upload_id, key in uploads.items():
        if not _under(prefix, key):
            continue
        try:
            client.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id)
            report.aborted_uploads += 1
        except Exception as error:
            label = describe_client_error(error)
            if not label.startswith("404"):
                report.errors[f"abort: {label}"] = report.errors.get(f"abort: {label}", 0) + 1


def checked_prefix(state: journal.JournalState, journal_file: Path) -> str:
    """The journal's run prefix, refused unless it is exactly ``planner-measure/<run-id>/`` for the
    journal's own run id: a journal is a local file anyone may edit, and cleanup deletes what it lists."""
    run_id = state.run_id
    if not isinstance(run_id, str) or not journal.valid_run_id(run_id):
        raise MeasureError(
            f"{journal_file}: the journal's run id {run_id!r} is not a run id; refusing to delete anything"
        )
    expected = journal.run_prefix(run_id)
    # one host of a several-host run (measure --dask) writes under <run prefix><host>/, a key-safe label
    host = (
        state.prefix[len(expected) :] if isinstance(state.prefix, str) and state.prefix.startswith(expected) else None
    )
    if host is None or (host and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}/", host)):
        raise MeasureError(
            f"{journal_file}: the journal's prefix {state.prefix!r} is not {expected!r} (or a host's folder in it);"
            " refusing to delete anything"
        )
    return expected + host


def _under(prefix: str, key: str) -> bool:
    """A key inside the prefix, with no '.' or '..' segment a server might resolve to somewhere else."""
    return key.startswith(prefix) and not any(part in (".", "..") for part in key[len(prefix) :].split("/"))


def cleanup_run(client: Any, bucket: str, journal_file: Path, *, threads: int = 16) -> CleanupReport:
    """Delete the keys in the journal that lie under its run prefix; mark the journal cleaned.

    Raises ``MeasureError`` (deleting nothing) when the journal's prefix is not its run's own."""
    state = journal.read(journal_file)
    report = CleanupReport()
    if not state.prefix:
        report.errors["journal has no header"] = 1
        return report
    prefix = checked_prefix(state, journal_file)
    ours = [key for key in state.keys if _under(prefix, key)]
    _abort_uploads(client, bucket, prefix, state.open_uploads, report)
    for attempt in range(3):
        with ThreadPoolExecutor(max_workers=threads) as executor:
            outcomes = list(executor.map(lambda key: _delete_one(client, bucket, key), ours))
        for outcome in outcomes:
            if outcome is None:
                report.deleted += 1 if attempt == 0 else 0
            else:
                report.errors[outcome] = report.errors.get(outcome, 0) + 1
        present = set(_list_prefix(client, bucket, prefix))
        written = set(ours)
        report.remaining = sorted(present & written)
        report.foreign = sorted(present - written)
        if not report.remaining:
            break
        ours = report.remaining
    if report.clean:
        journal.append(journal_file, {"cleaned": True})
    return report
