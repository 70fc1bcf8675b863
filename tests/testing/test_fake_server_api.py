"""FakeMCPServer's API: the fixtures, refusing misuse, declared metadata, closing, waiting."""

from __future__ import annotations

from collections.abc import Callable

import anyio
import mcp
import mcp_types as types
import pytest

from littleghost_testing.fake_server import Delay, ErrorResult, FakeMCPServer, Hang, Oversized

pytestmark = pytest.mark.anyio


def declare(server: FakeMCPServer) -> None:
    @server.tool(description="Look up a help center entry.")
    def lookup(topic: str):  # no return type: plain text
        return f"Refunds about {topic}."


async def test_the_fixture_is_a_ready_server(fake_mcp_server: FakeMCPServer) -> None:
    declare(fake_mcp_server)
    async with fake_mcp_server.client() as client:
        answer = await client.call_tool("lookup", {"topic": "shoes"})
    assert isinstance(answer.content[0], types.TextContent)
    assert answer.content[0].text == "Refunds about shoes."
    assert fake_mcp_server.calls == [("lookup", {"topic": "shoes"})]


async def test_the_factory_builds_more(
    fake_mcp_server: FakeMCPServer, fake_mcp_server_factory: Callable[..., FakeMCPServer]
) -> None:
    other = fake_mcp_server_factory("billing")
    assert other is not fake_mcp_server
    assert (other.name, fake_mcp_server.name) == ("billing", "fake")


def test_teardown_fails_a_test_that_leaves_a_session_open(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import anyio

        def test_leaves_it_open(fake_mcp_server):
            @fake_mcp_server.tool(description="Ping.")
            def ping():
                return "pong"

            async def connect_and_forget():
                client = fake_mcp_server.client()
                await client.__aenter__()  # never exited
                await client.call_tool("ping", {})

            try:
                anyio.run(connect_and_forget)
            except BaseException:
                pass
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:xdist")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*client sessions still open at teardown: 'fake' (1 of 1)*"])


async def test_fault_refuses_unknown_tools_and_non_faults(fake_mcp_server: FakeMCPServer) -> None:
    declare(fake_mcp_server)
    unknown = r"'fake' has no tool 'lookpu'; its tools are \['lookup'\]"
    with pytest.raises(ValueError, match=unknown):
        fake_mcp_server.fault("lookpu", Hang())
    with pytest.raises(TypeError, match=r"pass a fault instance, Hang\(\), not the class Hang"):
        fake_mcp_server.fault("lookup", Hang)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a fault must be an instance of Delay, Hang, "):
        fake_mcp_server.fault("lookup", "hang")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not the class Delay"):
        fake_mcp_server.fault_listing(Delay)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a fault must be an instance"):

        @fake_mcp_server.tool(description="x", fault="crash")  # type: ignore[arg-type]
        def other() -> None:
            pass


def test_faults_refuse_bad_values_when_built() -> None:
    with pytest.raises(ValueError, match="Delay seconds must be between 0 and 3600, not -1"):
        Delay(-1)
    with pytest.raises(TypeError, match="Delay seconds must be a number"):
        Delay("1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Oversized size must be a non-negative int"):
        Oversized(-5)
    with pytest.raises(TypeError, match="ErrorResult text must be a str"):
        ErrorResult(404)  # type: ignore[arg-type]


async def test_annotations_output_schema_and_task_support_are_advertised(
    fake_mcp_server: FakeMCPServer,
) -> None:
    server = fake_mcp_server

    @server.tool(
        description="Read an article.",
        annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
        task_support="optional",
    )
    def read(article: int) -> dict[str, int]:
        return {"article": article}

    @server.tool(
        description="Delete an article.",
        annotations={"destructiveHint": True, "title": "Delete"},
        output_schema={"type": "object", "properties": {"deleted": {"type": "boolean"}}},
    )
    def delete(article: int) -> dict[str, bool]:
        return {"deleted": True}

    async with server.client() as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert listed["read"].annotations == types.ToolAnnotations(
        read_only_hint=True, open_world_hint=False
    )
    assert listed["read"].execution == types.ToolExecution(task_support="optional")
    assert listed["delete"].annotations is not None
    assert listed["delete"].annotations.destructive_hint is True
    assert listed["delete"].annotations.title == "Delete"
    assert listed["delete"].output_schema == {
        "type": "object",
        "properties": {"deleted": {"type": "boolean"}},
    }
    with pytest.raises(ValueError, match="task_support must be"):
        server.tool(task_support="sometimes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="annotations must be a ToolAnnotations or a dict"):
        server.tool(annotations=["readOnlyHint"])  # type: ignore[arg-type]


async def test_close_forgets_faults_but_keeps_records(fake_mcp_server: FakeMCPServer) -> None:
    declare(fake_mcp_server)
    fake_mcp_server.fault("lookup", ErrorResult("down"))
    fake_mcp_server.paginate(1)
    async with fake_mcp_server.client() as client:
        assert (await client.call_tool("lookup", {"topic": "a"})).is_error
    fake_mcp_server.close()
    assert fake_mcp_server.calls == [("lookup", {"topic": "a"})]
    async with fake_mcp_server.client() as client:
        assert not (await client.call_tool("lookup", {"topic": "b"})).is_error
        assert (await client.list_tools()).next_cursor is None


async def test_wait_for_says_what_it_waited_for(fake_mcp_server: FakeMCPServer) -> None:
    declare(fake_mcp_server)
    with pytest.raises(TimeoutError) as raised:
        await fake_mcp_server.wait_for(lambda: fake_mcp_server.cancellations, within=0.05)
    assert str(raised.value) == (
        "'fake': lambda: fake_mcp_server.cancellations did not hold within 0.05 s "
        "(calls: [], cancellations: [])"
    )

    def two_calls() -> bool:
        return len(fake_mcp_server.calls) >= 2

    with anyio.fail_after(5), pytest.raises(TimeoutError, match="def two_calls"):
        await fake_mcp_server.wait_for(two_calls, within=0.01)


async def test_an_sdk_client_connects_over_every_in_process_transport(
    fake_mcp_server: FakeMCPServer,
) -> None:
    declare(fake_mcp_server)
    for transport in ("memory", "http"):
        client: mcp.Client = fake_mcp_server.client(transport)  # type: ignore[arg-type]
        async with client:
            assert not (await client.call_tool("lookup", {"topic": transport})).is_error
