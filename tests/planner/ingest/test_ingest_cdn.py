"""`planner ingest cur`: an S3 bill's CloudFront origin fetches go to the CDN destination, not to "other"."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from planner.ingest import read_bill, reconcile, workloads
from planner.workload import load_workload

from .test_ingest import GIB, _row, _write_cur2


def _bill_with_cloudfront(tmp_path: Path) -> Path:
    path = tmp_path / "cur2.csv.gz"
    _write_cur2(
        path,
        [
            _row("TimedStorage-ByteHrs", "StandardStorage", "1024", "23.552", line_item_resource_id="media"),
            _row("Requests-Tier2", "GetObject", "1000000", "0.4", line_item_resource_id="media"),
            _row("DataTransfer-Out-Bytes", "GetObject", "100", "0", pricing_unit="GB", line_item_resource_id="media"),
            # S3 -> CloudFront, free: "Free for origin fetches from any AWS origin such as Amazon S3"
            _row("CloudFront-Out-Bytes", "GetObject", "500", "0", pricing_unit="GB", line_item_resource_id="media"),
        ],
    )
    return path


def test_cloudfront_origin_fetches_become_the_cdn_destination(tmp_path: Path) -> None:
    bill = read_bill([_bill_with_cloudfront(tmp_path)])
    assert {g.usage_type: g.kind for g in bill.groups}["CloudFront-Out-Bytes"] == "cdn"
    (written,) = workloads(bill)
    assert f'  egress: {{internet: "{100 * GIB} B", cdn: "{500 * GIB} B"}}' in written.text.splitlines()
    assert "  cdn: {provider: cloudfront, hit_ratio: 0}" in written.text.splitlines()
    (tmp_path / written.name).write_text(written.text)
    workload = load_workload(tmp_path / written.name)
    assert workload.traffic.egress == 600 * GIB
    assert workload.traffic.egress_to is not None and workload.traffic.egress_to.cdn == 500 * GIB
    assert workload.delivery is not None and workload.delivery.cdn.provider == "cloudfront"


def test_reconcile_prices_the_origin_fetches_free_by_the_route(tmp_path: Path) -> None:
    result = reconcile(read_bill([_bill_with_cloudfront(tmp_path)]))
    lines = [line for line in result.lines if "CloudFront" in line.usage_type]
    assert [(line.planner_usd, line.billed_usd) for line in lines] == [(Decimal(0), Decimal(0))]
    # before, the rows were "a usage type planner does not model" and left unpriced
    assert lines[0].cause == "500.000000 GB of origin fetches to cloudfront: free (verified-primary, routes@2021-12-01)"
