"""What an S3 request is, from its method, path, query and headers: the S3 API's own mapping of verbs and
subresources to operations, and the operation planner bills it as (``planner.pricing.primitives.OPERATIONS``).

Path-style addressing is assumed where the request's host is the endpoint's own (a local server, a
recording proxy); a host with one more label in front of the endpoint's is a virtual-hosted bucket.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, unquote

# Bucket subresources whose GET/PUT/DELETE configure the bucket rather than list or store objects.
_BUCKET_CONFIG = frozenset(
    {
        "acl",
        "analytics",
        "cors",
        "encryption",
        "inventory",
        "lifecycle",
        "location",
        "logging",
        "metrics",
        "notification",
        "object-lock",
        "ownershipControls",
        "policy",
        "policyStatus",
        "publicAccessBlock",
        "replication",
        "requestPayment",
        "tagging",
        "versioning",
        "website",
        "accelerate",
        "intelligent-tiering",
    }
)


@dataclass(frozen=True)
class Operation:
    """One request as the S3 API names it (``s3``), and as it is billed (``billed``: an operation of the price
    tables, or ``None`` for a request no table prices, such as a browser preflight)."""

    s3: str
    billed: str | None
    bucket: str
    key: str


def split_target(host: str, target: str, endpoint_host: str) -> tuple[str, str, dict[str, list[str]]]:
    """(bucket, key, query) of a request line's target, path-style or virtual-hosted."""
    path, _, query_text = target.partition("?")
    query = parse_qs(query_text, keep_blank_values=True)
    path = unquote(path)
    host_name = host.split(":")[0].lower()
    endpoint_name = endpoint_host.split(":")[0].lower()
    if endpoint_name and host_name.endswith("." + endpoint_name):
        return host_name[: -len(endpoint_name) - 1], path.lstrip("/"), query
    bucket, _, key = path.lstrip("/").partition("/")
    return bucket, key, query


# Per method, the subresources (query parameters) that name an operation, in the order S3 reads them; the
# first whose parameters the request carries wins, and the entry with none is the method's default.
_Rule = tuple[frozenset[str], str, str]
_OBJECT: dict[str, tuple[_Rule, ...]] = {
    "GET": (
        (frozenset({"uploadId"}), "ListParts", "list-parts"),
        (frozenset({"tagging"}), "GetObjectTagging", "get"),
        (frozenset({"acl"}), "GetObjectAcl", "get"),
        (frozenset(), "GetObject", "get"),
    ),
    "HEAD": ((frozenset(), "HeadObject", "head"),),
    "PUT": (
        (frozenset({"partNumber", "uploadId"}), "UploadPart", "upload-part"),
        (frozenset({"tagging"}), "PutObjectTagging", "put"),
        (frozenset({"acl"}), "PutObjectAcl", "put"),
        (frozenset(), "PutObject", "put"),
    ),
    "POST": (
        (frozenset({"uploads"}), "CreateMultipartUpload", "create-multipart"),
        (frozenset({"uploadId"}), "CompleteMultipartUpload", "complete-multipart"),
        (frozenset({"restore"}), "RestoreObject", "restore"),
        (frozenset({"select"}), "SelectObjectContent", "select"),
        (frozenset(), "PostObject", "post"),
    ),
    "DELETE": (
        (frozenset({"uploadId"}), "AbortMultipartUpload", "abort-multipart"),
        (frozenset({"tagging"}), "DeleteObjectTagging", "delete"),
        (frozenset(), "DeleteObject", "delete"),
    ),
}
# With an x-amz-copy-source header, these writes copy an object server-side instead.
_COPY = {"UploadPart": ("UploadPartCopy", "upload-part"), "PutObject": ("CopyObject", "copy")}
# A bucket's own subresources before its configuration ones; what is left is listing, creating, deleting.
_BUCKET: dict[str, tuple[_Rule, ...]] = {
    "GET": (
        (frozenset({"versions"}), "ListObjectVersions", "list"),
        (frozenset({"uploads"}), "ListMultipartUploads", "list-parts"),
    ),
    "HEAD": ((frozenset(), "HeadBucket", "head"),),
    "POST": ((frozenset({"delete"}), "DeleteObjects", "delete"), (frozenset(), "PostObject", "post")),
}
_CONFIG_VERB = {"GET": "Get", "PUT": "Put", "DELETE": "Delete"}
_BUCKET_ITSELF = {"PUT": "CreateBucket", "DELETE": "DeleteBucket"}


def _first(rules: tuple[_Rule, ...], query: dict[str, list[str]]) -> tuple[str, str] | None:
    return next(((s3, billed) for needs, s3, billed in rules if needs <= query.keys()), None)


def classify(method: str, host: str, target: str, headers: dict[str, str], endpoint_host: str = "") -> Operation:
    """The operation of one request (``headers`` with lower-case names)."""
    bucket, key, query = split_target(host, target, endpoint_host)
    method = method.upper()

    def op(s3: str, billed: str | None) -> Operation:
        return Operation(s3, billed, bucket, key)

    if not bucket:
        return op("ListBuckets", "list-buckets") if method == "GET" else op(f"{method} /", None)
    if method == "OPTIONS":
        return op("PreflightRequest", None)
    if key:
        found = _first(_OBJECT.get(method, ()), query)
        if found is None:
            return op(f"{method} object", None)
        if "x-amz-copy-source" in headers and found[0] in _COPY:
            found = _COPY[found[0]]
        return op(*found)
    found = _first(_BUCKET.get(method, ()), query)
    if found is not None:
        return op(*found)
    config = sorted(_BUCKET_CONFIG & set(query))
    if config and method in _CONFIG_VERB:
        return op(f"{_CONFIG_VERB[method]}Bucket{_camel(config[0])}", "bucket-config")
    if method == "GET":
        return op("ListObjectsV2" if query.get("list-type") == ["2"] else "ListObjects", "list")
    if method in _BUCKET_ITSELF:
        return op(_BUCKET_ITSELF[method], "bucket-config")
    return op(f"{method} bucket", None)


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", " ").split())


def presigned(target: str) -> bool:
    """Whether the request carries its signature in the query (a presigned URL)."""
    query = parse_qs(target.partition("?")[2])
    return "X-Amz-Signature" in query or "Signature" in query
