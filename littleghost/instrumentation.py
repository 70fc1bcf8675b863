"""Events about tool calls and MCP traffic, for logging, metrics and tests.

``subscribe(callback)`` receives an ``Event`` after each instrumented
operation; its payload's ``outcome`` says how the operation ended
(``OUTCOMES``). When an OpenTelemetry tracer provider is configured, the same
operations are also recorded as spans; with no subscribers and no provider,
instrumentation costs a couple of attribute reads.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import MappingProxyType, TracebackType
from typing import Any, Literal

import anyio
from opentelemetry import trace

from ._context import RunContext
from ._errors import CancelledError, DeadlineExceededError

__all__ = [
    "OUTCOMES",
    "Event",
    "Outcome",
    "Subscription",
    "outcome",
    "record_exception_messages",
    "subscribe",
]

Outcome = Literal["success", "error", "cancelled", "deadline_exceeded"]
# Every value of an event's ``outcome``: one word for each way an operation ends.
OUTCOMES: tuple[Outcome, ...] = ("success", "error", "cancelled", "deadline_exceeded")

_logger = logging.getLogger("littleghost.instrumentation")
_tracer = trace.get_tracer("littleghost")
_lock = threading.Lock()
_subscribers: tuple[Callable[[Event], object], ...] = ()
# Exception messages may hold secrets (a URL with a password, a query); operators
# can keep them out of events and spans, leaving only the exception's type.
_exception_messages = True


@dataclass(frozen=True, slots=True)
class Event:
    """One instrumented operation: what, with which details, how long, and how it failed."""

    name: str
    payload: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    duration: float | None = None
    # The exception itself, message and all; None when messages are not recorded.
    error: BaseException | None = None
    # The exception's qualified type name, always recorded when the operation raised.
    error_type: str | None = None


class Subscription:
    """A registered callback; ``unsubscribe()`` or leaving the ``with`` block removes it."""

    __slots__ = ("_callback",)

    def __init__(self, callback: Callable[[Event], object]) -> None:
        self._callback = callback

    def unsubscribe(self) -> None:
        global _subscribers
        with _lock:
            remaining = list(_subscribers)
            if self._callback in remaining:
                remaining.remove(self._callback)
            _subscribers = tuple(remaining)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.unsubscribe()


def subscribe(callback: Callable[[Event], object]) -> Subscription:
    """Call ``callback`` with every event from now on, from whichever thread emits it."""
    global _subscribers
    if not callable(callback):
        raise TypeError(f"callback must be callable, not {type(callback).__name__}")
    with _lock:
        _subscribers = (*_subscribers, callback)
    return Subscription(callback)


def active() -> bool:
    """Whether anything listens: subscribers or a configured tracer provider."""
    return bool(_subscribers) or _tracing()


def record_exception_messages(enabled: bool) -> None:
    """Whether events and spans record exception messages (the default) or types only.

    With ``False``, ``Event.error`` is None (``Event.error_type`` still names the
    type) and span exception events carry ``exception.type`` alone.
    """
    global _exception_messages
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled must be a bool, not {type(enabled).__name__}")
    _exception_messages = enabled


def emit(event: Event) -> None:
    """Deliver ``event``; a failing subscriber is logged, never raised into tool code.

    Whatever it raises: a cancellation or ``KeyboardInterrupt`` from a
    subscriber belongs to the subscriber, not to the tool call it observed.
    """
    for callback in _subscribers:
        try:
            callback(event)
        except BaseException:
            _logger.exception("instrumentation subscriber %r failed", callback)


def outcome(error: BaseException | None, context: RunContext | None = None) -> Outcome:
    """How an operation that raised ``error`` (None: returned) ended.

    ``lg.DeadlineExceededError`` is ``deadline_exceeded``; ``lg.CancelledError``
    and the event loop's cancellation are ``cancelled``; any other exception is
    ``error``. Inside a run's guard the loop's cancellation may be the run's
    deadline or its token: ``context`` (the run's) tells which, by the rule of
    ``RunContext.check``.
    """
    if error is None:
        return "success"
    if context is not None and isinstance(error, anyio.get_cancelled_exc_class()):
        try:
            context.check()
        except (CancelledError, DeadlineExceededError) as stop:
            error = stop
    if isinstance(error, DeadlineExceededError):
        return "deadline_exceeded"
    if isinstance(error, CancelledError | anyio.get_cancelled_exc_class()):
        return "cancelled"
    return "error"


class Measurement:
    """Payload that an instrumented block fills in before its event is emitted."""

    __slots__ = ("payload",)

    def __init__(self, payload: dict[str, Any]) -> None:
        self.payload = payload

    def failed(self) -> None:
        """The block returns, but what it returns is a failure (an error result)."""
        self.payload["outcome"] = "error"


@contextmanager
def measure(
    name: str, /, context: RunContext | None = None, **payload: Any
) -> Iterator[Measurement]:
    """Time the block, then emit ``name`` (and end its span) with the payload it set.

    The payload's ``outcome`` is set here, the one place that decides it:
    ``success`` unless the block called ``failed()``, or ``outcome(error, context)``
    when the block raised.
    """
    measurement = Measurement(payload)
    started = time.perf_counter()
    span = _tracer.start_span(f"littleghost.{name}") if _tracing() else None
    error: BaseException | None = None
    try:
        yield measurement
    except BaseException as exc:
        error = exc
        raise
    finally:
        duration = time.perf_counter() - started
        if error is not None:
            measurement.payload["outcome"] = outcome(error, context)
        else:
            measurement.payload.setdefault("outcome", "success")
        if span is not None:
            for key, value in measurement.payload.items():
                if isinstance(value, str | bool | int | float):
                    span.set_attribute(f"littleghost.{key}", value)
            if error is not None:
                if _exception_messages:
                    span.record_exception(error)
                else:
                    span.add_event("exception", {"exception.type": _type_name(error)})
                span.set_status(trace.Status(trace.StatusCode.ERROR, type(error).__name__))
            span.end()
        recorded = MappingProxyType(dict(measurement.payload))
        if error is None:
            emit(Event(name, recorded, duration))
        else:
            shown = error if _exception_messages else None
            emit(Event(name, recorded, duration, shown, _type_name(error)))


def _type_name(error: BaseException) -> str:
    kind = type(error)
    return (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )


def _tracing() -> bool:
    """Whether a tracer provider is set: OpenTelemetry sets its global at most once.

    ``trace.get_tracer_provider()`` would look the environment up on every call
    until then, costing more than the rest of a tool call's bookkeeping. A
    provider that ``OTEL_PYTHON_TRACER_PROVIDER`` names was loaded when this
    module asked for its tracer, as OpenTelemetry loads it on first use. An
    OpenTelemetry without that global gets the public, slower question.
    """
    provider = getattr(trace, "_TRACER_PROVIDER", _NO_GLOBAL)
    if provider is _NO_GLOBAL:
        return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
    return provider is not None


_NO_GLOBAL = object()
