"""Fake MCP servers for tests: declared tools, scripted faults, records, any transport."""

from ._faults import (
    Crash,
    Delay,
    ErrorResult,
    Fault,
    Hang,
    HttpStatus,
    JsonRpcError,
    Malformed,
    Oversized,
    RawBytes,
)
from ._records import Call, Cancellation
from ._server import FakeMCPServer

__all__ = [
    "Call",
    "Cancellation",
    "Crash",
    "Delay",
    "ErrorResult",
    "FakeMCPServer",
    "Fault",
    "Hang",
    "HttpStatus",
    "JsonRpcError",
    "Malformed",
    "Oversized",
    "RawBytes",
]
