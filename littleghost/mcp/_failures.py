"""Translating what the MCP SDK raises into littleghost errors.

The SDK reports three different things through a handful of exception types:
the server's own JSON-RPC errors (``ToolError``: the server's message is meant
for the caller), a transport that failed (``ProviderError`` naming the kind:
process exited, connection refused, HTTP status), and data that does not parse
(``ProtocolError``). Messages never carry a raw traceback.
"""

from __future__ import annotations

import mcp_types as types
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

import littleghost as lg

__all__ = [
    "ServerError",
    "describe_failure",
    "hides_message",
    "translate",
    "translate_connect_failure",
    "translate_mcp_error",
    "unparseable",
]

# Errors the SDK's Streamable HTTP client synthesizes for HTTP-level failures:
# they arrive as JSON-RPC errors but no server sent them.
_HTTP_SYNTHESIZED = (
    "Server returned an error response",
    "Session terminated",
    "Unexpected content type",
    "Failed to parse JSON response",
    "server answered a request with 202 Accepted",
    "SSE stream",
    "Failed to parse SSE message",
)

_SERVER_ERROR_RANGE = range(-32099, -32000 + 1)
"""JSON-RPC's implementation-defined server errors."""


class ServerError(lg.ToolError):
    """A tool call's JSON-RPC error that reports an exception the server did not handle.

    Code 0, -32603 (internal error) and -32000..-32099 (server errors) are how
    servers answer an unhandled exception, with its text as the message --
    which may carry connection strings or paths. The model reads only the code;
    ``code`` and ``server_message`` keep the rest for logs.
    """

    def __init__(self, code: int, server_message: str) -> None:
        super().__init__(f"MCP tool failed (JSON-RPC error {code})")
        self.code = code
        self.server_message = server_message


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
    if code == types.CONNECTION_CLOSED:
        cause = describe_failure(transport_failure) if transport_failure else "the server closed it"
        return lg.ProviderError(f"MCP connection closed: {cause}")
    if code == types.REQUEST_TIMEOUT:
        return lg.ProviderError(f"MCP request timed out: {message}")
    if code == types.PARSE_ERROR and message.startswith("Failed to parse"):
        return lg.ProtocolError(f"MCP server sent malformed data: {message[:200]}")
    if any(message.startswith(prefix) for prefix in _HTTP_SYNTHESIZED):
        return lg.ProviderError(f"MCP HTTP transport failed: {message[:200]}")
    if tool_call and hides_message(code):
        return ServerError(code, message)
    return lg.ToolError(message)


def translate(
    error: BaseException, transport_failure: BaseException | None = None, *, tool_call: bool = False
) -> BaseException:
    """The littleghost error for anything an SDK operation raised; control flow passes through."""
    error = _leaf(error)
    if isinstance(error, lg.LittleGhostError) or not isinstance(error, Exception):
        return error
    if isinstance(error, MCPError):
        return translate_mcp_error(error, transport_failure, tool_call=tool_call)
    if isinstance(error, ValidationError):
        return lg.ProtocolError(f"MCP server sent malformed data: {_summary(error)}")
    return lg.ProviderError(f"MCP transport failed: {describe_failure(error)}")


def translate_connect_failure(error: BaseException) -> BaseException:
    """Like ``translate``, but a server refusing the connection is a provider failure."""
    translated = translate(error, error)
    if type(translated) is lg.ToolError:
        return lg.ProviderError(f"MCP server refused the connection: {translated}")
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


def unparseable(error: BaseException) -> lg.ProtocolError:
    """The connection-breaking error for a message the transport could not parse."""
    if isinstance(error, ValidationError):
        detail = str(error.errors(include_url=False, include_input=False)[0]["msg"])
    else:
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
    return lg.ProtocolError(
        f"MCP server sent a message that cannot be parsed ({detail[:200]}); connection closed"
    )


def _summary(error: ValidationError) -> str:
    first = error.errors(include_url=False, include_input=False)[0]
    location = ".".join(str(part) for part in first["loc"]) or "(root)"
    return f"{error.error_count()} invalid field(s), first at {location}: {first['msg']}"
