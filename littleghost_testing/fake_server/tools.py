"""Registering tool functions on the SDK's ``MCPServer`` with the fake's result rules.

``MCPServer`` derives the input schema from type hints and runs sync functions
on a worker thread; the wrapper keeps both (``functools.wraps`` keeps the
signature, and a sync function stays sync) and only changes what a return
value becomes: a ``str`` is text, a ``dict`` is ``structuredContent`` (with
its JSON as text), anything else is converted by the SDK (images, content
blocks, lists of them).
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from typing import Any

import mcp_types as types

__all__ = ["converting"]


def converting(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with dict results turned into structured ``CallToolResult``s."""
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def call_async(*args: Any, **kwargs: Any) -> Any:
            return _convert(await fn(*args, **kwargs))

        return call_async

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        return _convert(fn(*args, **kwargs))

    return call


def _convert(value: Any) -> Any:
    if isinstance(value, dict):
        text = json.dumps(value, separators=(",", ":"))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content=value
        )
    return value
