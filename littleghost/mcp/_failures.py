"""Translating what the MCP SDK raises into littleghost errors.

The SDK reports three different things through a handful of exception types:
the server's own JSON-RPC errors (``JSONRPCError``: the server's message is
meant for the caller), a transport that failed (``ConnectionClosed``,
``TransportError``, ``TimeoutExceeded``: the message names the kind -- process
exited, connection refused, HTTP status), and data that does not parse
(``MalformedMessage``). Each is raised with the SDK's exception as its
``__cause__``; messages never carry a raw traceback.
"""

from __future__ import annotations

import mcp_types as types
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

import littleghost as lg

from ._exceptions import (
    ConnectionClosed,
    JSONRPCError,
    MalformedMessage,
    ServerError,
    TimeoutExceeded,
    TransportError,
)

__all__ = [
    "describe_failure",
    "hides_message",
    "translate",
    "translate_connect_failure",
    "translate_error",
    "translate_mcp_error",
    "unparseable",
]

# Errors the SDK's Streamable HTTP client synthesizes for HTTP-level failures:
# they arrive as JSON-RPC errors but no server sent them. The SDK gives them no
# type of their own, so its fixed wording is how they are told apart -- here,
# once, where the SDK's errors become littleghost's typed ones.
_HTTP_SYNTHESIZED = (
    "Server returned an error response",
    "Session terminated",
    "Unexpected content type",
    "server answered a request with 202 Accepted",
    "SSE stream",
)
_HTTP_UNPARSEABLE = ("Failed to parse JSON response", "Failed to parse SSE message")

_SERVER_ERROR_RANGE = range(-32099, -32000 + 1)
"""JSON-RPC's implementation-defined server errors."""


def hides_message(code: int) -> bool:
    """Whether a tool call's JSON-RPC error code reports an unhandled server exception."""
    return code in (0, types.INTERNAL_ERROR) or code in _SERVER_ERROR_RANGE


def translate_mcp_error(
    error: MCPError, transport_failure: BaseException | None, *, tool_call: bool = False
) -> lg.LittleGhostError:
    """A JSON-RPC error from the server, or a transport failure the SDK reported as one.

    For a ``tool_call`` the model reads the result, so an unhandled-exception
    report becomes a ``ServerError`` (see ``hides_message``).
    """
    code, message = error.code, error.message
    translated: lg.LittleGhostError
    if code == types.CONNECTION_CLOSED:
        cause = describe_failure(transport_failure) if transport_failure else "the server closed it"
        translated = ConnectionClosed(f"MCP connection closed: {cause}")
    elif code == types.REQUEST_TIMEOUT:
        translated = TimeoutExceeded(
            f"MCP request timed out: {message}", timeout="read_timeout_seconds"
        )
    elif code == types.PARSE_ERROR and message.startswith("Failed to parse"):
        translated = MalformedMessage(f"MCP server sent malformed data: {message[:200]}")
    elif message.startswith(_HTTP_UNPARSEABLE):
        translated = MalformedMessage(f"MCP HTTP transport failed: {message[:200]}")
    elif message.startswith(_HTTP_SYNTHESIZED):
        translated = TransportError(f"MCP HTTP transport failed: {message[:200]}")
    elif tool_call and hides_message(code):
        translated = ServerError(code, message, error.error.data)
    else:
        translated = JSONRPCError(code, message, error.error.data)
    translated.__cause__ = error
    return translated


def translate(
    error: BaseException, transport_failure: BaseException | None = None, *, tool_call: bool = False
) -> BaseException:
    """The littleghost error for anything an SDK operation raised; control flow passes through."""
    error = _leaf(error)
    if isinstance(error, lg.LittleGhostError) or not isinstance(error, Exception):
        return error
    if isinstance(error, MCPError):
        return translate_mcp_error(error, transport_failure, tool_call=tool_call)
    translated: lg.ProviderError
    if isinstance(error, ValidationError):
        translated = MalformedMessage(f"MCP server sent malformed data: {_summary(error)}")
    else:
        translated = TransportError(f"MCP transport failed: {describe_failure(error)}")
    translated.__cause__ = error
    return translated


def translate_error(error: BaseException) -> BaseException:
    """The typed littleghost error for what an ``mcp.Client`` operation raised.

    A server's JSON-RPC error becomes a ``JSONRPCError``, a closed connection a
    ``ConnectionClosed``, and so on (docs/mcp.md, Errors); littleghost's own
    errors, cancellation and other control flow come back unchanged.
    """
    return translate(error)


def translate_connect_failure(error: BaseException) -> BaseException:
    """Like ``translate``, but a server refusing the connection is a provider failure."""
    translated = translate(error, error)
    if isinstance(translated, lg.ToolError):
        refused = TransportError(f"MCP server refused the connection: {translated}")
        refused.__cause__ = translated.__cause__
        return refused
    return translated


def _leaf(error: BaseException) -> BaseException:
    """The first failure inside task-group exception groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def describe_failure(error: BaseException) -> str:
    """One line naming the kind of a transport failure (the innermost useful exception)."""
    error = _leaf(error)
    if isinstance(error, FileNotFoundError):
        return f"could not start the server process ({error.strerror}: {error.filename})"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    text = str(error).splitlines()[0][:200] if str(error) else ""
    kind = type(error).__name__
    if kind == "ConnectError":
        return f"could not connect ({text or 'connection refused'})"
    return f"{kind}: {text}" if text else kind


def unparseable(error: BaseException) -> MalformedMessage:
    """The connection-breaking error for a message the transport could not parse."""
    if isinstance(error, ValidationError):
        detail = str(error.errors(include_url=False, include_input=False)[0]["msg"])
    else:
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
    failure = MalformedMessage(
        f"MCP server sent a message that cannot be parsed ({detail[:200]}); connection closed",
        connection_closed=True,
    )
    failure.__cause__ = error
    return failure


def _summary(error: ValidationError) -> str:
    first = error.errors(include_url=False, include_input=False)[0]
    location = ".".join(str(part) for part in first["loc"]) or "(root)"
    return f"{error.error_count()} invalid field(s), first at {location}: {first['msg']}"
