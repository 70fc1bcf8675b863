"""A server whose tool names and stderr carry terminal escapes (``littleghost check`` must
print them harmlessly). Served over stdio by the hostile CLI tests:
``python -m littleghost_testing.fake_server servers.cli_hostile_names:hostile``.
"""

from __future__ import annotations

import os
import sys

from littleghost_testing.fake_server import FakeMCPServer, JsonRpcError

READ_ONLY = {"readOnlyHint": True}
TITLE = "\x1b]0;pwned\x07title"
CLEAR = "clear\x1b[2Jscreen"
SPLIT = "split\nrow"

hostile = FakeMCPServer("hostile", import_path="servers.cli_hostile_names:hostile")


@hostile.tool(
    name=TITLE,
    description="Sets the title.",
    annotations=READ_ONLY,
    fault=JsonRpcError(-32603, "boom \x1b[2J"),
)
def title(topic: str) -> str:
    return topic


@hostile.tool(
    name=CLEAR,
    description="Clears the screen.",
    annotations=READ_ONLY,
    fault=JsonRpcError(-32603, "boom"),
)
def clear(topic: str) -> str:
    return topic


@hostile.tool(
    name=SPLIT,
    description="Splits rows.",
    annotations=READ_ONLY,
    fault=JsonRpcError(-32603, "boom"),
)
def split(topic: str) -> str:
    return topic


@hostile.tool(name="\x1b[2Jdie", description="Dies.", annotations=READ_ONLY)
def die(topic: str) -> str:
    print("dying \x1b]0;pwned-by-stderr\x07 \x1b[2J now", file=sys.stderr, flush=True)
    os._exit(1)
