"""Watching one tool instance from outside: its ``call`` and ``close``, and how it stops.

A spy replaces the method on the instance only (never on the class), so the
tool's own ``execute`` -- inherited or overridden -- runs unchanged and
reaches the spy through ``self.call``.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.from_thread

import littleghost as lg

__all__ = [
    "LATE_END_SECONDS",
    "CallSpy",
    "CloseSpy",
    "Stopped",
    "stop_mid_call",
    "stop_real_call",
]

_HANG_RELEASE_SECONDS = 60.0
"""A hanging sync spy's worker thread gives up after this long even if never released."""

LATE_END_SECONDS = 1.0
"""How long a stopped real call that missed ``cancel_within`` is still awaited, to say how it
ended: a call that lost its connection was the server dying, not a stop ignored."""


class CallSpy:
    """Counts ``call`` invocations; instead of calling through, it may hang or raise.

    ``hang=True`` waits (awaiting, or blocking a thread); ``raises`` is
    raised from ``call``, as if the tool itself had failed. Install and
    remove it from inside the event loop that runs the tool.
    """

    def __init__(
        self, tool: lg.Tool, *, hang: bool = False, raises: Exception | None = None
    ) -> None:
        self.tool = tool
        self.calls = 0
        self.hang = hang
        self.raises = raises
        self.entered = anyio.Event()
        self._release = threading.Event()
        original = tool.call
        if inspect.iscoroutinefunction(type(tool).call):

            async def spy_async(input: Any) -> Any:
                self.calls += 1
                if self.raises is not None:
                    raise self.raises
                if not self.hang:
                    return await original(input)
                self.entered.set()
                await anyio.sleep_forever()

            tool.__dict__["call"] = spy_async
        else:

            def spy(input: Any) -> Any:
                self.calls += 1
                if self.raises is not None:
                    raise self.raises
                if not self.hang:
                    return original(input)
                anyio.from_thread.run_sync(self.entered.set)
                self._release.wait(_HANG_RELEASE_SECONDS)
                raise RuntimeError("released by the contract check")

            tool.__dict__["call"] = spy

    def remove(self) -> None:
        self._release.set()
        self.tool.__dict__.pop("call", None)


class CloseSpy:
    """Counts ``close`` calls and forwards each to the tool's own ``close``.

    An async ``close`` still running after ``within`` seconds is cancelled
    and noted in ``timed_out``: the registry closes inside a shielded scope,
    so only a limit set here, inside the shield, can end a hanging close.
    """

    def __init__(self, tool: lg.Tool, *, within: float) -> None:
        self.closes = 0
        self.timed_out = False
        original = tool.close

        async def close() -> None:
            self.closes += 1
            outcome = original()
            if inspect.isawaitable(outcome):
                with anyio.move_on_after(within) as scope:
                    await outcome
                self.timed_out = scope.cancelled_caught

        tool.__dict__["close"] = close


@dataclass(frozen=True, slots=True)
class Stopped:
    """How an ``execute`` that was stopped mid-call ended."""

    entered: bool
    result: lg.ExecutionResult | None = None
    raised: BaseException | None = None
    seconds: float | None = None  # from the stop to the end, when it ended in time

    @property
    def error(self) -> BaseException | None:
        """What the call ended with: the exception raised, or the error result's."""
        return self.raised if self.result is None else self.result.error


async def stop_mid_call(
    tool: lg.Tool,
    input: Any,
    context: lg.RunContext,
    *,
    stop: Callable[[], None] | None,
    within: float,
    entry_timeout: float,
) -> Stopped:
    """Run ``execute`` with a hanging ``call``, stop it once ``call`` is running, time the end.

    ``stop=None`` waits for the context's own deadline instead of cancelling.
    """
    spy = CallSpy(tool, hang=True)
    outcome: dict[str, Any] = {}
    done = anyio.Event()

    seconds: float | None = None
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_execute, tool, input, context, outcome, done)
            with anyio.move_on_after(entry_timeout):
                await _first(spy.entered.wait, done.wait)
            if spy.entered.is_set():
                seconds = await _stop_and_time(stop, within, done)
            group.cancel_scope.cancel()  # whatever still runs is past its time
    finally:
        spy.remove()
    if not spy.entered.is_set():
        return Stopped(entered=False, **outcome)
    if seconds is None:
        return Stopped(entered=True)
    return Stopped(entered=True, seconds=seconds, **outcome)


async def _execute(
    tool: lg.Tool, input: Any, context: lg.RunContext, outcome: dict[str, Any], done: anyio.Event
) -> None:
    """Run ``execute``; keep its result, or what it raised, in ``outcome``."""
    try:
        outcome["result"] = await tool.execute(input, context=context)
    except (Exception, lg.CancelledError, lg.DeadlineExceededError) as error:
        outcome["raised"] = error
    finally:
        done.set()


async def _stop_and_time(
    stop: Callable[[], None] | None, within: float, done: anyio.Event
) -> float | None:
    """Stop the call (``None``: its deadline does); the seconds ``execute`` then took to end,
    or None if it was still running ``within`` seconds later."""
    started = anyio.current_time()
    if stop is not None:
        stop()
    with anyio.move_on_after(within):
        await done.wait()
    return anyio.current_time() - started if done.is_set() else None


async def stop_real_call(
    tool: lg.Tool,
    input: Any,
    context: lg.RunContext,
    *,
    stop: Callable[[], None] | None,
    after: float,
    within: float,
) -> Stopped:
    """Run ``execute`` with the tool's own ``call``, stop it ``after`` seconds in, time the end.

    ``stop=None`` relies on the context's own deadline (due ``after`` seconds
    in). ``seconds`` is ``None`` when ``execute`` was still running ``within``
    seconds after the stop (how it ended, if it did within ``LATE_END_SECONDS``
    more, is kept); a call that finished before the stop counts as stopped at once.
    """
    outcome: dict[str, Any] = {}
    done = anyio.Event()

    seconds: float | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(_execute, tool, input, context, outcome, done)
        await anyio.sleep(after)
        seconds = await _stop_and_time(stop, within, done)
        if seconds is None:
            with anyio.move_on_after(LATE_END_SECONDS):
                await done.wait()
        group.cancel_scope.cancel()  # whatever still runs is past its time
    return Stopped(entered=True, seconds=seconds, **outcome)


async def _first(*waits: Callable[[], Any]) -> None:
    """Return as soon as any of ``waits`` returns."""
    async with anyio.create_task_group() as group:

        async def one(wait: Callable[[], Any]) -> None:
            await wait()
            group.cancel_scope.cancel()

        for wait in waits:
            group.start_soon(one, wait)
