"""Hostile and broken servers: each ends in the named error, in time, leaving nothing behind."""

from __future__ import annotations

import base64
import socket
import sys
import time
from typing import Any

import anyio
import mcp
import pytest
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_harness import REPO
from mcp_servers.scripted import ScriptedTransport, page, text_result, tool

import littleghost as lg
from littleghost.mcp import Toolset
from littleghost_testing.fake_server._http import HttpServer
from littleghost_testing.leaks import ResourceSnapshot

pytestmark = pytest.mark.anyio


def toolset_for(make_client: Any, **attributes: Any) -> type[Toolset]:
    class HostileTools(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return make_client()

    for name, value in attributes.items():
        setattr(HostileTools, name, value)
    return HostileTools


def scripted(tools: list[dict[str, Any]], call: Any = None) -> ScriptedTransport:
    async def handler(method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "tools/list":
            return page(tools)
        assert call is not None, method
        return await call(params)

    return ScriptedTransport(handler)


async def discover(transport: ScriptedTransport, **attributes: Any) -> list[type[lg.Tool]]:
    return await toolset_for(lambda: mcp.Client(transport), **attributes).tools(lg.Binding())


async def expect_discovery_error(
    leaks: Any, transport: ScriptedTransport, error: type[BaseException], match: str, **attrs: Any
) -> None:
    baseline: ResourceSnapshot = leaks()
    with anyio.fail_after(5), pytest.raises(error, match=match):
        await discover(transport, **attrs)
    await baseline.assert_released()


DEEP: dict[str, Any] = {"type": "object"}
for _ in range(100):
    DEEP = {"type": "object", "properties": {"x": DEEP}}

WIDE = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(6000)}}


