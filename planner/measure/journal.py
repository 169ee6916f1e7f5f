"""The local journal of everything a run wrote, so cleanup can finish after a crash or SIGKILL.

One JSON object per line, appended with ``O_APPEND`` and written *before* the request that
creates the object (an intent log): a key in the journal may not exist, but an object the run
created is always in the journal. Lines: a header (run id, endpoint, bucket, prefix), ``put``
(a key), ``mpu`` (a multipart upload started), ``mpu_done`` (completed or aborted) and
``cleaned`` (cleanup finished and verified). The journal never holds credentials.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.files import JOURNAL_LIMIT_BYTES, read_input_text

RUN_PREFIX_ROOT = "planner-measure/"


def run_prefix(run_id: str) -> str:
    """The only prefix a run writes under: ``planner-measure/<run-id>/``."""
    return f"{RUN_PREFIX_ROOT}{run_id}/"


def valid_run_id(run_id: str) -> bool:
    """Letters, digits, '-' and '_' (at most 64): a run id never reaches outside its own prefix."""
    return 0 < len(run_id) <= 64 and run_id.replace("-", "").replace("_", "").isalnum() and run_id.isascii()


def journal_path(directory: Path, run_id: str) -> Path:
    return directory / f"planner-measure-{run_id}.journal.jsonl"


def append(path: str | Path, record: dict[str, Any]) -> None:
    """Append one record durably enough to survive the process being killed right after."""
    line = (json.dumps(record, separators=(",", ":")) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


class JournalWriter:
    """Keeps the journal open for a worker that appends many keys."""

    def __init__(self, path: str | Path) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def write(self, record: dict[str, Any]) -> None:
        os.write(self._fd, (json.dumps(record, separators=(",", ":")) + "\n").encode())

    def close(self) -> None:
        os.close(self._fd)


@dataclass
class JournalState:
    run_id: str | None = None
    endpoint: str | None = None
    bucket: str | None = None
    prefix: str | None = None
    keys: list[str] = field(default_factory=list)
    open_uploads: dict[str, str] = field(default_factory=dict)  # upload id -> key
    cleaned: bool = False


def read(path: str | Path) -> JournalState:
    """Replay a journal; a torn last line (killed mid-write) is ignored."""
    state = JournalState()
    seen: set[str] = set()
    text = read_input_text(path, what="measurement journal", limit_bytes=JOURNAL_LIMIT_BYTES)
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(record, dict):
            continue
        if "run_id" in record and "prefix" in record:
            state.run_id = record["run_id"]
            state.endpoint = record.get("endpoint")
            state.bucket = record.get("bucket")
            state.prefix = record["prefix"]
        elif "put" in record:
            key = str(record["put"])
            if key not in seen:
                seen.add(key)
                state.keys.append(key)
        elif "mpu" in record:
            state.open_uploads[str(record["upload_id"])] = str(record["mpu"])
        elif "mpu_done" in record:
            state.open_uploads.pop(str(record["mpu_done"]), None)
        elif record.get("cleaned"):
            state.cleaned = True
    return state
