"""A server written for mcp 1.x, started under mcp 2.x: its low-level decorator is gone.

Run with ``import`` as its argument it fails the other common way, importing
``mcp.server.fastmcp`` (renamed ``mcp.server.mcpserver`` in mcp 2.x).
"""

import sys

from mcp.server.lowlevel import Server

if sys.argv[1:] == ["import"]:
    from mcp.server.fastmcp import FastMCP  # type: ignore[import-not-found]  # noqa: F401

server = Server("mcp1-server")


@server.list_resources()  # type: ignore[attr-defined]
async def handle_list_resources() -> list[object]:
    return []
