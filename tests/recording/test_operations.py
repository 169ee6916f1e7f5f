"""Requests named as the S3 API names them, and billed as the price tables' operations."""

from __future__ import annotations

import pytest

from planner.recording.operations import classify
from planner.recording.session import redact


@pytest.mark.parametrize(
    ("method", "target", "headers", "s3", "billed"),
    [
        ("GET", "/", {}, "ListBuckets", "list-buckets"),
        ("GET", "/b?list-type=2&prefix=x", {}, "ListObjectsV2", "list"),
        ("GET", "/b", {}, "ListObjects", "list"),
        ("GET", "/b?versions", {}, "ListObjectVersions", "list"),
        ("GET", "/b?uploads", {}, "ListMultipartUploads", "list-parts"),
        ("GET", "/b?lifecycle", {}, "GetBucketLifecycle", "bucket-config"),
        ("HEAD", "/b", {}, "HeadBucket", "head"),
        ("PUT", "/b", {}, "CreateBucket", "bucket-config"),
        ("POST", "/b?delete", {}, "DeleteObjects", "delete"),
        ("GET", "/b/k", {}, "GetObject", "get"),
        ("GET", "/b/k?uploadId=1", {}, "ListParts", "list-parts"),
        ("HEAD", "/b/k", {}, "HeadObject", "head"),
        ("PUT", "/b/k", {}, "PutObject", "put"),
        ("PUT", "/b/k", {"x-amz-copy-source": "/b/j"}, "CopyObject", "copy"),
        ("PUT", "/b/k?partNumber=1&uploadId=u", {}, "UploadPart", "upload-part"),
        ("PUT", "/b/k?partNumber=1&uploadId=u", {"x-amz-copy-source": "/b/j"}, "UploadPartCopy", "upload-part"),
        ("PUT", "/b/k?tagging", {}, "PutObjectTagging", "put"),
        ("POST", "/b/k?uploads", {}, "CreateMultipartUpload", "create-multipart"),
        ("POST", "/b/k?uploadId=u", {}, "CompleteMultipartUpload", "complete-multipart"),
        ("POST", "/b/k?restore", {}, "RestoreObject", "restore"),
        ("DELETE", "/b/k", {}, "DeleteObject", "delete"),
        ("DELETE", "/b/k?uploadId=u", {}, "AbortMultipartUpload", "abort-multipart"),
        ("OPTIONS", "/b/k", {}, "PreflightRequest", None),
        ("PUT", "/b?tagging", {}, "PutBucketTagging", "bucket-config"),
        ("DELETE", "/b?object-lock", {}, "DeleteBucketObjectLock", "bucket-config"),
        ("DELETE", "/b", {}, "DeleteBucket", "bucket-config"),
        ("POST", "/b", {}, "PostObject", "post"),
        ("PATCH", "/b", {}, "PATCH bucket", None),
        ("GET", "/b/k?tagging", {}, "GetObjectTagging", "get"),
        ("GET", "/b/k?acl", {}, "GetObjectAcl", "get"),
        ("PUT", "/b/k?acl", {}, "PutObjectAcl", "put"),
        ("PUT", "/b/k?tagging", {"x-amz-copy-source": "/b/j"}, "PutObjectTagging", "put"),
        ("POST", "/b/k?select&select-type=2", {}, "SelectObjectContent", "select"),
        ("POST", "/b/k", {}, "PostObject", "post"),
        ("DELETE", "/b/k?tagging", {}, "DeleteObjectTagging", "delete"),
        ("PATCH", "/b/k", {}, "PATCH object", None),
        ("PUT", "/", {}, "PUT /", None),
    ],
)
def test_an_s3_request_is_named_by_its_method_and_subresource(
    method: str, target: str, headers: dict[str, str], s3: str, billed: str | None
) -> None:
    operation = classify(method, "127.0.0.1:9000", target, headers, "127.0.0.1")
    assert (operation.s3, operation.billed) == (s3, billed)


def test_a_virtual_hosted_bucket_is_read_from_the_host() -> None:
    operation = classify("GET", "photos.s3.example.com", "/2026/a.jpg", {}, "s3.example.com")
    assert (operation.bucket, operation.key, operation.s3) == ("photos", "2026/a.jpg", "GetObject")


def test_a_recorded_command_keeps_no_secret() -> None:
    command = [
        "rclone",
        "--s3-secret-access-key",
        "wJalrXUtnFEMI",
        "--password=hunter2",
        "s3://AKIA:secret@host/bucket",
        "--transfers",
        "8",
    ]
    assert redact(command) == [
        "rclone",
        "--s3-secret-access-key",
        "***",
        "--password=***",
        "s3://***@host/bucket",
        "--transfers",
        "8",
    ]
