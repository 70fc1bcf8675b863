"""One scenario suite over every transport: in-process, stdio subprocess, Streamable HTTP."""

from __future__ import annotations

import time
from typing import Any

import anyio
import mcp
import pytest
from mcp_harness import Target, make_target
from mcp_servers.catalog import PIXEL

import littleghost as lg
from littleghost.mcp import Toolset
from littleghost_testing.leaks import ResourceSnapshot

pytestmark = pytest.mark.anyio


def toolset_for(target: Target) -> type[Toolset]:
    class CatalogTools(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return target.client()

    return CatalogTools


def by_name(classes: list[type[lg.Tool]]) -> dict[str, type[lg.Tool]]:
    return {cls.tool_name: cls for cls in classes}


async def test_discovers_calls_and_closes(target: Target, lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(15):
        classes = await toolset_for(target).tools(lg.Binding())
        tools = by_name(classes)
        assert sorted(tools) == ["add", "echo", "hang", "help_center_search", "pixel", "refuse"]
        assert tools["echo"].description == "Echo the text back."
        assert tools["echo"].specification()["input_schema"]["required"] == ["text"]
        async with lg.ToolRegistry(classes) as registry:
            echo = await registry.call("echo", {"text": "hi"})
            assert (echo.status, echo.value, echo.content) == ("success", "hi", "hi")
            add = await registry.call("add", {"a": 2, "b": 3})
            assert add.value == {"result": 5}
            assert add.content == '{"result":5}'
            pixel = await registry.call("pixel", {})
            assert [(a.data, a.media_type) for a in pixel.artifacts] == [(PIXEL, "image/png")]
            refused = await registry.call("refuse", {"reason": "closed"})
            assert refused.is_error and "refused: closed" in refused.content
            search = await registry.call("help_center_search", {"query": "refunds"})
            assert search.value == {"result": "results for refunds"}
            invalid = await registry.call("add", {"a": "two", "b": 3})
            assert invalid.content.startswith("Invalid tool input: ")
            results: list[lg.ExecutionResult] = []

            async def echo_one(i: int) -> None:
                results.append(await registry.call("echo", {"text": str(i)}))

            async with anyio.create_task_group() as tg:
                for i in range(100):
                    tg.start_soon(echo_one, i)
            assert sorted(int(r.value) for r in results) == list(range(100))
        await baseline.assert_released()


async def test_negotiates_both_protocol_eras(any_target: Target, lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(15):
        classes = await toolset_for(any_target).tools(lg.Binding())
        version = any_target.clients[0].protocol_version
        assert version == ("2025-11-25" if any_target.legacy else "2026-07-28")
        async with lg.ToolRegistry(classes) as registry:
            assert (await registry.call("add", {"a": 1, "b": 1})).value == {"result": 2}
        await baseline.assert_released()


async def test_run_owns_the_connection(target: Target, lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(15):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            classes = await toolset_for(target).tools(binding)
            echo = by_name(classes)["echo"](binding)
            await echo.close()  # the run, not the instance, owns the connection
            assert (await echo.execute({"text": "still open"})).value == "still open"
        after = await echo.execute({"text": "closed"})
        assert isinstance(after.error, lg.ProviderError)
        await baseline.assert_released()


async def test_last_instance_closes_the_connection(target: Target, lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(15):
        classes = by_name(await toolset_for(target).tools(lg.Binding()))
        # Instances that are never built keep nothing open: build them all, close them all.
        instances = [cls() for cls in classes.values()]
        echo, others = instances[0], instances[1:]
        for other in others:
            await other.close()
        assert (await echo.execute({"text": "last"})).value == "last"
        await echo.close()
        await echo.close()  # closing twice is harmless
        await baseline.assert_released()


async def test_cancellation_mid_call_reaches_the_server(any_target: Target, lg_leaks: Any) -> None:
    """Over every transport and protocol era: interrupted within 100 ms, seen by the server."""
    target = any_target
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(15):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            tools = by_name(await toolset_for(target).tools(binding))
            hang, echo = tools["hang"](binding), tools["echo"](binding)
            cancelled_at: list[float] = []

            async def cancel_when_started() -> None:
                await target.wait_for("started hang")
                cancelled_at.append(time.monotonic())
                run.context.cancellation.cancel("user left")

            async with anyio.create_task_group() as tg:
                tg.start_soon(cancel_when_started)
                with pytest.raises(lg.CancelledError):
                    await hang.execute({}, context=run.context)
                assert time.monotonic() - cancelled_at[0] < 0.1
            await target.wait_for("cancelled hang")
            # The connection survives a cancelled call on every transport.
            assert (await echo.execute({"text": "after"})).value == "after"
        await baseline.assert_released()


async def test_deadline_mid_call(target: Target, lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(15):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            hang = by_name(await toolset_for(target).tools(binding))["hang"](binding)
            context = lg.RunContext.with_timeout(0.3)
            started = time.monotonic()
            with pytest.raises(lg.DeadlineExceededError):
                await hang.execute({}, context=context)
            assert 0.3 <= time.monotonic() - started < 0.4
            await target.wait_for("cancelled hang")
        await baseline.assert_released()


async def test_cancelled_run_discovers_nothing(target: Target, lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    run = lg.Run()
    run.context.cancellation.cancel()
    with pytest.raises(lg.CancelledError):
        await toolset_for(target).tools(lg.Binding(run=run))
    assert target.clients == []  # checked before the client was even built
    await run.aclose()
    await baseline.assert_released()


async def test_cancellation_during_connect(lg_leaks: Any, tmp_path: Any, request: Any) -> None:
    """Stdio connects slowly enough (a Python process starting) to cancel mid-connect."""
    target = make_target("stdio", False, tmp_path, request)
    baseline: ResourceSnapshot = lg_leaks()
    run = lg.Run(context=lg.RunContext.with_timeout(0.05))
    started = time.monotonic()
    with anyio.fail_after(10), pytest.raises(lg.DeadlineExceededError):
        await toolset_for(target).tools(lg.Binding(run=run))
    assert time.monotonic() - started < 0.05 + 0.1 + 2.5  # + the SDK's bounded process shutdown
    await run.aclose()
    await baseline.assert_released()
