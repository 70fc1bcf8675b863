"""The contract battery for one Tool class: one function per check, each returning a ``Check``."""

from __future__ import annotations

import functools
import json
import operator
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import jsonschema
from hypothesis import find, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException

import littleghost as lg
from littleghost._closing import close_resource

from ..strategies import InvalidInput, SchemaError, from_schema, invalid_inputs
from .options import Options
from .report import Check
from .rules import INVALID_PREFIX, describe, malformed, sanitization_problem, show_result
from .runner import Failure, Runner, Violation
from .spies import CallSpy, CloseSpy, stop_mid_call

__all__ = ["TOOL_CHECKS", "Subject"]

_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_DEADLINE_AFTER = 0.05
"""How far in the future the mid-call deadline probe sets its deadline, in seconds."""


@dataclass
class Subject:
    """One Tool class under check, with the runner driving it."""

    tool_class: type[lg.Tool]
    runner: Runner
    label: str | None = None  # the tool's name, in a report that covers a whole toolset

    def make(self) -> lg.Tool:
        return self.tool_class(self.runner.options.binding())

    def passed(self, name: str, detail: str) -> Check:
        return Check(name, True, detail, tool=self.label)

    def failed(self, name: str, detail: str, violation: Violation, **extra: Any) -> Check:
        return Check(
            name,
            False,
            detail,
            tool=self.label,
            expected=violation.expected,
            observed=violation.observed,
            **extra,
        )

    @functools.cached_property
    def sample(self) -> Any:
        """An input valid for the schema: the first example given, else the simplest generated."""
        examples = self.runner.options.examples
        if examples:
            return examples[0]
        return find(
            from_schema(self.tool_class.input_schema),
            lambda _: True,
            settings=settings(database=None, derandomize=True, max_examples=100),
        )


# -- the schema and the specification ------------------------------------------


def check_schema(subject: Subject) -> Check:
    schema = subject.tool_class.input_schema
    try:
        if not isinstance(schema, Mapping):
            raise Violation("input_schema to be a mapping", type(schema).__name__)
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as error:
            raise Violation("a valid Draft 2020-12 schema", error.message) from None
        _require_json(schema, "input_schema")
        _require_frozen(schema, "$")
    except Violation as violation:
        return subject.failed("schema", "the input schema breaks the Tool rules", violation)
    return subject.passed("schema", "valid Draft 2020-12, JSON-serializable and deeply frozen")


def check_specification(subject: Subject) -> Check:
    tool_class = subject.tool_class
    try:
        spec = tool_class.specification()
        if not isinstance(spec, Mapping) or set(spec) != {"name", "description", "input_schema"}:
            raise Violation(
                'a mapping with exactly "name", "description" and "input_schema"', repr(spec)
            )
        name, description = spec["name"], spec["description"]
        if name != tool_class.tool_name or not isinstance(name, str) or not _NAME.fullmatch(name):
            raise Violation(
                f"the tool_name {tool_class.tool_name!r}, 1 to 64 of A-Z a-z 0-9 _ -", repr(name)
            )
        if not isinstance(description, str) or not description.strip():
            raise Violation("a non-empty description", repr(description))
        if spec["input_schema"] != tool_class.input_schema:
            raise Violation("the class's input_schema", repr(spec["input_schema"]))
        _require_json(spec, "specification()")
        _require_frozen(spec, "specification()")
    except Violation as violation:
        return subject.failed("specification", "specification() breaks the Tool rules", violation)
    return subject.passed("specification", f"{tool_class.tool_name!r}: named, described, frozen")


def _require_json(value: Any, what: str) -> None:
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise Violation(f"{what} to be JSON-serializable", describe(error)) from None
    if json.loads(text) != value:
        raise Violation(f"{what} to survive a JSON round trip", text[:300])


def _require_frozen(value: Any, where: str) -> None:
    """Every container, at any depth, refuses mutation with ``TypeError``."""
    target: Any = value  # the probes try what the declared types forbid
    if isinstance(value, Mapping):
        _refuses(lambda: operator.setitem(target, "__contract_probe__", None), where)
        for key, item in value.items():
            _require_frozen(item, f"{where}.{key}")
    elif isinstance(value, list | tuple):
        _refuses(lambda: operator.setitem(target, slice(0, 0), [None]), where)
        for index, item in enumerate(value):
            _require_frozen(item, f"{where}[{index}]")


