"""Fixtures for the MCP tests; the harness itself lives in ``mcp_harness``."""

from mcp_harness import any_target, http_servers, target

__all__ = ["any_target", "http_servers", "target"]
