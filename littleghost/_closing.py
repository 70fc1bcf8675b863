"""Closing owned resources: once each, newest first, every failure collected."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio

from .errors import CleanupError

__all__ = ["close_after", "close_all", "close_resource"]


async def close_resource(resource: Any) -> None:
    """Call ``resource.close()`` and await it when it is a coroutine."""
    outcome = resource.close()
    if inspect.isawaitable(outcome):
        await outcome


async def close_all(resources: Sequence[object], what: str) -> None:
    """Close ``resources`` in reverse order, shielded from cancellation.

    Every close is attempted, even after one raised a control-flow error
    (that error is re-raised at the end). Otherwise, if any close failed,
    ``CleanupError`` lists them all.
    """
    failures: list[BaseException] = []
    interrupt: BaseException | None = None
    seen: set[int] = set()
    with anyio.CancelScope(shield=True):
        for resource in reversed(resources):
            if id(resource) in seen:
                continue
            seen.add(id(resource))
            try:
                await close_resource(resource)
            except Exception as error:
                failures.append(error)
            except BaseException as error:
                interrupt = interrupt or error
    if interrupt is not None:
        if failures:
            interrupt.add_note(str(CleanupError.from_failures(what, failures)))
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
