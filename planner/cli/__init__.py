"""The ``planner`` command: parse, call the library, render. Nothing else lives here.

``planner.cli.app`` holds the app and registers one module per command group: ``pricing``,
``ingest``, ``plan`` (cost, sweep, recommend), ``migrate``, ``report``, ``workloads`` (schema, diff),
``measure`` (measure, profiles) and ``simulate`` (simulate, trace); what they share (formats,
options, parsers, errors) is in ``planner.cli.common``.
"""

from __future__ import annotations

from planner.cli.app import app, main

__all__ = ["app", "main"]
