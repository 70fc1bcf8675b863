"""What the MCP layer knows about a failure, as types (httpx's ``_exceptions.py`` is the model).

Each class subclasses the public error that code caught before it existed, so
``except lg.ProviderError`` still catches a closed connection and ``except
lg.ToolError`` a server's JSON-RPC error. Decide on the type and its
attributes, never on the message: messages are for people and may change.

    lg.ProviderError
    ├── ConnectionClosed       the server exited or dropped the connection, or it was closed
    ├── TransportError         the process could not start, HTTP refused or failed
    ├── TimeoutExceeded        a named timeout passed (``timeout``, ``seconds``)
    └── lg.ProtocolError
        ├── MalformedMessage   cannot be parsed or breaks JSON-RPC (``connection_closed``)
        │   └── InvalidSchema          one tool's schema cannot be used (also an UnusableTool)
        ├── LimitExceeded      a named bound was exceeded (``limit``, ``value``)
        │   └── SchemaLimitExceeded    one tool's schema is past a per-schema bound (ditto)
        ├── OutputSchemaError  structuredContent breaks the tool's outputSchema
        └── UnusableTool       one listed tool cannot be used, the rest can (``tool``, ``field``)
    lg.ToolError
    ├── JSONRPCError           a JSON-RPC error (``code``, ``server_message``, ``data``)
    │   └── ServerError        ... for an exception the server did not handle
    └── InputRefused           the tool asked for input the client does not give (``method``)
"""

from __future__ import annotations

from typing import Any

import littleghost as lg

__all__ = [
    "ConnectionClosed",
    "InputRefused",
    "InvalidSchema",
    "JSONRPCError",
    "LimitExceeded",
    "MalformedMessage",
    "OutputSchemaError",
    "SchemaLimitExceeded",
    "ServerError",
    "TimeoutExceeded",
    "TransportError",
    "UnusableTool",
]


class ConnectionClosed(lg.ProviderError):
    """The connection to the server is closed; no call on it can succeed any more."""


class TransportError(lg.ProviderError):
    """The transport failed: the process could not start, the HTTP request failed or was refused."""


class TimeoutExceeded(lg.ProviderError):
    """A named timeout passed: ``timeout`` is the setting that raises it, ``seconds`` its value."""

    def __init__(self, message: str, *, timeout: str = "", seconds: float | None = None) -> None:
        super().__init__(message)
        self.timeout = timeout
        self.seconds = seconds


class MalformedMessage(lg.ProtocolError):
    """The server sent something that is not a valid answer.

    ``connection_closed`` is true when littleghost broke the connection
    because of it (a message the transport cannot read leaves no way to tell
    which request it answered): every pending and later call fails too.
    """

    def __init__(self, message: str, *, connection_closed: bool = False) -> None:
        super().__init__(message)
        self.connection_closed = connection_closed


class LimitExceeded(lg.ProtocolError):
    """The server exceeded a bound: ``limit`` is the ``Toolset`` attribute, ``value`` its value."""

    def __init__(self, message: str, *, limit: str = "", value: int = 0) -> None:
        super().__init__(message)
        self.limit = limit
        self.value = value


class OutputSchemaError(lg.ProtocolError):
    """A tool's result breaks its ``outputSchema`` (or lacks the structuredContent it declares)."""


class UnusableTool(lg.ProtocolError):
    """One listed tool cannot be used, and the rest of the catalog can.

    ``tool`` is the server's name for it, ``field`` the schema at fault
    (``inputSchema`` or ``outputSchema``). Discovery leaves such a tool out
    (``Toolset.strict = True`` raises instead); every other discovery failure
    is about the whole catalog. Raised as one of its subclasses.
    """

    tool: str = ""
    field: str = ""


class InvalidSchema(MalformedMessage, UnusableTool):
    """A tool's schema is invalid or cannot be compiled safely (a remote ``$ref``, a huge regex)."""

    def __init__(self, message: str, *, tool: str = "", field: str = "") -> None:
        super().__init__(message)
        self.tool = tool
        self.field = field


class SchemaLimitExceeded(LimitExceeded, UnusableTool):
    """A tool's schema is past a bound of one schema.

    Those are ``max_schema_depth``, ``max_schema_nodes`` and ``max_regex_bytes``;
    the bounds of the whole catalog raise ``LimitExceeded`` itself.
    """

    def __init__(
        self, message: str, *, limit: str = "", value: int = 0, tool: str = "", field: str = ""
    ) -> None:
        super().__init__(message, limit=limit, value=value)
        self.tool = tool
        self.field = field


class JSONRPCError(lg.ToolError):
    """The server answered with a JSON-RPC error; its message is the server's own text.

    ``code``, ``server_message`` and ``data`` are the error as the server sent it.
    """

    def __init__(self, code: int, server_message: str, data: Any = None) -> None:
        super().__init__(self._text(code, server_message))
        self.code = code
        self.server_message = server_message
        self.data = data

    @staticmethod
    def _text(code: int, server_message: str) -> str:
        return server_message

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.code, self.server_message, self.data))


class ServerError(JSONRPCError):
    """A tool call's JSON-RPC error that reports an exception the server did not handle.

    Code 0, -32603 (internal error) and -32000..-32099 (server errors) are how
    servers answer an unhandled exception, with its text as the message --
    which may carry connection strings or paths. The model reads only the code;
    ``code`` and ``server_message`` keep the rest for logs.
    """

    @staticmethod
    def _text(code: int, server_message: str) -> str:
        return f"MCP tool failed (JSON-RPC error {code})"


class InputRefused(lg.ToolError):
    """A tool asked for input (an ``input_required`` result) that the client refused to give.

    ``method`` is what it asked for (``sampling/createMessage``, ``elicitation/create``,
    ``roots/list``); ``code`` is the client's own JSON-RPC error code for the refusal.
    The protocol has no way to send a refusal back, so the call ends here.
    """

    def __init__(self, message: str, *, method: str = "", code: int = 0) -> None:
        super().__init__(message)
        self.method = method
        self.code = code
