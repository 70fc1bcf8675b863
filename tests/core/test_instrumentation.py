"""Instrumentation: ``tool_call`` events for subscribers, and OpenTelemetry spans.

Unhappy paths first: failing subscribers, cancellation and deadlines, events
after unsubscribing. opentelemetry-sdk is not installed, so the span tests use a
small recording TracerProvider written against the opentelemetry-api
interfaces and installed as the global provider for one test at a time.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from opentelemetry import trace
from opentelemetry.environment_variables import OTEL_PYTHON_TRACER_PROVIDER
from opentelemetry.util._once import Once

import littleghost as lg
from littleghost import instrumentation

pytestmark = pytest.mark.anyio


class Echo(lg.Tool):
    tool_name = "ins_echo"
    description = "Echo the text after a short sleep."
    input_schema = {
        "type": "object",
        "properties": {"text": {"type": "string"}, "sleep": {"type": "number"}},
        "required": ["text"],
    }

    async def call(self, input: Any) -> Any:
        await anyio.sleep(input.get("sleep", 0))
        return input["text"]


class Refuse(lg.Tool):
    tool_name = "ins_refuse"
    description = "Always refuses."

    def call(self, input: Any) -> Any:
        raise lg.ToolError("not allowed")


class Crash(lg.Tool):
    tool_name = "ins_crash"
    description = "Fails unexpectedly."

    async def call(self, input: Any) -> Any:
        raise RuntimeError("secret detail")


class Hang(lg.Tool):
    tool_name = "ins_hang"
    description = "Waits until stopped."

    async def call(self, input: Any) -> Any:
        await anyio.sleep(10)


MINE = {"ins_echo", "ins_refuse", "ins_crash", "ins_hang", "ins_cleanup"}


@pytest.fixture
def events() -> Iterator[list[instrumentation.Event]]:
    """The ``tool_call`` events of this module's tools, in arrival order."""
    received: list[instrumentation.Event] = []

    def record(event: instrumentation.Event) -> None:
        if event.name == "tool_call" and event.payload.get("tool") in MINE:
            received.append(event)

    with instrumentation.subscribe(record):
        yield received


# -- subscribers that fail, and what stops delivery --------------------------------------


async def test_a_failing_subscriber_is_logged_and_changes_nothing(
    events: list[instrumentation.Event], caplog: pytest.LogCaptureFixture
) -> None:
    def broken(event: instrumentation.Event) -> None:
        raise ValueError("subscriber bug")

    later: list[instrumentation.Event] = []
    with (
        caplog.at_level(logging.ERROR, logger="littleghost.instrumentation"),
        instrumentation.subscribe(broken),
        instrumentation.subscribe(later.append),
    ):
        result = await Echo().execute({"text": "hi"}, context=lg.RunContext())
        refused = await Refuse().execute({})
    assert result.is_success and result.value == "hi" and result.content == "hi"
    assert refused.is_error and refused.content == "not allowed"
    # Every other subscriber still got both events.
    assert [event.payload["outcome"] for event in events] == ["success", "error"]
    assert [event.payload["tool"] for event in later if event.payload.get("tool") in MINE] == [
        "ins_echo",
        "ins_refuse",
    ]
    failures = [r for r in caplog.records if r.name == "littleghost.instrumentation"]
    assert len(failures) == 2
    assert all(r.levelno == logging.ERROR for r in failures)
    assert all(r.exc_info is not None and r.exc_info[0] is ValueError for r in failures)


def test_subscribe_needs_a_callable() -> None:
    with pytest.raises(TypeError, match="callable"):
        instrumentation.subscribe("print")  # type: ignore[arg-type]


async def test_unsubscribe_stops_delivery() -> None:
    received: list[instrumentation.Event] = []
    subscription = instrumentation.subscribe(received.append)
    await Echo().execute({"text": "one"})
    subscription.unsubscribe()
    subscription.unsubscribe()  # a second unsubscribe is harmless
    await Echo().execute({"text": "two"})
    assert [event.payload["tool"] for event in received] == ["ins_echo"]


