"""A stdio MCP server the CLI tests run as a child: noisy, needs an env var, records every call.

It writes startup noise to stderr (which must end up in the server log, not
in the CLI's output), refuses to start without ``CLI_SERVER_TOKEN``, and
appends each call as a JSON line to ``CLI_CALLS_FILE`` so that a test can
prove what was never called. ``die`` kills the process mid-call after
writing a traceback to stderr; ``slow`` takes ``CLI_SLOW_SECONDS`` per call.
"""

from __future__ import annotations

import json
import os
import sys
import time

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

READ_ONLY = ToolAnnotations(readOnlyHint=True)
DESTRUCTIVE = ToolAnnotations(readOnlyHint=False, destructiveHint=True)

server = MCPServer("cli-stdio", log_level="WARNING")


def _record(tool: str, arguments: dict[str, object]) -> None:
    path = os.environ.get("CLI_CALLS_FILE")
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")


@server.tool(description="Says whether the server got its token.", annotations=READ_ONLY)
def whoami() -> str:
    _record("whoami", {})
    return f"token of {len(os.environ['CLI_SERVER_TOKEN'])} characters"


@server.tool(description="Echoes a word.", annotations=READ_ONLY)
def echo(word: str) -> str:
    _record("echo", {"word": word})
    return word


@server.tool(description="Takes its time.", annotations=READ_ONLY)
def slow(word: str) -> str:
    _record("slow", {"word": word})
    time.sleep(float(os.environ.get("CLI_SLOW_SECONDS", "0.05")))
    return word


@server.tool(description="Deletes everything.", annotations=DESTRUCTIVE)
def delete_everything(confirm: bool) -> str:
    _record("delete_everything", {"confirm": confirm})
    return "deleted"


@server.tool(description="Dies mid-call.", annotations=READ_ONLY)
def die(word: str) -> str:
    _record("die", {"word": word})
    print("Traceback (most recent call last):", file=sys.stderr)
    print("RuntimeError: disk on fire", file=sys.stderr, flush=True)
    os._exit(1)


if __name__ == "__main__":
    for line in range(3):
        print(f"cli-stdio starting: banner line {line}", file=sys.stderr)
    if not os.environ.get("CLI_SERVER_TOKEN"):
        print("fatal: CLI_SERVER_TOKEN is not set", file=sys.stderr, flush=True)
        sys.exit(3)
    server.run()
