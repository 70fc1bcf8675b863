"""RunContext, CancellationToken, Binding and the error hierarchy (docs/tools.md)."""

from __future__ import annotations

import dataclasses
import functools
import math
import threading
import time
from typing import Any

import anyio
import anyio.lowlevel
import pytest

import littleghost as lg

pytestmark = pytest.mark.anyio


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize("error_class", [lg.CancelledError, lg.DeadlineExceededError])
def test_control_flow_errors_are_base_exceptions_not_exceptions(error_class: type) -> None:
    assert issubclass(error_class, BaseException)
    assert not issubclass(error_class, Exception)
    assert not issubclass(error_class, lg.LittleGhostError)
    swallowed = False
    with pytest.raises(error_class):
        try:
            raise error_class("stop")
        except Exception:  # what careless tool code writes
            swallowed = True
    assert not swallowed


@pytest.mark.parametrize(
    "error_class",
    [lg.ConfigurationError, lg.ProviderError, lg.ProtocolError, lg.ToolError, lg.CleanupError],
)
def test_ordinary_errors_are_littleghost_errors(error_class: type) -> None:
    assert issubclass(error_class, lg.LittleGhostError)
    assert issubclass(lg.LittleGhostError, Exception)


def test_protocol_error_is_a_provider_error() -> None:
    assert issubclass(lg.ProtocolError, lg.ProviderError)
    assert not issubclass(lg.ProviderError, lg.ProtocolError)
    with pytest.raises(lg.ProviderError):
        raise lg.ProtocolError("malformed frame")


def test_unrelated_errors_do_not_catch_each_other() -> None:
    for error_class in (lg.ConfigurationError, lg.ToolError, lg.CleanupError):
        assert not issubclass(error_class, lg.ProviderError)
    assert not issubclass(lg.ToolError, lg.ConfigurationError)


def test_cleanup_error_lists_every_failure_in_order() -> None:
    first, second = ValueError("a"), OSError("b")
    error = lg.CleanupError("closing failed", [first, second])
    assert error.errors == (first, second)
    assert isinstance(error.errors, tuple)
    assert str(error) == "closing failed"


def test_cleanup_error_copies_the_failures() -> None:
    failures: list[BaseException] = [ValueError("a")]
    error = lg.CleanupError("closing failed", failures)
    failures.append(ValueError("late"))
    assert len(error.errors) == 1


def test_cleanup_error_requires_its_failures() -> None:
    with pytest.raises(TypeError):
        lg.CleanupError("no failures given")  # type: ignore[call-arg]


def test_cleanup_error_from_failures_describes_each() -> None:
    error = lg.CleanupError.from_failures("the registry", [ValueError("a"), OSError("b")])
    assert str(error) == "Closing the registry failed (2 failures): ValueError: a; OSError: b"
    single = lg.CleanupError.from_failures("the run", [KeyError("k")])
    assert "(1 failure)" in str(single)
    assert len(single.errors) == 1


# -- CancellationToken ---------------------------------------------------------------------------


def test_token_starts_active() -> None:
    token = lg.CancellationToken()
    assert token.cancelled is False
    assert token.reason is None
    token.raise_if_cancelled()  # does not raise


def test_cancel_is_idempotent_and_the_first_reason_wins() -> None:
    token = lg.CancellationToken()
    token.cancel("user pressed stop")
    token.cancel("second reason")
    token.cancel()
    assert token.cancelled is True
    assert token.reason == "user pressed stop"
    with pytest.raises(lg.CancelledError, match="user pressed stop"):
        token.raise_if_cancelled()


def test_cancel_without_reason_keeps_no_reason_and_a_default_message() -> None:
    token = lg.CancellationToken()
    token.cancel()
    token.cancel("too late to set a reason")
    assert token.reason is None
    with pytest.raises(lg.CancelledError, match="The run was cancelled"):
        token.raise_if_cancelled()


def test_cancel_from_many_threads_concurrently() -> None:
    token = lg.CancellationToken()
    threads_count = 32
    start = threading.Barrier(threads_count)
    errors: list[BaseException] = []

    def cancel(index: int) -> None:
        try:
            start.wait(timeout=5)
            token.cancel(f"thread {index}")
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=cancel, args=(i,)) for i in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=5)
    assert errors == []
    assert token.cancelled
    assert token.reason in {f"thread {i}" for i in range(threads_count)}
    reason = token.reason
    token.cancel("after the race")
    assert token.reason == reason


