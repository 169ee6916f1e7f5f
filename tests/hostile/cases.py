"""The hostile corpus, as tables: every input slot of every command given every spoiled input, every
numeric or textual option given values no reader should take, every file-writing option pointed at
a file that exists, and the command-line edge cases.

Every case passes: a known failure would be marked ``xfail(strict=True)`` in ``XFAIL`` below with
its cause, so that its fix fails the corpus until the mark is removed; none is marked today.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from . import inputs as I
from .harness import AS_OF, Case, Maker

WORKLOAD_ARG = "{examples}/web-assets.yaml"


@dataclass(frozen=True)
class Slot:
    """One input a command reads: the command line with ``@`` where the input's path goes, the
    input's file name, a valid content (spoiled by the corpus) and what its error must name."""

    id: str
    args: tuple[str, ...]
    name: str
    valid: str
    names: str | tuple[str, ...] | None = None  # default: the input's path
    codes: tuple[int, ...] = (0, 2)
    extra: tuple[tuple[str, Maker], ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    risky: bool = False  # also given /dev/zero, in a capped subprocess (one slot per reader)
    succeeds_slowly: bool = False  # leave out the spoilers it reads (BOM, CRLF): each would run the whole command

    def case(self, how: str, maker: Maker, **changes: object) -> Case:
        path = "{tmp}/" + self.name
        fields: dict[str, object] = {
            "id": f"{self.id}-{how}",
            "args": tuple(a.replace("@", path) for a in self.args),
            "files": {self.name: maker, **dict(self.extra)},
            "codes": self.codes,
            "names": self.names if self.names is not None else path,
            "env": dict(self.env),
        }
        return Case(**{**fields, **changes})  # type: ignore[arg-type]


def _recommend_codes() -> tuple[int, ...]:
    return (0, 2)  # recommend: 1 only with --strict ("no option meets every target with evidence")


SLOTS: tuple[Slot, ...] = (
    Slot("cost-workload", ("cost", "@", "-p", "aws-s3", "--as-of", AS_OF), "w.yaml", I.WORKLOAD, risky=True),
    Slot(
        "recommend-workload",
        ("recommend", "@", "--no-simulate", "--as-of", AS_OF),
        "w.yaml",
        I.WORKLOAD,
        codes=_recommend_codes(),
    ),
    Slot("simulate-workload", ("simulate", "@", "-p", "aws-s3", "--duration", "1s"), "w.yaml", I.WORKLOAD),
    Slot("trace-workload", ("trace", "@", "--out", "{tmp}/t.csv", "--duration", "1s"), "w.yaml", I.WORKLOAD),
    Slot("migrate-workload", ("migrate", "@", "--from", "aws-s3", "--to", "wasabi"), "w.yaml", I.WORKLOAD),
    Slot(
        "sweep-workload", ("sweep", "@", "--vary", "traffic.egress=0..10TB:3", "--as-of", AS_OF), "w.yaml", I.WORKLOAD
    ),
    Slot("diff-workload", ("diff", WORKLOAD_ARG, "@", "-p", "aws-s3", "--as-of", AS_OF), "w.yaml", I.WORKLOAD),
    Slot(
        "report-workload",
        ("report", "@", "--out", "{tmp}/r.md", "--no-simulate", "--as-of", AS_OF),
        "w.yaml",
        I.WORKLOAD,
        succeeds_slowly=True,
    ),
    Slot(
        "cost-prices",
        ("cost", WORKLOAD_ARG, "-p", "aws-s3", "--prices", "@", "--as-of", AS_OF),
        "p.yaml",
        I.OVERRIDE,
        risky=True,
    ),
    Slot("show-prices", ("pricing", "show", "aws-s3", "--prices", "@", "--as-of", AS_OF), "p.yaml", I.OVERRIDE),
    Slot("simulate-trace", ("simulate", WORKLOAD_ARG, "-p", "aws-s3", "--trace", "@"), "t.csv", I.TRACE, risky=True),
    Slot("simulate-profile", ("simulate", WORKLOAD_ARG, "--profile", "@", "--duration", "1s"), "p.json", I.PROFILE),
    Slot("profiles-show", ("profiles", "show", "@"), "p.json", I.PROFILE, risky=True),
    Slot(
        "merge-profile",
        ("measure", "merge", "@", "{tmp}/p2.json", "--out", "{tmp}/merged.json"),
        "p.json",
        I.PROFILE,
        names=("{tmp}/p.json", "cannot be merged"),  # reference profiles: valid, but not to merge
        extra=(("p2.json", I.text(I.PROFILE)),),
    ),
    Slot(
        "recommend-profiles",
        ("recommend", WORKLOAD_ARG, "--no-simulate", "--profiles", "{tmp}/prof", "--as-of", AS_OF),
        "prof/aws-s3.json",
        I.PROFILE,
        codes=_recommend_codes(),
    ),
    Slot(
        "import-offer",
        ("pricing", "import", "aws", "@", "--transfer", "{tmp}/dt.json", "--out", "{tmp}/tables"),
        "offer.json",
        I.OFFER,
        extra=(("dt.json", I.text(I.TRANSFER)),),
        risky=True,
    ),
    Slot(
        "import-transfer",
        ("pricing", "import", "aws", "{tmp}/offer.json", "--transfer", "@", "--out", "{tmp}/tables"),
        "dt.json",
        I.TRANSFER,
        extra=(("offer.json", I.text(I.OFFER)),),
    ),
    Slot("cur-bill", ("ingest", "cur", "@", "--out", "{tmp}/out"), "bill.csv", I.CUR, risky=True),
    Slot("focus-bill", ("ingest", "cur", "@", "--out", "{tmp}/out"), "focus.csv", I.FOCUS),
    Slot(
        "cur-offer",
        ("ingest", "cur", "{tmp}/focus.csv", "--offer", "@", "--out", "{tmp}/out"),
        "offer.json",
        I.OFFER,
        extra=(("focus.csv", I.text(I.FOCUS)),),
    ),
    Slot("access-log", ("ingest", "access-log", "@", "--out", "{tmp}/out"), "log.txt", I.ACCESS_LOG, risky=True),
    Slot(
        "inventory-manifest",
        ("ingest", "inventory", "@", "--out", "{tmp}/out"),
        "inv/2026/manifest.json",
        I.manifest(),
        extra=(("inv/data/part-0.csv.gz", I.data(I.inventory_rows(I.INVENTORY_CSV))),),
        risky=True,
    ),
    Slot(
        "price-tables",
        ("pricing", "list"),
        "pt/acme/2026-01-01.yaml",
        I.TABLE,
        names="acme",
        env=(("PLANNER_PRICE_TABLES", "{tmp}/pt"),),
        risky=True,
    ),
    Slot(
        "price-tables-cost",
        ("cost", WORKLOAD_ARG, "-p", "acme", "--as-of", AS_OF),
        "pt/acme/2026-01-01.yaml",
        I.TABLE,
        names="acme",
        env=(("PLANNER_PRICE_TABLES", "{tmp}/pt"),),
    ),
)


def _slot_cases() -> Iterable[Case]:
    for slot in SLOTS:
        for how, spoil in I.SPOILED_BYTES.items():
            if how.startswith("deep-") and not slot.risky:
                continue  # about 0.6 s each: once per reader (the risky slots), not once per command
            if not (slot.succeeds_slowly and how in ("bom", "crlf")):
                yield slot.case(how, spoil(slot.valid))
        for how, maker in I.SPECIAL.items():
            yield slot.case(how, maker, timeout_s=8.0)  # a FIFO that is opened blocks: 8 s, not 30
        for how, maker in I.RISKY.items() if slot.risky else ():
            yield slot.case(how, maker, subprocess=True, timeout_s=15.0)
        yield slot.case("missing", lambda path: None)


# -- option values -----------------------------------------------------------------------------------

NOT_A_NUMBER = ("nan", "inf", "-inf", "1e309", I.DIGITS_5000, "", " ", "1\n2", "0x10", "1_000", "−1")
NOT_A_SIZE = ("-1 TB", "nan TB", "inf TB", "1e309 TB", I.DIGITS_5000 + " TB", "", "10 parsecs", "1e-400 TB", "1 TB\n")
NOT_A_DURATION = ("-1s", "nan s", "inf s", "1e309 s", I.DIGITS_5000 + "s", "", "0s", "1 fortnight", "1e-400s")
NOT_A_RATE = ("-1 Gbps", "0 Gbps", "nan Gbps", "inf Gbps", "1e309 Gbps", I.DIGITS_5000 + " Gbps", "10 parsecs", "")
NOT_A_DATE = ("9999-12-31", "0001-01-01", "2026-02-30", "", "26-12-01", "2026-12-01T00:00", "nan", I.DIGITS_5000)
NOT_A_COUNT = ("-1", "0", "nan", "1e309", I.DIGITS_5000, "", "1.5", "１２x")


@dataclass(frozen=True)
class OptionSlot:
    id: str
    args: tuple[str, ...]  # ``@`` is the value
    option: str
    values: tuple[str, ...]
    codes: tuple[int, ...] = (2,)
    valid: tuple[str, ...] = ()  # values among ``values`` that may be read (the answer is then not checked)
    also: tuple[str, ...] = ()  # words an error may name instead of the option ("region", "provider")


OPTION_SLOTS: tuple[OptionSlot, ...] = (
    OptionSlot("cost-months", ("cost", WORKLOAD_ARG, "-p", "aws-s3", "--months", "@"), "--months", NOT_A_COUNT),
    OptionSlot(
        "cost-as-of",
        ("cost", WORKLOAD_ARG, "-p", "aws-s3", "--as-of", "@"),
        "--as-of",
        NOT_A_DATE,
        valid=("9999-12-31",),
        also=("in force on",),
    ),
    OptionSlot(
        "cost-region",
        ("cost", WORKLOAD_ARG, "-p", "aws-s3", "--region", "@"),
        "--region",
        ("", "../../etc", "us-east-1\n", "x" * 5000, "US-EAST-1", "\x1b[31m"),
        also=("for region",),
    ),
    OptionSlot(
        "cost-class",
        ("cost", WORKLOAD_ARG, "-p", "aws-s3", "--class", "@"),
        "--class",
        ("", "../standard", "standard\n", "x" * 5000),
        also=("no storage class",),
    ),
    OptionSlot(
        "cost-provider",
        ("cost", WORKLOAD_ARG, "-p", "@"),
        "--provider",
        ("", "../aws-s3", "aws-s3\n", "AWS-S3", "x" * 5000, "/etc/passwd"),
        also=("unknown provider",),
    ),
    OptionSlot(
        "simulate-duration", ("simulate", WORKLOAD_ARG, "-p", "aws-s3", "--duration", "@"), "--duration", NOT_A_DURATION
    ),
    OptionSlot(
        "simulate-seed",
        ("simulate", WORKLOAD_ARG, "-p", "aws-s3", "--duration", "1s", "--seed", "@"),
        "--seed",
        ("-1", "nan", "1e309", I.DIGITS_5000, "", str(2**64)),
    ),
    OptionSlot(
        "simulate-replications",
        ("simulate", WORKLOAD_ARG, "-p", "aws-s3", "--duration", "1s", "--replications", "@"),
        "--replications",
        (*NOT_A_COUNT, "101"),
    ),
    OptionSlot(
        "trace-duration",
        ("trace", WORKLOAD_ARG, "--out", "{tmp}/t.csv", "--duration", "@"),
        "--duration",
        NOT_A_DURATION,
    ),
    OptionSlot(
        "trace-window",
        ("trace", WORKLOAD_ARG, "--out", "{tmp}/t.csv", "--window", "@"),
        "--window",
        ("", "busiest", "PEAK", "peak\n"),
    ),
    OptionSlot(
        "sweep-vary",
        ("sweep", WORKLOAD_ARG, "--vary", "@", "--as-of", AS_OF),
        "--vary",
        (
            "",
            "traffic.egress",
            "traffic.egress=0..10TB",
            "traffic.egress=10TB..0:3",
            "traffic.egress=0..10TB:" + I.DIGITS_5000,
            "traffic.egress=0..10TB:0",
            "traffic.egress=0..10TB:-3",
            "traffic.egress=0..1e309TB:3",
            "traffic.egress=nan..10TB:3",
            "nothing.here=0..1:3",
            "traffic.egress=0..10TB:100000",
            "storage.stored=-1TB..10TB:3",
            "traffic.egress=0..90EB:3",
            "traffic.egress=0..200EB:3",
            "../traffic=0..1:2",
            "traffic.egress=0..10TB:3:4",
        ),
        # 90 EB is within the 100 EB a size may be: priced as `cost` prices it (the 90 EB of item 9
        # was a --samples range that grows past 100 EB, refused on loading); 200 EB is refused
        valid=("traffic.egress=0..90EB:3",),
    ),
    OptionSlot(
        "recommend-samples",
        ("recommend", "{tmp}/u.yaml", "--samples", "@", "--as-of", AS_OF),
        "--samples",
        (*NOT_A_COUNT, "9", "100001"),
    ),
    OptionSlot(
        "recommend-sim-window",
        ("recommend", WORKLOAD_ARG, "--sim-window", "@", "--as-of", AS_OF),
        "--sim-window",
        NOT_A_DURATION,
    ),
    OptionSlot(
        "migrate-link",
        ("migrate", WORKLOAD_ARG, "--from", "aws-s3", "--to", "wasabi", "--link", "@"),
        "--link",
        NOT_A_RATE,
    ),
    OptionSlot(
        "migrate-concurrency",
        ("migrate", WORKLOAD_ARG, "--from", "aws-s3", "--to", "wasabi", "--concurrency", "@"),
        "--concurrency",
        (*NOT_A_COUNT, "100001", "999999999999"),
    ),
    OptionSlot(
        "migrate-start",
        ("migrate", WORKLOAD_ARG, "--from", "aws-s3", "--to", "wasabi", "--start", "@"),
        "--start",
        NOT_A_DATE,
        also=("in force on",),
    ),
    OptionSlot(
        "migrate-months",
        ("migrate", WORKLOAD_ARG, "--from", "aws-s3", "--to", "wasabi", "--months", "@"),
        "--months",
        NOT_A_COUNT,
    ),
    OptionSlot(
        "migrate-data-age",
        ("migrate", WORKLOAD_ARG, "--from", "aws-s3", "--to", "wasabi", "--data-age", "@"),
        "--data-age",
        NOT_A_DURATION[:-3],
    ),
    OptionSlot(
        "migrate-verify",
        ("migrate", WORKLOAD_ARG, "--from", "aws-s3", "--to", "wasabi", "--verify", "@"),
        "--verify",
        (*NOT_A_DURATION[:-3], "3651d", "100y"),
    ),
    OptionSlot(
        "migrate-never-read",
        ("migrate", WORKLOAD_ARG, "--from", "aws-s3", "--to", "wasabi", "--never-read", "@"),
        "--never-read",
        (*NOT_A_NUMBER, "-0.1", "1.5"),
    ),
    OptionSlot(
        "migrate-from",
        ("migrate", WORKLOAD_ARG, "--from", "@", "--to", "wasabi"),
        "--from",
        ("", "aws-s3:", ":standard", "aws-s3:standard:x", "nowhere", "../aws-s3", "aws-s3\n"),
        also=("unknown provider",),
    ),
    OptionSlot(
        "migrate-retrieval",
        ("migrate", WORKLOAD_ARG, "--from", "aws-s3", "--to", "wasabi", "--retrieval", "@"),
        "--retrieval",
        ("", "instant-ish", "BULK\n"),
    ),
    OptionSlot(
        "pricing-show-as-of",
        ("pricing", "show", "aws-s3", "--as-of", "@"),
        "--as-of",
        NOT_A_DATE,
        valid=("9999-12-31",),
        also=("in force on",),
    ),
    OptionSlot(
        "pricing-show-region",
        ("pricing", "show", "aws-s3", "--region", "@"),
        "--region",
        ("", "../../x", "x" * 5000, "us-east-1\n"),
        also=("for region",),
    ),
    OptionSlot("pricing-diff-date", ("pricing", "diff", "aws-s3", "2020-01-01", "@"), "SECOND", NOT_A_DATE[2:]),
    OptionSlot(
        "pricing-audit-older-than",
        ("pricing", "audit", "wasabi", "--older-than", "@"),
        "--older-than",
        ("", " ", "-1m", "6x", "nan", "1e309d", I.DIGITS_5000 + "d", "12m\n", "6 months", "99999y"),
        valid=("99999y",),
    ),
    OptionSlot(
        "measure-sizes",
        (
            "measure",
            "--endpoint",
            "http://127.0.0.1:9",
            "--bucket",
            "b",
            "--out",
            "{tmp}/m.json",
            "--dry-run",
            "--sizes",
            "@",
        ),
        "--sizes",
        (*NOT_A_SIZE, "6 GiB", "5 TiB"),  # past one PUT at S3, and held in memory whole
    ),
    OptionSlot(
        "measure-link",
        ("measure", "--provider", "aws-s3", "--dry-run", "--link", "@"),
        "--link",
        NOT_A_RATE,
    ),
    OptionSlot(
        "measure-max-attempts",
        ("measure", "--provider", "aws-s3", "--dry-run", "--max-attempts", "@"),
        "--max-attempts",
        (*NOT_A_COUNT, "101", "1000000000"),
    ),
    OptionSlot(
        "measure-concurrency",
        (
            "measure",
            "--endpoint",
            "http://127.0.0.1:9",
            "--bucket",
            "b",
            "--out",
            "{tmp}/m.json",
            "--dry-run",
            "--concurrency",
            "@",
        ),
        "--concurrency",
        ("-1", "0", "nan", "1e309", I.DIGITS_5000, "", "100000", "1,,2"),
        valid=("1,,2",),
    ),
    OptionSlot(
        "measure-duration",
        (
            "measure",
            "--endpoint",
            "http://127.0.0.1:9",
            "--bucket",
            "b",
            "--out",
            "{tmp}/m.json",
            "--dry-run",
            "--duration",
            "@",
        ),
        "--duration",
        NOT_A_DURATION,
    ),
    OptionSlot(
        "measure-endpoint",
        ("measure", "--endpoint", "@", "--bucket", "b", "--out", "{tmp}/m.json", "--dry-run"),
        "--endpoint",
        ("", "ftp://x", "http://", "http://[::1", "http://user:secret@127.0.0.1:9", "x" * 5000),
    ),
    OptionSlot(
        "measure-bucket",
        ("measure", "--endpoint", "http://127.0.0.1:9", "--bucket", "@", "--out", "{tmp}/m.json", "--dry-run"),
        "--bucket",
        ("", "../x", "a/b", "a b", "x" * 5000, "\x1b[31m"),
    ),
)

UNCERTAIN = I.WORKLOAD.replace("  egress:", "  egress: {low: 1 TB, likely: 2 TB, high: 5 TB}  #", 1)


def _option_cases() -> Iterable[Case]:
    for slot in OPTION_SLOTS:
        for index, value in enumerate(slot.values):
            shown = (
                value if len(value) < 20 and value.isprintable() and value.strip() == value and value else f"v{index}"
            )
            files = {"u.yaml": I.text(UNCERTAIN)} if "{tmp}/u.yaml" in slot.args else {}
            yield Case(
                id=f"{slot.id}={shown}",
                args=tuple(value if a == "@" else a for a in slot.args),
                files=files,
                codes=(0, 2) if value in slot.valid else slot.codes,
                names=(slot.option, *slot.also),
            )


# -- files that exist already --------------------------------------------------------------------------

OLD = I.text("precious\n")


def _output_cases() -> Iterable[Case]:
    plot = ("cost", WORKLOAD_ARG, "-p", "aws-s3", "--as-of", AS_OF, "--plot")
    yield Case("cost-plot-exists", (*plot, "{tmp}/old.png"), {"old.png": OLD}, codes=(2,), names="--plot")
    yield Case(
        "sweep-plot-exists",
        ("sweep", WORKLOAD_ARG, "--vary", "traffic.egress=0..10TB:3", "--as-of", AS_OF, "--plot", "{tmp}/old.svg"),
        {"old.svg": OLD},
        codes=(2,),
        names="--plot",
    )
    yield Case(
        "recommend-plot-exists",
        ("recommend", WORKLOAD_ARG, "--no-simulate", "--as-of", AS_OF, "--plot", "{tmp}/old.png"),
        {"old.png": OLD},
        codes=(2,),
        names="--plot",
    )
    yield Case(
        "migrate-plot-exists",
        ("migrate", WORKLOAD_ARG, "--from", "aws-s3", "--to", "wasabi", "--plot", "{tmp}/old.png"),
        {"old.png": OLD},
        codes=(2,),
        names="--plot",
    )
    yield Case(
        "simulate-plot-exists",
        ("simulate", WORKLOAD_ARG, "-p", "aws-s3", "--duration", "1s", "--plot", "{tmp}/old.png"),
        {"old.png": OLD},
        codes=(2,),
        names="--plot",
    )
    yield Case(
        "profiles-plot-exists",
        ("profiles", "show", "aws-s3", "--plot", "{tmp}/old.png"),
        {"old.png": OLD},
        codes=(2,),
        names="--plot",
    )
    yield Case(
        "tornado-plot-exists",
        ("recommend", "{tmp}/u.yaml", "--samples", "100", "--as-of", AS_OF, "--tornado-plot", "{tmp}/old.svg"),
        {"old.svg": OLD, "u.yaml": I.text(UNCERTAIN)},
        codes=(2,),
        names="--tornado-plot",
    )
    yield Case(
        "report-out-exists",
        ("report", WORKLOAD_ARG, "--no-simulate", "--as-of", AS_OF, "--out", "{tmp}/old.md"),
        {"old.md": OLD},
        codes=(2,),
        names="--out",
    )
    yield Case(
        "report-pictures-exist",
        ("report", WORKLOAD_ARG, "--no-simulate", "--as-of", AS_OF, "--out", "{tmp}/new.md"),
        {"new-ranking.png": OLD, "new-egress.png": OLD, "new-cost.png": OLD, "new-1.png": OLD},
    )
    yield Case(
        "trace-out-exists",
        ("trace", WORKLOAD_ARG, "--out", "{tmp}/old.csv", "--duration", "1s"),
        {"old.csv": OLD},
        codes=(2,),
        names="--out",
    )
    yield Case(
        "merge-out-exists",
        ("measure", "merge", "{tmp}/p.json", "{tmp}/p2.json", "--out", "{tmp}/old.json"),
        {"old.json": OLD, "p.json": I.text(I.PROFILE), "p2.json": I.text(I.PROFILE)},
        codes=(2,),
        names=("--out", "cannot be merged"),
    )
    yield Case(
        "cur-out-exists",
        ("ingest", "cur", "{fixtures}/aws-cur-sample-anonymous.csv", "--out", "{tmp}/out"),
        {"out/us-east-1.yaml": OLD},
        codes=(2,),
        names="--out",
    )
    yield Case(
        "access-log-trace-exists",
        ("ingest", "access-log", "{tmp}/log.txt", "--out", "{tmp}/out", "--trace", "{tmp}/old.csv"),
        {"old.csv": OLD, "log.txt": I.text(I.ACCESS_LOG)},
        codes=(2,),
        names="--trace",
    )
    yield Case(
        "access-log-out-exists",
        ("ingest", "access-log", "{tmp}/log.txt", "--out", "{tmp}/out"),
        {"out/media.yaml": OLD, "log.txt": I.text(I.ACCESS_LOG)},
        codes=(0, 2),
    )
    yield Case(
        "import-out-exists",
        ("pricing", "import", "aws", "{tmp}/offer.json", "--transfer", "{tmp}/dt.json", "--out", "{tmp}/tables"),
        {"dt.json": I.text(I.TRANSFER), "offer.json": I.text(I.OFFER), "tables/aws-s3/us-east-1/2025-12-01.yaml": OLD},
        codes=(0, 2),
    )
    yield Case(
        "import-out-is-a-file",
        ("pricing", "import", "aws", "{tmp}/offer.json", "--transfer", "{tmp}/dt.json", "--out", "{tmp}/old.txt"),
        {"offer.json": I.text(I.OFFER), "dt.json": I.text(I.TRANSFER), "old.txt": OLD},
        codes=(2,),
        names="--out",
    )
    yield Case(
        "ingest-out-is-a-file",
        ("ingest", "cur", "{fixtures}/aws-cur-sample-anonymous.csv", "--out", "{tmp}/old.txt"),
        {"old.txt": OLD},
        codes=(2,),
        names="--out",
    )
    yield Case(
        "trace-out-is-a-folder",
        ("trace", WORKLOAD_ARG, "--out", "{tmp}/dir", "--duration", "1s"),
        {"dir": I.folder},
        codes=(2,),
        names="--out",
    )
    yield Case(
        "trace-out-under-a-file",
        ("trace", WORKLOAD_ARG, "--out", "{tmp}/old.txt/t.csv", "--duration", "1s"),
        {"old.txt": OLD},
        codes=(2,),
        names="--out",
    )
    yield Case(
        "trace-out-dev-full",
        ("trace", WORKLOAD_ARG, "--out", "/dev/full", "--duration", "1s", "--force"),
        codes=(2,),
        names="--out",
    )
    yield Case(
        "import-region-traversal",
        ("pricing", "import", "aws", "{tmp}/offer.json", "--transfer", "{tmp}/dt.json", "--out", "{tmp}/tables"),
        {"dt.json": I.text(I.TRANSFER), "offer.json": I.text(I.OFFER.replace('"us-east-1"', '"../../../escaped"'))},
        codes=(0, 2),
    )
    yield Case(
        "inventory-manifest-names-etc-passwd",
        ("ingest", "inventory", "{tmp}/inv/m/manifest.json", "--out", "{tmp}/out"),
        {"inv/m/manifest.json": I.text(I.manifest([{"key": "/etc/passwd", "size": 1, "MD5checksum": "x"}]))},
        codes=(2,),
        names="/etc/passwd",
    )


# -- the command line itself ------------------------------------------------------------------------------


def _cli_cases() -> Iterable[Case]:
    yield Case("version", ("--version",), codes=(0,), out="planner ")
    yield Case(
        "quiet-after-command", ("cost", WORKLOAD_ARG, "-p", "aws-s3", "--as-of", AS_OF, "-q"), codes=(0,), out="total"
    )
    yield Case("quiet-after-group-command", ("pricing", "show", "aws-s3", "--quiet"), codes=(0,), out="Amazon S3")
    yield Case("profiles-list-csv", ("profiles", "list", "-f", "csv"), codes=(2,), names="--format")
    yield Case("measure-profiles-list", ("measure", "profiles", "list", "-f", "json"), codes=(0,), out="aws-s3")
    yield Case("measure-profiles-show-unknown", ("measure", "profiles", "show", "nowhere"), codes=(2,), names="nowhere")
    yield Case("pricing-diff-reversed", ("pricing", "diff", "aws-s3", "2026-01-01", "2020-01-01"), codes=(0, 2))
    yield Case("pricing-audit-unknown", ("pricing", "audit", "../nowhere"), codes=(2,), names="nowhere")
    yield Case("schema-workload", ("schema", "workload"), codes=(0,), out="{")
    yield Case("unknown-option", ("cost", WORKLOAD_ARG, "--nope"), codes=(2,), names="--nope")
    yield Case("unknown-command", ("cots", WORKLOAD_ARG), codes=(2,), names="cots")
    yield Case("option-without-value", ("cost", WORKLOAD_ARG, "-p"), codes=(2,), names="-p")
    yield Case("missing-argument", ("cost",), codes=(2,), names="workload_file")
    yield Case("option-twice", ("cost", WORKLOAD_ARG, "-p", "aws-s3", "-p", "wasabi", "--as-of", AS_OF), codes=(0, 2))
    yield Case(
        "format-csv-simulate", ("simulate", WORKLOAD_ARG, "-p", "aws-s3", "-f", "csv"), codes=(2,), names="--format"
    )
    yield Case(
        "format-csv-migrate",
        ("migrate", WORKLOAD_ARG, "--from", "aws-s3", "--to", "wasabi", "-f", "csv"),
        codes=(2,),
        names="--format",
    )
    yield Case("format-csv-diff", ("diff", WORKLOAD_ARG, WORKLOAD_ARG, "-f", "csv"), codes=(2,), names="--format")
    yield Case("format-csv-pricing-show", ("pricing", "show", "aws-s3", "-f", "csv"), codes=(2,), names="--format")
    for command in ("inventory", "access-log"):
        yield Case(
            f"format-csv-ingest-{command}",
            ("ingest", command, "{tmp}/none", "--out", "{tmp}/out", "-f", "csv"),
            codes=(2,),
            names="--format",
        )
    for days in ("nan", "-1", "inf", "1e400", "36501", ""):
        yield Case(
            f"recommend-restore-days-{days or 'empty'}",
            ("recommend", WORKLOAD_ARG, "--no-simulate", "--restore-days", days),
            codes=(2,),
            names="--restore-days",
        )
    yield Case(
        "report-restore-days-nan",
        ("report", WORKLOAD_ARG, "-o", "{tmp}/r.md", "--restore-days", "nan"),
        codes=(2,),
        names="--restore-days",
    )
    yield Case(
        "cost-verified-only-unverified",
        ("cost", WORKLOAD_ARG, "-p", "idrive-e2", "--as-of", AS_OF, "--verified-only"),
        codes=(2,),
        names="--verified-only",
    )
    yield Case("format-unknown", ("pricing", "list", "-f", "xml"), codes=(2,), names="--format")
    yield Case("format-empty", ("pricing", "list", "-f", ""), codes=(2,), names="--format")
    yield Case("double-dash", ("pricing", "list", "--", "-q"), codes=(2,))
    yield Case("schema-unknown", ("schema", "../../etc/passwd"), codes=(2,))
    yield Case("schema-empty", ("schema", ""), codes=(2,))
    yield Case("pricing-show-unknown", ("pricing", "show", "nowhere"), codes=(2,), names="nowhere")
    yield Case("pricing-show-traversal", ("pricing", "show", "../../../etc"), codes=(2,))
    yield Case("profiles-show-unknown", ("profiles", "show", "nowhere"), codes=(2,), names="nowhere")
    yield Case("import-unknown-list", ("pricing", "import", "gcp", "{tmp}/x.json", "--out", "{tmp}/o"), codes=(2,))
    yield Case(
        "dask-garbage-address",
        ("recommend", "{tmp}/u.yaml", "--samples", "100", "--dask", "not a url"),
        {"u.yaml": I.text(UNCERTAIN)},
        codes=(2,),
        names="--dask",
    )
    yield Case(
        "dask-without-samples", ("recommend", WORKLOAD_ARG, "--dask", "tcp://127.0.0.1:9"), codes=(2,), names="--dask"
    )
    yield Case(
        "tornado-without-samples",
        ("recommend", WORKLOAD_ARG, "--tornado-plot", "{tmp}/t.pdf"),
        codes=(2,),
        names="--tornado-plot",
    )
    yield Case(
        "tornado-pdf",
        ("recommend", "{tmp}/u.yaml", "--samples", "100", "--tornado-plot", "{tmp}/t.pdf"),
        {"u.yaml": I.text(UNCERTAIN)},
        codes=(2,),
        names="--tornado-plot",
    )
    yield Case("plot-pdf", ("cost", WORKLOAD_ARG, "-p", "aws-s3", "--plot", "{tmp}/c.pdf"), codes=(2,), names="--plot")
    yield Case(
        "samples-with-prices",
        ("recommend", "{tmp}/u.yaml", "--samples", "100", "--prices", "aws-s3={tmp}/p.yaml", "--plot", "{tmp}/new.png"),
        {"u.yaml": I.text(UNCERTAIN), "p.yaml": I.text(I.OVERRIDE)},
        codes=(2,),
        names="--samples",
    )
    yield Case(
        "prices-without-provider",
        ("recommend", WORKLOAD_ARG, "--no-simulate", "--prices", "{tmp}/p.yaml"),
        {"p.yaml": I.text(I.OVERRIDE)},
        codes=(2,),
        names="--prices",
    )
    yield Case(
        "cleanup-journal-folder",
        ("measure", "cleanup", "--endpoint", "http://127.0.0.1:9", "--bucket", "b", "--journal", "{tmp}/j"),
        {"j": I.folder},
        codes=(2,),
    )
    yield Case("merge-nothing", ("measure", "merge", "--out", "{tmp}/m.json"), codes=(2,))
    for index, age in enumerate(("x", "0=1d..2d:" + "9" * 5000, "0=1d..2d:3", "٣=1d..2d:3", "0=1y..1e400d:3")):
        yield Case(
            f"lifecycle-vary-age-{index}",
            ("lifecycle", WORKLOAD_ARG, "-p", "aws-s3", "--vary-age", age),
            codes=(2,),
            names="--vary-age",
        )
    yield Case(
        "lifecycle-current-unknown",
        ("lifecycle", WORKLOAD_ARG, "-p", "aws-s3", "--current", "x"),
        codes=(2,),
        names="--current",
    )
    yield Case(
        "lifecycle-month-alone",
        ("lifecycle", WORKLOAD_ARG, "-p", "aws-s3", "--month", "1"),
        codes=(2,),
        names="--month",
    )
    yield Case(
        "lifecycle-month-past-horizon",
        ("lifecycle", WORKLOAD_ARG, "-p", "aws-s3", "--price-only", "--months", "2", "--month", "3"),
        codes=(2,),
        names="--month",
    )
    yield Case(
        "migrate-start-far",
        ("migrate", WORKLOAD_ARG, "--from", "aws-s3", "--to", "wasabi", "--start", "9999-12-01"),
        codes=(2,),
        names="--start",
    )


def _gzip_cases() -> Iterable[Case]:
    """Gzip bombs: a compressed input that expands to a GiB with no line break; in a capped subprocess."""

    def line_bomb(path: Path) -> None:  # made when the case runs, not when the corpus is collected
        path.write_bytes(I.bomb())

    for slot_id, args, name in (
        ("cur", ("ingest", "cur", "@", "--out", "{tmp}/out"), "bill.csv.gz"),
        ("access-log", ("ingest", "access-log", "@", "--out", "{tmp}/out"), "log.gz"),
        (
            "inventory-data",
            ("ingest", "inventory", "{tmp}/inv/2026/manifest.json", "--out", "{tmp}/out"),
            "inv/data/part-0.csv.gz",
        ),
    ):
        path = "{tmp}/" + name
        files: dict[str, Maker] = {name: line_bomb}
        if slot_id == "inventory-data":
            files["inv/2026/manifest.json"] = I.text(I.manifest())
        yield Case(
            f"{slot_id}-gzip-bomb",
            tuple(a.replace("@", path) for a in args),
            files,
            codes=(2,),
            subprocess=True,
            timeout_s=30.0,
        )


# -- issue 41, item 8: the new surfaces (egress splits, lifecycle, FOCUS, measure --for, tables, outputs) ----

_SPLIT = "name: s\nstorage: {stored: 10 TB, object_size: 1 MB}\ntraffic:\n  egress: %s\n"
_CDN = "delivery: {cdn: {provider: cloudfront, hit_ratio: 0.9}}\n"
_RANGE_IN_SPLIT = _SPLIT % "{internet: 10 TB, cdn: {low: 50 TB, high: 90 TB}}" + _CDN
_LIFECYCLE = (
    "name: l\nstorage:\n  stored: 10 TB\n  object_size: 1 MB\n"
    "  lifecycle: [{after: 30d, to: standard-ia}, {after: 400d, expire: true}]\ntraffic: {egress: 1 TB}\n"
)


def _many_bins(count: int) -> str:
    share = 1 / (count + 1)
    bins = "".join(f'    "{i}-{i + 1}d": {share!r}\n' for i in range(count))
    return (
        "name: bins\nstorage: {stored: 10 TB, object_size: 1 MB, growth_per_month: 1 TB}\ntraffic:\n  egress: 5 TB\n"
        f'  reads_by_age:\n{bins}    "{count}d+": {1 - share * count!r}\n'
    )


def _long(name: str) -> str:
    return "{tmp}/" + "x" * 300 + name


MEASURE_DRY = ("measure", "--endpoint", "http://127.0.0.1:9", "--bucket", "b", "--dry-run")


def _record_and_init_cases() -> Iterable[Case]:
    """``planner record`` refuses what it cannot record before it starts anything; ``planner init`` what it cannot
    write, keeping a file that is there."""
    local = ("record", "--out", "{tmp}/run")
    closed = ("record", "--out", "{tmp}/run", "--endpoint", "http://127.0.0.1:9")
    command = ("--", "true")
    yield Case(
        "record-both-sources", (*local, "--local", "--endpoint", "http://127.0.0.1:9", *command), names="--endpoint"
    )
    yield Case("record-no-source", (*local, *command), codes=(2,), names="--endpoint")
    yield Case(
        "record-https", (*local, "--endpoint", "https://s3.amazonaws.com", *command), codes=(2,), names="--endpoint"
    )
    yield Case("record-ftp", (*local, "--endpoint", "ftp://example.com", *command), codes=(2,), names="--endpoint")
    yield Case("record-per-year", (*closed, "--per", "year", *command), codes=(2,), names="--per")
    yield Case("record-max-time-nan", (*closed, "--max-time", "nan", *command), codes=(2,), names="--max-time")
    yield Case("record-max-time-negative", (*closed, "--max-time", "-1", *command), codes=(2,), names="--max-time")
    yield Case("record-times-zero", (*closed, "--times", "0", *command), codes=(2,), names="--times")
    yield Case("record-no-command", closed, codes=(2,), names="command")
    yield Case("record-out-is-a-file", (*closed, *command), {"run": I.text("x")}, codes=(2,), names="--out")
    yield Case("init-unknown-preset", ("init", "{tmp}/w.yaml", "--preset", "tape"), codes=(2,), names="--preset")
    yield Case(
        "init-exists", ("init", "{tmp}/w.yaml", "--preset", "logs"), {"w.yaml": I.text("mine")}, codes=(2,), names="OUT"
    )
    yield Case("init-no-folder", ("init", "{tmp}/none/w.yaml", "--preset", "logs"), codes=(2,), names="OUT")


def _issue_41_cases() -> Iterable[Case]:
    split = {"w.yaml": I.text(_RANGE_IN_SPLIT)}
    for command in (
        ("cost", "{tmp}/w.yaml", "-p", "aws-s3", "--as-of", AS_OF),
        ("recommend", "{tmp}/w.yaml", "--no-simulate", "--as-of", AS_OF),
        ("sweep", "{tmp}/w.yaml", "--vary", "storage.stored=1TB..2TB:2", "--as-of", AS_OF),
        ("simulate", "{tmp}/w.yaml", "-p", "aws-s3", "--duration", "1s"),
        ("lifecycle", "{tmp}/w.yaml", "-p", "aws-s3", "--as-of", AS_OF),
        ("migrate", "{tmp}/w.yaml", "--from", "aws-s3", "--to", "wasabi"),
    ):
        yield Case(f"split-range-{command[0]}", command, split, codes=(2,), names="traffic.egress.cdn")
    for region in ("us-east-1", "mars-north-9"):
        yield Case(
            f"split-other-region-{region}",
            ("cost", "{tmp}/w.yaml", "-p", "aws-s3", "--as-of", AS_OF),
            {"w.yaml": I.text(_SPLIT % f"{{internet: 10 TB, other_region: {{bytes: 5 TB, region: {region}}}}}")},
            codes=(2,),
            names="traffic.egress.other_region.region",
        )
    yield Case(
        "split-other-region-elsewhere",
        ("cost", "{tmp}/w.yaml", "-p", "aws-s3", "--as-of", AS_OF),
        {"w.yaml": I.text(_SPLIT % "{internet: 10 TB, other_region: {bytes: 5 TB, region: eu-west-1}}")},
        codes=(0,),
        out="inter-region transfer",
    )
    yield Case(  # a valid split by shares: priced, never refused naming a field that does not exist
        "split-shares-valid",
        ("cost", "{tmp}/w.yaml", "-p", "aws-s3", "--as-of", AS_OF),
        {"w.yaml": I.text(_SPLIT % '{total: 20 TB, internet: "50%", same_region: "50%"}')},
        codes=(0,),
        out="internet egress",
    )
    yield Case(
        "tables-empty-provider-folder-region",
        ("cost", WORKLOAD_ARG, "-p", "acme", "--region", "eu-west-1", "--as-of", AS_OF),
        {"pt/acme": I.folder},
        codes=(2,),
        names="acme",
        env={"PLANNER_PRICE_TABLES": "{tmp}/pt"},
    )
    yield Case(  # a table that begins on the 30th is in force on the 30th
        "as-of-30-november-2021",
        ("cost", WORKLOAD_ARG, "-p", "aws-s3", "--as-of", "2021-11-30", "-f", "json"),
        codes=(0,),
        out="aws-s3@2021-11-30",
    )
    yield Case(
        "lifecycle-expire-0d",
        ("cost", "{tmp}/w.yaml", "-p", "aws-s3", "--as-of", AS_OF),
        {
            "w.yaml": I.text(
                _LIFECYCLE.replace("{after: 400d, expire: true}", "{after: 0d, expire: true}").replace(
                    "[{after: 30d, to: standard-ia}, ", "["
                )
            )
        },
        codes=(2,),
        names="storage.lifecycle.0",
    )
    yield Case(
        "lifecycle-20000-bins",
        ("lifecycle", "{tmp}/w.yaml", "-p", "aws-s3", "--as-of", AS_OF),
        {"w.yaml": I.text(_many_bins(20_000))},
        codes=(2,),
        names="traffic.reads_by_age",
    )
    yield Case(
        "cost-lifecycle-by-month",
        ("cost", "{tmp}/w.yaml", "-p", "aws-s3", "--as-of", AS_OF, "--months", "3"),
        {"w.yaml": I.text(_LIFECYCLE)},
        codes=(0,),
        out="standard -> 30d standard-ia -> 400d expire",
    )
    yield Case("cost-lifecycle-json", ("cost", "{tmp}/w.yaml", "-p", "aws-s3", "--as-of", AS_OF, "-f", "json"),
               {"w.yaml": I.text(_LIFECYCLE)}, codes=(0,), out='"months"')  # fmt: skip
    yield Case("cost-lifecycle-focus", ("cost", "{tmp}/w.yaml", "-p", "aws-s3", "--as-of", AS_OF, "-f", "focus"),
               {"w.yaml": I.text(_LIFECYCLE)}, codes=(2,), names=("--format", "planner lifecycle"))  # fmt: skip
    yield Case("sweep-lifecycle", ("sweep", "{tmp}/w.yaml", "--vary", "traffic.egress=1TB..2TB:2", "--as-of", AS_OF,
               "-f", "json"), {"w.yaml": I.text(_LIFECYCLE)}, codes=(0,), out='"last_month_usd"')  # fmt: skip
    yield Case(
        "recommend-lifecycle-json",
        ("recommend", "{tmp}/w.yaml", "--no-simulate", "--lifecycle", "-f", "json", "--as-of", AS_OF),
        {"w.yaml": I.text(_LIFECYCLE + "constraints: {providers: [aws-s3]}\n")},
        codes=(0,),
        out='"lifecycle": {',
    )
    yield Case(
        "recommend-focus-out-exits-0",
        ("recommend", WORKLOAD_ARG, "--no-simulate", "-f", "focus", "--out", "{tmp}/f.csv", "--as-of", AS_OF),
        codes=(0,),
    )
    for_args = ("measure", "--for", WORKLOAD_ARG, "--bucket", "b", "--out", "{tmp}/m.json", "--dry-run")
    # options that contradict each other are refused, naming one, rather than one ignored without a word
    bulk = ("migrate", WORKLOAD_ARG, "--from", "aws-s3", "--to", "wasabi", "--strategy", "bulk")
    for option, value in (("--never-read", "0.5"), ("--sweep-after", "90d"), ("--age-out-within", "180d")):
        yield Case(f"migrate-bulk-with{option}", (*bulk, option, value), codes=(2,), names=option)
    yield Case(
        "pricing-diff-backwards", ("pricing", "diff", "aws-s3", "2026-01-01", "2025-01-01"), codes=(2,), names="SECOND"
    )
    yield Case(
        "diff-class-without-provider",
        ("diff", WORKLOAD_ARG, "{examples}/video-cdn.yaml", "--class", "standard-ia", "--no-simulate"),
        codes=(2,),
        names="--class",
    )
    # cleanup's run id names a file: one that reaches outside is refused as measure refuses it
    cleanup = ("measure", "cleanup", "--bucket", "b", "--endpoint", "http://127.0.0.1:9", "--run-id")
    yield Case("measure-cleanup-run-id-outside", (*cleanup, "../x"), codes=(2,), names="--run-id")
    # record's options that need --price, refused before the command runs
    rec = ("record", "--out", "{tmp}/rec", "--endpoint", "http://127.0.0.1:9")
    for options, named in ((("--providers", "aws-s3"), "--providers"), (("-f", "csv"), "--format"),
                           (("-f", "focus", "--price"), "--format")):  # fmt: skip
        yield Case(f"record-{'-'.join(options)}", (*rec, *options, "--", "true"), codes=(2,), names=named)
    # a CSV written under another kind's name
    yield Case("trace-out-parquet", ("trace", WORKLOAD_ARG, "--out", "{tmp}/t.parquet", "--duration", "1s"),
               codes=(2,), names="--out")  # fmt: skip
    nothing = ("measure", "--provider", "aws-s3", "--dry-run", "--ops", "none", "--probes", "none")
    yield Case("measure-nothing-to-time", nothing, codes=(2,), names="--ops")
    yield Case("measure-for-provider-nope", (*for_args, "--provider", "nope"), codes=(2,), names="--provider")
    for option, value in (("--probes", "none"), ("--sizes", "1MiB"), ("--concurrency", "4")):
        yield Case(
            f"measure-for-ignores{option}",
            (*for_args, "--provider", "aws-s3", option, value),
            codes=(2,),
            names=option,
        )
    yield Case("measure-dry-run-out-folder", (*MEASURE_DRY, "--out", "{tmp}/dir"), {"dir": I.folder}, codes=(2,),
               names="--out")  # fmt: skip
    yield Case("trace-out-name-300-bytes", ("trace", WORKLOAD_ARG, "--out", _long(".csv"), "--duration", "1s"),
               codes=(2,), names="--out")  # fmt: skip
    yield Case(
        "focus-out-name-300-bytes",
        ("cost", WORKLOAD_ARG, "-p", "aws-s3", "-f", "focus", "--out", _long(".csv")),
        codes=(2,),
        names="--out",
    )
    yield Case("plot-name-300-bytes", ("cost", WORKLOAD_ARG, "-p", "aws-s3", "--months", "2", "--plot", _long(".png")),
               codes=(2,), names="--plot")  # fmt: skip
    yield Case("measure-out-name-300-bytes", (*MEASURE_DRY, "--out", _long(".json")), codes=(2,), names="--out")
    yield Case(
        "inventory-created-in-385",
        ("ingest", "inventory", "{tmp}/inv/2026/manifest.json", "--out", "{tmp}/out"),
        {
            "inv/2026/manifest.json": I.text(I.manifest().replace('"1793491200000"', '"-50000000000000"')),
            "inv/data/part-0.csv.gz": I.data(I.inventory_rows(I.INVENTORY_CSV)),
        },
        codes=(2,),
        names="creationTimestamp",
    )


def _xfail(case: Case) -> Case:
    reason = XFAIL.get(case.id)
    return replace(case, xfail=reason) if reason else case


def all_cases() -> list[Case]:
    found = [
        *_slot_cases(),
        *_option_cases(),
        *_output_cases(),
        *_cli_cases(),
        *_gzip_cases(),
        *_issue_41_cases(),
        *_record_and_init_cases(),
    ]
    return [_xfail(c) for c in found]


XFAIL: dict[str, str] = {}
"""Cases today's code fails, by the item of issue 28 whose fix flips them (strict: a fix that flips
one fails the corpus until its mark is removed here)."""
