"""The hostile corpus's fixtures: the heavy modules imported once, before the first case's clock starts."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def _warm() -> None:
    """Import what the commands import lazily, so a case's timeout measures the case, not the imports."""
    import planner.decide
    import planner.ingest
    import planner.present
    import planner.sim
    import planner.workload  # noqa: F401