async def test_wait_on_an_already_cancelled_token_returns_at_once() -> None:
    token = lg.CancellationToken()
    token.cancel("early")
    with anyio.fail_after(1):
        await token.wait()
    assert token._listeners == {}


async def test_wait_wakes_when_cancelled_from_another_thread() -> None:
    token = lg.CancellationToken()
    woken: list[float] = []

    async def waiter() -> None:
        await token.wait()
        woken.append(time.monotonic())

    timer = threading.Timer(0.05, token.cancel, args=("from a thread",))
    try:
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                for _ in range(5):
                    tg.start_soon(waiter)
                await anyio.sleep(0.01)
                assert len(token._listeners) == 5  # all waiting, none woken yet
                assert woken == []
                timer.start()
    finally:
        timer.cancel()
    assert len(woken) == 5
    assert token.reason == "from a thread"
    assert token._listeners == {}


async def test_wait_wakes_when_cancelled_from_the_loop() -> None:
    token = lg.CancellationToken()
    order: list[str] = []

    async def waiter() -> None:
        await token.wait()
        order.append("woken")

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(waiter)
            await anyio.sleep(0.01)
            order.append("cancelling")
            token.cancel()
    assert order == ["cancelling", "woken"]
    assert token._listeners == {}


async def test_abandoned_waits_leave_no_listener() -> None:
    token = lg.CancellationToken()
    for _ in range(3):
        with anyio.move_on_after(0.01) as scope:
            await token.wait()
        assert scope.cancelled_caught
    assert token._listeners == {}
    assert not token.cancelled


async def test_many_waits_complete_without_leaking_listeners() -> None:
    token = lg.CancellationToken()

    async def wait_briefly() -> None:
        with anyio.move_on_after(0.005):
            await token.wait()

    async with anyio.create_task_group() as tg:
        for _ in range(50):
            tg.start_soon(wait_briefly)
    assert token._listeners == {}


async def test_wait_on_two_event_loops_at_once() -> None:
    # A token shared by two runs on two threads, each with its own event loop.
    token = lg.CancellationToken()
    woken = threading.Event()
    ready = threading.Event()
    failures: list[BaseException] = []

    def other_loop() -> None:
        async def wait() -> None:
            ready.set()
            with anyio.fail_after(5):
                await token.wait()
            woken.set()

        try:
            anyio.run(wait)
        except BaseException as error:  # reported below
            failures.append(error)

    thread = threading.Thread(target=other_loop)
    thread.start()
    try:
        assert await anyio.to_thread.run_sync(ready.wait, 5)
        with anyio.fail_after(5):
            while not token._listeners:  # noqa: ASYNC110 - polls another loop's progress
                await anyio.sleep(0.001)
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                tg.start_soon(token.wait)
                await anyio.sleep(0.01)
                token.cancel("both loops")
    finally:
        token.cancel()
        await anyio.to_thread.run_sync(thread.join, 5)
    assert failures == []
    assert woken.is_set()
    assert token._listeners == {}


# -- RunContext ----------------------------------------------------------------------------------


def test_defaults() -> None:
    context = lg.RunContext()
    assert context.state == {}
    assert isinstance(context.cancellation, lg.CancellationToken)
    assert context.deadline is None
    assert dict(context.metadata) == {}
    assert context.remaining_time() is None
    context.check()


def test_each_context_gets_its_own_state_and_token() -> None:
    first, second = lg.RunContext(), lg.RunContext()
    first.state["k"] = 1
    first.cancellation.cancel()
    assert second.state == {}
    assert not second.cancellation.cancelled


def test_state_is_the_given_mutable_dict() -> None:
    state: dict[str, Any] = {}
    context = lg.RunContext(state=state)
    context.state["visits"] = 1
    assert state == {"visits": 1}
    assert context.state is state


def test_the_given_token_is_shared() -> None:
    token = lg.CancellationToken()
    context = lg.RunContext(cancellation=token)
    token.cancel("shared")
    with pytest.raises(lg.CancelledError, match="shared"):
        context.check()


def test_metadata_is_read_only_and_a_snapshot() -> None:
    given = {"request_id": "r-1"}
    context = lg.RunContext(metadata=given)
    with pytest.raises(TypeError):
        context.metadata["request_id"] = "r-2"  # type: ignore[index]
    with pytest.raises(TypeError):
        del context.metadata["request_id"]  # type: ignore[attr-defined]
    given["request_id"] = "changed later"
    given["extra"] = "added later"
    assert dict(context.metadata) == {"request_id": "r-1"}


