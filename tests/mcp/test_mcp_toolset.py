"""Toolset behaviour: names, mapping callbacks, optional discovery, ownership, events."""

from __future__ import annotations

import hashlib
from typing import Any

import anyio
import mcp
import mcp_types as types
import pytest
from mcp.server.mcpserver import MCPServer
from mcp_servers.catalog import build_server
from mcp_servers.scripted import ScriptedTransport, page, text_result, tool

import littleghost as lg
from littleghost.mcp import Toolset
from littleghost.mcp._naming import normalize_name
from littleghost_testing.leaks import ResourceSnapshot

pytestmark = pytest.mark.anyio


def test_names_are_normalized_and_shortened() -> None:
    assert normalize_name("help.center/search") == "help_center_search"
    assert normalize_name("ok-name_1") == "ok-name_1"
    long = "x" * 70 + "é"
    normalized = "x" * 70 + "_"
    digest = hashlib.sha256(normalized.encode()).hexdigest()[:12]
    assert normalize_name(long) == "x" * 51 + "_" + digest
    assert len(normalize_name(long)) == 64
    assert normalize_name("y" * 64) == "y" * 64


def scripted_toolset(tools: list[dict[str, Any]], calls: list[Any] | None = None) -> type[Toolset]:
    async def handler(method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "tools/list":
            return page(tools)
        assert calls is not None
        calls.append((params["name"], params.get("arguments")))
        return text_result(f"called {params['name']}")

    class Scripted(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return mcp.Client(ScriptedTransport(handler))

    return Scripted


async def test_name_collisions_need_map_tool(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    colliding = scripted_toolset([tool("a.b"), tool("a/b")])
    with anyio.fail_after(5), pytest.raises(lg.ConfigurationError, match="collision: a_b"):
        await colliding.tools(lg.Binding())
    calls: list[Any] = []

    class Renamed(scripted_toolset([tool("a.b"), tool("a/b")], calls)):  # type: ignore[misc]
        def map_tool(
            self, tool_class: type[lg.Tool], *, mcp_tool: types.Tool, binding: lg.Binding
        ) -> type[lg.Tool] | None:
            if mcp_tool.name == "a/b":
                return type("Slashed", (tool_class,), {"tool_name": "a_slash_b"})
            return tool_class

    with anyio.fail_after(5):
        classes = await Renamed.tools(lg.Binding())
        assert [cls.tool_name for cls in classes] == ["a_b", "a_slash_b"]
        instances = [cls() for cls in classes]
        for instance in instances:
            assert (await instance.execute({})).is_success
            await instance.close()
    assert calls == [("a.b", {}), ("a/b", {})]  # the server always receives its own names
    await baseline.assert_released()


async def test_map_tool_can_omit_and_must_return_a_class(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()

    class OmitAll(scripted_toolset([tool("a"), tool("b")])):  # type: ignore[misc]
        def map_tool(self, tool_class: Any, *, mcp_tool: Any, binding: Any) -> Any:
            return None

    class Wrong(scripted_toolset([tool("a")])):  # type: ignore[misc]
        optional = True

        def map_tool(self, tool_class: Any, *, mcp_tool: Any, binding: Any) -> Any:
            return "not a class"

    with anyio.fail_after(5):
        assert await OmitAll.tools(lg.Binding()) == []  # no run: closed at once
        with pytest.raises(lg.ConfigurationError, match="map_tool"):
            await Wrong.tools(lg.Binding())
    await baseline.assert_released()


async def test_map_result_sees_the_call(lg_leaks: Any) -> None:
    seen: list[dict[str, Any]] = []
    server = build_server()

    class Mapped(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return mcp.Client(server)

        def map_result(self, value: Any, **details: Any) -> Any:
            seen.append(details)
            return lg.Result({"wrapped": value}, artifacts=[lg.Artifact(b"x", "text/plain")])

    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(5):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            echo = {cls.tool_name: cls for cls in await Mapped.tools(binding)}["echo"](binding)
            result = await echo.execute({"text": "hi"})
    assert result.value == {"wrapped": "hi"}
    assert [a.data for a in result.artifacts] == [b"x"]
    [details] = seen
    assert details["arguments"] == {"text": "hi"}
    assert details["mcp_tool"].name == "echo"
    assert details["binding"] is binding
    assert isinstance(details["result"], types.CallToolResult)
    await baseline.assert_released()


class Unreachable(Toolset):
    optional = True
    errors: list[Any] = []

    def client(self, binding: lg.Binding) -> mcp.Client:
        return mcp.Client("http://127.0.0.1:1/mcp")

    def on_error(self, error: lg.LittleGhostError, *, binding: lg.Binding) -> None:
        self.errors.append((error, binding))


async def test_optional_discovery_reports_and_returns_nothing(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    binding = lg.Binding()
    Unreachable.errors.clear()
    with anyio.fail_after(10):
        assert await Unreachable.tools(binding) == []
    [(error, seen_binding)] = Unreachable.errors
    assert isinstance(error, lg.ProviderError) and seen_binding is binding
    await baseline.assert_released()


async def test_optional_never_hides_application_failures(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    own = lg.ProviderError("raised by the application's client()")

    class BadFactory(Toolset):
        optional = True

        def client(self, binding: lg.Binding) -> mcp.Client:
            raise own

    class NotAClient(Toolset):
        optional = True

        def client(self, binding: lg.Binding) -> Any:
            return "http://example.invalid/mcp"

    class LoudOnError(Unreachable):
        def on_error(self, error: lg.LittleGhostError, *, binding: lg.Binding) -> None:
            raise KeyError("on_error failed")

    with anyio.fail_after(10):
        with pytest.raises(lg.ProviderError) as caught:
            await BadFactory.tools(lg.Binding())
        assert caught.value is own
        with pytest.raises(lg.ConfigurationError, match=r"must return an mcp\.Client"):
            await NotAClient.tools(lg.Binding())
        with pytest.raises(KeyError, match="on_error failed"):
            await LoudOnError.tools(lg.Binding())
        run = lg.Run()
        run.context.cancellation.cancel()
        with pytest.raises(lg.CancelledError):
            await Unreachable.tools(lg.Binding(run=run))
    await baseline.assert_released()


async def test_a_connected_client_is_refused(lg_leaks: Any) -> None:
    server = MCPServer("x")
    baseline: ResourceSnapshot = lg_leaks()
    async with mcp.Client(server) as connected:

        class Reused(Toolset):
            def client(self, binding: lg.Binding) -> mcp.Client:
                return connected

        with pytest.raises(lg.ConfigurationError, match="fresh, unconnected"):
            await Reused.tools(lg.Binding())
    await baseline.assert_released()


async def test_instrumentation_events(lg_leaks: Any) -> None:
    server = build_server()

    class Catalog(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return mcp.Client(server)

    class Required(Unreachable):
        optional = False

    events: list[lg.instrumentation.Event] = []
    baseline: ResourceSnapshot = lg_leaks()
    with lg.instrumentation.subscribe(events.append), anyio.fail_after(5):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            tools = {cls.tool_name: cls(binding) for cls in await Catalog.tools(binding)}
            await tools["echo"].execute({"text": "hi"})
            await tools["refuse"].execute({"reason": "no"})
        with pytest.raises(lg.ProviderError):
            await Required.tools(lg.Binding())
    mcp_events = [(e.name, dict(e.payload)) for e in events if e.name.startswith("mcp_")]
    assert mcp_events == [
        (
            "mcp_discovery",
            {"toolset": "Catalog", "outcome": "success", "tool_count": 6, "error_type": None},
        ),
        ("mcp_call", {"toolset": "Catalog", "tool": "echo", "outcome": "success"}),
        ("mcp_call", {"toolset": "Catalog", "tool": "refuse", "outcome": "error"}),
        (
            "mcp_discovery",
            {
                "toolset": "Required",
                "outcome": "error",
                "tool_count": 0,
                "error_type": "TransportError",
            },
        ),
    ]
    assert all(e.duration is not None for e in events if e.name.startswith("mcp_"))
    await baseline.assert_released()


async def test_interrupted_calls_say_whether_a_deadline_or_a_cancel_stopped_them(
    lg_leaks: Any,
) -> None:
    server = build_server()

    class Catalog(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return mcp.Client(server)

    events: list[lg.instrumentation.Event] = []
    baseline: ResourceSnapshot = lg_leaks()
    with lg.instrumentation.subscribe(events.append), anyio.fail_after(5):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            tools = {cls.tool_name: cls(binding) for cls in await Catalog.tools(binding)}
            with pytest.raises(lg.DeadlineExceededError):
                await tools["hang"].execute({}, context=lg.RunContext.with_timeout(0.05))
            cancelled = lg.RunContext()

            async def cancel_soon() -> None:
                await anyio.sleep(0.05)
                cancelled.cancellation.cancel()

            async with anyio.create_task_group() as group:
                group.start_soon(cancel_soon)
                with pytest.raises(lg.CancelledError):
                    await tools["hang"].execute({}, context=cancelled)
    outcomes = [dict(e.payload)["outcome"] for e in events if e.name == "mcp_call"]
    assert outcomes == ["deadline_exceeded", "cancelled"]
    await baseline.assert_released()


def test_bounds_must_be_positive_ints() -> None:
    from littleghost.mcp._bounds import Bounds

    class Broken(Toolset):
        max_tools = 0

    with pytest.raises(TypeError, match="max_tools must be a positive int"):
        Bounds.of(Broken)
