"""Every example's ``--format focus`` output, as CSV and as Parquet, through the FinOps Foundation's own
``focus-validator`` for FOCUS 1.2 (issue 32 item 5).

The validator is not a test dependency: its FOCUS 1.2 rules ship only in its 2.x line (GitHub
finopsfoundation/focus_validator, not PyPI, whose 1.0.0 knows FOCUS 1.0 at most), which declares
Python 3.12 and pins numpy below 2. So this test runs only where a validator command is given:
``PLANNER_FOCUS_VALIDATOR`` (the command, e.g. ``/tmp/fvenv/bin/focus-validator``), else a
``focus-validator`` on PATH; ``PLANNER_FOCUS_VALIDATOR_DIR`` is the folder it runs in (2.0.1 reads
``focus_validator/rules/currency_codes.csv`` relative to its working directory, so point this at its
source checkout). The README's "Checking FOCUS output with focus-validator" says how to install it.
The rules it checks that planner once broke are pinned without it in ``test_focus_conformance.py``.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.planner.conftest import EXAMPLES, Result

Run = Callable[..., Result]

_COMMAND = os.environ.get("PLANNER_FOCUS_VALIDATOR") or shutil.which("focus-validator")
pytestmark = pytest.mark.skipif(
    _COMMAND is None,
    reason="focus-validator 2.x is not installed: set PLANNER_FOCUS_VALIDATOR to its command (and"
    " PLANNER_FOCUS_VALIDATOR_DIR to its source checkout); the README's 'Checking FOCUS output with"
    " focus-validator' says how",
)

# InvoiceId-C-003-C ("InvoiceId nullability") is an OR of C-004-C (null when the charge belongs to no
# invoice) and C-005-C (not null when it belongs to one); the validator runs both children on every row
# and reports the one that does not apply as failed while the OR passes. A forecast belongs to no
# invoice, so C-004-C holds and C-005-C is reported: the only failure a conforming forecast shows.
EXPECTED_FAILURES = {"InvoiceId-C-005-C"}
_RESULT = re.compile(r"^\S+ (?P<rule>[A-Za-z]+-[A-Z]-\d{3}-[A-Z]): (?P<status>PASS|FAIL|SKIPPED)\b", re.MULTILINE)

COMMANDS = {
    "cost": ("cost", "{workload}", "-p", "aws-s3", "--as-of", "2026-12-05"),
    "recommend": ("recommend", "{workload}", "--as-of", "2026-12-05"),
    # bulk moves every example's data, so each plan has charges to write (age-out may have none)
    "migrate": ("migrate", "{workload}", "--from", "aws-s3", "--to", "cloudflare-r2", "--strategy", "bulk"),
}


def validate(path: Path) -> dict[str, str]:
    """The validator's verdict on each FOCUS 1.2 rule for the file: rule id -> PASS, FAIL or SKIPPED."""
    assert _COMMAND is not None
    command = [*shlex.split(_COMMAND), "--data-file", str(path), "--validate-version", "1.2", "--block-download"]
    workdir = os.environ.get("PLANNER_FOCUS_VALIDATOR_DIR") or None
    done = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    verdicts = {m["rule"]: m["status"] for m in _RESULT.finditer(done.stdout)}
    assert verdicts, done.stdout[-2000:] + done.stderr[-2000:]
    return verdicts


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("workload", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
def test_focus_output_passes_focus_validator_1_2(
    run_cli: Run, tmp_path: Path, workload: str, command: str, suffix: str
) -> None:
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    out = tmp_path / f"forecast{suffix}"
    args = [a.format(workload=EXAMPLES / workload) for a in COMMANDS[command]]
    result = run_cli(*args, "--format", "focus", "--out", str(out))
    assert out.exists(), result.err
    verdicts = validate(out)
    failed = {rule for rule, status in verdicts.items() if status == "FAIL"}
    assert failed == EXPECTED_FAILURES
    assert verdicts["InvoiceId-C-003-C"] == "PASS"  # the OR the expected failure belongs to
    # the mandatory columns' rules ran and passed, not just skipped
    for rule in ("BilledCost-C-000-M", "ChargePeriodStart-C-000-M", "PricingUnit-C-000-M", "ServiceCategory-C-000-M"):
        assert verdicts[rule] == "PASS", rule