def test_context_has_no_stray_attributes() -> None:
    with pytest.raises(AttributeError):
        lg.RunContext().stray = 1  # type: ignore[attr-defined]


@pytest.mark.parametrize("deadline", ["1", [], object()])
def test_non_numeric_deadline_is_a_type_error(deadline: Any) -> None:
    with pytest.raises(TypeError, match="deadline must be a number"):
        lg.RunContext(deadline=deadline)


def test_nan_deadline_is_a_value_error() -> None:
    # A NaN deadline would make check() never expire while remaining_time() says 0.
    with pytest.raises(ValueError, match="deadline"):
        lg.RunContext(deadline=math.nan)


def test_integer_deadline_is_kept_as_float() -> None:
    context = lg.RunContext(deadline=10**9)
    assert context.deadline == 1e9
    assert isinstance(context.deadline, float)


@pytest.mark.parametrize("seconds", [-1, -0.001, math.nan, -math.inf])
def test_with_timeout_rejects_negative_and_nan(seconds: float) -> None:
    with pytest.raises(ValueError, match="timeout"):
        lg.RunContext.with_timeout(seconds)


def test_with_timeout_sets_an_absolute_monotonic_deadline() -> None:
    before = time.monotonic()
    context = lg.RunContext.with_timeout(30)
    after = time.monotonic()
    assert context.deadline is not None
    assert before + 30 <= context.deadline <= after + 30
    remaining = context.remaining_time()
    assert remaining is not None and 29 < remaining <= 30
    context.check()


def test_with_timeout_forwards_the_other_fields() -> None:
    token = lg.CancellationToken()
    state = {"k": 1}
    context = lg.RunContext.with_timeout(5, state=state, cancellation=token, metadata={"m": 1})
    assert context.state is state
    assert context.cancellation is token
    assert dict(context.metadata) == {"m": 1}
    with pytest.raises(TypeError):
        lg.RunContext.with_timeout(5, deadline=1.0)


def test_with_timeout_zero_is_already_expired() -> None:
    context = lg.RunContext.with_timeout(0)
    assert context.remaining_time() == 0.0
    with pytest.raises(lg.DeadlineExceededError):
        context.check()


def test_with_infinite_timeout_never_expires() -> None:
    context = lg.RunContext.with_timeout(math.inf)
    assert context.remaining_time() == math.inf
    assert context.remaining_time(maximum=2.0) == 2.0
    context.check()


def test_check_raises_deadline_exceeded_for_a_past_deadline() -> None:
    context = lg.RunContext(deadline=time.monotonic() - 0.001)
    with pytest.raises(lg.DeadlineExceededError):
        context.check()


def test_check_reports_cancellation_before_the_deadline() -> None:
    context = lg.RunContext(deadline=time.monotonic() - 1)
    context.cancellation.cancel("cancelled first")
    with pytest.raises(lg.CancelledError, match="cancelled first"):
        context.check()


def test_check_observes_a_deadline_passing() -> None:
    context = lg.RunContext(deadline=time.monotonic() + 0.02)
    context.check()
    time.sleep(0.03)
    with pytest.raises(lg.DeadlineExceededError):
        context.check()


def test_remaining_time_without_deadline_is_the_maximum() -> None:
    context = lg.RunContext()
    assert context.remaining_time() is None
    assert context.remaining_time(maximum=5.0) == 5.0
    assert context.remaining_time(maximum=0) == 0


def test_remaining_time_is_capped_by_maximum() -> None:
    context = lg.RunContext(deadline=time.monotonic() + 100)
    assert context.remaining_time(maximum=1.5) == 1.5
    remaining = context.remaining_time(maximum=1000)
    assert remaining is not None and 99 < remaining <= 100


def test_remaining_time_is_never_negative() -> None:
    context = lg.RunContext(deadline=time.monotonic() - 50)
    assert context.remaining_time() == 0.0
    assert context.remaining_time(maximum=3) == 0.0


def test_remaining_time_decreases() -> None:
    context = lg.RunContext(deadline=time.monotonic() + 10)
    first = context.remaining_time()
    time.sleep(0.01)
    second = context.remaining_time()
    assert first is not None and second is not None
    assert second < first


