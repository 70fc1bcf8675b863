"""Scripted faults: what a ``FakeMCPServer`` does instead of answering normally.

A fault is a small frozen value, so the same script can be applied in-process
and shipped as JSON to a stdio child process.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "MAX_DELAY_SECONDS",
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


Fault = Delay | Hang | ErrorResult | JsonRpcError | Crash | Malformed | Oversized

_KINDS: dict[str, type[Fault]] = {
    kind.__name__: kind
    for kind in (Delay, Hang, ErrorResult, JsonRpcError, Crash, Malformed, Oversized)
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


def dump_fault(fault: Fault) -> dict[str, Any]:
    """A JSON-ready dict for one fault, as ``load_fault`` reads it back."""
    return {"fault": type(fault).__name__, **dataclasses.asdict(fault)}


def load_fault(data: dict[str, Any]) -> Fault:
    fields = dict(data)
    return _KINDS[fields.pop("fault")](**fields)
