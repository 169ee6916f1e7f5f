"""The replication's tables of what it asks the provider model, each answer made on first use:
latency draws and body tails by operation and size, server service times, network flow classes.
Random draws come in numpy blocks and are handed out as floats."""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from planner.sim.engine.fluid_network import FlowClass
from planner.sim.engine.requests import HEAD, LOGICAL_OPERATIONS, IntArray
from planner.sim.model import BILLED_OPERATIONS, LatencyModel, ProviderModel

# Billed operations; the first four are the logical ones, in the same order.
B_GET, B_PUT, _B_HEAD, _B_LIST, B_CREATE, B_PART, B_COMPLETE = range(len(BILLED_OPERATIONS))
BLOCK = 8192


def latency_draws(
    model: LatencyModel, rng: np.random.Generator, offset_s: float = 0.0, first_block: int = BLOCK
) -> Iterator[float]:
    """Endless draws from a latency model (plus ``offset_s``), made in numpy blocks, handed out as floats:
    the first ``first_block``, each next block twice the last up to 16 times the first or ``BLOCK`` (a
    table used rarely stays small, and many tables with small blocks hold few draws each)."""
    if first_block >= BLOCK:
        while True:
            yield from (model.sample(rng, BLOCK) + offset_s).tolist()
    block, most = first_block, min(16 * first_block, BLOCK)
    while True:  # small blocks kept as 8-byte floats (an array), the table's many classes each hold few
        yield from array("d", (model.sample(rng, block) + offset_s).tobytes())
        block = min(2 * block, most)


SIZE_CLASSES_PER_OCTAVE = 32
"""Object sizes from ``_EXACT_BELOW`` bytes on are taken at the nearest of this many sizes an octave
(within 1.1 % of the size; 1.2 % for the smallest, rounded to whole bytes): what the provider model
answers at a size (latency, a body's tail, service time, a stream's rate) is asked once per class, so a
model's memory does not grow with the number of distinct sizes it moves."""
_EXACT_BELOW = 256


def size_class(size: int) -> int:
    """The size that stands for ``size``'s class (``SIZE_CLASSES_PER_OCTAVE``); sizes below 256 bytes stand
    for themselves."""
    if size < _EXACT_BELOW:
        return size
    return round(math.pow(2.0, round(math.log2(size) * SIZE_CLASSES_PER_OCTAVE) / SIZE_CLASSES_PER_OCTAVE))


class BySizeClass(dict[int, Any]):
    """A table keyed by ``code | size << shift`` whose answers are a table's (``inner``) at the size's class
    (``size_class``). At most ``kept`` exact keys are remembered (the common sizes answered by a look-up);
    past that a key's class is worked out at each look-up, so memory stays flat however many sizes come."""

    def __init__(self, inner: dict[int, Any], shift: int, kept: int = 4096) -> None:
        super().__init__()
        self.inner, self._shift, self._mask, self._kept = inner, shift, (1 << shift) - 1, kept

    def __missing__(self, key: int) -> Any:
        shift = self._shift
        value = self.inner[key & self._mask | size_class(key >> shift) << shift]
        if len(self) < self._kept:
            self[key] = value
        return value


class DrawTable(dict[int, Iterator[float]]):
    """Latency draws by ``billed | size << 3`` (a billed operation at an object size), made on first use;
    ``one_each`` draws one for each of a block of requests."""

    def __init__(
        self,
        provider: ProviderModel,
        rng: np.random.Generator,
        offset_s: float,
        idle_share: float,
        utilisation: list[float],
        queued: list[bool],
        first_block: int = BLOCK,
    ) -> None:
        super().__init__()
        self._provider, self._rng, self._offset_s = provider, rng, offset_s
        self._first_block = first_block
        self._idle_share, self._utilisation, self._queued = idle_share, utilisation, queued

    def __missing__(self, key: int) -> Iterator[float]:
        billed = key & 7
        model = self._provider.latency(
            BILLED_OPERATIONS[billed],
            key >> 3,
            self._idle_share,
            self._utilisation[billed],
            queued=self._queued[billed],
        )
        draws = self[key] = latency_draws(model, self._rng, self._offset_s, self._first_block)
        return draws

    def one_each(self, codes: IntArray, sizes: IntArray) -> list[float]:
        """One latency per request, from the model of its (whole-object) operation at its size."""
        drawn = np.empty(len(codes))
        provider, rng = self._provider, self._rng
        sized, idle = bool(provider.latency_by_size), self._idle_share
        for code in range(len(LOGICAL_OPERATIONS)):
            mine = codes == code
            if not mine.any():
                continue
            if not sized or code >= HEAD:
                model = provider.latency(
                    BILLED_OPERATIONS[code],
                    0 if sized else None,
                    idle,
                    self._utilisation[code],
                    queued=self._queued[code],
                )
                drawn[mine] = model.sample(rng, int(mine.sum()))
                continue
            for size in np.unique(sizes[mine]).tolist():
                chosen = mine & (sizes == size)
                model = provider.latency(
                    BILLED_OPERATIONS[code], int(size), idle, self._utilisation[code], queued=self._queued[code]
                )
                drawn[chosen] = model.sample(rng, int(chosen.sum()))
        result: list[float] = (drawn + self._offset_s).tolist()
        return result


class TailTable(dict[int, Iterator[float] | None]):
    """Draws of how much longer than the median a GET body of ``size`` takes, made on first use
    (None where the model has no spread for it)."""

    def __init__(self, provider: ProviderModel, rng: np.random.Generator, first_block: int = BLOCK) -> None:
        super().__init__()
        self._provider, self._rng, self._first_block = provider, rng, first_block

    def __missing__(self, size: int) -> Iterator[float] | None:
        model = self._provider.body_tail("get", size)
        draws = self[size] = (
            None if model is None or not model.p99_s else latency_draws(model, self._rng, first_block=self._first_block)
        )
        return draws


class ServiceTable(dict[int, float]):
    """Server service time by ``billed | size << 3``, asked of the provider's queue on first use."""

    def __init__(self, provider: ProviderModel) -> None:
        super().__init__()
        self._provider = provider

    def __missing__(self, key: int) -> float:
        operation = BILLED_OPERATIONS[key & 7]
        queue = self._provider.server_queue(operation)
        seconds = self[key] = queue.service_for(operation, key >> 3) if queue is not None else 0.0
        return seconds


class FlowTable(dict[int, FlowClass | None]):
    """The network class of a transfer by its size (None: nothing bounds it), made on first use."""

    def __init__(self, make: Callable[[int], FlowClass | None]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, nbytes: int) -> FlowClass | None:
        flow = self[nbytes] = self._make(nbytes)
        return flow