async def test_leaving_the_with_block_stops_delivery() -> None:
    received: list[instrumentation.Event] = []
    with instrumentation.subscribe(received.append) as subscription:
        assert isinstance(subscription, instrumentation.Subscription)
        await Echo().execute({"text": "inside"})
    await Echo().execute({"text": "outside"})
    assert len(received) == 1


async def test_leaving_the_with_block_by_an_exception_stops_delivery() -> None:
    received: list[instrumentation.Event] = []
    with pytest.raises(KeyError), instrumentation.subscribe(received.append):
        raise KeyError("body")
    await Echo().execute({"text": "after"})
    assert received == []


async def test_one_callback_subscribed_twice_is_delivered_twice_until_each_unsubscribes() -> None:
    received: list[instrumentation.Event] = []
    first = instrumentation.subscribe(received.append)
    second = instrumentation.subscribe(received.append)
    await Echo().execute({"text": "x"})
    assert len(received) == 2
    first.unsubscribe()
    await Echo().execute({"text": "x"})
    assert len(received) == 3
    second.unsubscribe()
    await Echo().execute({"text": "x"})
    assert len(received) == 3


# -- statuses ---------------------------------------------------------------------------


async def test_a_cancelled_call_reports_cancelled_with_the_error(
    events: list[instrumentation.Event],
) -> None:
    context = lg.RunContext()

    async def cancel_soon() -> None:
        await anyio.sleep(0.05)
        context.cancellation.cancel("stop")

    async with anyio.create_task_group() as group:
        group.start_soon(cancel_soon)
        with pytest.raises(lg.CancelledError):
            await Hang().execute({}, context=context)
    (event,) = events
    assert event.payload == {"tool": "ins_hang", "outcome": "cancelled"}
    assert isinstance(event.error, lg.CancelledError)
    assert event.duration is not None and 0.04 <= event.duration < 5


async def test_an_already_cancelled_context_reports_cancelled(
    events: list[instrumentation.Event],
) -> None:
    context = lg.RunContext()
    context.cancellation.cancel()
    with pytest.raises(lg.CancelledError):
        await Echo().execute({"text": "never"}, context=context)
    assert [event.payload["outcome"] for event in events] == ["cancelled"]


async def test_a_passed_deadline_reports_deadline_exceeded(
    events: list[instrumentation.Event],
) -> None:
    with pytest.raises(lg.DeadlineExceededError):
        await Hang().execute({}, context=lg.RunContext.with_timeout(0.02))
    (event,) = events
    assert event.payload == {"tool": "ins_hang", "outcome": "deadline_exceeded"}
    assert isinstance(event.error, lg.DeadlineExceededError)


@pytest.mark.parametrize(
    ("tool", "input"),
    [(Refuse, {}), (Crash, {}), (Echo, {"text": 1}), (Echo, ["not", "an", "object"])],
    ids=["tool-error", "unexpected", "invalid-field", "invalid-type"],
)
async def test_error_results_report_error(
    events: list[instrumentation.Event], tool: type[lg.Tool], input: Any
) -> None:
    result = await tool().execute(input)
    assert result.is_error
    (event,) = events
    assert event.name == "tool_call"
    assert event.payload == {"tool": tool.tool_name, "outcome": "error"}
    assert event.error is None  # an error result is an outcome, not a raised exception
    assert "secret detail" not in repr(event.payload)


async def test_a_raised_cleanup_error_reports_error_with_the_exception(
    events: list[instrumentation.Event],
) -> None:
    class CleanupFails(lg.Tool):
        tool_name = "ins_cleanup"
        description = "Its cleanup fails, which propagates."

        async def call(self, input: Any) -> Any:
            raise lg.CleanupError("closing failed", [OSError("disk")])

    with pytest.raises(lg.CleanupError):
        await CleanupFails().execute({})
    (event,) = events
    assert event.payload == {"tool": "ins_cleanup", "outcome": "error"}
    assert isinstance(event.error, lg.CleanupError)


