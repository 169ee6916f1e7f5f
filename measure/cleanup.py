"""Delete what a run wrote (and only that), abort its multipart uploads, verify the prefix is empty."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from measure import journal
from measure.s3client import describe_client_error


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
        if not key.startswith(prefix):
            continue
        try:
            client.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id)
            report.aborted_uploads += 1
        except Exception as error:
            label = describe_client_error(error)
            if not label.startswith("404"):
                report.errors[f"abort: {label}"] = report.errors.get(f"abort: {label}", 0) + 1


def cleanup_run(client: Any, bucket: str, journal_file: Path, *, threads: int = 16) -> CleanupReport:
    """Delete the keys in the journal that lie under its run prefix; mark the journal cleaned."""
    state = journal.read(journal_file)
    report = CleanupReport()
    if not state.prefix:
        report.errors["journal has no header"] = 1
        return report
    prefix = state.prefix
    ours = [key for key in state.keys if key.startswith(prefix)]
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
