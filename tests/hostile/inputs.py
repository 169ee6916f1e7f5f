"""The inputs of the hostile corpus: a valid one of each kind the commands read, and the ways to
spoil it (bytes, special files, links, nesting, numbers no reader should take).

Each maker writes one input at the path it is given; none is bigger than a few MiB on disk (a
gzip bomb is small compressed and large only when read).
"""

from __future__ import annotations

import functools
import gzip
import io
import json
import os
import zlib
from collections.abc import Callable
from pathlib import Path

from .harness import EXAMPLES, FIXTURES, PRICING_FIXTURES, ROOT, Maker

WORKLOAD = (EXAMPLES / "web-assets.yaml").read_text(encoding="utf-8")
PROFILE = (ROOT / "planner" / "measure" / "profiles" / "aws-s3.json").read_text(encoding="utf-8")
OVERRIDE = "provider: aws-s3\nlabel: edp\negress: {internet: {free_per_month: 200}}\n"
TRACE = "time_s,operation,key,bytes_sent,object_size\n" + "".join(
    f"{i / 100:.3f},get,k{i % 7},262144,262144\n" for i in range(200)
)
CUR = (FIXTURES / "aws-cur-sample-anonymous.csv").read_text(encoding="utf-8")
FOCUS = (FIXTURES / "focus-1.0-sample-s3.csv").read_text(encoding="utf-8")
OFFER = (PRICING_FIXTURES / "aws-offer-s3.json").read_text(encoding="utf-8")
TRANSFER = (PRICING_FIXTURES / "aws-offer-datatransfer.json").read_text(encoding="utf-8")
TABLE = (ROOT / "planner" / "pricing" / "tables" / "wasabi" / "2017-07-01.yaml").read_text(encoding="utf-8")
TABLE = TABLE.replace("provider: wasabi", "provider: acme")


def _log_line(second: int, key: str = "k/1", op: str = "REST.GET.OBJECT", status: str = "200") -> str:
    stamp = f"02/Nov/2026:09:{second // 60:02d}:{second % 60:02d} +0000"
    verb = op.split(".")[1]
    return (
        f"owner media [{stamp}] 192.0.2.9 arn:aws:iam::1:user/app REQ{second} {op} {key}"
        f' "{verb} /media/{key} HTTP/1.1" {status} - 5000 5000 12 10'
        ' "-" "app" - HOSTID SigV4 TLS_AES_128_GCM_SHA256 AuthHeader media.s3.amazonaws.com TLSv1.3 - -\n'
    )


ACCESS_LOG = "".join(_log_line(s, f"k/{s % 5}") for s in range(120))
INVENTORY_SCHEMA = "Bucket, Key, Size, LastModifiedDate, StorageClass"


def manifest(files: object = None, schema: str = INVENTORY_SCHEMA, file_format: str = "CSV") -> str:
    """An S3 Inventory manifest naming ``data/part-0.csv.gz`` beside it (or ``files`` as given)."""
    listed = [{"key": "media/inv/data/part-0.csv.gz", "size": 1, "MD5checksum": "x"}] if files is None else files
    return json.dumps(
        {
            "sourceBucket": "media",
            "destinationBucket": "arn:aws:s3:::inventory",
            "version": "2016-11-30",
            "creationTimestamp": "1793491200000",
            "fileFormat": file_format,
            "fileSchema": schema,
            "files": listed,
        }
    )


def inventory_rows(rows: str) -> bytes:
    return gzip.compress(rows.encode())


INVENTORY_CSV = "".join(
    f'"media","photos/{i}.jpg","{1000 + i}","2026-10-01T00:00:00.000Z","STANDARD"\n' for i in range(50)
)


# -- makers ------------------------------------------------------------------------------------------


def text(content: str) -> Maker:
    return lambda path: path.write_text(content, encoding="utf-8")


def data(content: bytes) -> Maker:
    return lambda path: path.write_bytes(content)


def fifo(path: Path) -> None:
    os.mkfifo(path)


def dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def loop(path: Path) -> None:
    path.symlink_to(path.name)  # a link to itself: ELOOP


def folder(path: Path) -> None:
    path.mkdir()


def dangling(path: Path) -> None:
    path.symlink_to(path.name + ".nowhere")


def table_folder(*tables: tuple[str, Maker]) -> Maker:
    """A ``PLANNER_PRICE_TABLES`` folder: provider ``acme`` with the version files given."""

    def make(path: Path) -> None:
        (path / "acme").mkdir(parents=True)
        for name, maker in tables:
            maker(path / "acme" / name)

    return make


def several(*parts: tuple[str, Maker]) -> Maker:
    """A folder holding several inputs (an inventory's manifest and data, a folder of logs)."""

    def make(path: Path) -> None:
        path.mkdir(parents=True, exist_ok=True)
        for name, maker in parts:
            target = path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            maker(target)

    return make


@functools.cache
def bomb(decompressed_bytes: int = 2**30, line: bool = True) -> bytes:
    """A gzip stream of ``decompressed_bytes`` of one character with no line break (``line``) or
    of NUL bytes: about 1 MiB on disk per GiB it expands to."""
    out = io.BytesIO()
    chunk = (b"a" if line else b"\0") * 2**20
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=1) as stream:
        for _ in range(decompressed_bytes // len(chunk)):
            stream.write(chunk)
    return out.getvalue()


@functools.cache
def zlib_bomb_rows(header: str, row: str, count: int) -> bytes:
    """A gzip stream of a header and ``count`` copies of one row (a bill or log of any length)."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=1) as stream:
        stream.write(header.encode())
        block = row.encode() * 10_000
        for _ in range(count // 10_000):
            stream.write(block)
    return out.getvalue()


def deep_json(depth: int = 1_200) -> str:
    return "[" * depth + "]" * depth


def deep_yaml(depth: int = 1_200) -> str:
    return "name: x\nstorage: " + "[" * depth + "]" * depth + "\n"


DIGITS_5000 = "9" * 5000

# The ways to spoil a text input, each a function of the valid text: (name, maker factory, subprocess?)
Spoiler = Callable[[str], Maker]

SPOILED_BYTES: dict[str, Spoiler] = {
    "empty": lambda valid: data(b""),
    "bom": lambda valid: data(b"\xef\xbb\xbf" + valid.encode()),
    "nul": lambda valid: data(valid.encode()[:200] + b"\0" + valid.encode()[200:]),
    "binary": lambda valid: data(bytes(range(256)) * 64),
    "latin1": lambda valid: data(valid.encode()[:100] + "caf\xe9".encode("latin-1") + valid.encode()[100:]),
    "crlf": lambda valid: data(valid.replace("\n", "\r\n").encode()),
    "truncated": lambda valid: data(valid.encode()[: len(valid) // 3]),
    "long-line": lambda valid: data(b"x" * (2 * 2**20)),
    "deep-json": lambda valid: text(deep_json()),
    "deep-yaml": lambda valid: text(deep_yaml()),
    "utf16": lambda valid: data(valid.encode("utf-16")),
}
"""Spoiled contents of a text input: each must be read or refused in one line."""

SPECIAL: dict[str, Maker] = {
    "folder": folder,
    "loop": loop,
    "dangling": dangling,
    "fifo": fifo,
}
"""Special files in a text input's place: refused in one line, at once (a FIFO never blocks)."""

RISKY: dict[str, Maker] = {
    "dev-zero": dev_zero,
}
"""Inputs that hang or exhaust memory if read without bound: run in a capped subprocess."""


def gz(content: str) -> Maker:
    return data(gzip.compress(content.encode()))


def zlib_raw(content: bytes) -> bytes:
    return zlib.compress(content)
