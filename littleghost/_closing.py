"""Closing owned resources: once each, newest first, every failure collected."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import anyio

from .errors import CleanupError

__all__ = ["close_all", "close_resource"]


async def close_resource(resource: Any) -> None:
    """Call ``resource.close()`` and await it when it is a coroutine."""
    outcome = resource.close()
    if inspect.isawaitable(outcome):
        await outcome


async def close_all(resources: Sequence[object], what: str) -> None:
    """Close ``resources`` in reverse order, shielded from cancellation.

    Every close is attempted; if any failed, ``CleanupError`` lists them all.
    """
    failures: list[BaseException] = []
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
    if failures:
        raise CleanupError.from_failures(what, failures)
