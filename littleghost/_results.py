"""What a tool returns: ``Result`` from tool code, ``ExecutionResult`` from ``execute``."""

from __future__ import annotations

import json
import json.encoder
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ._frozen import freeze

__all__ = ["Artifact", "ExecutionResult", "Result"]


@dataclass(frozen=True, slots=True)
class Artifact:
    """Binary output (an image, a file) that travels beside the model-facing text."""

    data: bytes
    media_type: str
    name: str | None = None
    metadata: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.data, bytes):
            raise TypeError(f"Artifact data must be bytes, not {type(self.data).__name__}")
        if not isinstance(self.media_type, str) or not self.media_type:
            raise TypeError("Artifact media_type must be a non-empty str")
        if self.metadata is not None:
            object.__setattr__(self, "metadata", freeze(self.metadata))


@dataclass(frozen=True, slots=True, init=False)
class Result:
    """A tool's return value with artifacts attached."""

    value: Any
    artifacts: tuple[Artifact, ...]

    def __init__(self, value: Any, artifacts: Sequence[Artifact] = ()) -> None:
        artifacts = tuple(artifacts)
        for artifact in artifacts:
            if not isinstance(artifact, Artifact):
                raise TypeError(f"artifacts must be Artifacts, not {type(artifact).__name__}")
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "artifacts", artifacts)


@dataclass(frozen=True, slots=True)
class ExecutionResult:
    """The normalized outcome of ``Tool.execute``.

    ``content`` is what the model sees. ``error`` keeps the original exception
    for trusted code only: its message may hold secrets.
    """

    status: Literal["success", "error"]
    value: Any = None
    content: str = ""
    error: BaseException | None = None
    artifacts: tuple[Artifact, ...] = field(default=())

    @property
    def is_success(self) -> bool:
        return self.status == "success"

    @property
    def is_error(self) -> bool:
        return self.status == "error"

    @classmethod
    def failure(cls, content: str, error: BaseException | None = None) -> ExecutionResult:
        return cls("error", None, content, error)


UNSERIALIZABLE = "Tool returned content that cannot be serialized"


def render_content(value: Any) -> str:
    """Model-facing text: ``str`` as is, ``None`` empty, JSON containers compact.

    Raises ``TypeError`` or ``ValueError`` when a container is not valid JSON,
    ``RecursionError`` when it contains itself.
    """
    kind = type(value)
    if kind is str:
        return value
    if value is None:
        return ""
    if kind is dict or kind is list:  # what tools return most: skip the ABC check
        return _encode(value)
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping | list | tuple):
        return _encode(value)
    return str(value)


def _plain(value: object) -> object:
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# Built once: json.dumps with options builds an encoder on every call.
_ENCODER = json.JSONEncoder(
    separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_plain
)
# ``_ENCODER.encode`` without its per-call setup: the C encoder, built once, with
# no circular-reference bookkeeping (its shared table would keep stale entries
# after a failure); a cycle raises ``RecursionError`` instead of ``ValueError``.
_MAKE_C_ENCODER = getattr(json.encoder, "c_make_encoder", None)
_C_ENCODER = (
    None
    if _MAKE_C_ENCODER is None
    else _MAKE_C_ENCODER(
        None, _plain, json.encoder.encode_basestring, None, ":", ",", False, False, False
    )
)


def _encode(value: object) -> str:
    if _C_ENCODER is None:
        return _ENCODER.encode(value)
    return "".join(_C_ENCODER(value, 0))
