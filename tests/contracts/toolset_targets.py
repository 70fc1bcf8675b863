"""Toolsets over FakeMCPServers for the contract tests."""

from __future__ import annotations

from typing import Any

import mcp

import littleghost as lg
from littleghost.mcp import Toolset
from littleghost_testing.fake_server import FakeMCPServer

help_desk = FakeMCPServer("help-desk")


@help_desk.tool(description="Look up a help center entry.")
def lookup(topic: str) -> str:
    return f"Refunds about {topic} are available within 30 days."


@help_desk.tool(
    description="Count the words of a text.",
    input_schema={
        "type": "object",
        "properties": {"text": {"type": "string", "maxLength": 40}},
        "required": ["text"],
        "additionalProperties": False,
    },
)
def count(text: str) -> dict[str, int]:
    return {"words": len(text.split())}


class HelpDeskTools(Toolset):
    def client(self, binding: lg.Binding) -> mcp.Client:
        return help_desk.client()


class RefusingHelpDeskTools(HelpDeskTools):
    """Its map_result refuses structured values with a ToolError: shown as is, as allowed."""

    def map_result(self, value: Any, **context: Any) -> Any:
        if isinstance(value, dict):
            raise lg.ToolError("structured answers are not supported")
        return value


class UnreachableTools(Toolset):
    def client(self, binding: lg.Binding) -> mcp.Client:
        return mcp.Client("http://127.0.0.1:1/mcp")