@pytest.mark.parametrize(
    ("definition", "match"),
    [
        ({"name": 7, "inputSchema": {"type": "object"}}, "malformed data"),
        ({"name": "no_schema"}, "malformed data"),
        ({"name": "list_schema", "inputSchema": ["object"]}, "malformed data"),
        ({"name": "", "inputSchema": {"type": "object"}}, "empty name"),
        (
            tool("bad", inputSchema={"type": "object", "properties": {"x": {"type": "nope"}}}),
            "invalid inputSchema",
        ),
        (
            tool(
                "bad_regex",
                inputSchema={
                    "type": "object",
                    "properties": {"x": {"type": "string", "pattern": "(unclosed"}},
                },
            ),
            "invalid inputSchema",
        ),
        (
            tool("bad_output", outputSchema={"type": "object", "minProperties": -1}),
            "invalid outputSchema",
        ),
        (tool("deep", inputSchema=DEEP), r"max_schema_depth \(64\)"),
        (tool("wide", inputSchema=WIDE), r"max_schema_nodes \(10000\)"),
        (
            tool(
                "long_regex",
                inputSchema={
                    "type": "object",
                    "properties": {"x": {"type": "string", "pattern": "a" * (64 * 1024 + 1)}},
                },
            ),
            r"max_regex_bytes",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
async def test_malformed_definitions(lg_leaks: Any, definition: Any, match: str) -> None:
    # strict: a tool whose schema alone is unusable fails discovery too (else it is left out)
    await expect_discovery_error(
        lg_leaks, scripted([definition]), lg.ProtocolError, match, strict=True
    )


async def test_duplicate_server_names(lg_leaks: Any) -> None:
    await expect_discovery_error(
        lg_leaks, scripted([tool("a"), tool("a")]), lg.ProtocolError, "twice"
    )


async def test_oversized_catalogs(lg_leaks: Any) -> None:
    many = [tool(f"t{i}") for i in range(1001)]
    await expect_discovery_error(lg_leaks, scripted(many), lg.ProtocolError, r"max_tools \(1000\)")
    big = [tool("big", description="x" * 2000)]
    await expect_discovery_error(
        lg_leaks,
        scripted(big),
        lg.ProtocolError,
        r"max_catalog_bytes \(1000\)",
        max_catalog_bytes=1000,
    )
    regexes = [
        tool(f"r{i}", inputSchema={"type": "object", "patternProperties": {"^a$": {}, "^b$": {}}})
        for i in range(501)
    ]
    await expect_discovery_error(
        lg_leaks, scripted(regexes), lg.ProtocolError, r"max_regexes \(1000\)"
    )


async def test_endless_pagination(lg_leaks: Any) -> None:
    async def repeating(method: str, params: dict[str, Any]) -> dict[str, Any]:
        return page([tool(f"t{params.get('cursor')}")], cursor="same")

    await expect_discovery_error(
        lg_leaks, ScriptedTransport(repeating), lg.ProtocolError, "repeated a pagination cursor"
    )
    counter = iter(range(10**6))

    async def forever(method: str, params: dict[str, Any]) -> dict[str, Any]:
        return page([], cursor=f"c{next(counter)}")

    await expect_discovery_error(
        lg_leaks, ScriptedTransport(forever), lg.ProtocolError, r"max_pages \(100\)"
    )

    async def huge_cursor(method: str, params: dict[str, Any]) -> dict[str, Any]:
        return page([], cursor="c" * 20_000)

    await expect_discovery_error(
        lg_leaks, ScriptedTransport(huge_cursor), lg.ProtocolError, "max_cursor_bytes"
    )


async def test_jsonrpc_error_on_discovery_is_a_tool_error(lg_leaks: Any) -> None:
    async def refuse(method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise MCPError(-32603, "catalog unavailable")

    await expect_discovery_error(
        lg_leaks, ScriptedTransport(refuse), lg.ToolError, "catalog unavailable"
    )


CATASTROPHIC = "^(a+)+$"
EVIL_INPUT = "a" * 40 + "!"


async def test_catastrophic_regexes_are_matched_in_linear_time(lg_leaks: Any) -> None:
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": CATASTROPHIC}}}

    async def call(params: dict[str, Any]) -> dict[str, Any]:
        return text_result("ok", structuredContent={"s": EVIL_INPUT})

    transport = scripted([tool("evil", inputSchema=schema, outputSchema=schema)], call)
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(2):
        [evil_class] = await discover(transport)
        evil = evil_class()
        started = time.monotonic()
        rejected = await evil.execute({"s": EVIL_INPUT})
        assert rejected.content.startswith("Invalid tool input: ")
        # The server answers with data breaking its own pattern: checked in linear time too.
        broken = await evil.execute({"s": "aaa"})
        assert isinstance(broken.error, lg.ProtocolError)
        assert "breaks its outputSchema" in str(broken.error)
        assert time.monotonic() - started < 0.5
        await evil.close()
    await baseline.assert_released()


async def call_once(leaks: Any, result: dict[str, Any], **attributes: Any) -> lg.ExecutionResult:
    async def call(params: dict[str, Any]) -> dict[str, Any]:
        return result

    definition = tool("t", **attributes.pop("definition", {}))
    baseline: ResourceSnapshot = leaks()
    with anyio.fail_after(5):
        [tool_class] = await discover(scripted([definition], call), **attributes)
        instance = tool_class()
        outcome = await instance.execute({})
        await instance.close()
    await baseline.assert_released()
    return outcome


def image(data: str) -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": "image/png"}


async def test_bad_images(lg_leaks: Any) -> None:
    bad = await call_once(lg_leaks, {"content": [image("not base64!")], "resultType": "complete"})
    assert isinstance(bad.error, lg.ProtocolError) and "not valid base64" in str(bad.error)
    many = {"content": [image("AAAA")] * 21, "resultType": "complete"}
    too_many = await call_once(lg_leaks, many)
    assert "max_images (20)" in str(too_many.error)
    big = {"content": [image(base64.b64encode(b"x" * 3000).decode())], "resultType": "complete"}
    too_big = await call_once(lg_leaks, big, max_image_bytes=2000)
    assert "max_image_bytes (2000)" in str(too_big.error)
    total = {
        "content": [image(base64.b64encode(b"x" * 900).decode())] * 3,
        "resultType": "complete",
    }
    too_much = await call_once(lg_leaks, total, max_total_image_bytes=2000)
    assert "max_total_image_bytes (2000)" in str(too_much.error)


async def test_structured_content_must_match_output_schema(lg_leaks: Any) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    wrong = await call_once(
        lg_leaks,
        text_result("x", structuredContent={"n": "one"}),
        definition={"outputSchema": schema},
    )
    assert isinstance(wrong.error, lg.ProtocolError)
    assert wrong.content == "Tool failed (OutputSchemaError)"
    missing = await call_once(lg_leaks, text_result("x"), definition={"outputSchema": schema})
    assert "returned no structuredContent" in str(missing.error)
    right = await call_once(
        lg_leaks, text_result("x", structuredContent={"n": 1}), definition={"outputSchema": schema}
    )
    assert right.value == {"n": 1}


async def test_malformed_call_result(lg_leaks: Any) -> None:
    broken = await call_once(lg_leaks, {"content": "not a list", "resultType": "complete"})
    assert isinstance(broken.error, lg.ProtocolError)


async def test_a_hanging_tool_meets_the_deadline(lg_leaks: Any) -> None:
    async def call(params: dict[str, Any]) -> dict[str, Any]:
        await anyio.sleep_forever()
        raise AssertionError

    transport = scripted([tool("hang")], call)
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(5):
        [hang_class] = await discover(transport)
        hang = hang_class()
        started = time.monotonic()
        with pytest.raises(lg.DeadlineExceededError):
            await hang.execute({}, context=lg.RunContext.with_timeout(0.2))
        assert time.monotonic() - started < 0.3
        with anyio.fail_after(1):
            while not transport.cancelled:  # noqa: ASYNC110 - the server records it
                await anyio.sleep(0.005)
        await hang.close()
    await baseline.assert_released()


async def test_a_hanging_catalog_meets_the_deadline(lg_leaks: Any) -> None:
    async def hang(method: str, params: dict[str, Any]) -> dict[str, Any]:
        await anyio.sleep_forever()
        raise AssertionError

    transport = ScriptedTransport(hang)
    baseline: ResourceSnapshot = lg_leaks()
    run = lg.Run(context=lg.RunContext.with_timeout(0.2))
    started = time.monotonic()
    with anyio.fail_after(5), pytest.raises(lg.DeadlineExceededError):
        await toolset_for(lambda: mcp.Client(transport)).tools(lg.Binding(run=run))
    assert time.monotonic() - started < 0.3
    assert transport.cancelled  # the SDK told the server the listing was abandoned
    await run.aclose()
    await baseline.assert_released()


def stdio_parameters(tmp_path: Any) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "tests.mcp.mcp_servers.catalog"],
        env={"LG_TEST_CRASHABLE": "1", "PYTHONPATH": str(REPO)},
        cwd=REPO,
    )


async def test_stdio_server_exits_mid_call(lg_leaks: Any, tmp_path: Any) -> None:
    parameters = stdio_parameters(tmp_path)
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(10):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            tools = {
                cls.tool_name: cls(binding)
                for cls in await toolset_for(lambda: mcp.Client(parameters)).tools(binding)
            }
            crashed = await tools["crash"].execute({})
            assert isinstance(crashed.error, lg.ProviderError)
            assert "MCP connection closed" in str(crashed.error)
            later = await tools["echo"].execute({"text": "anyone there?"})
            assert isinstance(later.error, lg.ProviderError)
            assert "MCP connection closed" in str(later.error)
    await baseline.assert_released()


async def test_stdio_command_that_does_not_exist(lg_leaks: Any) -> None:
    parameters = StdioServerParameters(command="/nonexistent/mcp-server")
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(5), pytest.raises(lg.ProviderError, match="could not start"):
        await toolset_for(lambda: mcp.Client(parameters)).tools(lg.Binding())
    await baseline.assert_released()


async def test_http_connection_refused(lg_leaks: Any) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(10), pytest.raises(lg.ProviderError, match="could not connect") as caught:
        await toolset_for(lambda: mcp.Client(f"http://127.0.0.1:{port}/mcp")).tools(lg.Binding())
    assert "Traceback" not in str(caught.value)
    await baseline.assert_released()


async def failing_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Every request gets HTTP 500 with a plain-text body."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send(
        {
            "type": "http.response.start",
            "status": 500,
            "headers": [(b"content-type", b"text/plain")],
        }
    )
    await send({"type": "http.response.body", "body": b"internal error"})


async def test_http_error_status(lg_leaks: Any) -> None:
    with HttpServer(lambda: failing_app, name="littleghost-test-http-failing") as server:
        baseline: ResourceSnapshot = lg_leaks()
        with anyio.fail_after(10), pytest.raises(lg.ProviderError, match="HTTP transport failed"):
            await toolset_for(lambda: mcp.Client(f"{server.url}/mcp")).tools(lg.Binding())
        await baseline.assert_released()