def _refuses(mutate: Callable[[], object], where: str) -> None:
    try:
        mutate()
    except (TypeError, AttributeError):
        return
    raise Violation(f"{where} to be frozen (mutation raises TypeError)", "the mutation succeeded")


# -- generated inputs ------------------------------------------------------------


def check_valid_inputs(subject: Subject) -> Check:
    def rule(result: lg.ExecutionResult) -> None:
        problem = malformed(result)
        if problem is not None:
            raise Violation("a well-formed ExecutionResult", problem)
        if result.is_error and result.content.startswith(INVALID_PREFIX):
            raise Violation("the input to be accepted: it is valid for the schema", result.content)

    return _over_valid_inputs(
        subject, "valid_inputs", rule, "a valid input was mishandled", "well-formed results"
    )


def check_error_sanitization(subject: Subject) -> Check:
    def rule(result: lg.ExecutionResult) -> None:
        problem = sanitization_problem(result)
        if problem is not None:
            raise Violation(*problem)

    return _over_valid_inputs(
        subject,
        "error_sanitization",
        rule,
        "an error result shows more than the contract allows",
        "no error content beyond ToolError messages and 'Tool failed (Type)'",
    )


def _over_valid_inputs(
    subject: Subject,
    name: str,
    rule: Callable[[lg.ExecutionResult], None],
    headline: str,
    summary: str,
) -> Check:
    runner, options = subject.runner, subject.runner.options
    try:
        strategy = from_schema(subject.tool_class.input_schema)
    except SchemaError as error:
        return _cannot_generate(subject, name, error)
    tool = subject.make()
    try:

        def apply(value: Any) -> None:
            rule(runner.run(_execute, tool, value, None, options.call_timeout))

        failure = _search(subject, name, strategy, apply, tuple(options.examples))
    finally:
        runner.run(close_resource, tool)
    if isinstance(failure, Check):
        return failure
    if failure is not None:
        return subject.failed(name, headline, failure.violation, input=failure.input)
    return subject.passed(name, f"up to {options.max_examples} generated inputs: {summary}")


def check_invalid_inputs(subject: Subject) -> Check:
    runner, options = subject.runner, subject.runner.options
    try:
        strategy = invalid_inputs(subject.tool_class.input_schema)
    except SchemaError as error:
        return subject.passed("invalid_inputs", f"no invalid input to try: {error}")
    tool = subject.make()
    spy = runner.run(_spy, tool)

    def rule(broken: InvalidInput) -> None:
        before = spy.calls
        result = runner.run(_execute, tool, broken.value, None, options.call_timeout)
        expected = (
            f"an error result starting {INVALID_PREFIX!r} that names {broken.path} "
            f"(it breaks {broken.keyword!r} there)"
        )
        if malformed(result) is not None or not result.is_error:
            raise Violation(expected, show_result(result))
        if not result.content.startswith(INVALID_PREFIX) or broken.path not in result.content:
            raise Violation(expected, show_result(result))
        if spy.calls != before:
            raise Violation("call is never invoked for an invalid input", "call was invoked")

    try:
        failure = _search(subject, "invalid_inputs", strategy, rule, (), unwrap=True)
    finally:
        spy.remove()
        runner.run(close_resource, tool)
    if isinstance(failure, Check):
        return failure
    if failure is not None:
        return subject.failed(
            "invalid_inputs",
            "an input the schema forbids was not rejected",
            failure.violation,
            input=failure.input.value,
        )
    return subject.passed(
        "invalid_inputs",
        f"up to {options.max_examples} invalid inputs: each rejected by path, call never invoked",
    )


