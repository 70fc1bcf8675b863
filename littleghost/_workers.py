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

from .cancellation import threadsafe_scheduler

__all__ = ["run_in_worker"]

# anyio's own limiter is bypassed: the default limiter's slot is held by the call instead.
_unbounded: anyio.lowlevel.RunVar[anyio.CapacityLimiter] = anyio.lowlevel.RunVar(
    "littleghost_unbounded_threads"
)

_WAITING, _RUNNING, _GONE = "waiting", "running", "gone"


async def run_in_worker(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` in a worker thread; on cancellation return at once, abandoning it."""
    limiter = anyio.to_thread.current_default_thread_limiter()
    borrower = object()
    await limiter.acquire_on_behalf_of(borrower)
    schedule = threadsafe_scheduler()
    lock = threading.Lock()
    phase = [_WAITING]

    def release() -> None:
        limiter.release_on_behalf_of(borrower)

    def work() -> Any:
        with lock:
            if phase[0] is _GONE:  # the caller gave up before this thread started
                return None
            phase[0] = _RUNNING
        try:
            return fn()
        finally:
            with suppress(RuntimeError):  # that event loop has already finished
                schedule(release)

    try:
        return await anyio.to_thread.run_sync(work, abandon_on_cancel=True, limiter=_limiter())
    finally:
        with lock:
            never_started = phase[0] is _WAITING
            if never_started:
                phase[0] = _GONE
        if never_started:
            release()


def _limiter() -> anyio.CapacityLimiter:
    try:
        return _unbounded.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(math.inf)
        _unbounded.set(limiter)
        return limiter
