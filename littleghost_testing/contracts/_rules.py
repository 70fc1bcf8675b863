"""The rules a single ``ExecutionResult`` must follow, as plain functions.

Each returns ``None`` when the result is fine, else what is wrong with it,
so the contract checks and the CLI apply the very same rules.
"""

from __future__ import annotations

from typing import Any

import littleghost as lg
from littleghost import _UNSERIALIZABLE as UNSERIALIZABLE
from littleghost import _render_content as render_content
from littleghost.mcp import (
    ConnectionClosed,
    JSONRPCError,
    MalformedMessage,
    OutputSchemaError,
    ServerError,
    TimeoutExceeded,
    TransportError,
)

from .._engine import describe, server_name, unhandled_exception

__all__ = [
    "INVALID_PREFIX",
    "connection_lost",
    "crash_report",
    "malformed",
    "sanitization_problem",
    "server_failure",
    "show_result",
]

INVALID_PREFIX = "Invalid tool input: "


def malformed(result: Any) -> str | None:
    """What makes ``result`` something other than a well-formed ``ExecutionResult``."""
    if not isinstance(result, lg.ExecutionResult):
        return f"a {type(result).__name__}, not an ExecutionResult"
    if result.status not in ("success", "error"):
        return f"status {result.status!r}"
    if not isinstance(result.content, str):
        return f"content of type {type(result.content).__name__}"
    if not isinstance(result.artifacts, tuple) or not all(
        isinstance(artifact, lg.Artifact) for artifact in result.artifacts
    ):
        return f"artifacts {result.artifacts!r}"
    if result.is_error:
        if not isinstance(result.error, BaseException):
            return "an error result without the exception that caused it"
        return None
    if result.error is not None:
        return f"a success result carrying an error ({describe(result.error)})"
    try:
        rendered = render_content(result.value)
    except (TypeError, ValueError, RecursionError):
        return "a success result whose value cannot be rendered as content"
    if result.content != rendered:
        return f"success content {result.content!r} where the value renders as {rendered!r}"
    return None


def sanitization_problem(result: lg.ExecutionResult) -> tuple[str, str] | None:
    """``(expected, observed)`` when an error result's content breaks the sanitization rule.

    A ``ToolError`` shows its message; the unserializable-value message
    stands as is; any other exception shows only its type.
    """
    if not result.is_error or result.error is None:
        return None
    error = result.error
    if isinstance(error, lg.ToolError):
        expected = str(error)
    elif result.content == UNSERIALIZABLE:
        return None
    else:
        expected = f"Tool failed ({type(error).__name__})"
    if result.content == expected:
        return None
    observed = f"content {result.content!r} for {describe(error)}"
    message = str(error)
    if message and message in result.content and not isinstance(error, lg.ToolError):
        observed += " (the exception's message leaked)"
    return f"content {expected!r}", observed


def crash_report(result: lg.ExecutionResult, tool: lg.Tool) -> str | None:
    """What shows that an error ``result`` for a valid input is no deliberate answer, or ``None``.

    Decided by the error's type, as ``check`` decides: a ``ToolError`` is
    deliberate (unless its text is a server SDK's crash report, or it is a
    JSON-RPC error where a result belongs); a server that died, broke the
    protocol or its own ``outputSchema``, or did not answer in time failed;
    other littleghost errors are typed refusals of the kit's own; anything
    else escaped the tool's ``call`` (``Tool failed (Type)``) or its value
    could not be rendered.
    """
    error = result.error
    if not result.is_error or error is None:
        return None
    if isinstance(error, ServerError):
        return f"the server's JSON-RPC error {error.code} (an unhandled exception)"
    if isinstance(error, JSONRPCError):
        return f"the server's JSON-RPC error {error.code}, where a result (isError at most) belongs"
    if isinstance(error, lg.ToolError):
        sdk = unhandled_exception(str(error), server_name(tool))
        return None if sdk is None else f"{sdk}: {str(error)[:300]!r}"
    broken = server_failure(error)
    if broken is not None:
        return f"{describe(error)}: {broken}"
    if isinstance(error, lg.LittleGhostError):
        return None
    return f"{describe(error)}, which the tool did not handle"


def server_failure(error: BaseException) -> str | None:
    """What an MCP error says the server did wrong (``check``'s finding kinds), or ``None``."""
    if connection_lost(error):
        return "the connection closed during the call (the server died)"
    if isinstance(error, OutputSchemaError):
        return "a result that breaks the tool's own outputSchema"
    if isinstance(error, MalformedMessage):
        return "an answer that breaks the MCP protocol"
    if isinstance(error, TimeoutExceeded):
        return "no answer within the toolset's timeout"
    return None


def connection_lost(error: BaseException | None) -> bool:
    """Whether ``error`` leaves the connection unusable: every later call on it fails too."""
    if isinstance(error, MalformedMessage):
        return error.connection_closed
    return isinstance(error, ConnectionClosed | TransportError)


def show_result(result: lg.ExecutionResult) -> str:
    return f"a {result.status} result with content {result.content[:300]!r}"
