"""Chunks of independent work run here or on a Dask distributed cluster (``--dask SCHEDULER``).

A chunk is a function and its arguments; the answers come back in the chunks' order, so a result
assembled from them does not depend on where they ran. Every random number is drawn before the
work is cut into chunks, so a seed gives the same answer on any backend.
"""

from __future__ import annotations

import asyncio
import importlib
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from planner.errors import InputError

T = TypeVar("T")

CONNECT_TIMEOUT_S = 10
"""Connecting to the scheduler, its handshake and its first answer: together at most this long."""
CALL_TIMEOUT_S = 60
"""A connection to the scheduler that says nothing (not even a heartbeat) for this long is dead."""


def require_distributed() -> Any:
    """Dask distributed (as an untyped module), or a one-line error if it is not installed."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise InputError(
            "needs Dask distributed, which is not installed (pip install 'objstore-planner[dask]')", source="--dask"
        ) from None


def _refused(scheduler: str, reason: str) -> InputError:
    return InputError(f"cannot use the Dask scheduler at {scheduler!r}: {reason}", source="--dask")


def _reason(error: BaseException) -> str:
    """An error's first line (its type where it has none), at most 160 characters."""
    text = str(error).splitlines()[0] if str(error) else ""
    return text[:160] or type(error).__name__


def _check_scheduler(distributed: Any, scheduler: str, deadline: float) -> None:
    """Connect, handshake and ask the scheduler who it is, all by ``deadline`` (``time.monotonic``): a port
    that accepts and never answers, or answers something that is not a Dask scheduler, is refused
    here. The address is tried before a Client is made: a Client that fails to connect spends its
    clean-up at exit waiting for a scheduler that is not there."""

    async def identify() -> object:
        comm = await distributed.comm.connect(scheduler, timeout=max(deadline - time.monotonic(), 0.1))
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    async def bounded() -> object:
        return await asyncio.wait_for(identify(), max(deadline - time.monotonic(), 0.1))

    try:
        reply = asyncio.run(bounded())
    except TimeoutError:
        raise _refused(scheduler, f"no answer within {CONNECT_TIMEOUT_S} s") from None
    except MemoryError:  # garbage read as a frame's length
        raise _refused(scheduler, "it answered, but not in Dask's protocol") from None
    except Exception as error:  # any other failure to speak Dask's protocol, from the network or from garbage
        raise _refused(scheduler, _reason(error)) from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise _refused(scheduler, "it answered, but not as a Dask scheduler")


def _client(scheduler: str) -> Any:
    """A Dask client of ``scheduler``, its connection and every call to the scheduler bounded by
    Dask's own timeouts (a connection silent for ``CALL_TIMEOUT_S`` is dropped)."""
    deadline = time.monotonic() + CONNECT_TIMEOUT_S  # Dask's import counts against the promise too
    distributed = require_distributed()
    _check_scheduler(distributed, scheduler, deadline)
    settings = {
        "distributed.comm.timeouts.connect": f"{CONNECT_TIMEOUT_S}s",
        "distributed.comm.timeouts.tcp": f"{CALL_TIMEOUT_S}s",
    }
    try:
        with importlib.import_module("dask").config.set(settings):
            return distributed.Client(scheduler, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except Exception as error:
        raise _refused(scheduler, _reason(error)) from None


def run_chunks(
    work: Callable[..., T],
    chunks: Sequence[tuple[Any, ...]],
    *,
    scheduler: str | None = None,
    progress: Callable[[float], None] | None = None,
) -> list[T]:
    """``work(*chunk)`` for every chunk, in order: in this process, or on the cluster at ``scheduler``."""
    if scheduler is None:
        done: list[T] = []
        for chunk in chunks:
            done.append(work(*chunk))
            if progress is not None:
                progress(len(done))
        return done
    client = _client(scheduler)
    try:
        futures = [client.submit(work, *chunk, pure=False) for chunk in chunks]
        results: list[T] = client.gather(futures)
    except (OSError, TimeoutError) as error:  # the scheduler went away or fell silent (Dask's CommClosedError)
        raise InputError(f"lost the Dask scheduler at {scheduler!r}: {_reason(error)}", source="--dask") from None
    finally:
        client.close(timeout=CONNECT_TIMEOUT_S)
    if progress is not None:
        progress(len(chunks))
    return results
