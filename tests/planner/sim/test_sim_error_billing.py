"""Error answers are billed as the price table's rule says (``billing.error_responses``): the engine and
``ObjectStore`` count every attempt the provider sees, and bill all but the answers the rule does not.

AWS, "Billing for Amazon S3 error responses" (docs.aws.amazon.com/AmazonS3/latest/userguide/ErrorCodeBilling.html,
read 2026-12-05): "Bucket owners aren't billed for HTTP 5XX server error responses, such as HTTP 503 Slow Down
errors." The shipped tables do not state the rule yet, so the tests give it in an override file.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Generator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import simpy
import yaml

from planner.pricing.models import ErrorResponses
from planner.pricing.primitives import Quote, Status
from planner.sim import (
    BandwidthCurve,
    ClientSpec,
    HotObjectLimit,
    HotSet,
    KeyPopularity,
    LatencyModel,
    ObjectStore,
    OpenLoop,
    OperationMix,
    ProviderModel,
    RetryPolicy,
    SimSpec,
    SizeDistribution,
    simulate_spec,
)

AWS_WORDS = "Bucket owners aren't billed for HTTP 5XX server error responses, such as HTTP 503 Slow Down errors."
AWS_PAGE = "https://docs.aws.amazon.com/AmazonS3/latest/userguide/ErrorCodeBilling.html"
AWS_RULE = {
    "not_billed": ["5xx", "403-outside-account"],
    "status": "verified-primary",
    "quote": {"text": AWS_WORDS, "url": AWS_PAGE, "read": "2026-12-05"},
}
AS_OF = dt.date(2026, 12, 5)


def aws_rule() -> ErrorResponses:
    quote = Quote(text=AWS_WORDS, url=AWS_PAGE, read=AS_OF)
    return ErrorResponses(not_billed=["5xx", "403-outside-account"], status=Status.verified_primary, quote=quote)


def override(tmp_path: Path, rule: dict[str, Any] | None) -> Path:
    """aws-s3's table in force with ``rule`` as its billing.error_responses (None: a table that states none)."""
    raw: dict[str, Any] = {"provider": "aws-s3", "label": "error-rule", "billing": {"error_responses": rule}}
    path = tmp_path / "aws-s3-errors.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def thousand_gets_a_hundred_throttled() -> ObjectStore:
    """1,000 GETs at t = 0 on a store that refuses a second concurrent read of one key with 503 Slow Down:
    100 keys read twice (the second read of each refused, then retried once after the first has ended) and
    800 keys read once."""
    model = ProviderModel(
        provider_id="aws-s3",
        ttfb_get=LatencyModel.constant(0.05),
        stream_read=BandwidthCurve.flat(80e6),
        hot_object=HotObjectLimit(max_concurrent_reads=1, behaviour="reject", error="503 Slow Down"),
    )
    client = ClientSpec(connections=2000, retry=RetryPolicy(max_attempts=2, base_s=1.0))
    store = ObjectStore(simpy.Environment(), model, client=client, seed=7)
    keys = [f"hot/{i}" for i in range(100) for _ in range(2)] + [f"cold/{i}" for i in range(800)]
    records = []

    def reader(env: simpy.Environment) -> Generator[Any, Any, None]:
        events = [store.get(key, 1000) for key in keys]
        for event in events:
            records.append((yield event))

    store.env.process(reader(store.env))
    store.env.run()
    assert len(records) == 1000 and all(r.ok for r in records)
    return store


def test_a_thousand_s3_gets_with_a_hundred_throttled_and_retried_bill_a_thousand(tmp_path: Path) -> None:
    store = thousand_gets_a_hundred_throttled()
    # the provider saw 1,100 GETs: 1,000 answered 200 OK and 100 answered 503 Slow Down
    assert store.recorder.billed_requests == {"get": 1100}
    assert store.recorder.error_attempts == {(0, "503 Slow Down"): 100}
    cost = store.bill(prices=override(tmp_path, AWS_RULE), as_of=AS_OF, scale=1000, stored_bytes=0, egress=False)
    gets = [item for item in cost.line_items if item.category == "requests"]
    # S3 Standard "GET, SELECT and all other requests" $0.0004 per 1,000 (aws-s3@2025-12-01, tier-2);
    # the 503s are not billed: 1,000 GETs x 1,000 (scale) = 1,000,000 = 1,000 x $0.0004 = $0.40
    assert [(item.quantity, item.amount_usd) for item in gets] == [(Decimal(1000), Decimal("0.40"))]
    assert any("100 of them not billed" in line and AWS_WORDS in line for line in cost.assumptions)


def test_a_table_without_the_rule_bills_every_attempt_and_says_so(tmp_path: Path) -> None:
    store = thousand_gets_a_hundred_throttled()
    cost = store.bill(prices=override(tmp_path, None), as_of=AS_OF, scale=1000, stored_bytes=0, egress=False)
    gets = [item for item in cost.line_items if item.category == "requests"]
    # 1,100 attempts x 1,000 = 1,100,000 GETs = 1,100 x $0.0004 = $0.44
    assert [(item.quantity, item.amount_usd) for item in gets] == [(Decimal(1100), Decimal("0.44"))]
    assert any("states no rule" in line and "0 of them not billed" in line for line in cost.assumptions)


def test_the_stores_usage_follows_its_models_rule() -> None:
    store = thousand_gets_a_hundred_throttled()
    assert store.usage().requests == {"get": 1100}
    assert store.usage(error_responses=aws_rule()).requests == {"get": 1000}
    ruled = ObjectStore(simpy.Environment(), store.model.model_copy(update={"error_responses": aws_rule()}))
    ruled.recorder.billed[0], ruled.recorder.error_attempts = 1100, {(0, "503 Slow Down"): 100}
    assert ruled.usage().requests == {"get": 1000}


def _hot_reads(rule: ErrorResponses | None) -> tuple[SimSpec, ProviderModel]:
    """256 tasks reading one 64 KiB object at once past a limit of 128 concurrent reads, retried up to 4 times."""
    model = ProviderModel(
        provider_id="aws-s3",
        ttfb_get=LatencyModel(p50_s=0.042, p99_s=0.060, floor_s=0.040),
        stream_read=BandwidthCurve.flat(2e9),
        hot_object=HotObjectLimit(max_concurrent_reads=128, behaviour="reject", error="503 SlowDown"),
        error_responses=rule,
    )
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=1.0),
        mix=OperationMix(get=1, put=0),
        sizes=SizeDistribution.fixed(64 * 2**10),
        keys=KeyPopularity(keys=100, hot=HotSet(objects=1, peak_concurrency=256, replicas=1)),
        client=ClientSpec(link_bits_per_s=100e9, connections=4096, retry=RetryPolicy(max_attempts=4)),
    )
    return spec, model


@pytest.mark.parametrize("rule", [None, aws_rule()], ids=["not-stated", "aws"])
def test_the_engine_bills_the_attempts_the_rule_bills(rule: ErrorResponses | None) -> None:
    result = simulate_spec(*_hot_reads(rule), 2.0, seed=1)
    get = result.operations["GET"]
    refused = get.errors["503 SlowDown"].mean
    assert refused >= 128 and get.retries.mean > 0
    attempts = get.requests.mean + get.retries.mean
    if rule is None:  # every attempt billed, and the result says the rule is not stated
        assert result.billed_requests["get"].mean == attempts
        assert "states no rule" in result.error_billing
    else:  # the 503s are not billed: the attempts answered 200 OK are
        assert result.billed_requests["get"].mean == attempts - refused
        assert AWS_WORDS in result.error_billing and "not billed: 5xx" in result.error_billing
