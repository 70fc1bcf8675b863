"""``Watchdog``: stops the tool calls of one connection that outlive ``call_timeout``.

A timer per call (a cancel scope with a deadline) puts an entry in the event
loop's timer heap, which asyncio orders with Python-level comparisons: with a
hundred calls in flight that cost more than the rest of a call's bookkeeping.
Every call of a connection has the same limit, so calls expire in the order
they started, and one task that sleeps until the oldest call's deadline
serves them all.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

import anyio

__all__ = ["Watchdog"]

_TICK = 0.001
"""The shortest sleep: a tiny ``call_timeout`` stops calls up to this late, never spins."""


class Watchdog:
    """Calls ``stop()`` for each watched call still running ``seconds`` after it started."""

    __slots__ = ("_calls", "_keys", "seconds")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        # Watched calls by key, oldest first: (deadline on time.monotonic(), stop).
        self._calls: dict[int, tuple[float, Callable[[], object]]] = {}
        self._keys = itertools.count()

    def watch(self, stop: Callable[[], object]) -> int:
        """Start watching a call; ``forget`` the key it returns when the call ends."""
        key = next(self._keys)
        self._calls[key] = (time.monotonic() + self.seconds, stop)
        return key

    def forget(self, key: int) -> None:
        self._calls.pop(key, None)

    async def run_until(self, done: anyio.Event) -> None:
        """Stop expired calls until ``done`` is set, sleeping in between.

        Runs in the connection's host task, on the loop of every call it
        watches, so ``stop`` runs there too. A call watched while it sleeps
        expires no sooner than the sleep ends, as every call has the same limit.
        """
        while not done.is_set():
            with anyio.move_on_after(max(self._stop_expired(), _TICK)):
                await done.wait()

    def _stop_expired(self) -> float:
        """Stop every call past its deadline; the seconds until the next one."""
        calls = self._calls
        now = time.monotonic()
        while calls:
            key = next(iter(calls))
            deadline, stop = calls[key]
            if deadline > now:
                return deadline - now
            del calls[key]
            stop()
        return self.seconds
