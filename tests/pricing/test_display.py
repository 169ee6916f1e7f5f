"""The provider facts planner shows beside the prices (FOCUS names, plot colour, a migration service) come
from the price tables' ``display`` block, and the loader checks them."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.costing.focus import focus_names
from planner.decide.migration.models import destination_services
from planner.errors import InputError
from planner.present.plots.common import PALETTE, table_colour
from planner.pricing import catalog

TIGRIS = Path(catalog.__file__).parent / "tables" / "tigris" / "2026-06-20.yaml"


def test_the_default_five_are_named_and_drawn_as_their_tables_say() -> None:
    aws = catalog.table_for("aws-s3")
    assert focus_names("aws-s3", aws) == ("AWS", "Amazon Simple Storage Service")
    assert focus_names("cloudflare-r2", catalog.table_for("cloudflare-r2")) == ("Cloudflare", "R2")
    assert [table_colour(p) for p in ("aws-s3", "cloudflare-r2", "backblaze-b2", "wasabi", "idrive-e2")] == list(
        PALETTE
    )
    assert destination_services() == {"cloudflare-r2": "Super Slurper (bulk) and Sippy (copy-on-read)"}


def test_a_region_and_an_old_version_share_the_providers_names() -> None:
    old = catalog.versions("aws-s3")[0]
    assert old.display == catalog.versions("aws-s3")[-1].display
    regional = catalog.table_for("aws-s3", region="eu-west-1")
    assert focus_names("aws-s3", regional) == ("AWS", "Amazon Simple Storage Service")


def test_a_provider_without_a_display_block_is_named_by_its_table() -> None:
    table = catalog.table_for("tigris")
    assert table.display is None and table_colour("tigris") is None
    assert focus_names("tigris", table) == (table.provider_name, table.provider_name)


def _extra_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, display: str) -> None:
    folder = tmp_path / "tables" / "tigris-copy"
    folder.mkdir(parents=True)
    text = TIGRIS.read_text(encoding="utf-8").replace("provider: tigris\n", f"provider: tigris-copy\n{display}")
    (folder / TIGRIS.name).write_text(text, encoding="utf-8")
    monkeypatch.setenv(catalog.TABLES_ENV, str(tmp_path / "tables"))


def test_a_colour_already_a_providers_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _extra_table(tmp_path, monkeypatch, 'display:\n  colour: "#E69F00"\n')
    with pytest.raises(InputError, match="already aws-s3's"):
        catalog.providers()


def test_a_colour_not_written_as_hex_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _extra_table(tmp_path, monkeypatch, "display:\n  colour: orange\n")
    with pytest.raises(InputError, match=r"display\.colour"):
        catalog.providers()


def test_a_new_providers_colour_is_read_from_its_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _extra_table(tmp_path, monkeypatch, 'display:\n  colour: "#56B4E9"\n  focus: {provider: Tigris, service: Tigris}\n')
    assert table_colour("tigris-copy") == "#56B4E9"
    assert focus_names("tigris-copy", catalog.table_for("tigris-copy")) == ("Tigris", "Tigris")