async def test_outcome_names_each_way_an_operation_ends() -> None:
    assert instrumentation.OUTCOMES == ("success", "error", "cancelled", "deadline_exceeded")
    expired = lg.RunContext(deadline=time.monotonic() - 1)
    stopped = lg.RunContext(deadline=time.monotonic() - 1)
    stopped.cancellation.cancel("user left")
    assert instrumentation.outcome(None) == "success"
    assert instrumentation.outcome(RuntimeError("x")) == "error"
    assert instrumentation.outcome(lg.DeadlineExceededError("late")) == "deadline_exceeded"
    assert instrumentation.outcome(lg.CancelledError("stop")) == "cancelled"
    assert instrumentation.outcome(lg.CancelledError("stop"), expired) == "cancelled"
    by_context: list[str] = []
    with anyio.CancelScope() as scope:
        scope.cancel()
        try:
            await anyio.sleep(1)
        except anyio.get_cancelled_exc_class() as loop_cancel:  # the event loop's own
            for context in (None, lg.RunContext(), expired, stopped):
                by_context.append(instrumentation.outcome(loop_cancel, context))
            raise
    # an outer cancel either way; the run's deadline; the token comes first
    assert by_context == ["cancelled", "cancelled", "deadline_exceeded", "cancelled"]


async def test_a_successful_call_reports_success_and_its_duration(
    events: list[instrumentation.Event],
) -> None:
    started = time.perf_counter()
    result = await Echo().execute({"text": "hello", "sleep": 0.03}, context=lg.RunContext())
    elapsed = time.perf_counter() - started
    assert result.value == "hello"
    (event,) = events
    assert event.name == "tool_call"
    assert event.payload == {"tool": "ins_echo", "outcome": "success"}
    assert event.error is None
    assert isinstance(event.duration, float)
    assert 0.03 <= event.duration <= elapsed
    with pytest.raises(TypeError):
        event.payload["outcome"] = "error"  # type: ignore[index]


async def test_registry_calls_are_reported(events: list[instrumentation.Event]) -> None:
    async with lg.ToolRegistry([Echo, Refuse]) as registry:
        await registry.call("ins_echo", {"text": "a"})
        await registry.call("ins_refuse", {})
    assert [(e.payload["tool"], e.payload["outcome"]) for e in events] == [
        ("ins_echo", "success"),
        ("ins_refuse", "error"),
    ]


async def test_events_from_concurrent_calls_all_arrive(
    events: list[instrumentation.Event],
) -> None:
    async with lg.ToolRegistry([Echo, Refuse]) as registry:

        async def one(i: int) -> None:
            if i % 3 == 0:
                await registry.call("ins_refuse", {}, context=lg.RunContext())
            else:
                await registry.call("ins_echo", {"text": str(i), "sleep": 0.01 * (i % 4)})

        async with anyio.create_task_group() as group:
            for i in range(60):
                group.start_soon(one, i)

    assert len(events) == 60
    statuses = [(e.payload["tool"], e.payload["outcome"]) for e in events]
    assert statuses.count(("ins_refuse", "error")) == 20
    assert statuses.count(("ins_echo", "success")) == 40
    assert all(e.duration is not None and e.duration >= 0 for e in events)


def test_active_only_with_a_listener() -> None:
    assert trace.get_tracer_provider() is trace._PROXY_TRACER_PROVIDER
    if not instrumentation._subscribers:  # nothing else in this process listens
        assert not instrumentation.active()
    with instrumentation.subscribe(lambda event: None):
        assert instrumentation.active()


# -- OpenTelemetry spans ------------------------------------------------------------------


