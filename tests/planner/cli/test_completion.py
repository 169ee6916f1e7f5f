"""Shell completion through the real entry point (the protocol the installed bash script speaks):
provider ids, the chosen provider's classes, PROVIDER:CLASS pairs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from planner.pricing.catalog import providers, storage_classes

# the installed console script: completion is keyed to the program's name (_PLANNER_COMPLETE)
PLANNER = str(Path(sys.executable).parent / "planner")


def _complete(words: str) -> list[str]:
    env = {**os.environ, "_PLANNER_COMPLETE": "complete_bash", "COMP_WORDS": words}
    env["COMP_CWORD"] = str(len(words.split()) - (0 if words.endswith(" ") else 1))
    done = subprocess.run([PLANNER], env=env, capture_output=True, text=True, timeout=60)
    return done.stdout.split()


def test_install_completion_is_offered() -> None:
    done = subprocess.run([PLANNER, "--help"], capture_output=True, text=True, timeout=60)
    assert "--install-completion" in done.stdout


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("planner cost w.yaml -p ", providers()),
        ("planner cost w.yaml -p cl", ["cloudflare-r2"]),
        ("planner cost w.yaml -p aws-s3 --class gl", [c for c in storage_classes("aws-s3") if c.startswith("gl")]),
        ("planner pricing show ", providers()),
        (
            "planner migrate w.yaml --from cloudflare-r2:",
            [f"cloudflare-r2:{c}" for c in storage_classes("cloudflare-r2")],
        ),
        ("planner simulate w.yaml -p wa", ["wasabi"]),
    ],
)
def test_names_complete_from_the_price_tables(words: str, expected: list[str]) -> None:
    assert expected and _complete(words) == expected
