"""A module-level FakeMCPServer, importable as ``fake_server_targets:catalog`` by stdio children."""

from __future__ import annotations

import base64

import mcp_types as types
from mcp.server.mcpserver.exceptions import ToolError

from littleghost_testing.fake_server import FakeMCPServer

catalog = FakeMCPServer("catalog")

PIXEL = b"\x89PNG\r\n\x1a\n"


@catalog.tool(description="Look up a help center entry.")
def lookup(topic: str):  # no return type: plain text, no output schema, as on MCPServer
    return f"Refunds about {topic} are available within 30 days."


@catalog.tool(description="Count the words of a text.")
async def count(text: str) -> dict[str, int]:
    return {"words": len(text.split())}


@catalog.tool(description="Return a tiny image.")
def pixel() -> types.ImageContent:
    return types.ImageContent(
        type="image", data=base64.b64encode(PIXEL).decode(), mime_type="image/png"
    )


@catalog.tool(description="Refuse, the way a tool reports failure.")
def refuse(reason: str) -> str:
    raise ToolError(f"refused: {reason}")


@catalog.tool(
    name="search.v2",
    description="Search with an explicit schema.",
    input_schema={
        "type": "object",
        "properties": {"query": {"type": "string", "minLength": 1}},
        "required": ["query"],
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "properties": {"hits": {"type": "integer"}},
        "required": ["hits"],
    },
)
def search(query: str) -> dict[str, object]:
    return {"hits": len(query)} if query != "broken" else {"hits": "many"}
