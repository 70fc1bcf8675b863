"""Planted bugs written with FastMCP 2.x (run from its own venv: it needs mcp 1.x), over stdio."""

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError

app = FastMCP("planted-fastmcp")
READ_ONLY = {"readOnlyHint": True}


@app.tool(annotations=READ_ONLY)
def divide(total: int, parts: int) -> float:
    """A zero divisor, which the schema allows, raises ZeroDivisionError."""
    return total / parts


@app.tool(annotations=READ_ONLY)
def lookup(order_id: str) -> str:
    """A deliberate refusal for every order: a fine answer."""
    raise ToolError(f"order {order_id!r} not found")


@app.tool(annotations=READ_ONLY)
def echo(text: str) -> str:
    """The control."""
    return text


if __name__ == "__main__":
    app.run(show_banner=False)
