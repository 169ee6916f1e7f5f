"""The hot-object check's state: a read's id spreads over the dict's slots (a whole-object read's is its key)."""

from __future__ import annotations

from planner.sim.engine.answer_tables import B_GET
from planner.sim.engine.provider_setup import _HOT_REJECT, admit
from planner.sim.engine.request_parts import P_HOT, P_RANGE, new_part
from planner.sim.engine.requests import GET


def _read(key: int, range_index: int = 0) -> list[object]:
    part = new_part(GET, B_GET, key, 2**20, 0.0, None, 0.01)
    part[P_RANGE] = range_index
    return part


def test_a_whole_object_read_is_counted_under_its_key_and_each_range_apart() -> None:
    """``key << 32 | range`` made every whole-object read's id a multiple of 2**32: their hashes
    shared their low bits, so each look-up in the dict walked a string of probes."""
    counts: dict[int, float] = {}
    checks = [(_HOT_REJECT, counts, 2, 0.0, 0.0, "SlowDown")]
    whole, first, second = _read(12345), _read(12345, 1), _read(12345, 2)
    for part in (whole, first, second, _read(12345)):
        assert admit(part, checks, 0.0, {}) is None  # type: ignore[arg-type]
    assert whole[P_HOT] == 12345
    assert counts == {12345: 2, 1 << 62 | 12345: 1, 2 << 62 | 12345: 1}
    assert admit(_read(12345), checks, 0.0, {}) == "SlowDown"  # type: ignore[arg-type]
