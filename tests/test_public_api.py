"""The public surface is a contract: ``planner.__all__`` names exactly what users import, each name
resolves, and a user's type checker sees real types (``py.typed`` ships; no public name is ``Any``).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import planner

ROOT = Path(__file__).resolve().parents[1]

PUBLIC = {
    "ClientSpec",
    "ConnectionPool",
    "Link",
    "Monitor",
    "MultipartPolicy",
    "ObjectStore",
    "OperationSummary",
    "RecordTable",
    "StoreRecord",
    "CostBreakdown",
    "InputError",
    "MeasureError",
    "MigrationOptions",
    "MigrationPlan",
    "PlannerError",
    "PriceTable",
    "PricedMix",
    "PricingError",
    "Recommendation",
    "Recording",
    "SimulationResult",
    "Usage",
    "Workload",
    "WorkloadSimulation",
    "__version__",
    "estimate_cost",
    "estimate_migration",
    "load_workload",
    "price_mix",
    "project_costs",
    "recommend",
    "record",
    "simulate",
}


def test_all_is_the_contract() -> None:
    assert set(planner.__all__) == PUBLIC == {*planner._EXPORTS, "__version__"}
    for name in planner.__all__:
        assert getattr(planner, name) is not None, name


def test_every_public_name_is_imported_for_type_checkers() -> None:
    """Each lazily loaded name has a ``TYPE_CHECKING`` import beside it, from the module it loads."""
    tree = ast.parse((ROOT / "planner" / "__init__.py").read_text(encoding="utf-8"))
    typed: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom) and stmt.module is not None
                typed.update({alias.name: stmt.module for alias in stmt.names})
    assert typed == planner._EXPORTS


def test_a_users_type_checker_sees_the_types(tmp_path: Path) -> None:
    user = tmp_path / "capacity.py"
    user.write_text(
        "import datetime as dt\n"
        "import planner\n"
        "reveal_type(planner.recommend)\n"
        "workload = planner.load_workload('w.yaml')\n"
        "reveal_type(workload)\n"
        "result = planner.recommend(workload, as_of=dt.date(2026, 12, 1))\n"
        "reveal_type(result.recommendation)\n"
        "bill = planner.estimate_cost(workload, 'aws-s3')\n"
        "reveal_type(bill.total_usd)\n"
        "planner.recommend('not a workload')\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "c"), str(user)],
        cwd=tmp_path,
        # the checkout as the user's installed package: mypy reads it only through py.typed
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
    )
    revealed = [line for line in done.stdout.splitlines() if "Revealed type" in line]
    assert len(revealed) == 4, done.stdout
    assert "def (workload: planner.workload.model.Workload" in revealed[0]
    assert "planner.decide.recommendation.models.Recommendation" in revealed[0]
    assert '"planner.workload.model.Workload"' in revealed[1]
    assert "planner.decide.recommendation.models.Choice | None" in revealed[2]
    assert '"decimal.Decimal"' in revealed[3]
    assert not any('"Any"' in line for line in revealed), revealed
    assert "does not explicitly export" not in done.stdout, done.stdout
    # and it catches a user's mistake
    assert 'Argument 1 to "recommend" has incompatible type "str"' in done.stdout, done.stdout
