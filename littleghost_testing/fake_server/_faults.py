"""Scripted faults: what a ``FakeMCPServer`` does instead of answering normally.

A fault is a small frozen value, so the same script can be applied in-process
and shipped as JSON to a stdio child process.
"""

from __future__ import annotations

import base64
import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "MAX_DELAY_SECONDS",
    "WIRE_FAULTS",
    "Crash",
    "Delay",
    "ErrorResult",
    "Fault",
    "Hang",
    "HttpStatus",
    "JsonRpcError",
    "Malformed",
    "Oversized",
    "RawBytes",
    "dump_fault",
    "load_fault",
    "require_fault",
]

_MIB = 1024 * 1024

MAX_DELAY_SECONDS = 3600.0
"""The longest ``Delay``: longer is a ``Hang()`` in all but name."""


@dataclass(frozen=True, slots=True)
class Delay:
    """Wait ``seconds``, then answer normally."""

    seconds: float

    def __post_init__(self) -> None:
        if isinstance(self.seconds, bool) or not isinstance(self.seconds, int | float):
            raise TypeError(f"Delay seconds must be a number, not {self.seconds!r}")
        if not 0 <= self.seconds <= MAX_DELAY_SECONDS:
            raise ValueError(
                f"Delay seconds must be between 0 and {MAX_DELAY_SECONDS:g}, not {self.seconds!r}"
            )


@dataclass(frozen=True, slots=True)
class Hang:
    """Never answer: wait until the client cancels the request or goes away."""


@dataclass(frozen=True, slots=True)
class ErrorResult:
    """Answer a tool call with ``isError: true`` and ``text`` (tool calls only)."""

    text: str = "Tool failed"

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"ErrorResult text must be a str, not {self.text!r}")


@dataclass(frozen=True, slots=True)
class JsonRpcError:
    """Answer with a JSON-RPC error instead of a result."""

    code: int = -32603
    message: str = "Internal error"

    def __post_init__(self) -> None:
        if isinstance(self.code, bool) or not isinstance(self.code, int):
            raise TypeError(f"JsonRpcError code must be an int, not {self.code!r}")
        if not isinstance(self.message, str):
            raise TypeError(f"JsonRpcError message must be a str, not {self.message!r}")


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

    def __post_init__(self) -> None:
        if isinstance(self.size, bool) or not isinstance(self.size, int) or self.size < 0:
            raise ValueError(f"Oversized size must be a non-negative int, not {self.size!r}")
        if self.kind not in ("image", "text"):
            raise ValueError(f"Oversized kind must be 'image' or 'text', not {self.kind!r}")


@dataclass(frozen=True, slots=True)
class RawBytes:
    """Answer a tool call with ``data`` on the wire instead of a JSON-RPC message.

    For bytes no client can read: invalid UTF-8, a line that is not JSON, a
    lone surrogate escape. ``{id}`` in ``data`` becomes the request's id.
    stdio: one line of the child's stdout; HTTP: the body of a 200
    ``application/json`` response; memory: parsed as the stdio client parses
    a line. The request is then never answered.
    """

    data: bytes

    def __post_init__(self) -> None:
        if not isinstance(self.data, bytes):
            raise TypeError(f"RawBytes data must be bytes, not {self.data!r}")


@dataclass(frozen=True, slots=True)
class HttpStatus:
    """Answer a tool call's HTTP request with ``status`` and ``body`` (HTTP only).

    Over memory and stdio, where there is no status to send, the call gets a
    JSON-RPC internal error saying so.
    """

    status: int
    body: str = ""
    content_type: str = "text/plain"

    def __post_init__(self) -> None:
        if isinstance(self.status, bool) or not isinstance(self.status, int):
            raise TypeError(f"HttpStatus status must be an int, not {self.status!r}")
        if not 100 <= self.status <= 599:
            raise ValueError(f"HttpStatus status must be between 100 and 599, not {self.status}")
        if not isinstance(self.body, str):
            raise TypeError(f"HttpStatus body must be a str, not {self.body!r}")


Fault = (
    Delay
    | Hang
    | ErrorResult
    | JsonRpcError
    | Crash
    | Malformed
    | Oversized
    | RawBytes
    | HttpStatus
)
WIRE_FAULTS = (RawBytes, HttpStatus)
"""Faults below JSON-RPC: the transport itself answers wrongly."""

_KINDS: dict[str, type[Fault]] = {
    kind.__name__: kind
    for kind in (
        Delay,
        Hang,
        ErrorResult,
        JsonRpcError,
        Crash,
        Malformed,
        Oversized,
        RawBytes,
        HttpStatus,
    )
}


_FAULT_TYPES: tuple[type[Fault], ...] = tuple(_KINDS.values())


def require_fault(fault: object) -> Fault | None:
    """``fault`` itself when it is a fault instance (or ``None``); a clear ``TypeError`` if not."""
    if fault is None or isinstance(fault, _FAULT_TYPES):
        return fault  # pyright: ignore[reportReturnType]
    if isinstance(fault, type) and fault in _FAULT_TYPES:
        name = fault.__name__
        raise TypeError(f"pass a fault instance, {name}(), not the class {name}")
    names = ", ".join(kind.__name__ for kind in _FAULT_TYPES)
    raise TypeError(f"a fault must be an instance of {names} (or None), not {fault!r}")


_BYTES = "__bytes_base64__"


def dump_fault(fault: Fault) -> dict[str, Any]:
    """A JSON-ready dict for one fault, as ``load_fault`` reads it back (bytes as base64)."""
    fields = {
        name: {_BYTES: base64.b64encode(value).decode()} if isinstance(value, bytes) else value
        for name, value in dataclasses.asdict(fault).items()
    }
    return {"fault": type(fault).__name__, **fields}


def load_fault(data: dict[str, Any]) -> Fault:
    fields = {name: _loaded(value) for name, value in data.items() if name != "fault"}
    return _KINDS[data["fault"]](**fields)


def _loaded(value: Any) -> Any:
    if isinstance(value, dict) and _BYTES in value:
        return base64.b64decode(value[_BYTES])
    return value