def test_repr_shows_state_of_the_run() -> None:
    context = lg.RunContext()
    context.cancellation.cancel()
    assert "cancelled=True" in repr(context)


# -- Binding -----------------------------------------------------------------------------------


def test_binding_defaults_to_nothing() -> None:
    binding = lg.Binding()
    for name in ("agent", "run", "runtime", "model", "workspace", "sandbox"):
        assert getattr(binding, name) is None


def test_binding_is_frozen() -> None:
    binding = lg.Binding(agent="support")
    with pytest.raises(dataclasses.FrozenInstanceError):
        binding.agent = "other"  # type: ignore[misc]
    with pytest.raises((dataclasses.FrozenInstanceError, AttributeError, TypeError)):
        binding.arguments = {"ticket_id": "x"}  # type: ignore[attr-defined]
    assert binding.agent == "support"


def test_binding_never_carries_model_arguments() -> None:
    field_names = {field.name for field in dataclasses.fields(lg.Binding)}
    assert field_names == {"agent", "run", "runtime", "model", "workspace", "sandbox"}
    with pytest.raises(TypeError):
        lg.Binding(input={"ticket_id": "x"})  # type: ignore[call-arg]


def test_binding_replace_returns_a_changed_copy() -> None:
    original = lg.Binding(agent="support", sandbox="box")
    changed = original.replace(sandbox="other box", workspace="/tmp/ws")
    assert changed == lg.Binding(agent="support", sandbox="other box", workspace="/tmp/ws")
    assert original == lg.Binding(agent="support", sandbox="box")
    assert changed is not original


def test_binding_replace_rejects_unknown_names() -> None:
    with pytest.raises(TypeError):
        lg.Binding().replace(arguments={"x": 1})


def test_binding_build_instantiates_each_class_bound() -> None:
    class First(lg.Tool):
        description = "First."

        def call(self, input: Any) -> Any:
            return None

    class Second(lg.Tool):
        description = "Second."

        async def call(self, input: Any) -> Any:
            return None

    binding = lg.Binding(agent="support")
    built = binding.build(First, Second)
    assert [type(tool) for tool in built] == [First, Second]
    assert all(tool.binding is binding for tool in built)
    assert built[0].agent == "support"
    assert binding.build() == []


def test_binding_build_fails_like_instantiation() -> None:
    class NoCall(lg.Tool):
        description = "No call."

    with pytest.raises(lg.ConfigurationError):
        lg.Binding().build(NoCall)


def test_binding_equality_and_hash() -> None:
    assert lg.Binding(agent="a") == lg.Binding(agent="a")
    assert lg.Binding(agent="a") != lg.Binding(agent="b")
    assert hash(lg.Binding(agent="a")) == hash(lg.Binding(agent="a"))


# -- guards attach their scopes to the token ----------------------------------------------


class Sleeper(lg.Tool):
    tool_name = "sleeper"

    async def call(self, input: dict[str, Any]) -> str:
        await anyio.sleep(10)
        return "woke"


async def test_guarded_calls_are_cancelled_from_another_thread_and_detach() -> None:
    context = lg.RunContext()
    outcomes: list[str] = []

    async def one() -> None:
        try:
            await Sleeper().execute({}, context=context)
        except lg.CancelledError as error:
            outcomes.append(str(error))

    timer = threading.Timer(0.05, context.cancellation.cancel, args=("from a thread",))
    try:
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                for _ in range(5):
                    tg.start_soon(one)
                await anyio.sleep(0.01)
                [(_, scopes)] = context.cancellation._scopes.values()  # one set for this loop
                assert len(scopes) == 5
                timer.start()
    finally:
        timer.cancel()
    assert outcomes == ["from a thread"] * 5
    assert context.cancellation._scopes == {}


async def test_guards_that_end_leave_no_scope_attached() -> None:
    class Quick(lg.Tool):
        tool_name = "quick"

        async def call(self, input: dict[str, Any]) -> str:
            await anyio.lowlevel.checkpoint()
            return "ok"

    context = lg.RunContext()
    async with anyio.create_task_group() as tg:
        for _ in range(50):
            tg.start_soon(functools.partial(Quick().execute, {}, context=context))
    assert context.cancellation._scopes == {}
    assert not context.cancellation.cancelled


async def test_a_scope_attached_after_the_cancel_is_refused() -> None:
    token = lg.CancellationToken()
    token.cancel("early")
    assert not token._attach(anyio.CancelScope())
    assert token._scopes == {}
