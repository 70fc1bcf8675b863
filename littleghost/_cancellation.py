"""``CancellationToken``: a thread-safe, one-shot cancel signal for a run."""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from contextlib import suppress
from typing import Any

import anyio
import anyio.lowlevel

from ._errors import CancelledError

__all__ = ["CancellationToken"]

_Schedule = Callable[[Callable[[], object]], object]
_Listener = tuple[int, _Schedule, Callable[[], object]]


class CancellationToken:
    """Cancels a run from any thread; async code observes it through ``wait()``.

    Listeners registered by waiting code are woken on their own event loop's
    thread, so ``cancel()`` never blocks and is safe from threads, signal
    handlers of other loops, or the loop itself.
    """

    __slots__ = ("_cancelled", "_listeners", "_lock", "_reason", "_scopes")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._reason: str | None = None
        self._listeners: dict[object, _Listener] = {}
        # Attached cancel scopes, one set per event loop (keyed by how to reach it).
        self._scopes: dict[_Schedule, tuple[int, set[anyio.CancelScope]]] = {}

    def __repr__(self) -> str:
        state = f"cancelled, reason={self._reason!r}" if self._cancelled else "active"
        return f"<CancellationToken {state}>"

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    @property
    def reason(self) -> str | None:
        return self._reason

    def cancel(self, reason: str | None = None) -> None:
        """Cancel once; later calls change nothing (the first reason wins)."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            self._reason = reason
            listeners = list(self._listeners.values())
            self._listeners.clear()
            # Copies taken at once (under the GIL): loops detach without the lock.
            for schedule, (thread_id, scopes) in list(self._scopes.items()):
                listeners.append((thread_id, schedule, functools.partial(_cancel_all, [*scopes])))
            self._scopes.clear()
        here = threading.get_ident()
        for thread_id, schedule, callback in listeners:
            if thread_id == here:
                callback()
            else:
                with suppress(RuntimeError):  # that event loop has already finished
                    schedule(callback)

    def raise_if_cancelled(self) -> None:
        if self._cancelled:
            raise CancelledError(self._reason or "The run was cancelled")

    async def wait(self) -> None:
        """Return once the token is cancelled."""
        if self._cancelled:
            return
        event = anyio.Event()
        remove = self.listen(event.set)
        try:
            await event.wait()
        finally:
            remove()

    def listen(self, callback: Callable[[], object]) -> Callable[[], None]:
        """Run ``callback`` on the calling event loop's thread when cancelled.

        Returns a function that removes the listener. If the token is already
        cancelled, ``callback`` runs at once.
        """
        schedule = threadsafe_scheduler()
        key = object()
        with self._lock:
            if not self._cancelled:
                self._listeners[key] = (threading.get_ident(), schedule, callback)
                return lambda: self._forget(key)
        callback()
        return _nothing

    def _attach(self, scope: anyio.CancelScope) -> bool:
        """Cancel ``scope`` on its event loop's thread when the token is cancelled.

        ``False`` if the token already is (``scope`` is then left alone). Every
        guarded tool call attaches its scope, so this costs a set insertion,
        not a listener: one set per event loop. ``_detach`` it when it exits.
        """
        if self._cancelled:
            return False
        schedule = threadsafe_scheduler()
        attached = self._scopes.get(schedule)
        if attached is None:
            attached = self._scopes.setdefault(schedule, (threading.get_ident(), set()))
        attached[1].add(scope)
        if self._cancelled:  # cancel() may have taken the sets before ours was in one
            self._detach(scope)
            return False
        return True

    def _detach(self, scope: anyio.CancelScope) -> None:
        """Stop watching ``scope``; from the thread that attached it."""
        schedule = threadsafe_scheduler()
        attached = self._scopes.get(schedule)
        if attached is not None:
            attached[1].discard(scope)
            if not attached[1]:
                self._scopes.pop(schedule, None)

    def _forget(self, key: object) -> None:
        with self._lock:
            self._listeners.pop(key, None)


def _nothing() -> None:
    return None


def _cancel_all(scopes: list[anyio.CancelScope]) -> None:
    for scope in scopes:
        scope.cancel()


def threadsafe_scheduler() -> Callable[[Callable[[], object]], object]:
    """How another thread hands a callback to the running event loop.

    ``asyncio.get_running_loop()`` is checked first because it is ~10x cheaper
    than anyio's backend detection, and this runs on every guarded tool call.
    """
    try:
        return asyncio.get_running_loop().call_soon_threadsafe
    except RuntimeError:
        native: Any = anyio.lowlevel.current_token().native_token
        return native.run_sync_soon  # a trio token
