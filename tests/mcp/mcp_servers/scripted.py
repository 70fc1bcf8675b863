"""A raw in-memory transport whose server is a plain function of each request.

The SDK's own servers validate what they send, so they cannot misbehave the
way a hostile server does. This transport answers with arbitrary JSON: the
handler returns a result dict, raises ``MCPError`` for a JSON-RPC error, or
awaits forever to hang. ``server/discover`` is answered for 2026-07-28.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

Handler = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]

DISCOVER = {
    "supportedVersions": ["2026-07-28"],
    "capabilities": {"tools": {}},
    "resultType": "complete",
    "ttlMs": 0,
    "cacheScope": "public",
}


def tool(name: str, **fields: Any) -> dict[str, Any]:
    """A tool definition with an object input schema unless ``fields`` overrides it."""
    return {
        "name": name,
        "description": f"The {name} tool.",
        "inputSchema": {"type": "object"},
    } | fields


def page(tools: list[dict[str, Any]], cursor: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {
        "tools": tools,
        "resultType": "complete",
        "ttlMs": 0,
        "cacheScope": "public",
    }
    if cursor is not None:
        result["nextCursor"] = cursor
    return result


def text_result(text: str, **fields: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "resultType": "complete"} | fields


class ScriptedTransport:
    """``mcp.Client(ScriptedTransport(handler))``; records cancellations it receives."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.cancelled: list[Any] = []
        self.requests: list[str] = []
        self._tg: anyio.abc.TaskGroup | None = None

    async def __aenter__(self) -> tuple[Any, Any]:
        to_client, client_reads = anyio.create_memory_object_stream[Any](100)
        client_writes, from_client = anyio.create_memory_object_stream[Any](100)
        self._streams = (to_client, client_reads, client_writes, from_client)
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        self._tg.start_soon(self._serve, from_client, to_client)
        return client_reads, client_writes

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._tg is not None
        self._tg.cancel_scope.cancel()
        await self._tg.__aexit__(None, None, None)
        for stream in self._streams:
            await stream.aclose()

    async def _serve(self, from_client: Any, to_client: Any) -> None:
        async with anyio.create_task_group() as tg:
            async for message in from_client:
                inner = message.message
                if isinstance(inner, types.JSONRPCNotification):
                    if inner.method == "notifications/cancelled":
                        self.cancelled.append((inner.params or {}).get("requestId"))
                elif isinstance(inner, types.JSONRPCRequest):
                    tg.start_soon(self._answer, inner, to_client)

    async def _answer(self, request: types.JSONRPCRequest, to_client: Any) -> None:
        self.requests.append(request.method)
        reply: Any
        if request.method == "server/discover":
            reply = types.JSONRPCResponse(jsonrpc="2.0", id=request.id, result=DISCOVER)
        else:
            try:
                result = await self.handler(request.method, dict(request.params or {}))
            except MCPError as error:
                reply = types.JSONRPCError(jsonrpc="2.0", id=request.id, error=error.error)
            else:
                reply = types.JSONRPCResponse(jsonrpc="2.0", id=request.id, result=result)
        await to_client.send(SessionMessage(reply))
