"""MCP toolsets: the tools of any MCP server, through the official MCP Python SDK."""

from ._client import client
from ._exceptions import (
    ConnectionClosed,
    InputRefused,
    InvalidSchema,
    JSONRPCError,
    LimitExceeded,
    MalformedMessage,
    OutputSchemaError,
    SchemaLimitExceeded,
    ServerError,
    TimeoutExceeded,
    TransportError,
    UnusableTool,
)
from ._failures import translate_error
from ._lock import CatalogLock, Change
from ._toolset import Toolset

__all__ = [
    "CatalogLock",
    "Change",
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
    "Toolset",
    "TransportError",
    "UnusableTool",
    "client",
    "translate_error",
]

# Not API: what the testing kit shares with this package, through this file (the
# layout note in littleghost_testing/__init__.py says why).
from ._compat import ReadStream as _ReadStream  # noqa: F401
from ._compat import TransportStreams as _TransportStreams  # noqa: F401
from ._compat import WriteStream as _WriteStream  # noqa: F401
from ._compat import client_entered as _client_entered  # noqa: F401
from ._lock_file import is_lock as _is_lock_file  # noqa: F401

for _public in (
    CatalogLock,
    Change,
    ConnectionClosed,
    InputRefused,
    InvalidSchema,
    JSONRPCError,
    LimitExceeded,
    MalformedMessage,
    OutputSchemaError,
    SchemaLimitExceeded,
    ServerError,
    TimeoutExceeded,
    TransportError,
    UnusableTool,
    client,
    translate_error,
):
    _public.__module__ = __name__  # tracebacks and events name the public path
del _public
