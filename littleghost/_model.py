"""The model interface: what an agent sends a model and what it gets back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

from ._frozen import freeze
from ._validation import json_problem

__all__ = ["Message", "Model", "ModelRequest", "ModelResponse", "ToolCall"]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """The model asks for ``name`` with ``arguments``; ``id`` pairs it with its result.

    ``arguments`` come from the model, so the agent never trusts them: when they
    are not a JSON object (a list, a string, ``None``), not plain JSON, cyclic or
    nested deeper than ``max_depth``, ``problem`` says why, and the agent answers
    the model with an invalid-input error result instead of calling the tool.
    Values that are unsafe to keep (too deep, cyclic, not JSON) are replaced by
    ``None``. A provider that cannot decode what the model sent passes the raw
    text as ``arguments`` with its own ``problem``.
    """

    # Deeper arguments never reach freezing, validation or a tool: recursive code on
    # them could exhaust the stack. Tools bound their own input with ``max_input_depth``.
    max_depth: ClassVar[int] = 200

    id: str
    name: str
    arguments: Any = field(default_factory=dict)
    problem: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not isinstance(self.name, str):
            raise TypeError("ToolCall id and name must be str")
        if self.problem is not None and not isinstance(self.problem, str):
            raise TypeError("ToolCall problem must be a str or None")
        unsafe = json_problem(self.arguments, max_depth=self.max_depth)
        problem = self.problem
        if unsafe is not None:
            object.__setattr__(self, "arguments", None)
            problem = problem or unsafe
        else:
            object.__setattr__(self, "arguments", freeze(self.arguments))
            if not isinstance(self.arguments, Mapping):
                problem = problem or (
                    f"arguments must be a JSON object, not {_json_kind(self.arguments)}"
                )
        object.__setattr__(self, "problem", problem)


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, int | float):
        return "a number"
    return "an array"


@dataclass(frozen=True, slots=True)
class Message:
    """One turn of the conversation; ``tool`` messages answer ``tool_call_id``.

    ``is_error`` marks a tool message whose content is an error result, for
    providers whose format carries it and for transcripts.
    """

    role: Literal["user", "assistant", "tool"]
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    is_error: bool = False


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
