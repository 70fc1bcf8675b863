"""Fake MCP servers for tests: the whole protocol, scripted faults, records, any transport."""

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
from ._records import Call, Cancellation, Request
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
    "Request",
]
