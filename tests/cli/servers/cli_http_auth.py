"""A Streamable HTTP MCP server that answers only requests carrying its bearer token."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import Field

TOKEN = "s3cret-t0ken"


def build() -> Any:
    """The ASGI app: 401 without ``Authorization: Bearer TOKEN``, else the MCP server."""
    server = MCPServer("cli-http-auth", log_level="WARNING")

    read_only = ToolAnnotations(readOnlyHint=True)

    @server.tool(description="Looks up a topic.", annotations=read_only)
    def lookup(topic: str) -> str:
        return f"About {topic}."

    @server.tool(description="Shouts a short word.", annotations=read_only)
    def shout(word: Annotated[str, Field(json_schema_extra={"maxLength": 3})]) -> str:
        # The deliberate violation: maxLength is advertised, never enforced.
        return word.upper()

    app = server.streamable_http_app()

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            if headers.get(b"authorization") != f"Bearer {TOKEN}".encode():
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"text/plain")],
                    }
                )
                await send({"type": "http.response.body", "body": b"no"})
                return
        await app(scope, receive, send)

    return guarded
