"""Starting a workload file: a commented preset for a common kind of data, with a user's own figures put in.

``preset_text(name)`` is a preset as shipped (``planner/workload/presets/<name>.yaml``); ``workload_text(answers)``
is one with the answers in place of its figures, each line keeping its comment. Either is checked by loading it
as every command will, so a file ``planner init`` writes is one they accept.
"""

from __future__ import annotations

import re
from importlib import resources

import yaml
from pydantic import BaseModel, ConfigDict, Field

from planner.errors import InputError
from planner.workload.load import parse_workload
from planner.workload.model import Workload

PRESETS = ("video", "backup", "data-lake", "logs", "web-assets", "ml-training")


class Answers(BaseModel):
    """What ``planner init`` asks, as the user typed it (units as in a workload file; None: keep the preset's)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str = Field(description="the preset the file starts from")
    name: str | None = None
    stored: str | None = Field(None, description='e.g. "50 TB"')
    object_size: str | None = Field(None, description='e.g. "64 MB"')
    growth_per_month: str | None = Field(None, description='e.g. "2 TB", or "0 B"')
    egress: str | None = Field(None, description='bytes read out to the internet a month, e.g. "5 TB"')
    reads: str | None = Field(None, description="GET requests a month")
    p99_ttfb: str | None = Field(None, description='e.g. "200 ms"; "none" removes the target')
    read_throughput: str | None = Field(None, description='e.g. "5 Gbps"; "none" removes the target')


def preset_text(name: str) -> str:
    if name not in PRESETS:
        raise InputError(f"{name!r} is not a preset (presets: {', '.join(PRESETS)})", field="--preset")
    return (resources.files("planner.workload") / "presets" / f"{name}.yaml").read_text(encoding="utf-8")


def set_value(text: str, section: str, key: str, value: str | None) -> str:
    """``text`` with ``section.key`` set to ``value`` (its comment kept), added if absent, removed if None."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.rstrip() == f"{section}:"), None)
    if start is None:
        if value is None:
            return text
        return text.rstrip("\n") + f"\n{section}:\n  {key}: {value}\n"
    end = next((i for i in range(start + 1, len(lines)) if lines[i] and not lines[i].startswith(" ")), len(lines))
    pattern = re.compile(rf"^(  {re.escape(key)}:\s*)(.*?)(\s+#.*)?$")
    for index in range(start + 1, end):
        found = pattern.match(lines[index])
        if found:
            if value is None:
                del lines[index]
            else:
                comment = found.group(3) or ""
                lines[index] = f"{found.group(1)}{value}{comment}"
            return "\n".join(lines) + "\n"
    if value is not None:
        lines.insert(start + 1, f"  {key}: {value}")
    return "\n".join(lines) + "\n"


_SETTINGS = (
    ("storage", "stored"),
    ("storage", "object_size"),
    ("storage", "growth_per_month"),
    ("traffic", "egress"),
    ("traffic", "reads"),
    ("performance", "p99_ttfb"),
    ("performance", "read_throughput"),
)


def workload_text(answers: Answers) -> str:
    """The preset ``answers.kind`` with the answers in place, checked by loading it as commands do."""
    text = preset_text(answers.kind).replace(f"`planner init --preset {answers.kind}`", "`planner init`", 1)
    if answers.name:
        text = re.sub(r"(?m)^name: .*$", f"name: {_scalar(answers.name)}", text, count=1)
    for section, key in _SETTINGS:
        given = getattr(answers, key)
        if given is None or not given.strip():
            continue
        value = None if given.strip().lower() == "none" else _scalar(given.strip())
        text = set_value(text, section, key, value)
    if re.search(r"(?m)^performance:\n(?![ ])", text + "\n"):
        text = re.sub(r"(?m)^performance:\n(?=\S|\Z)", "", text)
    check(text, "the answers")
    return text


def _scalar(value: str) -> str:
    """A value as one YAML scalar on its line (quoted when YAML would read it as something else)."""
    if "\n" in value or "\r" in value:
        raise InputError("an answer is one line", field=value[:20])
    dumped = yaml.safe_dump(value, default_style=None, width=10_000).strip()
    return dumped.removesuffix("\n...").removesuffix("...").strip()


def check(text: str, source: str) -> Workload:
    """The workload ``text`` describes, or the one-line error a command would give for it."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise InputError(f"not YAML: {str(error).splitlines()[0]}", source=source) from None
    return parse_workload(data, source)
