"""A large MCP catalog of real tool schemas, for the discovery benchmark.

The tools cycle through every input schema (and output schema, where the
server declared one) of the corpus in ``tests/data/tool_schemas``. Each copy is
made unique (its own name and a ``title`` naming the copy) so that no cache
keyed on the schema can hit: the figures are what a catalog of that many
different real tools costs.

Serve it in-process (``catalog_server(count)``), behind uvicorn
(``catalog_http_app(count)``) or over stdio::

    python bench/real_catalog.py --count 1000
"""

from __future__ import annotations

import argparse
import copy
import json
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "tool_schemas"

__all__ = ["catalog_http_app", "catalog_server", "real_tools"]


def _corpus() -> list[dict[str, Any]]:
    """Every corpus tool the SDK's server can list: its schemas say ``"type": "object"``."""
    tools: list[dict[str, Any]] = []
    for path in sorted(CORPUS.glob("*.json")):
        tools.extend(
            tool
            for tool in json.loads(path.read_text(encoding="utf-8"))["tools"]
            if tool["inputSchema"].get("type") == "object"
            and tool.get("outputSchema", {"type": "object"}).get("type") == "object"
        )
    return tools


def _unique(schema: dict[str, Any], copy_number: int) -> dict[str, Any]:
    unique = copy.deepcopy(schema)
    unique["title"] = f"{schema.get('title', 'input')} (copy {copy_number})"
    return unique


def real_tools(count: int) -> list[types.Tool]:
    """``count`` tools cycled from the corpus, each with unique schemas."""
    corpus = _corpus()
    tools: list[types.Tool] = []
    for i in range(count):
        source = corpus[i % len(corpus)]
        output = source.get("outputSchema")
        tools.append(
            types.Tool(
                name=f"{source['name']}_{i}",
                description=f"Copy {i} of a real tool.",
                input_schema=_unique(source["inputSchema"], i),
                output_schema=None if output is None else _unique(output, i),
            )
        )
    return tools


def catalog_server(count: int) -> Server[Any]:
    """An SDK lowlevel server listing ``real_tools(count)`` in one page."""
    listing = types.ListToolsResult(tools=real_tools(count))

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listing

    return Server("real-catalog", on_list_tools=list_tools)


def catalog_http_app(count: int) -> Any:
    """The catalog as a Streamable HTTP ASGI app (build it on the loop that serves it)."""
    return catalog_server(count).streamable_http_app()


async def _serve_stdio(count: int) -> None:
    server = catalog_server(count)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000)
    anyio.run(partial(_serve_stdio, parser.parse_args().count))
