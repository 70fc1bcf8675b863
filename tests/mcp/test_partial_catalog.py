"""One tool whose schema cannot be used is left out; the rest of the catalog stays usable.

Each case is a real server (``FakeMCPServer``, which advertises any schema
verbatim) listing three tools, the middle one broken in exactly one way.
``strict = True`` keeps the all-or-nothing discovery; what is wrong with the
catalog as a whole (its size, its answer) still fails it either way.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

import anyio
import mcp
import pytest

import littleghost as lg
from littleghost import instrumentation
from littleghost.mcp import (
    InvalidSchema,
    LimitExceeded,
    MalformedMessage,
    SchemaLimitExceeded,
    Toolset,
    UnusableTool,
)
from littleghost_testing.fake_server import FakeMCPServer
from littleghost_testing.leaks import ResourceSnapshot

pytestmark = pytest.mark.anyio


def _string(**constraints: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"x": {"type": "string", **constraints}}}


_DEEP: dict[str, Any] = {"type": "object"}
for _ in range(70):
    _DEEP = {"type": "object", "properties": {"x": _DEEP}}

# Each way one tool's schema can be unusable: its schemas, the error, what the error says.
BROKEN: dict[str, tuple[dict[str, Any], type[UnusableTool], str]] = {
    "remote $ref": (
        {
            "input_schema": {
                "type": "object",
                "properties": {"x": {"$ref": "https://example.com/s.json"}},
            }
        },
        InvalidSchema,
        "https://example.com/s.json",
    ),
    "invalid schema": (
        {"input_schema": {"type": "object", "properties": {"x": {"type": "nope"}}}},
        InvalidSchema,
        "invalid inputSchema",
    ),
    "pattern past MAX_PATTERN_REPETITIONS": (
        {"input_schema": _string(pattern="^a{100001}$")},
        InvalidSchema,
        "MAX_PATTERN_REPETITIONS",
    ),
    "pattern that is not ECMA-262": (
        {"input_schema": _string(pattern="(?P<name>a)")},
        InvalidSchema,
        "invalid inputSchema",
    ),
    "regex past max_regex_bytes": (
        {"input_schema": _string(pattern="a" * (64 * 1024 + 1))},
        SchemaLimitExceeded,
        r"max_regex_bytes (65536): inputSchema of 'broken'",
    ),
    "schema past max_schema_depth": (
        {"input_schema": _DEEP},
        SchemaLimitExceeded,
        "max_schema_depth (64): inputSchema of 'broken' too deep",
    ),
    "invalid outputSchema": (
        {"output_schema": {"type": "object", "minProperties": -1}},
        InvalidSchema,
        "invalid outputSchema",
    ),
}


def three_tools(broken: dict[str, Any]) -> FakeMCPServer:
    """``lookup`` and ``echo`` work; ``broken`` lists the schemas given."""
    server = FakeMCPServer("partial")

    @server.tool(description="Look a topic up.")
    def lookup(topic: str) -> str:
        return f"about {topic}"

    server.tool("broken", description="Broken in one way.", **broken)(_noop)

    @server.tool(description="Say it back.")
    def echo(text: str) -> str:
        return text

    return server


class Partial(Toolset):
    """The tools of ``server``, keeping the tools discovery left out in ``skipped``."""

    server: ClassVar[FakeMCPServer]
    skipped: ClassVar[list[UnusableTool]]

    def client(self, binding: lg.Binding) -> mcp.Client:
        return self.server.client()

    def on_tool_skipped(self, error: UnusableTool, *, binding: lg.Binding) -> None:
        self.skipped.append(error)


def toolset_for(server: FakeMCPServer, **attributes: Any) -> type[Partial]:
    """A ``Partial`` of its own for ``server``, with ``attributes`` (``strict``, ``max_*``)."""
    return type("Partial", (Partial,), {"server": server, "skipped": [], **attributes})


@pytest.mark.parametrize("case", BROKEN)
async def test_one_unusable_tool_is_left_out_and_the_others_are_called(
    lg_leaks: Any, caplog: pytest.LogCaptureFixture, case: str
) -> None:
    schemas, error_type, reason = BROKEN[case]
    toolset = toolset_for(three_tools(schemas))
    events: list[instrumentation.Event] = []
    baseline: ResourceSnapshot = lg_leaks()
    with (
        anyio.fail_after(10),
        caplog.at_level(logging.WARNING, logger="littleghost.mcp"),
        instrumentation.subscribe(events.append),
    ):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            async with lg.ToolRegistry([toolset], binding=binding) as registry:
                assert registry.names == ("lookup", "echo")
                looked_up = await registry.call("lookup", {"topic": "refunds"})
                echoed = await registry.call("echo", {"text": "hi"})
    await baseline.assert_released()
    assert looked_up.value == {"result": "about refunds"}
    assert echoed.value == {"result": "hi"}

    [error] = toolset.skipped
    assert type(error) is error_type
    assert (error.tool, reason in str(error)) == ("broken", True), str(error)
    assert error.field == ("outputSchema" if "output_schema" in schemas else "inputSchema")
    [skipped] = [event for event in events if event.name == "mcp_tool_skipped"]
    assert dict(skipped.payload) == {
        "toolset": "Partial",
        "tool": "broken",
        "reason": str(error),
        "error_type": error_type.__name__,
    }
    [warning] = [r for r in caplog.records if r.name == "littleghost.mcp"]
    assert warning.levelno == logging.WARNING
    assert warning.getMessage() == f"Partial: MCP tool 'broken' left out: {error}"
    [discovery] = [event for event in events if event.name == "mcp_discovery"]
    assert discovery.payload["outcome"] == "success" and discovery.payload["tool_count"] == 2


@pytest.mark.parametrize("case", BROKEN)
async def test_strict_discovery_fails_on_one_unusable_tool(lg_leaks: Any, case: str) -> None:
    schemas, error_type, reason = BROKEN[case]
    toolset = toolset_for(three_tools(schemas), strict=True)
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(10), pytest.raises(error_type) as raised:
        await toolset.tools(lg.Binding())
    await baseline.assert_released()
    assert reason in str(raised.value)
    assert raised.value.tool == "broken"
    # Today's types still catch it: a MalformedMessage or a LimitExceeded, both ProtocolErrors.
    assert isinstance(
        raised.value, MalformedMessage if error_type is InvalidSchema else LimitExceeded
    )
    assert toolset.skipped == []


async def test_optional_and_strict_gives_no_tools_optional_alone_the_usable_ones() -> None:
    schemas = BROKEN["remote $ref"][0]
    failures: list[lg.LittleGhostError] = []

    class Optional(Partial):
        server = three_tools(schemas)
        skipped = []
        optional = True

        def on_error(self, error: lg.LittleGhostError, *, binding: lg.Binding) -> None:
            failures.append(error)

    class OptionalStrict(Optional):
        strict = True

    with anyio.fail_after(10):
        async with lg.Run() as run:
            assert await OptionalStrict.tools(lg.Binding(run=run)) == []
            [failure] = failures
            assert isinstance(failure, InvalidSchema)
            usable = await Optional.tools(lg.Binding(run=run))
            assert [tool.tool_name for tool in usable] == ["lookup", "echo"]
    assert len(failures) == 1  # a skipped tool is not a failed discovery


async def test_catalog_wide_problems_still_fail_the_catalog(lg_leaks: Any) -> None:
    schemas = BROKEN["invalid schema"][0]
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(10):
        with pytest.raises(LimitExceeded, match=r"max_tools \(2\)") as too_many:
            await toolset_for(three_tools(schemas), max_tools=2).tools(lg.Binding())
        with pytest.raises(LimitExceeded, match=r"max_regexes \(1\)") as regexes:
            server = FakeMCPServer("regexes")
            for name in ("a", "b"):
                server.tool(name, description="d", input_schema=_string(pattern="^x$"))(_noop)
            await toolset_for(server, max_regexes=1).tools(lg.Binding())
    await baseline.assert_released()
    for raised in (too_many, regexes):
        assert not isinstance(raised.value, UnusableTool)


def _noop(x: str = "") -> str:
    return x


async def test_a_failing_on_tool_skipped_propagates_unchanged() -> None:
    class Boom(Exception):
        pass

    class Failing(Partial):
        server = three_tools(BROKEN["invalid schema"][0])
        skipped = []
        optional = True

        def on_tool_skipped(self, error: UnusableTool, *, binding: lg.Binding) -> None:
            raise Boom(error.tool)

    with anyio.fail_after(10), pytest.raises(Boom, match="broken"):
        await Failing.tools(lg.Binding())


async def test_server_text_in_the_event_and_the_warning_is_bounded(
    caplog: pytest.LogCaptureFixture,
) -> None:
    name = "n" * 5000
    server = FakeMCPServer("long")
    server.tool(name, description="d", input_schema=BROKEN["invalid schema"][0]["input_schema"])(
        _noop
    )
    events: list[instrumentation.Event] = []
    toolset = toolset_for(server, max_event_text_bytes=100)
    with (
        anyio.fail_after(10),
        caplog.at_level(logging.WARNING, logger="littleghost.mcp"),
        instrumentation.subscribe(events.append),
    ):
        assert await toolset.tools(lg.Binding()) == []
    [skipped] = [event for event in events if event.name == "mcp_tool_skipped"]
    for text in (skipped.payload["tool"], skipped.payload["reason"]):
        assert len(text.encode()) <= 100 and text.endswith("…")
    [warning] = [record for record in caplog.records if record.name == "littleghost.mcp"]
    assert len(warning.getMessage()) < 300
    [error] = toolset.skipped
    assert error.tool == name  # the error itself keeps the whole name for the application
