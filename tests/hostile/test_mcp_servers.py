"""Hostile MCP servers (issue 7, items 6-9 and 11): bounded, prompt, named errors; no leaks.

Every server is real: a subprocess speaking raw JSON-RPC lines on stdio, a
subprocess speaking raw HTTP, or in memory the same raw answers parsed as a
transport parses them. Each case runs on asyncio and trio.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import anyio
import mcp
import mcp_types as types
import pytest
from mcp.server import Server

import littleghost as lg
from littleghost.mcp import (
    ConnectionClosed,
    JSONRPCError,
    LimitExceeded,
    MalformedMessage,
    OutputSchemaError,
    ServerError,
    TimeoutExceeded,
    Toolset,
)
from littleghost.mcp._stdio import LineReader
from littleghost_testing.leaks import ResourceSnapshot
from tests.hostile.servers.behaviors import SECRET
from tests.hostile.servers.clients import TRANSPORTS, client_factory

pytestmark = pytest.mark.anyio

Leaks = Callable[..., ResourceSnapshot]
MIB = 1024 * 1024
PROMPT = 5.0  # seconds: far below every default timeout, so only a prompt failure passes


def toolset(make_client: Callable[[], mcp.Client], **attributes: Any) -> type[Toolset]:
    def client(self: Toolset, binding: lg.Binding) -> mcp.Client:
        return make_client()

    return type("Hostile", (Toolset,), {"client": client, **attributes})


async def call_twice(
    leaks: Leaks, transport: str, behavior: str, size: int = 0, **attributes: Any
) -> tuple[lg.ExecutionResult, lg.ExecutionResult, float]:
    """Discover, then call twice; both results and how long the second call took."""
    baseline = leaks()
    with client_factory(transport, behavior, size) as make_client, anyio.fail_after(PROMPT * 2):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            [probe] = await toolset(make_client, **attributes).tools(binding)
            first = await probe(binding).execute({})
            started = time.monotonic()
            second = await probe(binding).execute({})
            elapsed = time.monotonic() - started
    await baseline.assert_released()
    return first, second, elapsed


def assert_failed(result: lg.ExecutionResult, error: type[BaseException], text: str) -> None:
    assert type(result.error) is error, result.error
    assert text in str(result.error)
    assert result.content == f"Tool failed ({error.__name__})"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_oversized_result_is_refused_at_the_bound(lg_leaks: Leaks, transport: str) -> None:
    first, second, _ = await call_twice(lg_leaks, transport, "huge", 8 * MIB, max_result_bytes=MIB)
    assert_failed(first, LimitExceeded, "max_result_bytes (1048576)")
    assert_failed(second, LimitExceeded, "max_result_bytes (1048576)")


@pytest.mark.parametrize("size", [200_000, 8 * MIB])
async def test_server_sent_events_are_bounded_per_event(lg_leaks: Leaks, size: int) -> None:
    first, second, _ = await call_twice(lg_leaks, "http", "sse-huge", size, max_result_bytes=MIB)
    if size < MIB:
        assert first.value == second.value == "a" * size
    else:
        assert_failed(first, LimitExceeded, "max_result_bytes (1048576): an event longer")
        assert_failed(second, LimitExceeded, "max_result_bytes (1048576): an event longer")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_too_many_content_blocks(lg_leaks: Leaks, transport: str) -> None:
    first, _, _ = await call_twice(lg_leaks, transport, "blocks", 5000, max_content_blocks=100)
    assert_failed(first, LimitExceeded, "max_content_blocks (100): result with 5000")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_oversized_error_message(lg_leaks: Leaks, transport: str) -> None:
    first, _, _ = await call_twice(lg_leaks, transport, "error-text", 100_000)
    assert_failed(first, LimitExceeded, "max_error_bytes (65536)")


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("code", [0, -32603, -32000 - 50, -32099])
async def test_unhandled_exception_text_never_reaches_the_model(
    lg_leaks: Leaks, transport: str, code: int
) -> None:
    first, _, _ = await call_twice(lg_leaks, transport, "secret", code)
    assert first.content == f"MCP tool failed (JSON-RPC error {code})"
    assert isinstance(first.error, ServerError)
    assert (first.error.code, first.error.server_message) == (code, SECRET)


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("code", [-32602, 42, -31999])
async def test_deliberate_errors_stay_visible(lg_leaks: Leaks, transport: str, code: int) -> None:
    first, _, _ = await call_twice(lg_leaks, transport, "secret", code)
    assert first.content == SECRET
    assert type(first.error) is JSONRPCError


@pytest.mark.parametrize(
    ("mode", "code", "sent"), [("legacy", 0, SECRET), ("auto", -32603, "Internal server error")]
)
async def test_an_sdk_server_s_unhandled_exception_is_hidden(
    lg_leaks: Leaks, mode: str, code: int, sent: str
) -> None:
    async def list_tools(context: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[types.Tool(name="probe", input_schema={"type": "object"})]
        )

    async def call_tool(context: Any, params: Any) -> types.CallToolResult:
        raise RuntimeError(SECRET)

    server = Server("leaky", on_list_tools=list_tools, on_call_tool=call_tool)
    first, _, _ = await call_twice_with(lg_leaks, lambda: mcp.Client(server, mode=mode))
    assert first.content == f"MCP tool failed (JSON-RPC error {code})"
    assert isinstance(first.error, ServerError)
    assert (first.error.code, first.error.server_message) == (code, sent)


async def call_twice_with(
    leaks: Leaks, make_client: Callable[[], mcp.Client]
) -> tuple[lg.ExecutionResult, lg.ExecutionResult, float]:
    baseline = leaks()
    with anyio.fail_after(PROMPT):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            [probe] = await toolset(make_client).tools(binding)
            first = await probe(binding).execute({})
            second = await probe(binding).execute({})
    await baseline.assert_released()
    return first, second, 0.0


BROKEN = [
    ("garbage", 0, "cannot be parsed"),
    ("surrogate", 0, "cannot be parsed"),
    ("null-result", 0, "cannot be parsed"),
    ("deep", 300, "cannot be parsed"),
]


@pytest.mark.parametrize("transport", ["memory", "stdio"])
@pytest.mark.parametrize(("behavior", "size", "text"), BROKEN, ids=[b[0] for b in BROKEN])
async def test_an_unparseable_answer_breaks_the_connection(
    lg_leaks: Leaks, transport: str, behavior: str, size: int, text: str
) -> None:
    first, second, elapsed = await call_twice(lg_leaks, transport, behavior, size)
    assert_failed(first, MalformedMessage, text)
    assert_failed(second, MalformedMessage, text)
    assert elapsed < 1  # the connection is known broken: no new request is sent


async def test_a_line_of_invalid_utf8_breaks_the_connection(lg_leaks: Leaks) -> None:
    first, second, elapsed = await call_twice(lg_leaks, "stdio", "invalid-utf8")
    assert_failed(first, MalformedMessage, "not valid utf-8")
    assert_failed(second, MalformedMessage, "not valid utf-8")
    assert elapsed < 1


@pytest.mark.parametrize(
    ("behavior", "size"), [(b[0], b[1]) for b in BROKEN] + [("invalid-utf8", 0)]
)
async def test_an_unparseable_http_answer_fails_its_request(
    lg_leaks: Leaks, behavior: str, size: int
) -> None:
    first, second, _ = await call_twice(lg_leaks, "http", behavior, size)
    assert_failed(first, MalformedMessage, "malformed data")
    assert_failed(second, MalformedMessage, "malformed data")


async def test_every_pending_call_fails_when_the_connection_breaks(lg_leaks: Leaks) -> None:
    baseline = lg_leaks()
    results: list[lg.ExecutionResult] = []
    with client_factory("stdio", "garbage") as make_client, anyio.fail_after(PROMPT):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            [probe] = await toolset(make_client).tools(binding)

            async def call() -> None:
                results.append(await probe(binding).execute({}))

            async with anyio.create_task_group() as group:
                for _ in range(5):
                    group.start_soon(call)
    assert len(results) == 5
    for result in results:
        assert_failed(result, MalformedMessage, "cannot be parsed")
    await baseline.assert_released()


@pytest.mark.parametrize("transport", ["memory", "stdio"])
async def test_a_server_that_goes_away_fails_later_calls_at_once(
    lg_leaks: Leaks, transport: str
) -> None:
    first, second, elapsed = await call_twice(lg_leaks, transport, "exit")
    assert_failed(first, ConnectionClosed, "MCP connection closed")
    assert_failed(second, ConnectionClosed, "MCP connection closed")
    assert elapsed < 1


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_structured_content_nested_too_deep_for_the_validator(
    lg_leaks: Leaks, transport: str
) -> None:
    first, _, _ = await call_twice(lg_leaks, transport, "deep", 100)
    assert_failed(first, MalformedMessage, "nested deeper than 64 levels")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_output_breaking_its_schema_everywhere_gets_a_short_report(
    lg_leaks: Leaks, transport: str
) -> None:
    first, _, _ = await call_twice(lg_leaks, transport, "wrong-output", 200_000)
    assert_failed(first, OutputSchemaError, "breaks its outputSchema: $.names[0] must be string")
    assert len(str(first.error)) < 4096


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_call_timeout(lg_leaks: Leaks, transport: str) -> None:
    first, _, _ = await call_twice(lg_leaks, transport, "silent", call_timeout=0.3)
    assert_failed(first, TimeoutExceeded, "call_timeout (0.3 s)")


@pytest.mark.parametrize(
    ("transport", "behavior"), [*((t, "silent-list") for t in TRANSPORTS), ("http", "mute")]
)
async def test_discovery_timeout(lg_leaks: Leaks, transport: str, behavior: str) -> None:
    baseline = lg_leaks()
    with client_factory(transport, behavior) as make_client, anyio.fail_after(PROMPT):
        started = time.monotonic()
        with pytest.raises(TimeoutExceeded, match=r"discovery_timeout \(0.3 s\)"):
            await toolset(make_client, discovery_timeout=0.3).tools(lg.Binding())
        assert time.monotonic() - started < 3
    await baseline.assert_released()


@pytest.mark.parametrize("transport", ["memory", "stdio"])
async def test_an_unparseable_catalog_fails_discovery_promptly(
    lg_leaks: Leaks, transport: str
) -> None:
    baseline = lg_leaks()
    with (
        client_factory(transport, "garbage-list") as make_client,
        anyio.fail_after(PROMPT),
        pytest.raises(MalformedMessage, match="cannot be parsed"),
    ):
        await toolset(make_client).tools(lg.Binding())
    await baseline.assert_released()


async def test_a_run_deadline_sooner_than_call_timeout_wins(lg_leaks: Leaks) -> None:
    baseline = lg_leaks()
    with client_factory("stdio", "silent") as make_client, anyio.fail_after(PROMPT):
        async with lg.Run(context=lg.RunContext(deadline=time.monotonic() + 1.0)) as run:
            binding = lg.Binding(run=run)
            [probe] = await toolset(make_client, call_timeout=60).tools(binding)
            with pytest.raises(lg.DeadlineExceededError):
                await probe(binding).execute({}, context=run.context)
    await baseline.assert_released()


async def test_optional_discovery_reports_its_failure(lg_leaks: Leaks) -> None:
    events: list[lg.instrumentation.Event] = []
    baseline = lg_leaks()
    with (
        client_factory("memory", "silent-list") as make_client,
        lg.instrumentation.subscribe(events.append),
        anyio.fail_after(PROMPT),
    ):
        tools = await toolset(make_client, optional=True, discovery_timeout=0.2).tools()
    assert tools == []
    [event] = [e for e in events if e.name == "mcp_discovery"]
    assert dict(event.payload) == {
        "toolset": "Hostile",
        "outcome": "error",
        "tool_count": 0,
        "error_type": "TimeoutExceeded",
    }
    await baseline.assert_released()


@pytest.mark.parametrize("name", ["discovery_timeout", "call_timeout"])
@pytest.mark.parametrize("value", [0, -1, "5", True])
async def test_timeouts_must_be_positive_numbers(lg_leaks: Leaks, name: str, value: Any) -> None:
    baseline = lg_leaks()
    with pytest.raises(TypeError, match=f"{name} must be a positive number of seconds"):
        await toolset(lambda: mcp.Client("http://127.0.0.1:9/mcp"), **{name: value}).tools()
    await baseline.assert_released()


async def test_the_stdio_line_reader_is_linear_and_bounded(lg_leaks: Leaks) -> None:
    baseline = lg_leaks()
    reader = LineReader(64 * MIB)
    chunk = b"a" * 65536
    started = time.monotonic()
    for _ in range(640):  # a 40 MiB line: the SDK re-joins its buffer on every chunk
        assert reader.feed(chunk) == []
    [line] = reader.feed(b"\n")
    assert len(line) == 640 * 65536
    assert time.monotonic() - started < 2  # about 0.05 s; quadratic would copy ~13 GB
    with pytest.raises(LimitExceeded, match=r"max_result_bytes \(67108864\)"):
        for _ in range(1025):
            reader.feed(chunk)
    await baseline.assert_released()