def _search(
    subject: Subject,
    name: str,
    strategy: st.SearchStrategy[Any],
    rule: Callable[[Any], None],
    examples: tuple[Any, ...],
    *,
    unwrap: bool = False,
) -> Failure | Check | None:
    """Run the search; a strategy that cannot produce inputs becomes a failed check."""
    try:
        return subject.runner.search(strategy, rule, examples=examples)
    except (SchemaError, HypothesisException) as error:
        return _cannot_generate(subject, name, error)


def _cannot_generate(subject: Subject, name: str, error: BaseException) -> Check:
    return Check(name, False, f"could not generate inputs: {describe(error)}", tool=subject.label)


async def _spy(tool: lg.Tool) -> CallSpy:
    return CallSpy(tool)


async def _execute(
    tool: lg.Tool, value: Any, context: lg.RunContext | None, seconds: float
) -> lg.ExecutionResult:
    """``execute`` that must return a result, within ``seconds`` seconds."""
    with anyio.move_on_after(seconds) as scope:
        try:
            return await tool.execute(value, context=context)
        except (Exception, lg.CancelledError, lg.DeadlineExceededError) as error:
            raise Violation(
                "execute to return an ExecutionResult", f"it raised {describe(error)}"
            ) from None
    assert scope.cancelled_caught
    raise Violation(f"execute to finish within {seconds:g} s", "it was still running")


# -- stopping ----------------------------------------------------------------------


def check_cancellation(subject: Subject) -> Check:
    def pre_cancelled() -> lg.RunContext:
        context = lg.RunContext()
        context.cancellation.cancel("cancelled by the contract check")
        return context

    return _stopping(
        subject,
        "cancellation",
        lg.CancelledError,
        before=pre_cancelled,
        during=lambda context: context.cancellation.cancel("cancelled by the contract check"),
    )


def check_deadline(subject: Subject) -> Check:
    return _stopping(
        subject,
        "deadline",
        lg.DeadlineExceededError,
        before=lambda: lg.RunContext(deadline=time.monotonic() - 1.0),
        during=None,
    )


def _stopping(
    subject: Subject,
    name: str,
    error_type: type[BaseException],
    *,
    before: Callable[[], lg.RunContext],
    during: Callable[[lg.RunContext], None] | None,
) -> Check:
    runner, options = subject.runner, subject.runner.options
    try:
        sample = subject.sample
    except (SchemaError, HypothesisException) as error:
        return _cannot_generate(subject, name, error)
    tool = subject.make()
    try:
        runner.run(_stops_before, tool, sample, before(), error_type)
        runner.run(_stops_during, tool, sample, error_type, during, options)
    except Violation as violation:
        return subject.failed(name, f"{error_type.__name__} did not propagate", violation)
    finally:
        runner.run(close_resource, tool)
    what = "cancelled token" if during is not None else "passed deadline"
    return subject.passed(
        name,
        f"a {what} raises {error_type.__name__} before call and within "
        f"{options.cancel_within:g} s mid-call",
    )


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


# -- cleanup -----------------------------------------------------------------------


def check_cleanup(subject: Subject) -> Check:
    try:
        subject.runner.run(_registry_closes_once, subject.make())
    except Violation as violation:
        return subject.failed("cleanup", "closing through a ToolRegistry went wrong", violation)
    return subject.passed("cleanup", "a ToolRegistry closes it exactly once, without error")


async def _registry_closes_once(tool: lg.Tool) -> None:
    spy = CloseSpy(tool)
    registry = lg.ToolRegistry([tool], binding=tool.binding)
    try:
        await registry.open()
    except lg.ConfigurationError as error:
        raise Violation("a ToolRegistry to accept the tool", describe(error)) from None
    try:
        await registry.aclose()
    except Exception as error:
        raise Violation("close() to succeed", describe(error)) from None
    if spy.closes != 1:
        raise Violation("the registry to close it exactly once", f"closed {spy.closes} times")


TOOL_CHECKS: dict[str, Callable[[Subject], Check]] = {
    "schema": check_schema,
    "specification": check_specification,
    "valid_inputs": check_valid_inputs,
    "invalid_inputs": check_invalid_inputs,
    "error_sanitization": check_error_sanitization,
    "cancellation": check_cancellation,
    "deadline": check_deadline,
    "cleanup": check_cleanup,
}
