"""A stdio MCP server that writes scratch files into its temp folder, as real servers do.

``where`` writes a file (and a read-only folder holding one) into
``tempfile.gettempdir()`` and answers ``{"TMPDIR", "TEMP", "TMP", "gettempdir", "file"}``;
``crash`` writes the same, then exits mid-call; ``hang`` writes, then never answers
(both say where in the file ``$WRITER_REPORT``).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("temp-writer", log_level="WARNING")
READ_ONLY = ToolAnnotations(readOnlyHint=True)


def _scribble() -> dict[str, str | None]:
    folder = Path(tempfile.gettempdir())
    scratch = folder / "scratch.txt"
    scratch.write_text("scratch")
    locked = folder / "locked"
    locked.mkdir(exist_ok=True)
    (locked / "inside.txt").write_text("kept")
    locked.chmod(0o500)  # a folder its own files cannot be deleted from
    where: dict[str, str | None] = {
        name: os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP")
    }
    return where | {"gettempdir": str(folder), "file": str(scratch)}


@server.tool(description="Writes scratch files; says where.", annotations=READ_ONLY)
def where() -> str:
    return json.dumps(_scribble())


@server.tool(description="Writes scratch files, then dies.", annotations=READ_ONLY)
def crash() -> str:
    Path(os.environ["WRITER_REPORT"]).write_text(json.dumps(_scribble()))
    os._exit(1)


@server.tool(description="Writes scratch files, then hangs.", annotations=READ_ONLY)
def hang() -> str:
    Path(os.environ["WRITER_REPORT"]).write_text(json.dumps(_scribble()))
    time.sleep(3600)
    return "never"


if __name__ == "__main__":
    server.run()
