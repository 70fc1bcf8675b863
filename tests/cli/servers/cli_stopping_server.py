"""A stdio MCP server for the stopping tests: a call that hangs, and one that blocks the server.

``hang`` waits (asynchronously) until it is cancelled, and records the
cancellation; ``a_stuck`` blocks the whole single-threaded server for
``CLI_STUCK_SECONDS``; ``echo`` answers at once. Every event goes to
``CLI_EVENTS_FILE``, one line each.
"""

from __future__ import annotations

import os
import time

import anyio
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

READ_ONLY = ToolAnnotations(readOnlyHint=True)

server = MCPServer("cli-stopping", log_level="WARNING")


def _event(text: str) -> None:
    with open(os.environ["CLI_EVENTS_FILE"], "a", encoding="utf-8") as file:
        file.write(text + "\n")


@server.tool(description="Blocks the whole server for a while.", annotations=READ_ONLY)
async def a_stuck(word: str) -> str:
    _event("a_stuck called")
    time.sleep(float(os.environ.get("CLI_STUCK_SECONDS", "30")))  # noqa: ASYNC251 (on purpose)
    return word


@server.tool(description="Echoes a word.", annotations=READ_ONLY)
async def echo(word: str) -> str:
    _event("echo called")
    return word


@server.tool(description="Waits until cancelled.", annotations=READ_ONLY)
async def hang(word: str) -> str:
    _event("hang called")
    try:
        await anyio.sleep(600)
    except anyio.get_cancelled_exc_class():
        _event("hang cancelled")
        raise
    return word


if __name__ == "__main__":
    server.run()
