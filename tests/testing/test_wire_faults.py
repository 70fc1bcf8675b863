"""Wire faults: raw bytes no client can read, and HTTP statuses, over every transport."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import anyio
import httpx2
import mcp
import pytest
from fake_server_targets import catalog

import littleghost as lg
from littleghost.mcp import Toolset
from littleghost_testing.fake_server import FakeMCPServer, HttpStatus, RawBytes
from littleghost_testing.fake_server._faults import dump_fault, load_fault
from littleghost_testing.leaks import ResourceSnapshot

pytestmark = pytest.mark.anyio

NOT_UTF8 = RawBytes(b"\xff\xfe\x00 not utf-8")
NOT_JSON = RawBytes(b"this line is not JSON")
LONE_SURROGATE = RawBytes(
    b'{"jsonrpc":"2.0","id":{id},"result":{"content":[{"type":"text","text":"\\ud800"}]}}'
)
RAW = [NOT_UTF8, NOT_JSON, LONE_SURROGATE]


@pytest.fixture
def server() -> Iterator[FakeMCPServer]:
    catalog.reset()
    yield catalog
    catalog.close()
    catalog.reset()


async def call_through_toolset(server: FakeMCPServer, transport: str) -> lg.ExecutionResult:
    class CatalogTools(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return server.client(transport)  # type: ignore[arg-type]

    with anyio.fail_after(10):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            tools = {cls.tool_name: cls(binding) for cls in await CatalogTools.tools(binding)}
            return await tools["lookup"].execute({"topic": "refunds"})


@pytest.mark.parametrize("transport", ["memory", "http"])
@pytest.mark.parametrize("fault", RAW, ids=["not-utf8", "not-json", "lone-surrogate"])
async def test_raw_bytes_are_a_protocol_error(
    server: FakeMCPServer, transport: str, fault: RawBytes, lg_leaks: Callable[[], ResourceSnapshot]
) -> None:
    leaks = lg_leaks()
    server.fault("lookup", fault)
    result = await call_through_toolset(server, transport)
    assert isinstance(result.error, lg.ProtocolError), result.error
    assert result.content == "Tool failed (MalformedMessage)"
    assert server.calls == [("lookup", {"topic": "refunds"})]
    server.close()
    await leaks.assert_released()


async def test_raw_bytes_reach_a_stdio_client_as_a_parse_error(
    server: FakeMCPServer, lg_leaks: Callable[[], ResourceSnapshot]
) -> None:
    leaks = lg_leaks()
    faults: list[Exception] = []
    arrived = anyio.Event()

    async def note(message: Any) -> None:
        if isinstance(message, Exception):
            faults.append(message)
            arrived.set()

    server.fault("lookup", NOT_JSON)
    with anyio.fail_after(30):
        async with (
            server.client("stdio", message_handler=note) as client,
            anyio.create_task_group() as group,
        ):
            group.start_soon(client.call_tool, "lookup", {"topic": "refunds"})
            await arrived.wait()  # the call itself is never answered
            group.cancel_scope.cancel()
    assert len(faults) == 1 and "Invalid JSON" in str(faults[0])
    assert server.calls == [("lookup", {"topic": "refunds"})]
    server.close()
    await leaks.assert_released()  # the child process is gone


async def test_an_http_status_with_a_body(server: FakeMCPServer) -> None:
    server.fault("lookup", HttpStatus(503, "upstream down"))
    result = await call_through_toolset(server, "http")
    assert isinstance(result.error, lg.ProviderError), result.error
    with anyio.fail_after(10):
        async with httpx2.AsyncClient() as http:
            answer = await http.post(
                server.url,
                json={
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": "lookup", "arguments": {"topic": "x"}},
                },
            )
    assert (answer.status_code, answer.text) == (503, "upstream down")
    assert answer.headers["content-type"] == "text/plain"


async def test_an_http_status_elsewhere_says_it_applies_to_http_only(
    server: FakeMCPServer,
) -> None:
    server.fault("lookup", HttpStatus(503, "upstream down"))
    with anyio.fail_after(10):
        async with server.client() as client:
            with pytest.raises(mcp.MCPError, match="applies to HTTP only"):
                await client.call_tool("lookup", {"topic": "x"})


async def test_other_requests_pass_the_wire_layer_untouched(server: FakeMCPServer) -> None:
    server.fault("lookup", HttpStatus(500))
    with anyio.fail_after(10):
        async with server.client("http") as client:
            assert len((await client.list_tools()).tools) == 5
            counted = await client.call_tool("count", {"text": "a b"})
    assert counted.structured_content == {"words": 2}


def test_wire_faults_survive_the_trip_to_a_stdio_child() -> None:
    for fault in [*RAW, HttpStatus(404, "gone", "application/json")]:
        assert load_fault(dump_fault(fault)) == fault
    with pytest.raises(TypeError, match="RawBytes data must be bytes"):
        RawBytes("text")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="between 100 and 599"):
        HttpStatus(700)
