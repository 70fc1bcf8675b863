"""MCP toolsets: the tools of any MCP server, through the official MCP Python SDK."""

from ._failures import ServerError
from ._lock import CatalogLock, Change
from ._toolset import Toolset

__all__ = ["CatalogLock", "Change", "ServerError", "Toolset"]

ServerError.__module__ = __name__  # tracebacks and events name the public path
CatalogLock.__module__ = __name__
Change.__module__ = __name__
