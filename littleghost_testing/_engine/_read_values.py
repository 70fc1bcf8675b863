"""Values for what ``check`` reads: a template's variables and a prompt's arguments.

MCP types them as strings and says nothing more, so the values the server
itself offered come first: those its resource listing shows (``docs://books/7``
gives ``book_id`` the value ``7``), then its completions
(``completion/complete``, ``_completions``), then fixed generated strings.
Every run tries the same values, in order.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence

import mcp_types as types

from ._completions import Completions

__all__ = ["GENERATED_VALUES", "MAX_VALUES_TRIED", "base64_problem", "candidates", "rounds"]

GENERATED_VALUES = ("example", "1", "test")
"""Values tried for a variable or argument after the server's own completions."""

MAX_VALUES_TRIED = 3
"""Values tried per variable or argument, the server's first: at most this many requests
per template, and per argument set of a prompt, besides the values the user gave."""


async def candidates(
    completions: Completions,
    ref: types.ResourceTemplateReference | types.PromptReference,
    argument: str,
    offered: Sequence[str] = (),
) -> list[str]:
    """The values to try for ``argument``: those the server ``offered`` in its listings, its
    completions (asked only while they may add one), then ``GENERATED_VALUES``;
    ``MAX_VALUES_TRIED`` at most, each once."""
    values = list(dict.fromkeys(offered))[:MAX_VALUES_TRIED]
    if len(values) < MAX_VALUES_TRIED:
        values += await completions.values(ref, argument)
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
