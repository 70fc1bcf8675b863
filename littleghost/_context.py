"""``RunContext``: the state, cancellation and deadline one run shares with its tools."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from types import TracebackType
from typing import Any

import anyio

from ._cancellation import CancellationToken
from ._errors import CancelledError, DeadlineExceededError
from ._frozen import freeze

__all__ = ["RunContext"]


class RunContext:
    """What one run carries across its tool calls.

    ``state`` is mutable working state; ``cancellation`` and ``deadline`` (on the
    ``time.monotonic()`` clock) bound every await a tool makes while executing.
    """

    __slots__ = ("cancellation", "deadline", "metadata", "state")

    def __init__(
        self,
        state: dict[str, Any] | None = None,
        cancellation: CancellationToken | None = None,
        deadline: float | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        if deadline is not None and not isinstance(deadline, int | float):
            raise TypeError(f"deadline must be a number or None, not {type(deadline).__name__}")
        if deadline is not None and math.isnan(deadline):
            raise ValueError("deadline must be a time on the time.monotonic() clock, not nan")
        self.state: dict[str, Any] = {} if state is None else state
        self.cancellation = CancellationToken() if cancellation is None else cancellation
        self.deadline: float | None = None if deadline is None else float(deadline)
        self.metadata: Mapping[str, Any] = freeze(metadata or {})

    @classmethod
    def with_timeout(cls, seconds: float, **kwargs: Any) -> RunContext:
        """A context whose deadline is ``seconds`` from now."""
        if not seconds >= 0:
            raise ValueError(f"timeout must be a non-negative number of seconds, not {seconds!r}")
        return cls(deadline=time.monotonic() + seconds, **kwargs)

    def __repr__(self) -> str:
        return (
            f"RunContext(cancelled={self.cancellation.cancelled}, "
            f"remaining_time={self.remaining_time()})"
        )

    def check(self) -> None:
        """Raise ``CancelledError`` or ``DeadlineExceededError`` if the run must stop."""
        self.cancellation.raise_if_cancelled()
        if self._past_deadline():
            raise DeadlineExceededError("The run's deadline has passed")

    def _past_deadline(self) -> bool:
        """Whether the run has a deadline and it has passed."""
        return self.deadline is not None and time.monotonic() >= self.deadline

    def remaining_time(self, maximum: float | None = None) -> float | None:
        """Seconds left before the deadline (never negative), capped at ``maximum``."""
        if self.deadline is None:
            return maximum
        left = max(0.0, self.deadline - time.monotonic())
        return left if maximum is None else min(left, maximum)

    def guard(self) -> Guard:
        """A context manager that stops the awaits inside it when the run must stop."""
        return Guard(self)


class Guard:
    """Cancels its block on cancellation or deadline and raises the matching error.

    Once the guard has cancelled the block, whatever the block did afterwards
    (returned, raised, swallowed the cancellation) the outcome is the
    control-flow error, so tool code cannot turn a cancel into a result.
    """

    __slots__ = ("_context", "_scope", "stopped")

    def __init__(self, context: RunContext) -> None:
        self._context = context
        self.stopped: BaseException | None = None

    def __enter__(self) -> Guard:
        context = self._context
        context.check()
        deadline = math.inf
        if context.deadline is not None:
            deadline = anyio.current_time() + (context.deadline - time.monotonic())
        scope = self._scope = anyio.CancelScope(deadline=deadline)
        scope.__enter__()
        if not context.cancellation._attach(scope):
            scope.cancel()
        return self

    def stop(self, error: BaseException) -> None:
        """End the block early, from its event loop's thread: its outcome is ``error``.

        A limit of the tool's own (an MCP ``call_timeout``) stops the block
        through the scope the guard already holds rather than a scope of its
        own. A stop of the run (cancellation, deadline) still wins.
        """
        if self.stopped is None:
            self.stopped = error
            self._scope.cancel()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        scope = self._scope
        self._context.cancellation._detach(scope)
        swallowed = scope.__exit__(exc_type, exc, traceback)
        if not scope.cancel_called:
            return  # only a cancel of our own can have been swallowed
        outer = exc is not None and not isinstance(exc, Exception) and not scope.cancelled_caught
        if outer and not swallowed:
            return  # an outer cancellation or an interrupt: let it through
        context = self._context
        token = context.cancellation
        if token.cancelled:
            raise CancelledError(token.reason or "The run was cancelled") from exc
        stopped = self.stopped
        if stopped is not None and not context._past_deadline():
            if exc is stopped:
                return  # the block raised it already
            raise stopped from exc
        raise DeadlineExceededError("The run's deadline has passed") from exc
