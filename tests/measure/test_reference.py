"""The shipped reference profiles: every figure cited, none above its link, claims recorded."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from planner.cli.measure import profiles_app
from planner.errors import InputError
from planner.measure.reference import load_reference, reference_providers

_NOT_FIGURES = {
    "schema_version",
    "link_bits_per_s",
    "concurrency",
    "streams",
    "queue_depth",
    "object_size_bytes",
    "part_size_bytes",
    "duration_s",
    "samples",
    "cpu_count",
}


def _figures(
    node: Any, path: str, cited: bool, link: float | None, out: list[tuple[str, float, bool, float | None]]
) -> None:
    if isinstance(node, dict):
        cited = cited or bool(node.get("citation"))
        link = node.get("link_bits_per_s") or link
        for key, value in node.items():
            if key in ("citation", "citations"):
                continue
            if isinstance(value, int | float) and not isinstance(value, bool):
                if key not in _NOT_FIGURES:
                    out.append((f"{path}.{key}", float(value), cited, link))
            else:
                _figures(value, f"{path}.{key}", cited, link, out)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            _figures(item, f"{path}[{index}]", cited, link, out)


def test_five_providers_ship() -> None:
    assert reference_providers() == ["aws-s3", "backblaze-b2", "cloudflare-r2", "idrive-e2", "wasabi"]


@pytest.mark.parametrize("ident", ["aws-s3", "backblaze-b2", "cloudflare-r2", "idrive-e2", "wasabi"])
def test_every_figure_is_cited_and_within_its_link(ident: str) -> None:
    profile = load_reference(ident)
    assert profile.source.kind == "published"
    data = profile.model_dump(mode="json")
    found: list[tuple[str, float, bool, float | None]] = []
    for part in ("cells", "probes", "ceilings"):
        _figures(data[part], part, False, data["link_bits_per_s"], found)
    assert found, "a reference profile with no figures"
    for where, value, cited, link in found:
        assert cited, f"{ident}: {where} = {value} has no citation"
        assert value > 0, f"{ident}: {where} = {value}: a missing figure must be None, not zero"
        if link and where.endswith(("throughput_mib_per_s",)):
            assert value * 2**20 * 8 <= link, f"{ident}: {where} above its link"
        if link and where.endswith("bytes_per_s.value"):
            assert value * 8 <= link, f"{ident}: {where} above its link"
    for cell in profile.cells:
        if cell.status == "missing":
            assert cell.throughput_mib_per_s is None and cell.ops_per_s is None and cell.samples is None


def test_impossible_and_inconsistent_claims_are_rejected() -> None:
    r2 = load_reference("cloudflare-r2")
    assert any("network path" in c.reason for c in r2.source.claims if c.value == 55.0)
    assert any(c.action == "rejected" and "different moments" in c.reason for c in r2.source.claims)
    # Tigris's R2 read rows equal its write rows to the microsecond: flagged, not used
    copied = [c for c in r2.source.claims if c.value == 605.695]
    assert [c.action for c in copied] == ["flagged"] and "copy error" in copied[0].reason
    e2 = load_reference("idrive-e2")
    assert any(c.action == "rejected" and "1,000 keys" in c.reason for c in e2.source.claims)
    # a write-up with figures above its own link and no public address is named in a note, never cited
    s3 = load_reference("aws-s3")
    assert s3.source.note is not None and "above the 10 Gbps link" in s3.source.note
    assert not any(c.value in {10.2, 10.5, 10.4} for c in s3.source.claims)


def test_summaries_carry_the_published_limits() -> None:
    r2 = load_reference("cloudflare-r2").summary()
    assert (r2.hot_object_limit, r2.hot_object_behaviour, r2.hot_object_error) == (128, "reject", "503 SlowDown")
    assert r2.ttfb_p50_s == 0.040 and r2.ttfb_p99_s is None and r2.per_key_write_per_s is None
    assert r2.write_ceiling_bytes_per_s == 36e9 / 8 and r2.ops_per_s["list"] is None
    assert r2.citations["hot_object"][0].address == "https://carolinacloud.io"
    s3 = load_reference("aws-s3").summary()
    # Tigris's 1 KB reads (p50 22.415 ms, p90 42.047 ms) and Durner et al.'s 100 Gbit/s with 256 requests
    assert (s3.ttfb_p50_s, s3.ttfb_p90_s, s3.ttfb_p99_s) == (0.022415, 0.042047, None)
    assert s3.read_ceiling_bytes_per_s == 100e9 / 8 and not s3.is_exact("read_ceiling_bytes_per_s")
    assert (16 * 2**20, 55.0 * 2**20) in s3.get_stream_bytes_per_s
    assert s3.range_get_speedup is None  # the 13x download benchmark has no public address
    assert load_reference("wasabi").summary().hot_object_behaviour == "degrade"
    e2 = load_reference("idrive-e2").summary()
    assert e2.ops_per_s["head"] == 1017.80 and e2.ops_per_s["list"] is None


def test_unknown_provider_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="no reference profile for 'nope' \\(known: aws-s3"):
        load_reference("nope")


@pytest.mark.parametrize("fmt", ["table", "json", "markdown"])
def test_profiles_cli(fmt: str) -> None:
    runner = CliRunner()
    listed = runner.invoke(profiles_app, ["list", "--format", fmt])
    assert listed.exit_code == 0 and "cloudflare-r2" in listed.output
    shown = runner.invoke(profiles_app, ["show", "cloudflare-r2", "--format", fmt])
    assert shown.exit_code == 0 and "503 SlowDown" in shown.output and "128" in shown.output


def test_shipped_reference_profiles_are_what_the_builder_writes() -> None:
    """The JSON files are generated from planner/measure/_build_reference.py: an edit to one without
    the other is drift."""
    from importlib import resources

    from planner.measure import _build_reference

    built = _build_reference.render()
    folder = resources.files("planner.measure").joinpath("profiles")
    shipped = {
        entry.name: entry.read_text(encoding="utf-8") for entry in folder.iterdir() if entry.name.endswith(".json")
    }
    assert sorted(shipped) == sorted(built)
    for name, text in built.items():
        assert shipped[name] == text, (
            f"planner/measure/profiles/{name} is stale: regenerate with `python -m planner.measure._build_reference`"
        )
