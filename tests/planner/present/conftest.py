"""Shared inputs for the report tests: the examples, their recommendations, and file checks."""

from __future__ import annotations

import datetime as dt
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from planner.decide.recommendation import Recommendation, recommend
from planner.workload import Workload, load_workload

ROOT = Path(__file__).absolute().parents[3]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
EXAMPLE_IDS = [path.stem for path in EXAMPLES]
REFERENCE_IDS = ["aws-s3", "backblaze-b2", "cloudflare-r2", "idrive-e2", "wasabi"]
# A fixed day: B2's 2026-05-01 and Wasabi's 2026-07-01 price changes fall inside a 12-month horizon.
AS_OF = dt.date(2026, 1, 1)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from the IHDR chunk; fails unless the file starts as a PNG must."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, f"{path.name} is not a PNG"
    assert data[12:16] == b"IHDR", f"{path.name} has no IHDR chunk first"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def check_picture(path: Path) -> None:
    """A PNG of a readable size, or an SVG that parses and has a size."""
    assert path.is_file() and path.stat().st_size > 2000, f"{path} is missing or nearly empty"
    if path.suffix.lower() == ".png":
        width, height = png_size(path)
        assert width >= 600 and height >= 300, f"{path.name} is only {width}x{height}"
        return
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    assert root.get("width") and root.get("height")
    assert len(list(root.iter())) > 50, f"{path.name} draws almost nothing"


_cache: dict[str, tuple[Workload, Recommendation]] = {}


def example(stem: str) -> tuple[Workload, Recommendation]:
    """An example workload and its recommendation (profiles only, no simulation), computed once."""
    if stem not in _cache:
        workload = load_workload(ROOT / "examples" / f"{stem}.yaml")
        _cache[stem] = (workload, recommend(workload, as_of=AS_OF, simulate=False))
    return _cache[stem]


@pytest.fixture(params=EXAMPLE_IDS)
def example_id(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def no_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import matplotlib`` fail as it does where the plot extra is not installed."""
    import sys

    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
