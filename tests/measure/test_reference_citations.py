"""Citations a reader can check: every figure of a shipped reference profile names where it was
published (URL or DOI), when, how far it is trusted and what it was measured under; a published
figure without an address is refused."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from planner.decide.recommendation import recommend
from planner.errors import InputError
from planner.measure.profile import citations_in
from planner.measure.reference import load_reference, parse_profile, reference_providers
from planner.measure.summary import lognormal_p99_s
from planner.workload import CloudLocation, load_workload

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NOW = dt.date(2026, 12, 5)


@pytest.mark.parametrize("provider", reference_providers())
def test_every_shipped_citation_has_an_address_a_date_a_grade_and_conditions(provider: str) -> None:
    profile = load_reference(provider)
    found = list(citations_in(profile))
    assert found, "a reference profile cites its sources"
    for where, citation in found:
        assert citation.address and citation.address.startswith(("https://", "doi:")), where
        assert citation.date and citation.grade, where
        assert citation.conditions is not None and citation.conditions.text(), where
        assert "seeds/" not in citation.ref + citation.address, f"{where} points into a file that is not shipped"


def _published_profile(citation: dict[str, object]) -> str:
    return json.dumps(
        {
            "schema_version": 2,
            "provider": "aws-s3",
            "source": {"kind": "published"},
            "cells": [
                {
                    "op": "get",
                    "object_size_bytes": 1000,
                    "concurrency": 1,
                    "status": "published",
                    "ttfb_s": {"p50": 0.02},
                    "citation": citation,
                }
            ],
        }
    )


def test_a_cited_figure_without_an_address_is_refused() -> None:
    text = _published_profile({"ref": "a blog post", "section": "results"})
    with pytest.raises(InputError) as caught:
        parse_profile(text, source="mine.json")
    assert str(caught.value) == (
        "mine.json: cells[0].citation cites 'a blog post' without an address: give the URL or DOI a reader can"
        " check it at"
    )
    with_address = _published_profile(
        {"ref": "a blog post", "section": "results", "address": "https://example.org/post", "grade": "vendor-claim"}
    )
    assert parse_profile(with_address, source="mine.json").cells[0].citation is not None


def test_a_published_p50_and_p90_give_an_extrapolated_p99() -> None:
    # Tigris's S3 1 KB reads: p50 22.415 ms, p90 42.047 ms; sigma = ln(42.047/22.415)/1.2816 = 0.4910,
    # p99 = 22.415 ms x exp(0.4910 x 2.3263) = 70.2 ms
    assert lognormal_p99_s(0.022415, 0.042047) == pytest.approx(0.07022, abs=1e-5)


def test_a_verdict_on_published_figures_names_its_grade_conditions_and_address() -> None:
    workload = load_workload(EXAMPLES / "video-streaming.yaml")
    result = recommend(workload, as_of=NOW, simulate=False)
    s3 = next(o for o in result.ranking if o.provider == "aws-s3" and o.storage_class == "standard")
    ttfb = next(v for v in s3.verdicts if v.target == "p99 TTFB")
    assert (ttfb.verdict, ttfb.evidence, ttfb.achieved) == ("unverified", "extrapolated", "70.2 ms")
    assert "the profile publishes a p50 of 22.4 ms and a p90 of 42 ms" in ttfb.reason
    assert "Tigris (vendor-with-method; 2025-07-08; client Oracle Cloud" in ttfb.reason
    assert "another cloud than the bucket" in ttfb.reason
    assert ttfb.reason.endswith("https://www.tigrisdata.com/blog/benchmark-small-objects]")
    read = next(v for v in s3.verdicts if v.target == "read throughput")
    # Durner et al. measured from EC2 in the bucket's region; the example's client is on the internet
    assert read.verdict == "unverified" and "provisional: Durner, Leis, Neumann measured it from EC2" in read.reason
    inside = workload.model_copy(
        update={
            "client": workload.client.model_copy(update={"location": CloudLocation(cloud="aws", region="us-east-1")})
        }
    )
    in_region = recommend(inside, as_of=NOW, simulate=False)
    s3_inside = next(o for o in in_region.ranking if o.provider == "aws-s3" and o.storage_class == "standard")
    assert next(v for v in s3_inside.verdicts if v.target == "read throughput").verdict == "met"
    assert "Durner, Leis, Neumann (peer-reviewed; 2023-07;" in read.reason
    assert '"per-object bandwidth about 25-95 MiB/s, median 55-60 MiB/s"' in read.reason
    assert "https://doi.org/10.14778/3611479.3611486" in read.reason
