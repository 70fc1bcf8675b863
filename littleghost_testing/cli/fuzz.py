"""Fuzzing one MCP tool: valid inputs must be answered, invalid ones refused.

Calls go through the generated littleghost tool, so the same bounds, result
conversion and error translation apply as in an agent. Valid inputs go
through ``execute`` (validated locally first); invalid inputs go straight to
``call``, skipping local validation, so that the server itself must refuse
them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from anyio.from_thread import BlockingPortal
from hypothesis import given
from hypothesis import seed as seeded
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException
from mcp.shared.exceptions import MCPError

import littleghost as lg

from ..contracts.options import Options
from ..contracts.rules import describe, malformed
from ..strategies import InvalidInput, SchemaError, from_schema, invalid_inputs
from .findings import Finding, ToolReport

__all__ = ["fuzz_tool"]


def fuzz_tool(
    portal: BlockingPortal, tool: lg.Tool, options: Options, timeout: float
) -> ToolReport:
    """Call ``tool`` with generated inputs; after a crash, the remaining inputs are skipped."""
    report = ToolReport(tool.tool_name)
    schema = tool.input_schema

    def attempt(call: Callable[..., Awaitable[Finding | None]], value: Any) -> None:
        if report.crashed:
            return  # Hypothesis keeps drawing; a dead connection is not asked again
        report.examples += 1
        finding = portal.call(call, tool, value, timeout)
        if finding is not None:
            report.violations.append(finding)
            if finding.kind == "crash":
                report.crashed = True
                report.notes.append("stopped after the server crashed")

    _explore(report, "valid", lambda: from_schema(schema), attempt, _valid_call, options)
    _explore(
        report,
        "invalid",
        lambda: _sendable(invalid_inputs(schema)),
        attempt,
        _invalid_call,
        options,
    )
    return report


def _sendable(strategy: st.SearchStrategy[InvalidInput]) -> st.SearchStrategy[InvalidInput]:
    """MCP arguments are always an object: a non-object input cannot be sent."""
    return strategy.filter(lambda broken: isinstance(broken.value, dict))


def _explore(
    report: ToolReport,
    what: str,
    strategy: Callable[[], st.SearchStrategy[Any]],
    attempt: Callable[[Callable[..., Awaitable[Finding | None]], Any], None],
    call: Callable[..., Awaitable[Finding | None]],
    options: Options,
) -> None:
    """Try up to ``max_examples`` inputs; findings are recorded, never raised, so none shrink."""
    if report.crashed:
        return
    try:
        test = options.hypothesis_settings()(given(strategy())(lambda value: attempt(call, value)))
        if options.seed is not None:
            test = seeded(options.seed)(test)
        test()
    except (SchemaError, HypothesisException) as error:
        report.notes.append(f"no {what} inputs: {describe(error)}")


async def _valid_call(tool: lg.Tool, value: Any, seconds: float) -> Finding | None:
    try:
        result = await tool.execute(value, context=lg.RunContext.with_timeout(seconds))
    except lg.DeadlineExceededError:
        return Finding("timeout", value, f"an answer within {seconds:g} s", "no answer")
    problem = malformed(result)
    if problem is not None:
        return Finding("malformed_result", value, "a well-formed result", problem)
    if result.is_success:
        return None
    return _classify(value, result.error, valid=True)


async def _invalid_call(tool: lg.Tool, broken: InvalidInput, seconds: float) -> Finding | None:
    expected = (
        f"a refusal (isError or a JSON-RPC error): the input breaks {broken.keyword!r} "
        f"at {broken.path}"
    )
    with anyio.move_on_after(seconds):
        try:
            value = await tool.call(broken.value)
        except Exception as error:
            return _classify(broken.value, error, valid=False)
        shown = value.value if isinstance(value, lg.Result) else value
        return Finding("accepted_invalid", broken.value, expected, f"a success: {shown!r:.200}")
    return Finding("timeout", broken.value, f"an answer within {seconds:g} s", "no answer")


def _classify(value: Any, error: BaseException | None, *, valid: bool) -> Finding | None:
    """The finding for a failed call, or ``None`` when the failure is a proper answer."""
    observed = describe(error) if error is not None else "an error without cause"
    if isinstance(error, lg.ToolError):
        if valid and isinstance(error.__context__, MCPError):
            return Finding("jsonrpc_error", value, "a result (isError at most)", observed)
        return None  # an isError result, or a refusal of an invalid input
    if isinstance(error, lg.ProtocolError):
        kind = "output_schema" if "outputSchema" in str(error) else "malformed_result"
        return Finding(kind, value, "a result that follows the protocol", observed)
    if isinstance(error, lg.ProviderError):
        kind = "crash" if "connection closed" in str(error) else "transport_error"
        return Finding(kind, value, "an answer over a working connection", observed)
    return Finding("malformed_result", value, "a result littleghost can convert", observed)
