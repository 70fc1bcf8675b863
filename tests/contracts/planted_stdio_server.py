"""A stdio server with planted bugs the contract checks must each pin on its own tool.

A low-level SDK ``Server``, run as a subprocess (``python planted_stdio_server.py``):
``list_books`` crashes at its schema's maximum, ``stock_level`` answers with
structuredContent that breaks its own outputSchema, ``reload_config`` kills the
server, ``format_label`` crashes on the enum member holding invisible characters.
``echo_label`` and ``word_count`` are correct, and listed after the server killer:
a closed connection must not be blamed on them.
"""

from __future__ import annotations

import os
from typing import Any

import anyio
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
)

INVISIBLE_STYLE = "mirrored\u202e\u200b"
"""A ``format_label`` style holding a right-to-left override and a zero-width space."""


def _object(properties: dict[str, Any], *required: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


TOOLS = [
    Tool(
        name="list_books",
        description="List the books matching a query.",
        input_schema=_object(
            {
                "query": {"type": "string", "maxLength": 20},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50},
            },
            "query",
        ),
    ),
    Tool(
        name="stock_level",
        description="How many of a product are in stock.",
        input_schema=_object({"sku": {"type": "string", "maxLength": 12}}, "sku"),
        output_schema=_object(
            {"sku": {"type": "string"}, "quantity": {"type": "integer", "minimum": 0}},
            "sku",
            "quantity",
        ),
    ),
    Tool(
        name="reload_config",
        description="Reload the server's configuration.",
        input_schema=_object({"section": {"type": "string", "maxLength": 20}}),
    ),
    Tool(
        name="format_label",
        description="Format a label in a style.",
        input_schema=_object(
            {
                "label": {"type": "string", "maxLength": 20},
                "style": {"enum": ["plain", INVISIBLE_STYLE]},
            },
            "label",
            "style",
        ),
    ),
    Tool(
        name="echo_label",
        description="Echo a label back.",
        input_schema=_object({"label": {"type": "string", "maxLength": 20}}, "label"),
    ),
    Tool(
        name="word_count",
        description="Count the words of a text.",
        input_schema=_object({"text": {"type": "string", "maxLength": 40}}, "text"),
    ),
]
BOOKS = [f"Book {number}" for number in range(1, 50)]  # bug: 49 books, limit allows 50
STOCK = {"SKU-0001": 12}
STYLES = {"plain": "{}"}  # bug: the second style of the schema is missing


def _text(value: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=value)])


def _call(name: str, arguments: dict[str, Any]) -> CallToolResult:
    if name == "list_books":
        limit = arguments.get("limit", 10)
        return _text(f"{BOOKS[int(limit) - 1]} and more")  # IndexError at 50
    if name == "stock_level":
        level = {"sku": arguments["sku"], "quantity": STOCK.get(arguments["sku"])}
        return CallToolResult(  # bug: quantity null for an unknown sku
            content=[TextContent(type="text", text=str(level))], structured_content=level
        )
    if name == "reload_config":
        os._exit(3)  # bug: the reload takes the whole server down
    if name == "format_label":
        return _text(STYLES[arguments["style"]].format(arguments["label"]))  # KeyError
    if name == "echo_label":
        return _text(arguments["label"])
    return _text(str(len(arguments["text"].split())))


async def list_tools(context: Any, params: PaginatedRequestParams | None) -> ListToolsResult:
    return ListToolsResult(tools=TOOLS)


async def call_tool(context: Any, params: CallToolRequestParams) -> CallToolResult:
    return _call(params.name, params.arguments or {})


server = Server("contract-planted", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
