"""The sentence on throttled attempts says what the provider's table bills, never "billed" by default."""

from __future__ import annotations

import datetime as dt

from planner.decide.recommendation.notes import throttle_billing
from planner.pricing.catalog import table_for

DAY = dt.date(2026, 12, 6)


def test_aws_bills_no_503() -> None:
    # aws-s3@2024-08-19: billed [4xx], not_billed [5xx, ...] ("... 5xx errors are not billed")
    rule = table_for("aws-s3", DAY).billing.error_responses
    assert throttle_billing("503 SlowDown", rule) == "the price table bills no throttled attempt"


def test_r2_bills_throttled_attempts_it_does_not_exempt() -> None:
    # cloudflare-r2@2026-10-08 names 401 and 403 as not charged, 400 and 412 as billed, and says nothing of 503
    rule = table_for("cloudflare-r2", DAY).billing.error_responses
    assert rule is not None and "503" not in rule.not_billed and "5xx" not in rule.not_billed
    assert throttle_billing("503 SlowDown", rule) == "the price table bills every attempt, throttled ones included"


def test_a_mixed_rule_names_what_it_bills() -> None:
    aws = table_for("aws-s3", DAY).billing.error_responses
    assert aws is not None
    rule = aws.model_copy(update={"billed": ["429"], "not_billed": ["5xx"]})
    assert (
        throttle_billing("429 TooManyRequests, 503 SlowDown", rule)
        == "the price table bills the 429 answers among them"
    )


def test_a_table_without_a_rule_says_so() -> None:
    said = throttle_billing("503 SlowDown", None)
    assert said == "the price table does not say which error answers are billed, so they are billed as successes are"
