"""The rules a single ``ExecutionResult`` must follow, as plain functions.

Each returns ``None`` when the result is fine, else what is wrong with it,
so the contract checks and the CLI apply the very same rules.
"""

from __future__ import annotations

from typing import Any

import littleghost as lg
from littleghost._results import UNSERIALIZABLE, render_content

from .._engine import describe

__all__ = ["INVALID_PREFIX", "malformed", "sanitization_problem", "show_result"]

INVALID_PREFIX = "Invalid tool input: "


def malformed(result: Any) -> str | None:
    """What makes ``result`` something other than a well-formed ``ExecutionResult``."""
    if not isinstance(result, lg.ExecutionResult):
        return f"a {type(result).__name__}, not an ExecutionResult"
    if result.status not in ("success", "error"):
        return f"status {result.status!r}"
    if not isinstance(result.content, str):
        return f"content of type {type(result.content).__name__}"
    if not isinstance(result.artifacts, tuple) or not all(
        isinstance(artifact, lg.Artifact) for artifact in result.artifacts
    ):
        return f"artifacts {result.artifacts!r}"
    if result.is_error:
        if not isinstance(result.error, BaseException):
            return "an error result without the exception that caused it"
        return None
    if result.error is not None:
        return f"a success result carrying an error ({describe(result.error)})"
    try:
        rendered = render_content(result.value)
    except (TypeError, ValueError, RecursionError):
        return "a success result whose value cannot be rendered as content"
    if result.content != rendered:
        return f"success content {result.content!r} where the value renders as {rendered!r}"
    return None


def sanitization_problem(result: lg.ExecutionResult) -> tuple[str, str] | None:
    """``(expected, observed)`` when an error result's content breaks the sanitization rule.

    A ``ToolError`` shows its message; the unserializable-value message
    stands as is; any other exception shows only its type.
    """
    if not result.is_error or result.error is None:
        return None
    error = result.error
    if isinstance(error, lg.ToolError):
        expected = str(error)
    elif result.content == UNSERIALIZABLE:
        return None
    else:
        expected = f"Tool failed ({type(error).__name__})"
    if result.content == expected:
        return None
    observed = f"content {result.content!r} for {describe(error)}"
    message = str(error)
    if message and message in result.content and not isinstance(error, lg.ToolError):
        observed += " (the exception's message leaked)"
    return f"content {expected!r}", observed


def show_result(result: lg.ExecutionResult) -> str:
    return f"a {result.status} result with content {result.content[:300]!r}"
