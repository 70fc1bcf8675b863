"""The model interface: what an agent sends a model and what it gets back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from ._frozen import freeze

__all__ = ["Message", "Model", "ModelRequest", "ModelResponse", "ToolCall"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """The model asks for ``name`` with ``arguments``; ``id`` pairs it with its result."""

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not isinstance(self.name, str):
            raise TypeError("ToolCall id and name must be str")
        object.__setattr__(self, "arguments", freeze(self.arguments))


@dataclass(frozen=True, slots=True)
class Message:
    """One turn of the conversation; ``tool`` messages answer ``tool_call_id``."""

    role: Literal["user", "assistant", "tool"]
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """Everything the model sees: instructions, the conversation, the tool specifications."""

    instructions: str | None
    messages: tuple[Message, ...]
    tools: tuple[Mapping[str, Any], ...]


@dataclass(frozen=True, slots=True)
class ModelResponse:
    """Final ``text``, or ``tool_calls`` to run before asking again."""

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))


@runtime_checkable
class Model(Protocol):
    """Anything that answers a ModelRequest: a provider client, or a scripted test model."""

    async def respond(self, request: ModelRequest) -> ModelResponse: ...
