"""A close failure during a cancellation survives the cancel scope that swallows it."""

import logging

import anyio
import pytest

import littleghost as lg

pytestmark = pytest.mark.anyio


class BrokenClose:
    def __init__(self):
        self.closed = False

    async def aclose(self):
        self.closed = True
        raise OSError("the socket would not close")


class Broken(lg.Tool):
    description = "A tool whose close fails."
    input_schema = {"type": "object"}

    def __init__(self, binding=None):
        super().__init__(binding)
        self.resource = BrokenClose()

    def call(self, input):
        return "ok"

    async def aclose(self):
        await self.resource.aclose()


def cleanup_events(events):
    return [event for event in events if event.name == "cleanup"]


async def test_a_run_closed_as_its_scope_is_cancelled_still_reports_the_failure(caplog):
    events = []
    resource = BrokenClose()
    with lg.instrumentation.subscribe(events.append), caplog.at_level(logging.WARNING):
        with anyio.CancelScope() as scope:
            async with lg.Run() as run:
                run.register(resource)
                scope.cancel()
                await anyio.sleep(1)

    assert scope.cancelled_caught and resource.closed
    [event] = cleanup_events(events)
    assert event.payload["outcome"] == "error"
    assert isinstance(event.error, lg.CleanupError)
    assert "the socket would not close" in str(event.error)
    assert "the socket would not close" in caplog.text


async def test_a_registry_closed_after_a_timeout_still_reports_the_failure(caplog):
    events = []
    with lg.instrumentation.subscribe(events.append), caplog.at_level(logging.WARNING):
        with anyio.move_on_after(0.01):
            async with lg.ToolRegistry([Broken]):
                await anyio.sleep(1)

    [event] = cleanup_events(events)
    assert isinstance(event.error, lg.CleanupError)
    assert "the registry's tools" in str(event.error)
    assert "closing during a cancellation failed" in caplog.text


async def test_without_messages_the_event_still_names_the_failure_type():
    events = []
    lg.instrumentation.record_exception_messages(False)
    try:
        with lg.instrumentation.subscribe(events.append), anyio.CancelScope() as scope:
            run = lg.Run()
            run.register(BrokenClose())
            scope.cancel()
            await run.aclose()
    finally:
        lg.instrumentation.record_exception_messages(True)

    [event] = cleanup_events(events)
    assert event.error is None and event.error_type == "littleghost.CleanupError"


async def test_a_failure_with_no_cancellation_is_raised_and_not_evented():
    events = []
    run = lg.Run()
    run.register(BrokenClose())

    with lg.instrumentation.subscribe(events.append), pytest.raises(lg.CleanupError):
        await run.aclose()

    assert cleanup_events(events) == []
