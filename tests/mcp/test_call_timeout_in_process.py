"""call_timeout against an in-process server, which the SDK's own request timeout bounds."""

from __future__ import annotations

from typing import Any

import anyio
import mcp
import mcp_types as types
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

import littleghost as lg
from littleghost.mcp import Toolset
from littleghost_testing.leaks import ResourceSnapshot

pytestmark = pytest.mark.anyio

PROMPT = 5.0  # seconds within which every outcome below must arrive


def in_process_server(stopped: list[str]) -> MCPServer:
    server = MCPServer("slow")

    @server.tool(description="Never answers in time.")
    async def hang() -> str:
        try:
            await anyio.sleep(60)
        finally:
            stopped.append("hang")
        return "late"

    @server.tool(description="Reports a timeout of its own at once.")
    async def own_timeout() -> str:
        raise MCPError(code=types.REQUEST_TIMEOUT, message="upstream timed out")

    return server


def toolset(server: MCPServer, timeout: float) -> type[Toolset]:
    class InProcess(Toolset):
        call_timeout = timeout

        def client(self, binding: lg.Binding) -> mcp.Client:
            return mcp.Client(server)

    return InProcess


async def tool(run: lg.Run, server: MCPServer, name: str, call_timeout: float) -> lg.Tool:
    binding = lg.Binding(run=run)
    classes = {cls.tool_name: cls for cls in await toolset(server, call_timeout).tools(binding)}
    return classes[name](binding)


async def test_call_timeout_stops_an_in_process_call_and_names_the_limit(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    stopped: list[str] = []
    server = in_process_server(stopped)
    with anyio.fail_after(PROMPT):
        async with lg.Run() as run:
            hang = await tool(run, server, "hang", 0.2)
            result = await hang.execute({}, context=run.context)
            assert result.is_error
            assert isinstance(result.error, lg.ProviderError)
            assert str(result.error) == (
                "MCP tool hang exceeded call_timeout (0.2 s); "
                "raise the Toolset's call_timeout for a slow tool"
            )
            assert stopped == ["hang"]  # the server's handler was cancelled, not abandoned
    await baseline.assert_released()


async def test_a_server_reporting_a_timeout_of_its_own_is_not_a_call_timeout(
    lg_leaks: Any,
) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    server = in_process_server([])
    with anyio.fail_after(PROMPT):
        async with lg.Run() as run:
            own = await tool(run, server, "own_timeout", 30.0)
            result = await own.execute({}, context=run.context)
            assert isinstance(result.error, lg.ProviderError)
            assert "call_timeout" not in str(result.error)
            assert "upstream timed out" in str(result.error)
    await baseline.assert_released()


async def test_a_run_deadline_sooner_than_call_timeout_wins_in_process(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    stopped: list[str] = []
    server = in_process_server(stopped)
    context = lg.RunContext.with_timeout(0.3)
    with anyio.fail_after(PROMPT):
        async with lg.Run(context=context) as run:
            hang = await tool(run, server, "hang", 30.0)
            with pytest.raises(lg.DeadlineExceededError):
                await hang.execute({}, context=run.context)
            assert stopped == ["hang"]
    await baseline.assert_released()
