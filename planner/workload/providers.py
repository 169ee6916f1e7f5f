"""The providers a comparison ranks, chosen on the command line (``recommend --providers``) over the
workload's ``constraints.providers``: a list of provider ids, PROVIDER:CLASS entries, or "all"."""

from __future__ import annotations

from pydantic import ValidationError

from planner.errors import InputError, validation_problem
from planner.workload.model import Workload
from planner.workload.parts import Constraints


def with_providers(workload: Workload, choice: str, *, source: str = "--providers") -> Workload:
    """``workload`` compared across ``choice`` ("all", or ids and PROVIDER:CLASS entries separated by
    commas) instead of its own providers; a bad name is a one-line InputError naming the known ones."""
    entries = [entry.strip() for entry in choice.split(",") if entry.strip()]
    if not entries:
        raise InputError('give provider ids separated by commas, PROVIDER:CLASS, or "all"', source=source)
    data = workload.constraints.model_dump(mode="json", exclude={"named_classes"})
    data["providers"] = entries
    try:
        constraints = Constraints.model_validate(data)
    except ValidationError as error:
        _, message = validation_problem(error)
        raise InputError(message, source=source) from None
    return workload.model_copy(update={"constraints": constraints})
