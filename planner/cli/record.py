"""``planner record``: run any S3 client against a recording proxy and price its requests at every provider."""

# No ``from __future__ import annotations`` here: see planner.cli.app (start-up time).

from pathlib import Path
from typing import Annotated

import typer

from planner.cli.common import ForceOption, OutputFormat
from planner.cli.settings import echo, settings
from planner.errors import InputError

app = typer.Typer()


@app.command(
    "record",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": False},
)
def record_command(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option("--out", help="folder for the recording (requests.csv, trace.csv, ...)")],
    command: Annotated[list[str], typer.Argument(help="the command to record, after --", show_default=False)],
    endpoint: Annotated[
        str | None, typer.Option("--endpoint", help="an http:// S3 endpoint to record in front of")
    ] = None,
    local: Annotated[
        bool, typer.Option("--local", help="record against a SeaweedFS server started for the run")
    ] = False,
    bucket: Annotated[
        str, typer.Option("--bucket", help="the bucket a --local server makes ({bucket})")
    ] = "planner-record",
    price: Annotated[bool, typer.Option("--price", help="bill the month's requests at every provider")] = False,
    providers: Annotated[
        str | None, typer.Option("--providers", help="comma-separated provider ids to price (default: the usual five)")
    ] = None,
    per: Annotated[str, typer.Option("--per", help="the run happens each day, week or month")] = "month",
    times: Annotated[int, typer.Option("--times", min=1, max=1_000_000, help="runs each --per")] = 1,
    hash_keys: Annotated[bool, typer.Option("--hash-keys", help="record keys as hashes")] = False,
    max_time: Annotated[
        float | None, typer.Option("--max-time", help="stop the command after this many seconds (partial)")
    ] = None,
    output: Annotated[OutputFormat, typer.Option("--format", "-f", help="table, markdown, csv or json")] = (
        OutputFormat.table
    ),
    force: ForceOption = False,
) -> None:
    """Record the S3 requests of COMMAND; with --price, what a month of them costs at each provider.

    The command gets AWS_ENDPOINT_URL set to the proxy; {endpoint} and {bucket} in its arguments are
    replaced. Example: planner record --local --out run --price -- aws s3 sync ./data s3://{bucket}/
    """
    from planner.present import text as render
    from planner.present.text.record import priced_mix, recording_summary
    from planner.recording import price_mix, record

    if per not in ("day", "week", "month"):
        raise InputError(f"{per!r} is not day, week or month", field="--per")
    if not price and providers is not None:  # checked before the command runs: it would be ignored
        raise InputError("chooses where --price bills the requests: give --price too", source="--providers")
    if output == OutputFormat.focus:
        raise InputError("focus writes bills; record prices a mix of requests: use table, markdown, csv or json",
                         source="--format")  # fmt: skip
    if not price and output not in (OutputFormat.table, OutputFormat.json):
        raise InputError(f"{output.value} shapes the priced table: give --price too", source="--format")
    recording = record(
        command, out, endpoint=endpoint, local=local, bucket=bucket, hash_keys=hash_keys,
        max_time_s=max_time, per=per, times=times, force=force,  # type: ignore[arg-type]
    )  # fmt: skip
    if recording.partial:
        n = recording.requests
        kept = f"its {n:,} request{'s' if n != 1 else ''} {'are' if n != 1 else 'is'} kept in {out} (partial)"
        raise InputError(f"{recording.partial_reason}; {kept}", field="COMMAND")
    chosen = [p.strip() for p in providers.split(",") if p.strip()] if providers else None
    mix = price_mix(recording, chosen) if price else None
    if output == OutputFormat.json:
        priced = mix.model_dump(mode="json") if mix else None
        payload = {"recording": recording.model_dump(mode="json"), "priced": priced}
        typer.echo(render.as_json(payload))
        return
    typer.echo(recording_summary(recording))
    if mix is not None:
        echo(ctx, priced_mix(mix, output.value, width=settings(ctx).width), output.value)
    typer.echo(f"wrote {out / 'requests.csv'}, {out / 'trace.csv'} and {out / 'recording.json'}")
