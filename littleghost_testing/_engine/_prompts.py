"""Prompts as ``check`` gets them: with generated arguments, and what to check in the messages.

Each prompt is got with each set of arguments the user gave (``--inputs``),
then with its required arguments only (optional ones absent), then, when it
has optional ones, with every argument present. Values are those the server
offered (its listing, its completions), then generated strings
(``_read_values``), one round of values per get; a round stops at its first
success.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import mcp
import mcp_types as types

from ._completions import Completions
from ._read_session import Attempt
from ._read_values import base64_problem, candidates, rounds

__all__ = ["getter", "messages_problem", "prompt_attempts"]

REQUIRED_ONLY = "required arguments only"
ALL_ARGUMENTS = "every argument"


def getter(name: str) -> Callable[[mcp.Client, Any], Awaitable[types.GetPromptResult]]:
    """``prompts/get`` of ``name`` with the attempt's arguments."""

    async def get_prompt(client: mcp.Client, arguments: Any) -> types.GetPromptResult:
        return await client.get_prompt(name, dict(arguments) or None)

    return get_prompt


async def prompt_attempts(
    completions: Completions,
    prompt: types.Prompt,
    *,
    offered: Mapping[str, Sequence[str]],
    given: Sequence[Mapping[str, Any]],
) -> list[Attempt]:
    """Each ``given`` set of arguments, required arguments only, then every argument (when
    some are optional)."""
    attempts = [
        Attempt(dict(arguments), generated=False, round=f"given {number}")
        for number, arguments in enumerate(given)
    ]
    declared = [argument for argument in prompt.arguments or [] if argument.name]
    names = list(dict.fromkeys(argument.name for argument in declared))
    required = list(dict.fromkeys(argument.name for argument in declared if argument.required))
    ref = types.PromptReference(name=prompt.name)
    values = {
        name: await candidates(completions, ref, name, offered.get(name, ())) for name in names
    }
    attempts += [
        Attempt(chosen, generated=bool(required), round=REQUIRED_ONLY)
        for chosen in rounds(required, values)
    ]
    if len(names) > len(required):
        attempts += [
            Attempt(chosen, generated=True, round=ALL_ARGUMENTS) for chosen in rounds(names, values)
        ]
    return attempts


def messages_problem(result: Any) -> str | None:
    """What the MCP types let by in a prompt's messages: image, audio or blob data not base64."""
    assert isinstance(result, types.GetPromptResult)
    for index, message in enumerate(result.messages):
        content = message.content
        where = f"messages[{index}].content"
        problem = None
        if isinstance(content, types.ImageContent | types.AudioContent):
            problem = base64_problem(content.data, f"{where}.data")
        elif isinstance(content, types.EmbeddedResource) and isinstance(
            content.resource, types.BlobResourceContents
        ):
            problem = base64_problem(content.resource.blob, f"{where}.resource.blob")
        if problem is not None:
            return problem
    return None
