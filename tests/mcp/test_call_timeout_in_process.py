"""call_timeout against an in-process server: one watchdog per connection stops late calls."""

from __future__ import annotations

import time
from typing import Any

import anyio
import mcp
import mcp_types as types
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError

import littleghost as lg
from littleghost import instrumentation
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

    @server.tool(description="Answers after a pause.")
    async def pause(seconds: float) -> str:
        await anyio.sleep(seconds)
        return "done"

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


TIMED_OUT = (
    "MCP tool hang exceeded call_timeout (0.2 s); raise the Toolset's call_timeout for a slow tool"
)


async def test_a_call_outside_execute_is_bounded_too(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    stopped: list[str] = []
    with anyio.fail_after(PROMPT):
        async with lg.Run() as run:
            hang = await tool(run, in_process_server(stopped), "hang", 0.2)
            with pytest.raises(lg.ProviderError) as raised:
                await hang.call({})
            assert str(raised.value) == TIMED_OUT
            assert stopped == ["hang"]
    await baseline.assert_released()


async def test_concurrent_late_calls_each_stop_and_prompt_ones_answer(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    stopped: list[str] = []
    results: list[lg.ExecutionResult] = []
    with anyio.fail_after(PROMPT):
        async with lg.Run() as run:
            server = in_process_server(stopped)
            hang = await tool(run, server, "hang", 0.5)
            pause = await tool(run, server, "pause", 0.5)

            async def late() -> None:
                results.append(await hang.execute({}, context=run.context))

            async def prompt() -> None:
                results.append(await pause.execute({"seconds": 0.01}, context=run.context))

            started = time.monotonic()
            async with anyio.create_task_group() as tg:
                for i in range(20):
                    tg.start_soon(late if i % 2 else prompt)
            elapsed = time.monotonic() - started
    assert [r.value for r in results if not r.is_error] == [{"result": "done"}] * 10
    failures = [r.error for r in results if r.is_error]
    assert [str(error) for error in failures] == [TIMED_OUT.replace("0.2 s", "0.5 s")] * 10
    assert stopped == ["hang"] * 10
    assert 0.5 <= elapsed < PROMPT
    await baseline.assert_released()


async def test_a_call_after_an_idle_spell_gets_its_whole_call_timeout(lg_leaks: Any) -> None:
    """The watchdog wakes while the connection is idle; a later call still gets all its time."""
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(PROMPT):
        async with lg.Run() as run:
            pause = await tool(run, in_process_server([]), "pause", 0.6)
            await anyio.sleep(0.8)  # past one watchdog wake-up with nothing to watch
            within = await pause.execute({"seconds": 0.3}, context=run.context)
            assert within.value == {"result": "done"}
            started = time.monotonic()
            late = await pause.execute({"seconds": 5}, context=run.context)
            elapsed = time.monotonic() - started
            assert isinstance(late.error, lg.ProviderError)
            assert "call_timeout (0.6 s)" in str(late.error)
            assert 0.6 <= elapsed < 2.0
    await baseline.assert_released()


async def test_a_timed_out_call_is_an_error_event_not_a_cancellation(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    events: list[instrumentation.Event] = []
    with anyio.fail_after(PROMPT), instrumentation.subscribe(events.append):
        async with lg.Run() as run:
            hang = await tool(run, in_process_server([]), "hang", 0.2)
            result = await hang.execute({}, context=run.context)
            assert str(result.error) == TIMED_OUT
    outcomes = {event.name: (event.payload["outcome"], event.error_type) for event in events}
    assert outcomes["mcp_call"] == ("error", "littleghost.mcp.TimeoutExceeded")
    assert outcomes["tool_call"] == ("error", None)
    await baseline.assert_released()


async def test_a_tiny_call_timeout_stops_calls_without_spinning(lg_leaks: Any) -> None:
    """The watchdog sleeps at least a millisecond: an idle connection costs next to nothing."""
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(PROMPT):
        async with lg.Run() as run:
            pause = await tool(run, in_process_server([]), "pause", 1e-9)
            cpu = time.process_time()
            await anyio.sleep(0.3)  # idle: the watchdog wakes at most every millisecond
            assert time.process_time() - cpu < 0.15
            late = await pause.execute({"seconds": 1}, context=run.context)
            assert "call_timeout (1e-09 s)" in str(late.error)
    await baseline.assert_released()
