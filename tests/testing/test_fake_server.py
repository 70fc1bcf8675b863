"""FakeMCPServer: every fault over every transport, through a raw mcp.Client and a Toolset."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import httpx2
import mcp
import mcp_types as types
import pytest
from fake_server_targets import PIXEL, catalog
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

import littleghost as lg
from littleghost.mcp import (
    ConnectionClosed,
    JSONRPCError,
    LimitExceeded,
    MalformedMessage,
    ServerError,
    Toolset,
)
from littleghost_testing.fake_server import (
    Crash,
    Delay,
    ErrorResult,
    FakeMCPServer,
    Hang,
    JsonRpcError,
    Malformed,
    Oversized,
)
from littleghost_testing.leaks import ResourceSnapshot

pytestmark = pytest.mark.anyio

IN_PROCESS = ["memory", "http"]


# -- harness ---------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[FakeMCPServer]:
    """The module-level catalog (stdio children import it), reset and closed around each test."""
    catalog.reset()
    yield catalog
    catalog.close()
    catalog.reset()


def toolset_for(server: FakeMCPServer, transport: str, **attributes: Any) -> type[Toolset]:
    class CatalogTools(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return server.client(transport)  # type: ignore[arg-type]

    for name, value in attributes.items():
        setattr(CatalogTools, name, value)
    return CatalogTools


async def discover(server: FakeMCPServer, transport: str, run: lg.Run, **attributes: Any):
    binding = lg.Binding(run=run)
    classes = await toolset_for(server, transport, **attributes).tools(binding)
    return {cls.tool_name: cls(binding) for cls in classes}


def text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


# -- tool-call faults, raw client ---------------------------------------------------


@pytest.mark.parametrize("transport", IN_PROCESS)
async def test_raw_error_result_and_jsonrpc_error(server: FakeMCPServer, transport: str) -> None:
    with anyio.fail_after(10):
        async with server.client(transport) as client:  # type: ignore[arg-type]
            server.fault("lookup", ErrorResult("backend down"))
            refused = await client.call_tool("lookup", {"topic": "refunds"})
            assert (refused.is_error, text(refused)) == (True, "backend down")
            server.fault("lookup", JsonRpcError(-32050, "catalog unavailable"))
            with pytest.raises(MCPError) as error:
                await client.call_tool("lookup", {"topic": "refunds"})
            assert (error.value.code, error.value.message) == (-32050, "catalog unavailable")
    assert server.calls == [("lookup", {"topic": "refunds"})] * 2


@pytest.mark.parametrize("transport", IN_PROCESS)
async def test_raw_malformed_and_oversized(server: FakeMCPServer, transport: str) -> None:
    with anyio.fail_after(10):
        async with server.client(transport) as client:  # type: ignore[arg-type]
            server.fault("lookup", Malformed())
            with pytest.raises(ValidationError, match="content"):
                await client.call_tool("lookup", {"topic": "a"})
            server.fault("lookup", Malformed({"content": [], "resultType": "complete", "x": 1}))
            assert (await client.call_tool("lookup", {"topic": "a"})).content == []
            server.fault("lookup", Oversized(3000, "text"))
            assert len(text(await client.call_tool("lookup", {"topic": "a"}))) == 3000
            server.fault("lookup", Oversized(3000))
            [image] = (await client.call_tool("lookup", {"topic": "a"})).content
            assert isinstance(image, types.ImageContent) and len(image.data) == 4000


@pytest.mark.parametrize("transport", IN_PROCESS)
async def test_raw_delay_and_hang(server: FakeMCPServer, transport: str) -> None:
    server.fault("lookup", Delay(0.2))
    server.fault("count", Hang())
    with anyio.fail_after(10):
        async with server.client(transport) as client:  # type: ignore[arg-type]
            started = time.monotonic()
            assert "30 days" in text(await client.call_tool("lookup", {"topic": "x"}))
            assert time.monotonic() - started >= 0.2
            with anyio.move_on_after(0.2) as scope:
                await client.call_tool("count", {"text": "never"})
            assert scope.cancelled_caught
            await server.wait_for(lambda: server.cancellations)
            # The client's notifications/cancelled carries a reason; over HTTP it just hangs up.
            reason = None if transport == "http" else "caller cancelled"
            assert server.cancellations == [("count", {"text": "never"}, reason)]
            server.fault("count", None)
            assert (await client.call_tool("count", {"text": "a b"})).structured_content == {
                "words": 2
            }


async def test_raw_crash_fails_the_memory_connection(server: FakeMCPServer) -> None:
    server.fault("lookup", Crash())
    with anyio.fail_after(10):
        async with server.client() as client:
            for _ in range(2):  # the connection stays dead
                with pytest.raises(MCPError) as error:
                    await client.call_tool("lookup", {"topic": "x"})
                assert error.value.code == types.CONNECTION_CLOSED
    assert (server.sessions_opened, server.sessions_closed) == (1, 1)


async def test_raw_crash_drops_the_http_connection(server: FakeMCPServer) -> None:
    server.fault("lookup", Crash())
    with anyio.fail_after(10), pytest.raises(ExceptionGroup) as failure:
        async with server.client("http") as client:
            await client.call_tool("lookup", {"topic": "x"})
    assert failure.group_contains(httpx2.RemoteProtocolError)
    # The server itself survives: a new connection works.
    server.fault("lookup", None)
    async with server.client("http") as client:
        assert "30 days" in text(await client.call_tool("lookup", {"topic": "y"}))
    assert (server.sessions_opened, server.sessions_closed) == (2, 2)


# -- tool-call faults, Toolset ------------------------------------------------------

TOOLSET_FAULTS = [
    (ErrorResult("backend down"), lg.ToolError, "backend down", "backend down"),
    (JsonRpcError(4004, "catalog unavailable"), JSONRPCError, "catalog unavailable", None),
    (
        JsonRpcError(-32050, "db at 10.0.0.7 down"),
        ServerError,
        "MCP tool failed (JSON-RPC error -32050)",
        None,
    ),
    (Malformed(), MalformedMessage, "malformed data", "Tool failed (MalformedMessage)"),
    (Oversized(2000), LimitExceeded, "max_image_bytes (1000)", "Tool failed (LimitExceeded)"),
    (Crash(), ConnectionClosed, "MCP connection closed", "Tool failed (ConnectionClosed)"),
]


@pytest.mark.parametrize("transport", IN_PROCESS)
@pytest.mark.parametrize(
    ("fault", "error_type", "message", "content"),
    TOOLSET_FAULTS,
    ids=[f"{type(f[0]).__name__}-{f[1].__name__}" for f in TOOLSET_FAULTS],
)
async def test_toolset_fault_errors(
    server: FakeMCPServer,
    transport: str,
    fault: Any,
    error_type: type[Exception],
    message: str,
    content: str | None,
) -> None:
    leaks = ResourceSnapshot.take()
    server.fault("count", fault)
    with anyio.fail_after(10):
        async with lg.Run() as run:
            tools = await discover(server, transport, run, max_image_bytes=1000)
            result = await tools["count"].execute({"text": "a b"})
    assert type(result.error) is error_type
    assert message in str(result.error)
    assert result.content == (content if content is not None else str(result.error))
    assert server.calls == [("count", {"text": "a b"})]
    server.close()
    await leaks.assert_released()


@pytest.mark.parametrize("transport", IN_PROCESS)
async def test_toolset_cancellation_and_deadline_reach_the_server(
    server: FakeMCPServer, transport: str
) -> None:
    server.fault("count", Hang())
    server.fault("lookup", Delay(5))
    with anyio.fail_after(10):
        async with lg.Run() as run:
            tools = await discover(server, transport, run)

            async def cancel_soon() -> None:
                await server.wait_for(lambda: server.calls)
                run.context.cancellation.cancel("user left")

            async with anyio.create_task_group() as task_group:
                task_group.start_soon(cancel_soon)
                with pytest.raises(lg.CancelledError):
                    await tools["count"].execute({"text": "a"}, context=run.context)
            with pytest.raises(lg.DeadlineExceededError):
                await tools["lookup"].execute(
                    {"topic": "b"}, context=lg.RunContext.with_timeout(0.1)
                )
            await server.wait_for(lambda: len(server.cancellations) == 2)
    assert [(c.tool, c.arguments) for c in server.cancellations] == [
        ("count", {"text": "a"}),
        ("lookup", {"topic": "b"}),
    ]


# -- stdio: every fault in one child process ----------------------------------------


async def test_every_fault_over_stdio(server: FakeMCPServer) -> None:
    leaks = ResourceSnapshot.take()
    with anyio.fail_after(30):
        async with server.client("stdio") as client:
            server.fault("lookup", ErrorResult("backend down"))  # faults apply live in the child
            assert text(await client.call_tool("lookup", {"topic": "a"})) == "backend down"
            server.fault("lookup", JsonRpcError(-32050, "catalog unavailable"))
            with pytest.raises(MCPError, match="catalog unavailable"):
                await client.call_tool("lookup", {"topic": "b"})
            server.fault("lookup", Malformed())
            with pytest.raises(ValidationError):
                await client.call_tool("lookup", {"topic": "c"})
            server.fault("lookup", Oversized(100, "text"))
            assert text(await client.call_tool("lookup", {"topic": "d"})) == "x" * 100
            server.fault("lookup", Hang())
            with anyio.move_on_after(0.2):
                await client.call_tool("lookup", {"topic": "e"})
            await server.wait_for(lambda: server.cancellations)
            server.fault("lookup", Delay(0.1))
            assert "30 days" in text(await client.call_tool("lookup", {"topic": "f"}))
            server.fault("lookup", Crash())
            with pytest.raises(MCPError, match="Connection closed"):
                await client.call_tool("lookup", {"topic": "g"})
        server.paginate(2)
        async with lg.Run() as run:
            tools = await discover(server, "stdio", run)
            assert sorted(tools) == ["count", "lookup", "pixel", "refuse", "search_v2"]
            crashed = await tools["lookup"].execute({"topic": "h"})
            assert isinstance(crashed.error, lg.ProviderError)
    assert [call.arguments["topic"] for call in server.calls] == list("abcdefgh")
    assert server.cancellations == [("lookup", {"topic": "e"}, "caller cancelled")]
    assert (server.sessions_opened, server.sessions_closed) == (2, 2)
    await leaks.assert_released()


# -- listing faults ---------------------------------------------------------------


@pytest.mark.parametrize("transport", IN_PROCESS)
async def test_pagination_and_endless_cursors(server: FakeMCPServer, transport: str) -> None:
    server.paginate(2)
    with anyio.fail_after(10):
        async with server.client(transport) as client:  # type: ignore[arg-type]
            first = await client.list_tools()
            assert ([t.name for t in first.tools], first.next_cursor) == (["lookup", "count"], "2")
            last = await client.list_tools(cursor="4")
            assert ([t.name for t in last.tools], last.next_cursor) == (["search.v2"], None)
        async with lg.Run() as run:
            assert len(await discover(server, transport, run)) == 5
        server.paginate(1, endless=True)
        async with lg.Run() as run:
            with pytest.raises(lg.ProtocolError, match=r"max_pages \(10\)"):
                await discover(server, transport, run, max_pages=10)


LISTING_FAULTS = [
    (JsonRpcError(-32050, "catalog unavailable"), JSONRPCError, "catalog unavailable"),
    (Malformed(), MalformedMessage, "malformed data"),
    (Oversized(5000), LimitExceeded, r"max_catalog_bytes (4000)"),
    (Crash(), ConnectionClosed, "MCP connection closed"),
]


@pytest.mark.parametrize("transport", IN_PROCESS)
@pytest.mark.parametrize(
    ("fault", "error_type", "message"),
    LISTING_FAULTS,
    ids=[type(f[0]).__name__ for f in LISTING_FAULTS],
)
async def test_listing_faults_fail_discovery(
    server: FakeMCPServer, transport: str, fault: Any, error_type: type[Exception], message: str
) -> None:
    leaks = ResourceSnapshot.take()
    server.fault_listing(fault)
    seen: list[lg.LittleGhostError] = []
    with anyio.fail_after(10):
        async with lg.Run() as run:
            with pytest.raises(error_type) as failure:
                await discover(server, transport, run, max_catalog_bytes=4000)
            assert message in str(failure.value)
            optional = {"optional": True, "on_error": lambda self, e, binding: seen.append(e)}
            assert await discover(server, transport, run, max_catalog_bytes=4000, **optional) == {}
    assert [type(e) for e in seen] == [error_type]
    server.close()
    await leaks.assert_released()


@pytest.mark.parametrize("transport", IN_PROCESS)
async def test_a_hanging_listing_meets_the_deadline(server: FakeMCPServer, transport: str) -> None:
    server.fault_listing(Hang())
    run = lg.Run(context=lg.RunContext.with_timeout(0.2))
    with anyio.fail_after(10), pytest.raises(lg.DeadlineExceededError):
        await discover(server, transport, run)
    await run.aclose()
    server.fault_listing(Delay(0.1))
    async with lg.Run() as run:
        assert len(await discover(server, transport, run)) == 5


# -- results, schemas, records ------------------------------------------------------


@pytest.mark.parametrize("transport", IN_PROCESS)
async def test_results_and_schemas(server: FakeMCPServer, transport: str) -> None:
    with anyio.fail_after(10):
        async with server.client(transport) as client:  # type: ignore[arg-type]
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert listed["lookup"].input_schema["required"] == ["topic"]
            assert listed["lookup"].output_schema is None
            assert listed["search.v2"].input_schema["additionalProperties"] is False
            assert listed["search.v2"].output_schema == {
                "type": "object",
                "properties": {"hits": {"type": "integer"}},
                "required": ["hits"],
            }
        async with lg.Run() as run:
            tools = await discover(server, transport, run)
            assert (await tools["lookup"].execute({"topic": "x"})).value.startswith("Refunds")
            assert (await tools["count"].execute({"text": "a b c"})).value == {"words": 3}
            pixel = await tools["pixel"].execute({})
            assert [(a.data, a.media_type) for a in pixel.artifacts] == [(PIXEL, "image/png")]
            refused = await tools["refuse"].execute({"reason": "closed"})
            assert isinstance(refused.error, lg.ToolError) and "refused: closed" in refused.content
            assert (await tools["search_v2"].execute({"query": "abc"})).value == {"hits": 3}
            broken = await tools["search_v2"].execute({"query": "broken"})
            assert "breaks its outputSchema" in str(broken.error)


async def test_records_and_sessions(server: FakeMCPServer) -> None:
    with anyio.fail_after(10):
        async with server.client() as first, server.client("http") as second:
            await first.call_tool("lookup", {"topic": "a"})
            await second.call_tool("count", {"text": "b"})
            assert (server.sessions_opened, server.sessions_closed) == (2, 0)
        unused = server.client()  # not connected: no session
    assert unused is not server.client()
    assert (server.sessions_opened, server.sessions_closed) == (2, 2)
    [(tool, arguments), call] = server.calls
    assert (tool, arguments) == ("lookup", {"topic": "a"})
    assert (call.tool, call.arguments) == ("count", {"text": "b"})
    server.reset()
    assert (server.calls, server.sessions_opened) == ([], 0)


# -- configuration errors and cleanup -------------------------------------------------


async def test_misuse_is_refused(server: FakeMCPServer) -> None:
    local = FakeMCPServer("local")
    with pytest.raises(ValueError, match="not importable as module:attribute"):
        local.client("stdio")
    with pytest.raises(ValueError, match="unknown transport"):
        server.client("carrier-pigeon")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="ErrorResult"):
        server.fault_listing(ErrorResult())
    with pytest.raises(ValueError, match="page_size"):
        server.paginate(0)
    assert server.import_path == "fake_server_targets:catalog"


async def test_close_stops_http_and_the_server_can_restart() -> None:
    leaks = ResourceSnapshot.take()
    async with FakeMCPServer("restartable") as server:

        @server.tool(description="Ping.")
        def ping() -> str:
            return "pong"

        first = server.url
        async with server.client("http") as client:
            assert text(await client.call_tool("ping", {})) == "pong"
        assert leaks.leftovers()["threads"] == ["littleghost-fake-http-restartable"]
    await leaks.assert_released()
    port = int(first.rsplit(":", 1)[1].split("/")[0])
    with socket.socket() as probe, pytest.raises(ConnectionRefusedError):
        probe.connect(("127.0.0.1", port))
    async with server.client("http") as client:  # a new HTTP server on a new port
        assert text(await client.call_tool("ping", {})) == "pong"
    server.close()
    await leaks.assert_released()


async def test_fixture_closes_its_servers(
    fake_mcp_server_factory: Callable[..., FakeMCPServer],
) -> None:
    leaks = ResourceSnapshot.take()
    help_center = fake_mcp_server_factory("help-center")

    @help_center.tool(description="Look up a help center entry.")
    def lookup(topic: str) -> str:
        return "Refunds are available within 30 days."

    async with help_center.client("http") as client:
        assert "30 days" in text(await client.call_tool("lookup", {"topic": "refunds"}))
    assert help_center.calls == [("lookup", {"topic": "refunds"})]
    assert leaks.leftovers()["threads"] == ["littleghost-fake-http-help-center"]  # until teardown


def test_fixture_teardown_leaves_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import anyio

        def test_serve(fake_mcp_server):
            server = fake_mcp_server

            @server.tool(description="Ping.")
            def ping() -> str:
                return "pong"

            async def call():
                async with server.client("http") as client:
                    await client.call_tool("ping", {})

            anyio.run(call)
        """
    )
    before = ResourceSnapshot.take()
    pytester.runpytest_inprocess("-p", "no:xdist").assert_outcomes(passed=1)
    assert before.leftovers() == {}
