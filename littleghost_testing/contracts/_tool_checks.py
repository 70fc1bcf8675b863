"""The contract battery for one Tool class: one function per check, each returning a ``Check``."""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Mapping
from typing import Any

import jsonschema
from hypothesis.errors import HypothesisException

import littleghost as lg
from littleghost import _TOOL_NAME as TOOL_NAME

from .._engine import describe, invalid_from, leaked_detail
from ..strategies import InvalidInput, SchemaError, from_schema, invalid_inputs
from ._canaries import Canary, canaries
from ._options import Options
from ._report import Check
from ._rules import (
    INVALID_PREFIX,
    connection_lost,
    crash_report,
    malformed,
    sanitization_problem,
    show_result,
)
from ._runner import ConnectionLost, Violation
from ._spies import CallSpy, CloseSpy
from ._stopping import check_cancellation, check_deadline
from ._subject import Subject, execute_within

__all__ = ["TOOL_CHECKS", "Subject"]

_PROBE = "__contract_probe__"


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
        if (
            name != tool_class.tool_name
            or not isinstance(name, str)
            or not TOOL_NAME.fullmatch(name)
        ):
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
        _refuses(
            lambda: operator.setitem(target, _PROBE, None),
            lambda: operator.delitem(target, _PROBE),
            where,
        )
        for key, item in value.items():
            _require_frozen(item, f"{where}.{key}")
    elif isinstance(value, list | tuple):
        _refuses(
            lambda: operator.setitem(target, slice(0, 0), [None]),
            lambda: operator.delitem(target, 0),
            where,
        )
        for index, item in enumerate(value):
            _require_frozen(item, f"{where}[{index}]")


def _refuses(mutate: Callable[[], object], undo: Callable[[], object], where: str) -> None:
    """``mutate`` must fail; if it succeeds it is undone, so the probe leaves no trace."""
    try:
        mutate()
    except (TypeError, AttributeError):
        return
    undo()
    raise Violation(f"{where} to be frozen (mutation raises TypeError)", "the mutation succeeded")


# -- generated inputs ------------------------------------------------------------


def check_valid_inputs(subject: Subject) -> Check:
    def rule(result: lg.ExecutionResult, tool: lg.Tool) -> None:
        problem = malformed(result)
        if problem is not None:
            raise Violation("a well-formed ExecutionResult", problem)
        if result.is_error and result.content.startswith(INVALID_PREFIX):
            raise Violation("the input to be accepted: it is valid for the schema", result.content)
        crash = crash_report(result, tool)
        if crash is not None:
            found = ConnectionLost if connection_lost(result.error) else Violation
            raise found(
                "a result, or a deliberate error (a ToolError): the input is valid",
                f"an error result {result.content[:300]!r} for {crash}",
            )

    return _over_valid_inputs(
        subject,
        "valid_inputs",
        rule,
        "a valid input was mishandled",
        "well-formed results, no unhandled exception",
    )


def check_error_sanitization(subject: Subject) -> Check:
    """Errors on generated inputs, then a failure of every canary kind injected into ``call``."""
    name, headline = "error_sanitization", "an error result shows more than the contract allows"

    def rule(result: lg.ExecutionResult, tool: lg.Tool) -> None:
        problem = sanitization_problem(result)
        if problem is not None:
            raise Violation(*problem)
        _no_leaked_detail(result)

    summary = (
        "no error content beyond ToolError messages and 'Tool failed (Type)', "
        "no stack trace or credential in it"
    )
    checked = _over_valid_inputs(subject, name, rule, headline, summary)
    if not checked.passed:
        return checked
    try:
        sample = subject.sample
    except (SchemaError, HypothesisException) as error:
        return subject.cannot_generate(name, error)
    tool = subject.make()
    injected = canaries()
    try:
        for canary in injected:
            subject.runner.run(_injected, tool, sample, canary, subject.runner.options.call_timeout)
    except Violation as violation:
        return subject.failed(name, headline, violation, input=sample)
    finally:
        subject.close(tool)
    return subject.passed(
        name,
        f"{subject.ran(name, 'generated inputs')} and {len(injected)} injected failures: {summary}",
    )


