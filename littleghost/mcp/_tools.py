"""Generating one ``lg.Tool`` subclass per MCP tool.

A generated class holds the server's own tool name, the shared connection and
the toolset that maps its results; renaming or subclassing it never changes
what the server receives.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import anyio
import mcp
import mcp_types as types

import littleghost as lg
from littleghost import instrumentation
from littleghost._validation import SchemaValidator

from ._bounds import Bounds
from ._connection import Connection
from ._naming import normalize_name
from ._results import convert_result

if TYPE_CHECKING:
    from ._toolset import Toolset

__all__ = ["RemoteTool", "generate_tool_class"]

Owner = Literal["run", "instances"]


@dataclass(frozen=True, slots=True)
class RemoteTool:
    """Everything a generated tool needs to call its server."""

    mcp_tool: types.Tool
    connection: Connection
    toolset: Toolset
    toolset_name: str
    bounds: Bounds
    output_validator: SchemaValidator | None
    owner: Owner
    call_timeout: float

    async def call(self, tool: lg.Tool, input: Mapping[str, Any]) -> Any:
        arguments = input if isinstance(input, dict) else dict(input)
        if not instrumentation.active():
            return await self._call(tool, arguments)
        # The run's guard around this call cancels it: its context says whether for
        # the deadline or the token.
        with instrumentation.measure(
            "mcp_call", tool.context, toolset=self.toolset_name, tool=self.mcp_tool.name
        ):
            return await self._call(tool, arguments)

    async def _call(self, tool: lg.Tool, arguments: dict[str, Any]) -> Any:
        name = self.mcp_tool.name
        request = types.CallToolRequest(
            params=types.CallToolRequestParams(name=name, arguments=arguments)
        )

        async def send(client: mcp.Client) -> types.CallToolResult:
            # Not Client.call_tool: it validates structuredContent with Python's
            # backtracking ``re``, which a hostile outputSchema can stall; the
            # output schema is checked below with linear-time regexes instead.
            return await client.session.send_request(request, types.CallToolResult)

        result: types.CallToolResult | None = None
        with anyio.move_on_after(self.call_timeout):
            result = await self.connection.request(send, tool_call=True)
        if result is None:
            raise lg.ProviderError(
                f"MCP tool {name} exceeded call_timeout ({self.call_timeout:g} s); "
                "raise the Toolset's call_timeout for a slow tool"
            )
        converted = convert_result(
            result,
            tool_name=name,
            output_validator=self.output_validator,
            bounds=self.bounds,
            max_depth=type(tool).max_input_depth,
        )
        value = self.toolset.map_result(
            converted.value,
            result=result,
            mcp_tool=self.mcp_tool,
            arguments=arguments,
            binding=tool.binding,
        )
        if converted.artifacts and not isinstance(value, lg.Result):
            return lg.Result(value, artifacts=converted.artifacts)
        return value


def generate_tool_class(remote: RemoteTool) -> type[lg.Tool]:
    """The Tool subclass for one MCP tool; an invalid server schema is a ``ProtocolError``."""
    mcp_tool = remote.mcp_tool
    tool_name = normalize_name(mcp_tool.name)

    def __init__(self: lg.Tool, binding: lg.Binding | None = None) -> None:
        lg.Tool.__init__(self, binding)
        self.__dict__["_lg_mcp_open"] = remote.owner == "instances"
        if remote.owner == "instances":
            remote.connection.acquire()

    async def call(self: lg.Tool, input: Mapping[str, Any]) -> Any:
        return await remote.call(self, input)

    async def close(self: lg.Tool) -> None:
        if self.__dict__.pop("_lg_mcp_open", False):
            await remote.connection.release()

    namespace = {
        "tool_name": tool_name,
        "description": mcp_tool.description or mcp_tool.title or f"MCP tool {mcp_tool.name}",
        "input_schema": mcp_tool.input_schema,
        "mcp_tool": mcp_tool,
        "__init__": __init__,
        "call": call,
        "close": close,
        "__module__": type(remote.toolset).__module__,
    }
    try:
        return type(f"{type(remote.toolset).__name__}_{tool_name}", (lg.Tool,), namespace)
    except (lg.ConfigurationError, TypeError) as error:
        raise lg.ProtocolError(
            f"MCP tool {mcp_tool.name!r} has an invalid inputSchema: {error}"
        ) from None


def output_validator(mcp_tool: types.Tool) -> SchemaValidator | None:
    """The compiled outputSchema, if the tool declares one."""
    if mcp_tool.output_schema is None:
        return None
    try:
        return SchemaValidator(mcp_tool.output_schema)
    except lg.ConfigurationError as error:
        raise lg.ProtocolError(
            f"MCP tool {mcp_tool.name!r} has an invalid outputSchema: {error}"
        ) from None
