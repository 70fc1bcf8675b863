"""The scenario server: built from the SDK's own ``MCPServer``.

Run in-process (``build_server()``), over stdio (``python -m
tests.mcp.mcp_servers.catalog``) or behind uvicorn (``http_app()``). ``LG_TEST_EVENTS`` names a file
the stdio process appends lifecycle lines to ("started hang", "cancelled
hang"), so a test in another process can see what the handler observed.
``LG_TEST_CRASHABLE=1`` adds the ``crash`` tool. ``LG_TEST_LEGACY=1`` makes it
answer like a pre-2026 server: ``server/discover`` gets "method not found" on
the wire, so clients fall back to the initialize handshake and negotiate
2025-11-25.
"""

from __future__ import annotations

import base64
import json
import os
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

import anyio
import anyio.abc
import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+P+/HgAFhAJ/wlseKgAAAABJRU5ErkJggg=="
)


def build_server(
    *, crashable: bool = False, record: Callable[[str], None] | None = None
) -> MCPServer:
    """A server with one tool per result shape, a hanging tool and an oddly named one.

    ``crashable`` adds ``crash``, which kills the process mid-call (stdio only).
    """
    server = MCPServer("catalog")
    note = record or (lambda _event: None)

    @server.tool(description="Echo the text back.", structured_output=False)
    async def echo(text: str) -> str:
        return text

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="Return a one-pixel PNG.")
    def pixel() -> types.ImageContent:
        return types.ImageContent(
            type="image", data=base64.b64encode(PIXEL).decode(), mime_type="image/png"
        )

    @server.tool(description="Fail the way a tool reports failure.")
    def refuse(reason: str) -> str:
        raise ToolError(f"refused: {reason}")

    @server.tool(description="Wait until cancelled.", structured_output=False)
    async def hang() -> str:
        note("started hang")
        try:
            await anyio.sleep_forever()
        except anyio.get_cancelled_exc_class():
            note("cancelled hang")
            raise
        return "unreachable"

    @server.tool(name="help.center/search", description="Search with a dotted name.")
    def search(query: str) -> str:
        return f"results for {query}"

    if crashable:

        @server.tool(description="Exit the server process mid-call.")
        def crash() -> str:
            os._exit(3)

    return server


def http_app(*, legacy: bool = False, record: Callable[[str], None] | None = None) -> Any:
    """The server as a Streamable HTTP ASGI app (build it on the loop that serves it)."""
    app = build_server(record=record).streamable_http_app()
    return _http_without_discover(app) if legacy else app


def _http_without_discover(app: Any) -> Any:
    """Answer ``server/discover`` with "method not found", as a pre-2026 server does."""

    async def filtered(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            return await app(scope, receive, send)
        chunks: list[bytes] = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        request = json.loads(body) if body else {}
        if isinstance(request, dict) and request.get("method") == "server/discover":
            error = {"code": -32601, "message": "Method not found"}
            reply = json.dumps({"jsonrpc": "2.0", "id": request.get("id"), "error": error})
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": reply.encode()})
            return None
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await app(scope, replay, send)

    return filtered


def _file_recorder(path: str) -> Callable[[str], None]:
    def record(event: str) -> None:
        with open(path, "a") as file:
            file.write(event + "\n")

    return record


async def _serve_stdio(server: MCPServer, *, legacy: bool) -> None:
    lowlevel = server._lowlevel_server  # pyright: ignore[reportPrivateUsage]
    async with stdio_server() as (read_stream, write_stream), anyio.create_task_group() as tg:
        if legacy:
            read_stream = without_discover(tg, read_stream, write_stream)
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
        tg.cancel_scope.cancel()


def without_discover(tg: anyio.abc.TaskGroup, read_stream: Any, write_stream: Any) -> Any:
    """Answer ``server/discover`` with "method not found", as a pre-2026 server does."""
    send, receive = anyio.create_memory_object_stream[Any](0)

    async def forward() -> None:
        async with send:
            async for message in read_stream:
                inner = getattr(message, "message", None)
                if isinstance(inner, types.JSONRPCRequest) and inner.method == "server/discover":
                    error = types.ErrorData(code=types.METHOD_NOT_FOUND, message="Method not found")
                    reply = types.JSONRPCError(jsonrpc="2.0", id=inner.id, error=error)
                    await write_stream.send(SessionMessage(reply))
                else:
                    await send.send(message)

    tg.start_soon(forward)
    return receive


if __name__ == "__main__":
    events = os.environ.get("LG_TEST_EVENTS")
    catalog = build_server(
        crashable=os.environ.get("LG_TEST_CRASHABLE") == "1",
        record=_file_recorder(events) if events else None,
    )
    anyio.run(partial(_serve_stdio, catalog, legacy=os.environ.get("LG_TEST_LEGACY") == "1"))
    sys.exit(0)
