"""The protocol methods ``MCPServer`` leaves unserved: completion, logging and subscriptions.

A fake server answers them all, so a client sees every capability: completion
from the values a test declared, ``logging/setLevel`` and
``resources/subscribe``/``unsubscribe`` by acknowledging them (what was asked
is in the server's ``requests``; a tool sends the messages and update
notifications themselves through its SDK ``Context``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

__all__ = ["MAX_COMPLETION_VALUES", "Completions", "install"]

MAX_COMPLETION_VALUES = 100
"""The most values one ``completion/complete`` answer may carry, as the specification says."""

CompletionKey = tuple[str, str, str]
"""``(reference type, prompt name or template URI, argument name)``."""


class Completions:
    """Declared completion values, keyed by what they complete."""

    def __init__(self) -> None:
        self.values: dict[CompletionKey, tuple[str, ...]] = {}

    def declare(self, key: CompletionKey, values: Sequence[str]) -> None:
        if isinstance(values, str) or not all(isinstance(value, str) for value in values):
            raise TypeError(f"completion values must be a sequence of str, not {values!r}")
        if len(values) > MAX_COMPLETION_VALUES:
            raise ValueError(
                f"{len(values)} completion values is more than MAX_COMPLETION_VALUES "
                f"({MAX_COMPLETION_VALUES}), the most one answer may carry"
            )
        self.values[key] = tuple(values)

    async def complete(
        self, _ctx: ServerRequestContext[Any, Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        """The declared values that start with what the client typed so far."""
        ref = params.ref
        name = ref.name if isinstance(ref, types.PromptReference) else ref.uri
        declared = self.values.get((ref.type, name, params.argument.name), ())
        matching = [value for value in declared if value.startswith(params.argument.value)]
        return types.CompleteResult(
            completion=types.Completion(values=matching, total=len(matching), has_more=False)
        )


def install(server: Server[Any], completions: Completions) -> None:
    """Serve completion, logging and subscriptions on the SDK's low-level ``server``."""
    server.add_request_handler(
        "completion/complete", types.CompleteRequestParams, completions.complete
    )
    server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, _acknowledge)
    server.add_request_handler("resources/subscribe", types.SubscribeRequestParams, _acknowledge)
    server.add_request_handler(
        "resources/unsubscribe", types.UnsubscribeRequestParams, _acknowledge
    )


async def _acknowledge(_ctx: ServerRequestContext[Any, Any], _params: Any) -> types.EmptyResult:
    return types.EmptyResult()
