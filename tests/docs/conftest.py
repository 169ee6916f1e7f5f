"""The server tier's examples run against the SeaweedFS server the measurement tests start."""

from tests.measure.conftest import s3_server

__all__ = ["s3_server"]