class RecordingSpan(trace.NonRecordingSpan):
    """A span that keeps what instrumentation tells it."""

    def __init__(self, name: str, attributes: Any = None) -> None:
        super().__init__(trace.INVALID_SPAN_CONTEXT)
        self.name = name
        self.attributes: dict[str, Any] = dict(attributes or {})
        self.status: trace.Status | None = None
        self.exceptions: list[BaseException] = []
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.ends = 0

    def is_recording(self) -> bool:
        return self.ends == 0

    def set_attribute(self, key: str, value: Any) -> None:
        self.attributes[key] = value

    def set_attributes(self, attributes: Any) -> None:
        self.attributes.update(attributes)

    def set_status(self, status: Any, description: str | None = None) -> None:
        self.status = (
            status if isinstance(status, trace.Status) else trace.Status(status, description)
        )

    def record_exception(
        self,
        exception: BaseException,
        attributes: Any = None,
        timestamp: int | None = None,
        escaped: bool = False,
    ) -> None:
        self.exceptions.append(exception)

    def add_event(self, name: str, attributes: Any = None, timestamp: int | None = None) -> None:
        self.events.append((name, dict(attributes or {})))

    def end(self, end_time: int | None = None) -> None:
        self.ends += 1


class RecordingTracer(trace.Tracer):
    def __init__(self, provider: RecordingTracerProvider) -> None:
        self.provider = provider

    def start_span(
        self,
        name: str,
        context: Any = None,
        kind: trace.SpanKind = trace.SpanKind.INTERNAL,
        attributes: Any = None,
        links: Any = None,
        start_time: int | None = None,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
    ) -> trace.Span:
        span = RecordingSpan(name, attributes)
        self.provider.spans.append(span)
        return span

    @contextlib.contextmanager
    def start_as_current_span(  # type: ignore[override]
        self, name: str, *args: Any, end_on_exit: bool = True, **kwargs: Any
    ) -> Iterator[trace.Span]:
        span = self.start_span(name, *args, **kwargs)
        with trace.use_span(span, end_on_exit=end_on_exit) as current:
            yield current


class RecordingTracerProvider(trace.TracerProvider):
    def __init__(self) -> None:
        self.spans: list[RecordingSpan] = []
        self.tracers: list[str] = []

    def get_tracer(
        self,
        instrumenting_module_name: str,
        instrumenting_library_version: str | None = None,
        schema_url: str | None = None,
        attributes: Any = None,
    ) -> trace.Tracer:
        self.tracers.append(instrumenting_module_name)
        return RecordingTracer(self)

    def tool_spans(self) -> list[RecordingSpan]:
        return [span for span in self.spans if span.attributes.get("littleghost.tool") in MINE]


@pytest.fixture
def tracer_provider() -> Iterator[RecordingTracerProvider]:
    """Install a recording provider as the global one, as ``set_tracer_provider`` does.

    ``set_tracer_provider`` works once per process (a ``Once`` guards it), so the
    test swaps in a fresh ``Once`` and restores the previous provider, guard and
    littleghost's resolved tracer afterwards. littleghost's module-level tracer is
    a ``ProxyTracer`` that resolves against the global provider on first use and
    then caches the result; the cache is cleared so that it resolves to ours.
    """
    assert OTEL_PYTHON_TRACER_PROVIDER not in os.environ
    provider = RecordingTracerProvider()
    saved_provider, saved_once = trace._TRACER_PROVIDER, trace._TRACER_PROVIDER_SET_ONCE
    saved_tracer = instrumentation._tracer
    proxy = saved_tracer if isinstance(saved_tracer, trace.ProxyTracer) else None
    saved_real = proxy._real_tracer if proxy is not None else None
    trace._TRACER_PROVIDER_SET_ONCE = Once()
    trace._TRACER_PROVIDER = None
    try:
        trace.set_tracer_provider(provider)
        assert trace.get_tracer_provider() is provider
        if proxy is not None:
            proxy._real_tracer = None
        else:  # a provider was configured before littleghost was imported
            instrumentation._tracer = trace.get_tracer("littleghost")
        yield provider
    finally:
        trace._TRACER_PROVIDER = saved_provider
        trace._TRACER_PROVIDER_SET_ONCE = saved_once
        instrumentation._tracer = saved_tracer
        if proxy is not None:
            proxy._real_tracer = saved_real
    assert trace.get_tracer_provider() is (saved_provider or trace._PROXY_TRACER_PROVIDER)


