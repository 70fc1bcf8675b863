"""``Binding``: the run-scoped collaborators a tool instance is built with."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # a type-only cycle: tool.py imports Binding at run time, not the reverse
    from ._tool import Tool

__all__ = ["Binding"]

T = TypeVar("T", bound="Tool")


@dataclass(frozen=True, slots=True)
class Binding:
    """Who and where a tool runs for: agent, run, runtime, model, workspace, sandbox.

    It never carries model arguments: those arrive as ``input`` to ``execute``.
    """

    agent: Any = None
    run: Any = None
    runtime: Any = None
    model: Any = None
    workspace: Any = None
    sandbox: Any = None

    def replace(self, **changes: Any) -> Binding:
        """A copy with ``changes`` applied; unknown names raise ``TypeError``."""
        return dataclasses.replace(self, **changes)

    def build(self, *tool_classes: type[T]) -> list[T]:
        """One instance of each class, bound to this binding."""
        return [tool_class(binding=self) for tool_class in tool_classes]
