"""write_report for every example, as HTML and Markdown: the sections, the pictures, the escaping."""

from __future__ import annotations

import base64
import datetime as dt
from html.parser import HTMLParser
from pathlib import Path

import pytest

from planner.errors import InputError
from planner.present.report import write_report

from .conftest import AS_OF, PNG_SIGNATURE, ROOT, check_picture, example

SECTIONS = ["recommendation", "ranking", "line-items", "break-even", "plots", "prices", "profiles"]
HEADINGS = ["Recommendation", "Ranking", "Line items", "Break-even points", "Prices and sources", "Profile sources"]


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.images: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "section":
            self.sections.append(values.get("id") or "")
        if tag == "img":
            self.images.append(values.get("src") or "")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def test_html_report(example_id: str, tmp_path: Path) -> None:
    workload, _ = example(example_id)
    out = write_report(workload, tmp_path / "report.html", as_of=AS_OF, profiles_dir=None, simulate=False)
    assert out == tmp_path / "report.html"
    page = _parse(out)
    assert set(SECTIONS) <= set(page.sections)
    assert len(page.images) >= 2, "the recommendation and projection plots at least"
    for src in page.images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == PNG_SIGNATURE
    text = " ".join(page.text)
    assert "verified-" in text or "unverified" in text, "price statuses are shown"
    assert "<https://" in text and "vendor-with-method" in text, "profile citations show their address and grade"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"], "HTML is self-contained"


def test_markdown_report(example_id: str, tmp_path: Path) -> None:
    workload, result = example(example_id)
    out = write_report(workload, tmp_path / "report.md", as_of=AS_OF, profiles_dir=None, simulate=False)
    text = out.read_text(encoding="utf-8")
    for heading in HEADINGS:
        assert f"\n## {heading}\n" in text
    links = [line.split("](", 1)[1].split(")", 1)[0] for line in text.splitlines() if line.startswith("![")]
    assert len(links) >= 2
    for link in links:
        check_picture(tmp_path / link)
    for option in result.ranking:
        assert f"| {option.provider} | {option.storage_class} |" in text


def test_report_numbers_match_the_recommendation(tmp_path: Path) -> None:
    from planner.evidence import PRICE_MARKERS
    from planner.present.text import usd

    workload, result = example("pipeline-scratch")
    text = write_report(workload, tmp_path / "r.md", as_of=AS_OF, profiles_dir=None, simulate=False).read_text()
    chosen = next(o for o in result.ranking if o.chosen)
    # the amount carries the mark of its weakest price (Markdown escapes a "*")
    mark = PRICE_MARKERS[chosen.price_status].replace("*", "\\*")
    assert f"Use {chosen.provider} {chosen.storage_class}: {usd(chosen.monthly_cost_usd)}{mark} this month" in text
    for item in chosen.cost.line_items:
        assert usd(item.amount_usd) in text
    for point in result.break_even:
        assert point.statement in text
    for version in {o.cost.table_version for o in result.ranking}:
        assert version in text


def test_report_with_simulation_and_measured_profiles(tmp_path: Path) -> None:
    # The default path of `planner report`: the recommender simulates; a profile folder is named.
    workload, _ = example("pipeline-scratch")
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    (profiles / "cloudflare-r2.json").write_text(
        (ROOT / "planner" / "measure" / "profiles" / "cloudflare-r2.json").read_text(encoding="utf-8"), encoding="utf-8"
    )
    out = write_report(workload, tmp_path / "report.html", as_of=AS_OF, profiles_dir=profiles)
    text = " ".join(_parse(out).text)
    assert f"measured profile {profiles / 'cloudflare-r2.json'}" in text


def test_html_escapes_every_text(tmp_path: Path) -> None:
    workload, _ = example("pipeline-scratch")
    hostile = workload.model_copy(update={"description": '<script>alert("x")</script> & <b>bold</b>'})
    out = write_report(hostile, tmp_path / "report.html", as_of=AS_OF, profiles_dir=None, simulate=False)
    raw = out.read_text(encoding="utf-8")
    assert "<script>" not in raw and "<b>" not in raw
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in raw


def test_report_without_matplotlib_says_so(tmp_path: Path, no_matplotlib: None) -> None:
    workload, _ = example("web-assets")
    html_out = write_report(workload, tmp_path / "r.html", as_of=AS_OF, profiles_dir=None, simulate=False)
    page = _parse(html_out)
    assert page.images == []
    assert "matplotlib is not installed" in " ".join(page.text)
    md_out = write_report(workload, tmp_path / "r.md", as_of=AS_OF, profiles_dir=None, simulate=False)
    assert "matplotlib is not installed" in md_out.read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html", "r.md"]


@pytest.mark.parametrize("name", ["report.pdf", "report", "report.htm.txt"])
def test_bad_report_suffix(name: str, tmp_path: Path) -> None:
    workload, _ = example("web-assets")
    with pytest.raises(InputError, match=r"use \.html or \.md") as caught:
        write_report(workload, tmp_path / name, as_of=AS_OF, profiles_dir=None)
    assert str(caught.value).startswith("--out: ")


def test_report_folder_must_exist(tmp_path: Path) -> None:
    workload, _ = example("web-assets")
    with pytest.raises(InputError, match="no such folder") as caught:
        write_report(workload, tmp_path / "nowhere" / "r.md", as_of=dt.date(2026, 1, 1), profiles_dir=None)
    assert str(caught.value).startswith("--out: ")


def test_report_when_no_option_meets_the_targets(tmp_path: Path) -> None:
    workload, _ = example("web-assets")
    impossible = workload.model_copy(
        update={"performance": workload.performance.model_copy(update={"read_throughput": 1e15})}
    )
    out = write_report(impossible, tmp_path / "r.html", as_of=AS_OF, profiles_dir=None, simulate=False)
    page = _parse(out)
    text = " ".join(page.text)
    assert "No option meets every target with evidence" in text
    assert set(SECTIONS) <= set(page.sections)
    assert page.images and all(src.startswith("data:image/png;base64,") for src in page.images)


def test_report_projects_and_loads_nothing_after_the_recommendation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the projection and the profiles come from the Recommendation: the report neither projects nor loads again
    import planner.costing.bills
    import planner.decide.recommendation
    import planner.measure.reference
    from planner.decide.recommendation import recommend

    workload, _ = example("pipeline-scratch")
    calls: list[str] = []

    def recommended(*args: object, **kwargs: object) -> object:
        result = recommend(*args, **kwargs)  # type: ignore[arg-type]
        for module, name in (
            (planner.costing.bills, "project_costs"),
            (planner.costing.bills, "costs_at_egress"),
            (planner.measure.reference, "load_profile"),
            (planner.measure.reference, "load_reference"),
        ):
            monkeypatch.setattr(module, name, lambda *a, _name=name, **k: calls.append(_name))
        return result

    monkeypatch.setattr(planner.decide.recommendation, "recommend", recommended)
    text = write_report(workload, tmp_path / "r.md", as_of=AS_OF, profiles_dir=None, simulate=False).read_text()
    assert calls == []
    assert "reference profile measure/profiles/aws-s3.json" in text
    assert "No projection" not in text
