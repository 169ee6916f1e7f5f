"""The wheel and the sdist are the same from any checkout: one built from a clone made without
symbolic links (``git -c core.symlinks=false clone``, Windows' default) holds every file that one
built from a normal clone holds, the price tables and reference profiles among them.

Both are built through setuptools' own PEP 517 hooks, in a subprocess, from the committed tree
(``git clone`` of this repository), so a file left out of version control cannot hide a gap.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

BUILD = """\
import sys
from setuptools import build_meta
kind, out = sys.argv[1], sys.argv[2]
print((build_meta.build_wheel if kind == "wheel" else build_meta.build_sdist)(out))
"""


def _clone(tmp: Path, name: str, *config: str) -> Path:
    target = tmp / name
    subprocess.run(["git", *config, "clone", "--quiet", "--no-hardlinks", str(ROOT), str(target)], check=True)
    return target


def _build(checkout: Path, kind: str, out: Path) -> Path:
    out.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", BUILD, kind, str(out)], cwd=checkout, check=True, capture_output=True, text=True
    )
    return out / done.stdout.strip().splitlines()[-1]


def _wheel_names(path: Path) -> set[str]:
    with zipfile.ZipFile(path) as wheel:
        return {name for name in wheel.namelist() if ".dist-info/" not in name}


def _sdist_names(path: Path) -> set[str]:
    with tarfile.open(path) as sdist:
        # the first component is objstore_planner-<version>/; the egg-info is setuptools' own bookkeeping
        return {m.name.split("/", 1)[1] for m in sdist.getmembers() if "/" in m.name and ".egg-info" not in m.name}


built_files: dict[str, str] = {}
"""The file name of each build (``wheel``, ``sdist``), from the checkout without links."""


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, set[str]]]:
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True).returncode != 0:
        pytest.skip("not a git checkout")
    tmp = tmp_path_factory.mktemp("packaging")
    found: dict[str, dict[str, set[str]]] = {}
    for name, config in (("normal", ()), ("no-links", ("-c", "core.symlinks=false"))):
        checkout = _clone(tmp, name, *config)
        wheel = _build(checkout, "wheel", tmp / f"{name}-wheel")
        sdist = _build(checkout, "sdist", tmp / f"{name}-sdist")
        found[name] = {"wheel": _wheel_names(wheel), "sdist": _sdist_names(sdist)}
        built_files.update(wheel=wheel.name, sdist=sdist.name)
    return found


def test_the_repository_holds_no_symbolic_links() -> None:
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-s"], capture_output=True, text=True, check=True)
    links = [line.split("\t", 1)[1] for line in listed.stdout.splitlines() if line.startswith("120000")]
    assert links == []


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_a_checkout_without_links_builds_the_same_files(builds: dict[str, dict[str, set[str]]], kind: str) -> None:
    assert builds["no-links"][kind] == builds["normal"][kind]


def test_the_wheel_holds_every_package_and_its_data(builds: dict[str, dict[str, set[str]]]) -> None:
    wheel = builds["no-links"]["wheel"]
    package = ROOT / "planner"
    tables = sorted(p.relative_to(ROOT).as_posix() for p in (package / "pricing" / "tables").rglob("*.yaml"))
    profiles = sorted(p.relative_to(ROOT).as_posix() for p in (package / "measure" / "profiles").glob("*.json"))
    modules = sorted(p.relative_to(ROOT).as_posix() for p in package.rglob("*.py"))
    assert tables and profiles and modules
    assert set(tables) <= wheel
    assert set(profiles) <= wheel
    assert set(modules) <= wheel
    assert "planner/py.typed" in wheel


def test_the_distribution_is_objstore_planner(builds: dict[str, dict[str, set[str]]]) -> None:
    """``planner`` on the package index is an unrelated project: the distribution is
    ``objstore-planner`` (issue 28 item 20); the import name and the command stay ``planner``."""
    import planner

    assert built_files == {
        "wheel": f"objstore_planner-{planner.__version__}-py3-none-any.whl",
        "sdist": f"objstore_planner-{planner.__version__}.tar.gz",
    }
    assert "planner/__init__.py" in builds["normal"]["wheel"]


EDITABLE = """\
import sys
from setuptools import build_meta
print(build_meta.build_editable(sys.argv[1]))
"""


def test_an_editable_install_is_a_path_type_checkers_follow(tmp_path: Path) -> None:
    """``pip install -e .`` installs what setuptools' PEP 660 hook builds: here a .pth file holding the
    checkout's path, which mypy and pyright read, not an import hook (a ``__editable__`` finder module
    they cannot run, with which a user's ``mypy --strict`` finds no ``planner``)."""
    if subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True).returncode != 0:
        pytest.skip("not a git checkout")
    checkout = _clone(tmp_path, "editable")
    out = tmp_path / "editable-wheel"
    out.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", EDITABLE, str(out)], cwd=checkout, check=True, capture_output=True, text=True
    )
    with zipfile.ZipFile(out / done.stdout.strip().splitlines()[-1]) as wheel:
        names = [name for name in wheel.namelist() if ".dist-info/" not in name]
        assert [name for name in names if not name.endswith(".pth")] == []  # no finder module
        [pth] = names
        lines = wheel.read(pth).decode("utf-8").splitlines()
    assert [Path(line).resolve() for line in lines] == [checkout.resolve()]
    # and mypy, given an environment with only that .pth in its site-packages, finds planner
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python3*/site-packages"))
    (site / Path(pth).name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    user = tmp_path / "user.py"
    user.write_text("import planner\n\nprint(planner.__version__)\n", encoding="utf-8")
    python = str(venv / "bin" / "python")
    args = ["--config-file", os.devnull, "--python-executable", python, "--cache-dir", str(tmp_path / "c"), str(user)]
    found = subprocess.run([sys.executable, "-m", "mypy", *args], capture_output=True, text=True, cwd=tmp_path)
    assert "Cannot find implementation or library stub" not in found.stdout, found.stdout
    assert found.returncode == 0, found.stdout
