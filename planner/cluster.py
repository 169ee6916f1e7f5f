"""Chunks of independent work run here or on a Dask distributed cluster (``--dask SCHEDULER``).

A chunk is a function and its arguments; the answers come back in the chunks' order, so a result
assembled from them does not depend on where they ran. Every random number is drawn before the
work is cut into chunks, so a seed gives the same answer on any backend.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from planner.errors import InputError

T = TypeVar("T")

CONNECT_TIMEOUT_S = 10


def require_distributed() -> Any:
    """Dask distributed (as an untyped module), or a one-line error if it is not installed."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise InputError(
            "needs Dask distributed, which is not installed (pip install 'objstore-planner[dask]')", source="--dask"
        ) from None


def _client(scheduler: str) -> Any:
    import asyncio

    distributed = require_distributed()

    async def reach() -> None:
        comm = await distributed.comm.connect(scheduler, timeout=CONNECT_TIMEOUT_S)
        await comm.close()

    # The address is tried before a Client is made: a Client that fails to connect spends its
    # clean-up at exit waiting for a scheduler that is not there.
    try:
        asyncio.run(reach())
    except (OSError, TimeoutError, ValueError, TypeError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise InputError(f"cannot reach the Dask scheduler at {scheduler!r}: {reason}", source="--dask") from None
    return distributed.Client(scheduler, timeout=CONNECT_TIMEOUT_S, set_as_default=False)


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
    finally:
        client.close()
    if progress is not None:
        progress(len(chunks))
    return results
