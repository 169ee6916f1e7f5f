"""Benchmarks for S3-compatible endpoints and the measurement profiles they produce."""
