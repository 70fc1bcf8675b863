"""Scripted faults: what a ``FakeMCPServer`` does instead of answering normally.

A fault is a small frozen value, so the same script can be applied in-process
and shipped as JSON to a stdio child process.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "Crash",
    "Delay",
    "ErrorResult",
    "Fault",
    "Hang",
    "JsonRpcError",
    "Malformed",
    "Oversized",
    "dump_fault",
    "load_fault",
]

_MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Delay:
    """Wait ``seconds``, then answer normally."""

    seconds: float


@dataclass(frozen=True, slots=True)
class Hang:
    """Never answer: wait until the client cancels the request or goes away."""


@dataclass(frozen=True, slots=True)
class ErrorResult:
    """Answer a tool call with ``isError: true`` and ``text`` (tool calls only)."""

    text: str = "Tool failed"


@dataclass(frozen=True, slots=True)
class JsonRpcError:
    """Answer with a JSON-RPC error instead of a result."""

    code: int = -32603
    message: str = "Internal error"


@dataclass(frozen=True, slots=True)
class Crash:
    """Kill the connection mid-request.

    memory: the in-process connection fails; stdio: the server process exits;
    HTTP: the server drops its open connections (new ones are accepted).
    """


@dataclass(frozen=True, slots=True)
class Malformed:
    """Answer with ``result`` verbatim, unvalidated (default: one that no client can parse)."""

    result: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Oversized:
    """Answer with a well-formed but huge result of about ``size`` bytes.

    A tool call returns one ``kind`` block (an image whose decoded data is
    ``size`` bytes, or a text of ``size`` characters); a listing is padded with
    ``size`` bytes of ``_meta``.
    """

    size: int = 17 * _MIB
    kind: Literal["image", "text"] = "image"


Fault = Delay | Hang | ErrorResult | JsonRpcError | Crash | Malformed | Oversized

_KINDS: dict[str, type[Fault]] = {
    kind.__name__: kind
    for kind in (Delay, Hang, ErrorResult, JsonRpcError, Crash, Malformed, Oversized)
}


def dump_fault(fault: Fault) -> dict[str, Any]:
    """A JSON-ready dict for one fault, as ``load_fault`` reads it back."""
    return {"fault": type(fault).__name__, **dataclasses.asdict(fault)}


def load_fault(data: dict[str, Any]) -> Fault:
    fields = dict(data)
    return _KINDS[fields.pop("fault")](**fields)
