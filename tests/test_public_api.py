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


# A user's script as the README writes one, checked the way a user checks theirs: mypy --strict with no
# configuration, so no pydantic plugin. A constructor field with a default must be optional to mypy (a
# default given as ``Field(default=...)``, the keyword dataclass_transform reads), and MigrationOptions
# takes an endpoint as its fields, as it does at run time.
USER_SCRIPT = """\
import datetime as dt
from decimal import Decimal

import simpy

import planner
from planner.sim import ClientSpec, MultipartPolicy, ObjectStore, RetryPolicy
from planner.workload import MONTH_S

workload = planner.load_workload("examples/web-assets.yaml")
result = planner.recommend(workload, as_of=dt.date(2026, 12, 1))
choice = result.recommendation
if choice is not None:
    print(choice.label, choice.storage_class, choice.reasons)
bill = planner.estimate_cost(workload, "aws-s3")
total: Decimal = bill.total_usd
projection = planner.project_costs(workload, "aws-s3", months=12)
print(total, projection.total_usd)

sim = planner.simulate(workload, "cloudflare-r2", duration_s=120, replications=3)
print(sim.peak.operations["GET"].ttfb_p99_s, sim.month_billed_requests, sim.assumptions)

plan = planner.estimate_migration(
    workload,
    planner.MigrationOptions(source={"provider": "aws-s3"}, destination={"provider": "cloudflare-r2"}),
)
print(plan.strategy, plan.chosen_because, plan.one_time_cost_usd, plan.duration_hours, plan.payback_month)
options = planner.MigrationOptions(
    source={"provider": "aws-s3", "storage_class": "glacier-ir"},
    destination={"provider": "backblaze-b2"},
    strategy="bulk",
    start=dt.date(2027, 1, 1),
    months=24,
    link_bits_per_s=10e9,
)
usage = planner.Usage(stored_bytes=10**12)

env = simpy.Environment()
client = ClientSpec(
    link_bits_per_s=1e9, connections=16, multipart=MultipartPolicy(part_size_bytes=16 * 2**20),
    retry=RetryPolicy(max_attempts=5),
)
store = ObjectStore.from_profile(env, "planner/measure/profiles/cloudflare-r2.json", link=1e9, seed=1)
other = ObjectStore.for_provider(env, "aws-s3", storage_class="standard", seed=2)
env.run()
month = store.bill(provider="cloudflare-r2", scale=MONTH_S / max(env.now, 1.0))
print(month.total_usd, client.connections, other, options.source.provider, usage)
"""


def _bare_mypy(user: Path, text: str, cache: Path) -> str:
    """mypy --strict on ``text`` as a user runs it: no configuration file, so no plugin."""
    user.write_text(text, encoding="utf-8")
    args = ["--strict", "--config-file", os.devnull, "--no-incremental", "--cache-dir", str(cache), str(user)]
    done = subprocess.run(
        [sys.executable, "-m", "mypy", *args],
        cwd=user.parent,
        env={**os.environ, "PYTHONPATH": str(ROOT)},  # the checkout as the user's installed package
        capture_output=True,
        text=True,
    )
    return done.stdout


def test_the_public_constructors_type_check_without_the_pydantic_plugin(tmp_path: Path) -> None:
    user, cache = tmp_path / "capacity.py", tmp_path / "c"
    out = _bare_mypy(user, USER_SCRIPT, cache)
    assert "Success: no issues found in 1 source file" in out, out
    # the same script with a mistake in two constructors: the checks are live, not silenced
    broken = USER_SCRIPT.replace('strategy="bulk"', 'strategy="fast"').replace("connections=16", 'connections="16"')
    out = _bare_mypy(user, broken, cache)
    assert 'Argument "strategy" to "MigrationOptions" has incompatible type' in out, out
    assert 'Argument "connections" to "ClientSpec" has incompatible type "str"' in out, out


def test_an_endpoint_given_as_its_fields_is_the_same_options() -> None:
    from planner.decide.migration.models import Endpoint, MigrationOptions

    given = MigrationOptions.model_validate(
        {"source": {"provider": "aws-s3"}, "destination": {"provider": "cloudflare-r2", "storage_class": "standard"}}
    )
    assert given == MigrationOptions(source=Endpoint(provider="aws-s3"), destination=Endpoint(provider="cloudflare-r2"))
    assert isinstance(given.source, Endpoint) and given.verify_days == 7.0 and given.copy_host == "on-premises"


def test_the_typed_constructor_of_migration_options_names_every_field_with_its_default() -> None:
    """``MigrationOptions.__init__`` for type checkers (under TYPE_CHECKING) lists the model's fields, each
    with the model's default, so a field added to the model is added to it."""
    from pydantic_core import PydanticUndefined

    from planner.decide.migration.models import MigrationOptions

    source = (ROOT / "planner" / "decide" / "migration" / "models.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "MigrationOptions")
    init = next(f for n in cls.body if isinstance(n, ast.If) for f in n.body if isinstance(f, ast.FunctionDef))
    params = init.args.kwonlyargs
    defaults = dict(zip([a.arg for a in params], init.args.kw_defaults, strict=True))
    assert [a.arg for a in params] == list(MigrationOptions.model_fields)
    for name, field in MigrationOptions.model_fields.items():
        default = defaults[name]
        if field.default is PydanticUndefined:
            assert default is None, name
        else:
            assert default is not None and ast.literal_eval(default) == field.default, name
