"""Closing owned resources: once each, newest first, every failure collected."""

from __future__ import annotations

import contextlib
import inspect
import logging
import math
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio
import anyio.lowlevel

from . import instrumentation
from ._errors import CleanupError, ConfigurationError

__all__ = [
    "DEFAULT_CLOSE_TIMEOUT",
    "check_close_timeout",
    "close_after",
    "close_all",
    "close_resource",
    "closer",
]

_logger = logging.getLogger("littleghost")


def closer(resource: object) -> Callable[[], object] | None:
    """``resource.aclose`` (the async close), else ``resource.close`` (sync or async)."""
    for name in ("aclose", "close"):
        method = getattr(resource, name, None)
        if callable(method):
            return method
    return None


async def close_resource(resource: Any) -> None:
    """Call ``resource.aclose()`` or ``resource.close()``; await it when it is awaitable."""
    close = closer(resource)
    if close is None:
        raise TypeError(f"{type(resource).__name__} has no aclose() or close() method")
    outcome = close()
    if inspect.isawaitable(outcome):
        await outcome


DEFAULT_CLOSE_TIMEOUT = 10.0


def check_close_timeout(value: object, owner: str) -> float:
    """``value`` as a close timeout: a positive, finite number of seconds."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
        raise ConfigurationError(f"{owner}.close_timeout must be a positive number of seconds")
    return float(value)


async def close_all(
    resources: Sequence[object], what: str, *, each_within: float = DEFAULT_CLOSE_TIMEOUT
) -> None:
    """Close ``resources`` in reverse order, each shielded from cancellation for at most
    ``each_within`` seconds.

    Every close is attempted, even after one raised a control-flow error
    (that error is re-raised at the end). A close still running after
    ``each_within`` is abandoned and counts as a failure naming the resource.
    If any close failed, ``CleanupError`` lists them all. A cancellation of
    the caller that arrived meanwhile is raised afterwards, with the failures
    as a note.
    """
    failures: list[BaseException] = []
    interrupt: BaseException | None = None
    seen: set[int] = set()
    for resource in reversed(resources):
        if id(resource) in seen:
            continue
        seen.add(id(resource))
        with anyio.CancelScope(shield=True) as scope:
            scope.deadline = anyio.current_time() + each_within
            try:
                await close_resource(resource)
            except anyio.get_cancelled_exc_class():
                raise  # shielded: only the deadline cancels it, and the scope absorbs that
            except Exception as error:
                failures.append(error)
            except BaseException as error:
                interrupt = interrupt or error
        if scope.cancelled_caught:
            failures.append(
                TimeoutError(
                    f"{resource!r} did not close within {each_within:g} s and was abandoned"
                )
            )
    if interrupt is None:
        try:
            await anyio.lowlevel.checkpoint_if_cancelled()
        except BaseException as error:  # the caller's cancel scope was cancelled meanwhile
            interrupt = error
    if interrupt is not None:
        if failures:
            _attach(interrupt, CleanupError.from_failures(what, failures))
        raise interrupt
    if failures:
        raise CleanupError.from_failures(what, failures)


async def close_after(exc: BaseException | None, close: Callable[[], Awaitable[None]]) -> None:
    """Run ``close`` when leaving a block; a failure never hides the block's own exception.

    With no exception in flight, a ``CleanupError`` propagates. While the
    block's exception (a cancellation, say) propagates, a close failure is
    attached to it as a note instead of replacing it.
    """
    try:
        await close()
    except Exception as error:
        if exc is None:
            raise
        exc.add_note(f"While closing: {error}")
        if isinstance(exc, anyio.get_cancelled_exc_class()):
            _report_lost(error)


def _attach(interrupt: BaseException, failure: CleanupError) -> None:
    """Note ``failure`` on the propagating ``interrupt``; for a cancellation, report it too.

    The cancel scope that fired catches its cancellation, notes and all, so a
    close failure riding on one would vanish: it is also logged (logger
    ``littleghost``, warning) and emitted as a ``cleanup`` event.
    """
    interrupt.add_note(str(failure))
    if isinstance(interrupt, anyio.get_cancelled_exc_class()):
        _report_lost(failure)


def _report_lost(failure: Exception) -> None:
    _logger.warning("closing during a cancellation failed: %s", failure)
    # ``measure`` decides the event's outcome and honours record_exception_messages.
    with contextlib.suppress(type(failure)), instrumentation.measure("cleanup"):
        raise failure
