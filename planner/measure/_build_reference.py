"""Build the shipped reference profiles (``measure/profiles/*.json``) from published measurements.

Run ``python -m planner.measure._build_reference`` after editing; the JSON files are the artefact. Each
figure is copied from a publication with its address (URL or DOI), date, evidence grade and the
conditions it was measured under (``Publication`` in ``planner.measure._reference_sources``, narrowed
per figure); each provider's figures are in ``planner.measure._reference_figures``. A cell no
publication covers is written with ``status="missing"`` and no figures. Claims that cannot be true, or
that the sources contradict, are listed under ``source.claims`` with the reason and are not used. A
source with no public address is not cited at all (``NOT_SHIPPED_NOTE`` names the ones left out).
"""

from __future__ import annotations

from pathlib import Path

from planner.measure._reference_figures import PUBLISHED


def render() -> dict[str, str]:
    """Every reference profile as the text of its shipped file, by file name: the same on every run."""
    profiles = [build() for build in PUBLISHED]
    return {f"{p.provider}.json": p.model_dump_json(indent=2, exclude_none=False) + "\n" for p in profiles}


def main() -> None:
    folder = Path(__file__).parent / "profiles"
    folder.mkdir(exist_ok=True)
    for name, text in render().items():
        (folder / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