async def test_a_cancelled_call_records_an_error_span(
    tracer_provider: RecordingTracerProvider,
) -> None:
    context = lg.RunContext()
    context.cancellation.cancel("stop")
    with pytest.raises(lg.CancelledError):
        await Hang().execute({}, context=context)
    (span,) = tracer_provider.tool_spans()
    assert span.name == "littleghost.tool_call"
    assert span.attributes == {"littleghost.tool": "ins_hang", "littleghost.outcome": "cancelled"}
    assert span.status is not None and span.status.status_code is trace.StatusCode.ERROR
    assert [type(error) for error in span.exceptions] == [lg.CancelledError]
    assert span.ends == 1


async def test_a_deadline_records_an_error_span(tracer_provider: RecordingTracerProvider) -> None:
    with pytest.raises(lg.DeadlineExceededError):
        await Hang().execute({}, context=lg.RunContext.with_timeout(0.01))
    (span,) = tracer_provider.tool_spans()
    assert span.attributes["littleghost.outcome"] == "deadline_exceeded"
    assert span.status is not None and span.status.status_code is trace.StatusCode.ERROR
    assert span.ends == 1


async def test_spans_are_recorded_when_a_tracer_provider_is_configured(
    tracer_provider: RecordingTracerProvider,
) -> None:
    assert instrumentation.active()  # a provider alone is enough
    ok = await Echo().execute({"text": "hi"}, context=lg.RunContext())
    refused = await Refuse().execute({})
    assert ok.is_success and refused.is_error
    assert "littleghost" in tracer_provider.tracers
    spans = tracer_provider.tool_spans()
    assert [span.name for span in spans] == ["littleghost.tool_call"] * 2
    assert [span.attributes for span in spans] == [
        {"littleghost.tool": "ins_echo", "littleghost.outcome": "success"},
        {"littleghost.tool": "ins_refuse", "littleghost.outcome": "error"},
    ]
    assert [span.ends for span in spans] == [1, 1]
    assert all(span.exceptions == [] for span in spans)


async def test_spans_and_events_together_from_concurrent_calls(
    tracer_provider: RecordingTracerProvider, events: list[instrumentation.Event]
) -> None:
    async with lg.ToolRegistry([Echo]) as registry, anyio.create_task_group() as group:
        for i in range(20):
            group.start_soon(registry.call, "ins_echo", {"text": str(i), "sleep": 0.005})
    assert len(tracer_provider.tool_spans()) == 20
    assert len(events) == 20
    assert all(span.ends == 1 for span in tracer_provider.tool_spans())


async def test_no_spans_without_a_configured_provider() -> None:
    assert trace.get_tracer_provider() is trace._PROXY_TRACER_PROVIDER
    assert not instrumentation._tracing()
    provider = RecordingTracerProvider()  # built but never installed
    result = await Echo().execute({"text": "quiet"})
    assert result.value == "quiet"
    assert provider.spans == []


def test_active_asks_the_public_api_when_opentelemetry_has_no_global(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fast check reads a private global; an OpenTelemetry without it still answers."""
    answers: list[trace.TracerProvider] = [trace.ProxyTracerProvider(), RecordingTracerProvider()]
    stand_in = SimpleNamespace(
        get_tracer_provider=lambda: answers[0], ProxyTracerProvider=trace.ProxyTracerProvider
    )
    monkeypatch.setattr(instrumentation, "trace", stand_in)
    if not instrumentation._subscribers:  # nothing else in this process listens
        assert not instrumentation.active()
    answers.pop(0)
    assert instrumentation.active()
