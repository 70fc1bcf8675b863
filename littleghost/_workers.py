"""Worker threads for sync tools, bounded even when calls are abandoned.

A sync ``call`` runs in a worker thread; a cancelled call returns at once and
its thread is abandoned, still running. On asyncio, anyio gives the abandoned
thread's slot back at once, so a burst of cancelled blocking calls grows the
pool without bound. Here every call holds a slot of anyio's default thread
limiter (40 unless raised, see docs/tools.md) until its thread has really
finished, so new sync calls wait for capacity instead.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from contextlib import suppress
from typing import Any

import anyio
import anyio.lowlevel
import anyio.to_thread

from ._cancellation import threadsafe_scheduler

__all__ = ["run_in_worker"]

# anyio's own limiter is bypassed: the default limiter's slot is held by the call instead.
_unbounded: anyio.lowlevel.RunVar[anyio.CapacityLimiter] = anyio.lowlevel.RunVar(
    "littleghost_unbounded_threads"
)

_WAITING, _RUNNING, _DONE, _GONE, _ABANDONED = "waiting", "running", "done", "gone", "abandoned"


async def run_in_worker(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` in a worker thread; on cancellation return at once, abandoning it."""
    limiter = anyio.to_thread.current_default_thread_limiter()
    borrower = object()
    try:
        limiter.acquire_on_behalf_of_nowait(borrower)
    except anyio.WouldBlock:
        await limiter.acquire_on_behalf_of(borrower)
    lock = threading.Lock()
    state: list[Any] = [_WAITING, None]  # the phase, and how to reach the loop once abandoned

    def release() -> None:
        limiter.release_on_behalf_of(borrower)

    def work() -> Any:
        with lock:
            if state[0] is _GONE:  # the caller gave up before this thread started
                return None
            state[0] = _RUNNING
        try:
            return fn()
        finally:
            with lock:
                abandoned = state[0] is _ABANDONED
                state[0] = _DONE
            if abandoned:
                with suppress(RuntimeError):  # that event loop has already finished
                    state[1](release)

    try:
        return await anyio.to_thread.run_sync(work, abandon_on_cancel=True, limiter=_limiter())
    finally:
        with lock:
            phase = state[0]
            if phase is _RUNNING:  # abandoned: the thread gives the slot back when it ends
                state[0], state[1] = _ABANDONED, threadsafe_scheduler()
            elif phase is _WAITING:
                state[0] = _GONE
        if phase is not _RUNNING:
            release()


def _limiter() -> anyio.CapacityLimiter:
    try:
        return _unbounded.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(math.inf)
        _unbounded.set(limiter)
        return limiter
