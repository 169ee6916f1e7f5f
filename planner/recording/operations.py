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


def classify(method: str, host: str, target: str, headers: dict[str, str], endpoint_host: str = "") -> Operation:
    """The operation of one request (``headers`` with lower-case names)."""
    bucket, key, query = split_target(host, target, endpoint_host)
    method = method.upper()

    def op(s3: str, billed: str | None) -> Operation:
        return Operation(s3, billed, bucket, key)

    if not bucket:
        return op("ListBuckets", "list-buckets") if method == "GET" else op(f"{method} /", None)
    config = sorted(_BUCKET_CONFIG & set(query))
    if method == "OPTIONS":
        return op("PreflightRequest", None)
    if not key:
        if method == "GET":
            if "versions" in query:
                return op("ListObjectVersions", "list")
            if "uploads" in query:
                return op("ListMultipartUploads", "list-parts")
            if config:
                return op(f"GetBucket{_camel(config[0])}", "bucket-config")
            return op("ListObjectsV2" if query.get("list-type") == ["2"] else "ListObjects", "list")
        if method == "HEAD":
            return op("HeadBucket", "head")
        if method == "PUT":
            return op(f"PutBucket{_camel(config[0])}" if config else "CreateBucket", "bucket-config")
        if method == "DELETE":
            return op(f"DeleteBucket{_camel(config[0])}" if config else "DeleteBucket", "bucket-config")
        if method == "POST":
            return op("DeleteObjects", "delete") if "delete" in query else op("PostObject", "post")
        return op(f"{method} bucket", None)
    copy = "x-amz-copy-source" in headers
    if method == "GET":
        if "uploadId" in query:
            return op("ListParts", "list-parts")
        if "tagging" in query:
            return op("GetObjectTagging", "get")
        if "acl" in query:
            return op("GetObjectAcl", "get")
        return op("GetObject", "get")
    if method == "HEAD":
        return op("HeadObject", "head")
    if method == "PUT":
        if "partNumber" in query and "uploadId" in query:
            return op("UploadPartCopy" if copy else "UploadPart", "upload-part")
        if "tagging" in query:
            return op("PutObjectTagging", "put")
        if "acl" in query:
            return op("PutObjectAcl", "put")
        return op("CopyObject", "copy") if copy else op("PutObject", "put")
    if method == "POST":
        if "uploads" in query:
            return op("CreateMultipartUpload", "create-multipart")
        if "uploadId" in query:
            return op("CompleteMultipartUpload", "complete-multipart")
        if "restore" in query:
            return op("RestoreObject", "restore")
        if "select" in query:
            return op("SelectObjectContent", "select")
        return op("PostObject", "post")
    if method == "DELETE":
        if "uploadId" in query:
            return op("AbortMultipartUpload", "abort-multipart")
        if "tagging" in query:
            return op("DeleteObjectTagging", "delete")
        return op("DeleteObject", "delete")
    return op(f"{method} object", None)


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", " ").split())


def presigned(target: str) -> bool:
    """Whether the request carries its signature in the query (a presigned URL)."""
    query = parse_qs(target.partition("?")[2])
    return "X-Amz-Signature" in query or "Signature" in query
