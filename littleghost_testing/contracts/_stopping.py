"""The ``cancellation`` and ``deadline`` checks: a stopped call must stop, promptly.

Three probes each: a stop before ``call`` (it must not run), a stop while a
stand-in ``call`` hangs (the tool's ``execute`` must let it through), and
stops at varied moments into the tool's own ``call`` with a valid input (a
``call`` that shields itself or ignores the stop fails here). After each stop
the tool must still answer: a stopped call may not break a shared connection.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable
from typing import Any

from hypothesis.errors import HypothesisException

import littleghost as lg

from .._engine import describe
from ..strategies import SchemaError
from ._options import Options
from ._report import Check
from ._rules import connection_lost, show_result
from ._runner import ConnectionLost, Violation
from ._spies import CallSpy, stop_mid_call, stop_real_call
from ._subject import Subject, execute_within

__all__ = ["check_cancellation", "check_deadline"]

_DEADLINE_AFTER = 0.05
"""How far in the future the hanging-call deadline probe sets its deadline, in seconds."""

STOP_MOMENTS = (0.0, 0.01, 0.05)
"""Seconds into the tool's own ``call`` at which the real-call probes stop it."""

MORE_STOPPED_INPUTS = 2
"""Generated inputs, beyond the sample, whose real call is also stopped (at ``STOP_MOMENTS[1]``)."""


class _BrokenAfterStop(ConnectionLost):
    """The stop itself went fine, but the tool (its connection) no longer answers."""


def _cancel(context: lg.RunContext) -> None:
    context.cancellation.cancel("cancelled by the contract check")


def check_cancellation(subject: Subject) -> Check:
    def pre_cancelled() -> lg.RunContext:
        context = lg.RunContext()
        _cancel(context)
        return context

    return _stopping(subject, "cancellation", lg.CancelledError, pre_cancelled, _cancel)


def check_deadline(subject: Subject) -> Check:
    return _stopping(
        subject,
        "deadline",
        lg.DeadlineExceededError,
        lambda: lg.RunContext(deadline=time.monotonic() - 1.0),
        None,
    )


def _stopping(
    subject: Subject,
    name: str,
    error_type: type[BaseException],
    before: Callable[[], lg.RunContext],
    during: Callable[[lg.RunContext], None] | None,
) -> Check:
    runner, options = subject.runner, subject.runner.options
    try:
        sample = subject.sample
    except (SchemaError, HypothesisException) as error:
        return subject.cannot_generate(name, error)
    probes = [(sample, moment) for moment in STOP_MOMENTS]
    # When the sample came from the examples given, the schema may not give more.
    with contextlib.suppress(SchemaError, HypothesisException):
        probes += [(value, STOP_MOMENTS[1]) for value in _more_inputs(subject, sample)]
    tool = subject.make()
    try:
        runner.run(_stops_before, tool, sample, before(), error_type)
        runner.run(_stops_during, tool, sample, error_type, during, options)
        for value, moment in probes:
            sample = value  # a failure names the input it happened on
            if runner.run(_stops_real_call, tool, value, error_type, during, moment, options):
                runner.run(_still_answers, tool, value, options.call_timeout)
    except Violation as violation:
        failure = violation
    else:
        failure = None
    finally:
        subject.close(tool)
    if failure is None:
        what = "cancelled token" if during is not None else "passed deadline"
        return subject.passed(
            name,
            f"a {what} raises {error_type.__name__} before call, and within "
            f"{options.cancel_within:g} s while call runs",
        )
    if isinstance(failure, ConnectionLost):
        subject.lost = True
        died = _dies_unstopped(subject, sample)
        if died is not None:
            return subject.failed(name, "the server died", died, input=sample)
    detail = (
        "a stopped call broke the tool"
        if isinstance(failure, _BrokenAfterStop)
        else f"{error_type.__name__} did not propagate"
    )
    return subject.failed(name, detail, failure, input=sample)


def _dies_unstopped(subject: Subject, sample: Any) -> Violation | None:
    """Over a fresh connection, does ``sample`` alone, never stopped, kill the server?

    Then the stop is not to blame for the lost connection: the input is.
    """
    if not subject.renew():
        return None  # not a toolset's tool: nothing to reconnect
    tool = subject.make()
    try:
        result = subject.call(tool, sample)
    except Violation:
        return None
    finally:
        subject.close(tool)
    error = result.error
    if error is None or not connection_lost(error):
        return None
    return Violation(
        "an answer over a working connection",
        f"the connection closed during the call, with no stop, over a fresh connection "
        f"(the server died): {describe(error)}",
    )


