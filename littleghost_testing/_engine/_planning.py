"""Which tools fuzzing calls, and why: annotations first, then include and exclude.

MCP's own rule decides safety: a tool may change state unless the server
annotates it ``readOnlyHint: true``. Such tools are called only with
``allow_side_effects``; ``include`` narrows the selection and never overrides it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

import littleghost as lg

from ._options import FuzzOptions

__all__ = ["PlannedTool", "annotations_of", "plan", "server_name", "task_support"]


@dataclass(frozen=True, slots=True)
class PlannedTool:
    """One tool of the server: whether fuzzing calls it, and the reason in one line."""

    name: str
    tool: lg.Tool = field(repr=False)
    called: bool
    reason: str
    annotations: dict[str, Any]


def plan(tools: Iterable[lg.Tool], options: FuzzOptions) -> list[PlannedTool]:
    """Every tool with its verdict, in the server's order."""
    return [_decide(tool, options) for tool in tools]


def _decide(tool: lg.Tool, options: FuzzOptions) -> PlannedTool:
    name = server_name(tool)
    annotations = annotations_of(tool)

    def verdict(called: bool, reason: str) -> PlannedTool:
        return PlannedTool(name, tool, called, reason, annotations)

    excluded = _first_match(name, options.exclude)
    if excluded is not None:
        return verdict(False, f"excluded by --exclude {excluded!r}")
    if options.include and _first_match(name, options.include) is None:
        shown = ", ".join(repr(pattern) for pattern in options.include)
        return verdict(False, f"not selected by --include {shown}")
    if task_support(tool) == "required":
        return verdict(
            False,
            "requires MCP tasks (taskSupport: required), which the MCP SDK cannot call yet",
        )
    if annotations.get("readOnlyHint") is True:
        return verdict(True, "annotated readOnlyHint: true")
    if annotations.get("destructiveHint") is True:
        why = "annotated destructiveHint: true"
    elif "readOnlyHint" in annotations:
        why = "annotated readOnlyHint: false"
    else:
        why = "not annotated readOnlyHint: true, so it may change state"
    if options.allow_side_effects:
        return verdict(True, f"{why}; called because of --allow-side-effects")
    return verdict(False, f"{why}; --allow-side-effects includes it")


def _first_match(name: str, patterns: Sequence[str]) -> str | None:
    return next((pattern for pattern in patterns if fnmatchcase(name, pattern)), None)


def server_name(tool: lg.Tool) -> str:
    """The name the server lists the tool under (the littleghost name for other tools)."""
    mcp_tool = getattr(tool, "mcp_tool", None)
    return getattr(mcp_tool, "name", None) or tool.tool_name


def annotations_of(tool: lg.Tool) -> dict[str, Any]:
    """The server's annotations as JSON (``readOnlyHint``...), or ``{}``."""
    annotations = getattr(getattr(tool, "mcp_tool", None), "annotations", None)
    if annotations is None:
        return {}
    return annotations.model_dump(mode="json", by_alias=True, exclude_none=True)


def task_support(tool: lg.Tool) -> str:
    """``forbidden`` (the default), ``optional`` or ``required``."""
    execution = getattr(getattr(tool, "mcp_tool", None), "execution", None)
    return getattr(execution, "task_support", None) or "forbidden"
