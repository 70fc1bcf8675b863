"""Telemetry never reaches tool code, and can keep exception messages out (issue 7, item 14).

A subscriber raising anything (``KeyboardInterrupt``, a cancellation) is
logged and ignored. ``record_exception_messages(False)`` leaves events and
spans with exception types only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest

import littleghost as lg
from littleghost import instrumentation
from littleghost_testing import ResourceSnapshot
from tests.core.test_instrumentation import RecordingTracerProvider, tracer_provider

from .released import released

pytestmark = pytest.mark.anyio
__all__ = ["released", "tracer_provider"]  # fixtures: used by name, released autouse

SECRET = "postgres://admin:hunter2@db/orders"


class Leaky(lg.Tool):
    tool_name = "telemetry_leaky"
    description = "Fails with a secret in its message."

    async def call(self, input: Any) -> Any:
        if input.get("raise"):
            raise lg.DeadlineExceededError(SECRET)
        raise RuntimeError(SECRET)


class Fine(lg.Tool):
    tool_name = "telemetry_fine"
    description = "Succeeds."

    async def call(self, input: Any) -> Any:
        await anyio.lowlevel.checkpoint()
        return "fine"


@pytest.fixture
def types_only() -> Iterator[None]:
    instrumentation.record_exception_messages(False)
    try:
        yield
    finally:
        instrumentation.record_exception_messages(True)


def raising(error: BaseException) -> Callable[[instrumentation.Event], None]:
    def subscriber(event: instrumentation.Event) -> None:
        raise error

    return subscriber


@pytest.mark.parametrize(
    "error",
    [KeyboardInterrupt(), SystemExit(3), lg.CancelledError("subscriber"), RuntimeError("x")],
    ids=["KeyboardInterrupt", "SystemExit", "lg.CancelledError", "RuntimeError"],
)
async def test_whatever_a_subscriber_raises_never_reaches_the_tool(
    error: BaseException,
    caplog: pytest.LogCaptureFixture,
    lg_leaks: Callable[..., ResourceSnapshot],
) -> None:
    snapshot = lg_leaks()
    with (
        caplog.at_level(logging.ERROR, "littleghost.instrumentation"),
        instrumentation.subscribe(raising(error)),
    ):
        result = await Fine().execute({})
    assert result.content == "fine"
    assert "subscriber" in caplog.text and type(error).__name__ in caplog.text
    await snapshot.assert_released()


async def test_a_subscriber_raising_the_loops_cancellation_never_reaches_the_tool() -> None:
    cancelled = anyio.get_cancelled_exc_class()
    with instrumentation.subscribe(raising(cancelled.__new__(cancelled))):
        assert (await Fine().execute({})).content == "fine"
        await anyio.lowlevel.checkpoint()  # and the loop holds no stray cancellation


async def test_messages_are_recorded_by_default(tracer_provider: RecordingTracerProvider) -> None:
    events: list[instrumentation.Event] = []
    with instrumentation.subscribe(events.append):
        result = await Leaky().execute({})
        with pytest.raises(lg.DeadlineExceededError):
            await Leaky().execute({"raise": True})
    assert result.is_error and SECRET not in result.content
    assert (
        str(events[1].error) == SECRET
        and events[1].error_type == "littleghost.DeadlineExceededError"
    )
    (span,) = [s for s in tracer_provider.spans if s.exceptions]
    assert str(span.exceptions[0]) == SECRET


async def test_types_only_keeps_messages_out_of_events_and_spans(
    types_only: None, tracer_provider: RecordingTracerProvider
) -> None:
    events: list[instrumentation.Event] = []
    with instrumentation.subscribe(events.append), pytest.raises(lg.DeadlineExceededError):
        await Leaky().execute({"raise": True})
    (event,) = events
    assert event.error is None
    assert event.error_type == "littleghost.DeadlineExceededError"
    assert SECRET not in repr(event)
    (span,) = tracer_provider.spans
    assert span.exceptions == []
    assert span.events == [("exception", {"exception.type": event.error_type})]


def test_the_switch_takes_a_bool() -> None:
    with pytest.raises(TypeError, match="bool"):
        instrumentation.record_exception_messages("no")  # type: ignore[arg-type]
