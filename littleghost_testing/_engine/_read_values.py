"""Values for what ``check`` reads: a template's variables and a prompt's arguments.

MCP types them as strings and says nothing more, so a server's completion
(``completion/complete``) is asked first, when it offers completions; then
fixed generated strings follow. Every run tries the same values, in order.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence

import anyio
import mcp
import mcp_types as types

__all__ = ["GENERATED_VALUES", "MAX_VALUES_TRIED", "base64_problem", "candidates", "rounds"]

GENERATED_VALUES = ("example", "1", "test")
"""Values tried for a variable or argument after the server's own completions."""

MAX_VALUES_TRIED = 3
"""Values tried per variable or argument, completions first: at most this many requests
per template, and per argument set of a prompt."""


async def candidates(
    client: mcp.Client,
    ref: types.ResourceTemplateReference | types.PromptReference,
    argument: str,
    *,
    seconds: float,
) -> list[str]:
    """The values to try for ``argument``: the server's completions (if it offers them), then
    ``GENERATED_VALUES``; ``MAX_VALUES_TRIED`` at most, each once."""
    values: list[str] = []
    if client.server_capabilities.completions is not None:
        try:
            with anyio.fail_after(seconds):
                completed = await client.complete(ref, {"name": argument, "value": ""})
            values = [value for value in completed.completion.values if isinstance(value, str)]
        except Exception:  # no completion for it: generated values still get a read
            values = []
    unique = list(dict.fromkeys([*values[:MAX_VALUES_TRIED], *GENERATED_VALUES]))
    return unique[:MAX_VALUES_TRIED]


def rounds(names: Sequence[str], values: Mapping[str, Sequence[str]]) -> list[dict[str, str]]:
    """Round ``i`` gives each name its ``i``-th value (its last one when it has fewer)."""
    if not names:
        return [{}]
    count = max(len(values[name]) for name in names)
    return [
        {name: values[name][min(i, len(values[name]) - 1)] for name in names} for i in range(count)
    ]


def base64_problem(data: str, where: str) -> str | None:
    """A sentence naming ``where`` when ``data`` is not strict base64 (the MCP types let it by)."""
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return f"{where} is not valid base64"
    return None
