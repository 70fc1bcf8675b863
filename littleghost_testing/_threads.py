"""Blocking work of the kit's own, each run in a fresh thread.

The contract checks, the pytest route (``from_target``) and the lock check
all run an event loop of their own from synchronous code, which may itself
be running inside an event loop; each starts that loop in a new thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["in_fresh_thread"]

T = TypeVar("T")


def in_fresh_thread(function: Callable[[], T]) -> T:
    """Call ``function`` in a new thread and return (or raise) what it did.

    A portal started from a thread that runs an event loop inherits that
    loop's context and, on trio, never shuts down; a fresh thread starts
    with an empty context, so the checks also work inside ``async`` code.
    """
    outcome: list[Any] = []

    def target() -> None:
        try:
            outcome.append((True, function()))
        except BaseException as error:
            outcome.append((False, error))

    thread = threading.Thread(target=target, name="littleghost-contracts")
    thread.start()
    thread.join()
    succeeded, value = outcome[0]
    if not succeeded:
        raise value
    return value