async def _injected(tool: lg.Tool, sample: Any, canary: Canary, seconds: float) -> None:
    """``call`` raises ``canary``; neither its text nor any other detail may reach the content."""
    spy = CallSpy(tool, raises=canary.error)
    try:
        result = await execute_within(tool, sample, None, seconds)
    finally:
        spy.remove()
    problem = sanitization_problem(result)
    if problem is not None:
        expected, observed = problem
        raise Violation(expected, f"{observed}, from an injected {canary.kind}")
    _no_leaked_detail(result)
    if canary.secret in result.content:
        raise Violation(
            f"no text of the injected {canary.kind} in the content",
            f"content {result.content[:300]!r}: the exception's text leaked",
        )


def _no_leaked_detail(result: lg.ExecutionResult) -> None:
    """Error content (a ToolError's message, a server's answer) shows no trace or secret."""
    leak = leaked_detail(result.content) if result.is_error else None
    if leak is not None:
        raise Violation(
            "error content without stack traces or credentials",
            f"content {result.content[:300]!r} shows {leak}",
        )


def _over_valid_inputs(
    subject: Subject,
    name: str,
    rule: Callable[[lg.ExecutionResult, lg.Tool], None],
    headline: str,
    summary: str,
) -> Check:
    try:
        strategy = from_schema(subject.tool_class.input_schema)
    except SchemaError as error:
        return subject.cannot_generate(name, error)
    tool = subject.make()
    try:

        def apply(value: Any) -> None:
            rule(subject.call(tool, value), tool)

        failure = subject.search(name, strategy, apply, subject.first_inputs)
    finally:
        subject.close(tool)
    if isinstance(failure, Check):
        return failure
    if failure is not None:
        return subject.failed(name, headline, failure.violation, input=failure.input)
    return subject.passed(name, f"{subject.ran(name, 'generated inputs')}: {summary}")


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
        result = subject.call(tool, broken.value)
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
        # Broken from the examples that work first, so the tool's own checks are reached.
        broken = invalid_from(subject.tool_class.input_schema, options.examples)
        failure = subject.search("invalid_inputs", strategy, rule, tuple(broken))
    finally:
        spy.remove()
        subject.close(tool)
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
        f"{subject.ran('invalid_inputs', 'invalid inputs')}: each rejected by path, "
        "call never invoked",
    )


async def _spy(tool: lg.Tool) -> CallSpy:
    return CallSpy(tool)


# -- cleanup -----------------------------------------------------------------------


def check_cleanup(subject: Subject) -> Check:
    try:
        subject.runner.run(_registry_closes_once, subject.make(), subject.runner.options)
    except Violation as violation:
        return subject.failed("cleanup", "closing through a ToolRegistry went wrong", violation)
    return subject.passed("cleanup", "a ToolRegistry closes it exactly once, without error")


async def _registry_closes_once(tool: lg.Tool, options: Options) -> None:
    spy = CloseSpy(tool, within=options.call_timeout)
    registry = lg.ToolRegistry([tool], binding=tool.binding)
    try:
        await registry.open()
    except lg.ConfigurationError as error:
        raise Violation("a ToolRegistry to accept the tool", describe(error)) from None
    try:
        await registry.aclose()
    except Exception as error:
        raise Violation("close() to succeed", f"it raised {describe(_cause(error))}") from None
    if spy.timed_out:
        raise Violation(
            f"close() to finish within {options.call_timeout:g} s", "it was still running"
        )
    if spy.closes != 1:
        raise Violation("the registry to close it exactly once", f"closed {spy.closes} times")


def _cause(error: Exception) -> BaseException:
    """The tool's own exception, out of the registry's ``CleanupError``."""
    if isinstance(error, lg.CleanupError) and len(error.errors) == 1:
        return error.errors[0]
    return error


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