def _more_inputs(subject: Subject, sample: Any) -> list[Any]:
    generated = subject.generated(MORE_STOPPED_INPUTS + 1)
    return [value for value in generated if value != sample][:MORE_STOPPED_INPUTS]


async def _stops_before(
    tool: lg.Tool, sample: Any, context: lg.RunContext, error_type: type[BaseException]
) -> None:
    spy = CallSpy(tool)
    expected = f"{error_type.__name__} before call is invoked"
    try:
        result = await tool.execute(sample, context=context)
    except error_type:
        pass
    except (Exception, lg.CancelledError, lg.DeadlineExceededError) as error:
        raise Violation(expected, f"it raised {describe(error)}") from None
    else:
        raise Violation(expected, show_result(result))
    finally:
        spy.remove()
    if spy.calls:
        raise Violation(expected, "call was invoked")


async def _stops_during(
    tool: lg.Tool,
    sample: Any,
    error_type: type[BaseException],
    stop: Callable[[lg.RunContext], None] | None,
    options: Options,
) -> None:
    if stop is None:
        context = lg.RunContext(deadline=time.monotonic() + _DEADLINE_AFTER)
        within = _DEADLINE_AFTER + options.cancel_within
    else:
        context = lg.RunContext()
        within = options.cancel_within
    stopped = await stop_mid_call(
        tool,
        sample,
        context,
        stop=None if stop is None else functools.partial(stop, context),
        within=within,
        entry_timeout=options.call_timeout,
    )
    expected = f"{error_type.__name__} within {within:g} s while call awaits"
    if not stopped.entered:
        if stopped.raised is not None and isinstance(stopped.raised, error_type):
            return  # the deadline passed before call started: stopped all the same
        got = (
            show_result(stopped.result)
            if stopped.result is not None
            else (describe(stopped.raised) if stopped.raised else "nothing")
        )
        raise Violation(f"execute to invoke call with {sample!r}", got)
    if stopped.seconds is None:
        raise Violation(expected, f"execute was still running after {within:g} s")
    if stopped.result is not None:
        raise Violation(expected, show_result(stopped.result))
    if not isinstance(stopped.raised, error_type):
        raise Violation(
            expected, f"it raised {describe(stopped.raised)}" if stopped.raised else "?"
        )


async def _stops_real_call(
    tool: lg.Tool,
    sample: Any,
    error_type: type[BaseException],
    stop: Callable[[lg.RunContext], None] | None,
    moment: float,
    options: Options,
) -> bool:
    """The tool's own ``call``, stopped ``moment`` seconds in: a result or ``error_type``, soon.

    True when the stop interrupted it (rather than the call finishing first).
    """
    due = time.monotonic() + moment
    context = lg.RunContext(deadline=due) if stop is None else lg.RunContext()
    stopped = await stop_real_call(
        tool,
        sample,
        context,
        stop=None if stop is None else functools.partial(stop, context),
        after=moment,
        within=options.cancel_within,
    )
    expected = (
        f"{error_type.__name__} within {options.cancel_within:g} s of a stop "
        f"{moment:g} s into the tool's own call"
    )
    ended = stopped.error
    if ended is not None and connection_lost(ended):
        raise ConnectionLost(
            expected, f"the connection closed during the call (the server died): {describe(ended)}"
        )
    if stopped.seconds is None:
        raise Violation(expected, f"execute was still running {options.cancel_within:g} s later")
    if stopped.raised is not None and not isinstance(stopped.raised, error_type):
        raise Violation(expected, f"it raised {describe(stopped.raised)}")
    return stopped.raised is not None


async def _still_answers(tool: lg.Tool, sample: Any, seconds: float) -> None:
    """After the stops, a fresh call still gets an answer over the same connection."""
    result = await execute_within(tool, sample, None, seconds)
    error = result.error
    if error is not None and (
        connection_lost(error)
        or (isinstance(error, lg.ProviderError) and not isinstance(error, lg.ProtocolError))
    ):
        raise _BrokenAfterStop(
            "the tool to keep answering after a stopped call",
            f"the next call failed: {describe(error)}",
        )
