"""Planted bugs, written with the MCP Python SDK as users write tools: each tool one behaviour.

``app`` is an ``MCPServer``; ``low`` a low-level ``Server`` whose handler raises;
``by_hand`` a low-level ``Server`` that checks its input itself and refuses in
a success's words, as office-word-mcp-server does.
Every tool is annotated read-only, so ``check`` calls it by default.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any, Literal

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

READ_ONLY = types.ToolAnnotations(read_only_hint=True)

app = MCPServer("planted")


@app.tool(annotations=READ_ONLY)
def divide(total: int, parts: int) -> float:
    """Splits a total: a zero divisor, which the schema allows, raises ZeroDivisionError."""
    return total / parts


@app.tool(annotations=READ_ONLY)
def initial(name: str) -> str:
    """The first letter: an empty name raises IndexError."""
    return name[0]


@app.tool(annotations=READ_ONLY)
def lookup(order_id: str) -> str:
    """A deliberate refusal for every order: a fine answer, never a crash."""
    raise ToolError(f"order {order_id!r} not found")


@app.tool(annotations=READ_ONLY)
def columns(table: str) -> dict[str, Any]:
    """Answers success with a body that says it failed."""
    return {"success": False, "message": f"no table {table!r}"}


@app.tool(annotations=READ_ONLY)
def comments(document: str, paragraph: int) -> dict[str, Any]:
    """Only document "report" exists, the others answer success false; ``"0"`` is taken for 0."""
    if document != "report":
        return {"success": False, "error": f"document {document!r} does not exist"}
    return {"success": True, "paragraph": paragraph, "comments": []}


@app.tool(annotations=READ_ONLY)
def echo(text: str) -> str:
    """The control: correct on every input."""
    return text


@app.tool(annotations=READ_ONLY)
def top(n: int) -> list[int]:
    """Refuses an n over 10 on purpose, a rule its schema does not state (issue 29.2)."""
    if n > 10:
        raise ToolError("n must be at most 10")
    return list(range(max(n, 0)))


@app.tool(annotations=READ_ONLY)
def open_document(filename: str) -> str:
    """Hollow: answers every call with success and the same refusal, as office-word does."""
    return f"Document {filename}.docx does not exist"


@app.tool(annotations=READ_ONLY)
def slide_count(deck: str) -> dict[str, Any] | str:
    """Hollow: an error dict the SDK wraps as ``{"result": {...}}``, as office-powerpoint's."""
    return {"error": "No presentation is currently loaded"}


@app.tool(annotations=READ_ONLY)
def query(sql: str) -> str:
    """Hollow: a database refusal as the success text, as mcp-server-duckdb's."""
    return f'Database error: Parser Error: syntax error at or near "{sql[:5]}"'


@app.tool(annotations=READ_ONLY)
def read_files(paths: Annotated[list[str], Field(min_length=1)]) -> str:
    """Hollow: each path it cannot read (none) answered as ``PATH: Error - ...`` in one
    success, as filesystem's ``read_multiple_files`` (whose zod schema has ``.min(1)``)."""
    return "\n---\n".join(
        f"{path}: Error - ENOENT: no such file or directory, open '/srv/{path}'" for path in paths
    )


@app.tool(annotations=READ_ONLY)
def checksums(paths: list[str]) -> str:
    """The control: an entry per path that varies with it, and a line that merely
    opens with "error"."""
    return "\n---\n".join(
        f"{path}: sha1 {hashlib.sha1(path.encode()).hexdigest()[:12]}\nerror log: empty"
        for path in paths
    )


@app.tool(annotations=READ_ONLY)
def annotated_message(message_type: Literal["error", "success", "debug"]) -> str:
    """No bug: the demo text the input chose, as server-everything's get-annotated-message."""
    if message_type == "error":
        return "Error: Operation failed"
    return "Operation completed successfully" if message_type == "success" else "Debug: ok"


@app.tool(annotations=READ_ONLY)
def notify(level: Literal["error", "info"], user: str) -> str:
    """Refuses every user in a success's words, whichever level the input chose."""
    return "Error: unknown user"


@app.tool(annotations=READ_ONLY)
def health(detail: Literal["short", "long"] = "short") -> str:
    """The control: one constant answer that reads as no error, whatever the input."""
    return "all systems nominal"


async def _list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    tool = types.Tool(name="crashing", input_schema=schema, annotations=READ_ONLY)
    return types.ListToolsResult(tools=[tool])


async def _call_tool(ctx: Any, params: Any) -> types.CallToolResult:
    raise ZeroDivisionError("division by zero")


low = Server("planted-low", on_list_tools=_list_tools, on_call_tool=_call_tool)


async def _list_by_hand(ctx: Any, params: Any) -> types.ListToolsResult:
    schema = {
        "type": "object",
        "properties": {"count": {"type": "integer"}},
        "required": ["count"],
        "additionalProperties": False,
    }
    tool = types.Tool(name="count", input_schema=schema, annotations=READ_ONLY)
    return types.ListToolsResult(tools=[tool])


async def _call_by_hand(ctx: Any, params: Any) -> types.CallToolResult:
    arguments = params.arguments or {}
    count = arguments.get("count")
    if set(arguments) - {"count"}:
        body: dict[str, Any] = {"success": False, "error": "only count is allowed"}
    elif isinstance(count, int | float) and not isinstance(count, bool) and count == int(count):
        body = {"success": True, "count": count}
    else:
        body = {"success": False, "error": "count must be an integer"}
    return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(body))])


by_hand = Server("planted-by-hand", on_list_tools=_list_by_hand, on_call_tool=_call_by_hand)


async def _list_split(ctx: Any, params: Any) -> types.ListToolsResult:
    schema = {"type": "object", "properties": {"table": {"type": "string"}}, "required": ["table"]}
    tool = types.Tool(name="rows", input_schema=schema, annotations=READ_ONLY)
    return types.ListToolsResult(tools=[tool])


async def _call_split(ctx: Any, params: Any) -> types.CallToolResult:
    table = (params.arguments or {}).get("table")
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"Error: table {table!r} is locked")],
        structured_content={"rows": []},
    )


split = Server("planted-split", on_list_tools=_list_split, on_call_tool=_call_split)
"""Structured content that looks fine, and a text content that says the call failed."""
