"""MCP toolsets: the tools of any MCP server, through the official MCP Python SDK."""

from .failures import ServerError
from .toolset import Toolset

__all__ = ["ServerError", "Toolset"]
