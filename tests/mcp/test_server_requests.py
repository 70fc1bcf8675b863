"""What a Toolset answers when its server asks, and the events it makes of what a server says.

The servers are ``FakeMCPServer``'s SDK tools, which ask the client mid-call
(the 2025-11-25 wire: ``mode="legacy"``) with the SDK's own ``Context``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar, Literal

import anyio
import mcp
import mcp_types as types
import pytest
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

import littleghost as lg
from littleghost import instrumentation
from littleghost.mcp import Toolset
from littleghost.mcp._server_requests import ServerRequests
from littleghost_testing import ScriptedModel
from littleghost_testing.fake_server import FakeMCPServer
from littleghost_testing.leaks import ResourceSnapshot

pytestmark = [
    pytest.mark.anyio,
    # The server side uses the 2025-11-25 features 2026-07-28 deprecates: that is the point.
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]


class Name(BaseModel):
    name: str


def asking_server() -> FakeMCPServer:
    """Tools that ask the client, log, report progress and change the tool list."""
    server = FakeMCPServer("asking")

    @server.tool(description="Greet the user by the name they give.")
    async def greet(ctx: Context) -> str:
        answer = await ctx.elicit("What is your name?", Name)
        if answer.action == "accept":
            return f"Hello, {answer.data.name}!"
        return f"no name ({answer.action})"

    @server.tool(description="Ask the client's model for a haiku.")
    async def haiku(ctx: Context) -> str:
        message = types.SamplingMessage(
            role="user", content=types.TextContent(type="text", text="A haiku, please.")
        )
        try:
            result = await ctx.session.create_message([message], max_tokens=20)
        except MCPError as error:
            return f"refused ({error.error.code}): {error.error.message}"
        assert isinstance(result.content, types.TextContent)
        return f"{result.model}: {result.content.text}"

    @server.tool(description="Ask for the client's roots.")
    async def roots(ctx: Context) -> str:
        try:
            listed = await ctx.session.list_roots()
        except MCPError as error:
            return f"refused ({error.error.code}): {error.error.message}"
        return f"{len(listed.roots)} roots"

    @server.tool(description="Work in two steps, telling the client.")
    async def publish(ctx: Context) -> str:
        await ctx.report_progress(1, 2, "half way")
        await ctx.info("step 1 done", logger_name="publisher")
        await ctx.report_progress(2, 2)
        await ctx.warning({"step": 2, "done": True})
        return "published"

    @server.tool(description="Say whether the call asked for progress.")
    async def progress_asked(ctx: Context) -> bool:
        meta = ctx.request_context.meta or {}
        return "progress_token" in meta or "progressToken" in meta

    @server.tool(description="Add a tool, and say so.")
    async def grow(ctx: Context) -> str:
        server.tool("added", description="A tool added later.")(_added)
        await ctx.session.send_tool_list_changed()
        return "grown"

    return server


def _added() -> str:
    return "added"


class Asking(Toolset):
    """The tools of one ``FakeMCPServer`` on the 2025-11-25 wire; subclass it to answer."""

    server: ClassVar[FakeMCPServer]
    transport: ClassVar[Literal["memory", "http"]] = "memory"
    options: ClassVar[Mapping[str, Any]] = MappingProxyType({})

    def client(self, binding: lg.Binding) -> mcp.Client:
        return self.server.client(self.transport, mode="legacy", **self.options)


def toolset_for(server: FakeMCPServer, **options: Any) -> type[Asking]:
    """An ``Asking`` for ``server``; ``options`` go to its ``mcp.Client``."""
    return type("Asking", (Asking,), {"server": server, "options": options})


async def call(toolset: type[Toolset], name: str, arguments: dict[str, Any] | None = None) -> Any:
    """Discover ``toolset`` in a run of its own and call one tool; the result's value."""
    async with lg.Run() as run, lg.ToolRegistry([toolset], binding=lg.Binding(run=run)) as tools:
        result = await tools.call(name, arguments or {})
    assert result.is_success, result.content
    return result.value["result"]


def named(events: list[instrumentation.Event], name: str) -> list[dict[str, Any]]:
    return [dict(event.payload) for event in events if event.name == name]


async def test_elicitation_is_not_offered_unless_the_toolset_answers(lg_leaks: Any) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    events: list[instrumentation.Event] = []
    with anyio.fail_after(10), instrumentation.subscribe(events.append):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            async with lg.ToolRegistry([toolset_for(asking_server())], binding=binding) as tools:
                greet = await tools.call("greet", {})
    await baseline.assert_released()
    # The SDK's default answers: the server's ctx.elicit raises, and the call fails.
    assert greet.is_error and greet.content == "Elicitation not supported"
    assert named(events, "mcp_elicitation") == []


async def test_an_elicit_that_declines_is_offered_and_its_answer_sent() -> None:
    class Declining(Asking):
        server = asking_server()

        async def elicit(
            self, binding: lg.Binding, params: types.ElicitRequestParams
        ) -> types.ElicitResult:
            return await super().elicit(binding, params)  # the default declines

    events: list[instrumentation.Event] = []
    with anyio.fail_after(10), instrumentation.subscribe(events.append):
        assert await call(Declining, "greet") == "no name (decline)"
    assert named(events, "mcp_elicitation") == [
        {
            "toolset": "Declining",
            "message": "What is your name?",
            "action": "decline",
            "outcome": "success",
        }
    ]


@pytest.mark.parametrize("transport", ["memory", "http"])
async def test_an_overridden_elicit_answers_with_the_binding(
    lg_leaks: Any, transport: Literal["memory", "http"]
) -> None:
    asked: list[tuple[lg.Binding, types.ElicitRequestParams]] = []
    asking = asking_server()

    class Answering(Asking):
        server = asking

        async def elicit(
            self, binding: lg.Binding, params: types.ElicitRequestParams
        ) -> types.ElicitResult:
            asked.append((binding, params))
            return types.ElicitResult(action="accept", content={"name": "Ada"})

    Answering.transport = transport
    baseline: ResourceSnapshot = lg_leaks()
    try:
        with anyio.fail_after(20):
            assert await call(Answering, "greet") == "Hello, Ada!"
    finally:
        asking.close()  # an HTTP server's thread and socket
    await baseline.assert_released()
    [(binding, params)] = asked
    assert binding.run is not None  # the binding the toolset was discovered with
    assert params.message == "What is your name?"


async def test_sampling_is_not_offered_unless_the_toolset_answers() -> None:
    events: list[instrumentation.Event] = []
    with anyio.fail_after(10), instrumentation.subscribe(events.append):
        answer = await call(toolset_for(asking_server()), "haiku")
    assert answer == "refused (-32600): Sampling not supported"  # the SDK's default
    assert named(events, "mcp_sampling") == []


async def test_a_sample_that_declines_through_super_names_the_policy() -> None:
    class Declining(Asking):
        server = asking_server()

        async def sample(
            self, binding: lg.Binding, params: types.CreateMessageRequestParams
        ) -> types.CreateMessageResult | types.ErrorData:
            return await super().sample(binding, params)

    events: list[instrumentation.Event] = []
    with anyio.fail_after(10), instrumentation.subscribe(events.append):
        answer = await call(Declining, "haiku")
    assert answer == (
        "refused (-32600): sampling declined: Declining does not sample (override Toolset.sample)"
    )
    assert named(events, "mcp_sampling") == [
        {"toolset": "Declining", "model": None, "error_code": -32600, "outcome": "error"}
    ]


async def test_an_overridden_sample_answers() -> None:
    class Sampling(Asking):
        server = asking_server()

        async def sample(
            self, binding: lg.Binding, params: types.CreateMessageRequestParams
        ) -> types.CreateMessageResult | types.ErrorData:
            assert params.max_tokens == 20
            return types.CreateMessageResult(
                role="assistant",
                content=types.TextContent(type="text", text="An old silent pond"),
                model="scripted",
            )

    events: list[instrumentation.Event] = []
    with anyio.fail_after(10), instrumentation.subscribe(events.append):
        assert await call(Sampling, "haiku") == "scripted: An old silent pond"
    assert named(events, "mcp_sampling") == [
        {"toolset": "Sampling", "model": "scripted", "error_code": None, "outcome": "success"}
    ]


async def test_the_applications_own_callbacks_win() -> None:
    async def user(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "Grace"})

    logged: list[Any] = []

    async def log(params: types.LoggingMessageNotificationParams) -> None:
        logged.append(params.data)

    events: list[instrumentation.Event] = []
    toolset = toolset_for(asking_server(), elicitation_callback=user, logging_callback=log)
    with anyio.fail_after(10), instrumentation.subscribe(events.append):
        assert await call(toolset, "greet") == "Hello, Grace!"
        assert await call(toolset, "publish") == "published"
    assert named(events, "mcp_elicitation") == []
    assert named(events, "mcp_log_message") == []
    assert logged == ["step 1 done", {"step": 2, "done": True}]
    assert len(named(events, "mcp_progress")) == 2  # what the client left None is still ours


class Failing(Asking):
    """A toolset whose ``sample`` fails in the way ``failure`` names."""

    failure = "raises"

    async def sample(self, binding: lg.Binding, params: Any) -> Any:
        if self.failure == "raises":
            raise RuntimeError("postgres://admin:hunter2@db is down")
        if self.failure == "too slow":
            await anyio.sleep_forever()
        return {"role": "assistant"}


@pytest.mark.parametrize("failure", ["raises", "wrong type"])
async def test_a_failing_answer_is_logged_and_the_server_told_only_that_it_failed(
    lg_leaks: Any, caplog: pytest.LogCaptureFixture, failure: str
) -> None:
    class FailingSampler(Failing):
        server = asking_server()

    FailingSampler.failure = failure
    baseline: ResourceSnapshot = lg_leaks()
    events: list[instrumentation.Event] = []
    with (
        anyio.fail_after(10),
        caplog.at_level(logging.ERROR, logger="littleghost.mcp"),
        instrumentation.subscribe(events.append),
    ):
        async with (
            lg.Run() as run,
            lg.ToolRegistry([FailingSampler], binding=lg.Binding(run=run)) as registry,
        ):
            haiku = await registry.call("haiku", {})
            publish = await registry.call("publish", {})  # the connection still works
    await baseline.assert_released()
    assert haiku.value == {"result": "refused (-32603): the client's sample failed"}
    assert publish.value == {"result": "published"}
    [sampling] = named(events, "mcp_sampling")
    assert sampling["outcome"] == "error"
    [record] = [r for r in caplog.records if r.name == "littleghost.mcp"]
    if failure == "raises":
        assert record.getMessage() == (
            "FailingSampler.sample() failed; the server is told only that it failed"
        )
        assert record.exc_info is not None and "hunter2" in str(record.exc_info[1])
    else:
        assert record.getMessage() == (
            "FailingSampler.sample() must return CreateMessageResult or "
            "CreateMessageResultWithTools or ErrorData, not dict; the server is told it failed"
        )


async def test_an_answer_past_call_timeout_is_an_error(caplog: pytest.LogCaptureFixture) -> None:
    """Outside a call (a server may ask at any time) only the answer's own timeout ends it."""
    requests = ServerRequests(Failing(), lg.Binding(), answer_timeout=0.05, text_limit=100)
    Failing.failure = "too slow"
    try:
        with anyio.fail_after(5), caplog.at_level(logging.ERROR, logger="littleghost.mcp"):
            answer = await requests._sampling(None, SAMPLING)  # pyright: ignore[reportPrivateUsage, reportArgumentType]
    finally:
        Failing.failure = "raises"
    assert answer == types.ErrorData(code=-32603, message="the client's sample failed")
    [record] = caplog.records
    assert record.getMessage() == (
        "Failing.sample() took longer than call_timeout (0.05 s); the server is told it failed"
    )


async def test_a_slow_answer_ends_with_its_call(lg_leaks: Any) -> None:
    class Slow(Failing):
        server = asking_server()
        failure = "too slow"
        call_timeout = 0.3

    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(5):
        async with (
            lg.Run() as run,
            lg.ToolRegistry([Slow], binding=lg.Binding(run=run)) as registry,
        ):
            haiku = await registry.call("haiku", {})
    await baseline.assert_released()
    assert haiku.is_error and "call_timeout" in str(haiku.error)


SAMPLING = types.CreateMessageRequestParams(
    messages=[
        types.SamplingMessage(role="user", content=types.TextContent(type="text", text="hi"))
    ],
    max_tokens=5,
)


async def test_roots_are_not_offered() -> None:
    answer = await call(toolset_for(asking_server()), "roots")
    assert answer == "refused (-32600): List roots not supported"


async def test_log_messages_and_progress_are_events() -> None:
    events: list[instrumentation.Event] = []
    with anyio.fail_after(10), instrumentation.subscribe(events.append):
        assert await call(toolset_for(asking_server()), "publish") == "published"
    assert named(events, "mcp_log_message") == [
        {"toolset": "Asking", "level": "info", "logger": "publisher", "data": "step 1 done"},
        {
            "toolset": "Asking",
            "level": "warning",
            "logger": None,
            "data": '{"step": 2, "done": true}',
        },
    ]
    assert named(events, "mcp_progress") == [
        {
            "toolset": "Asking",
            "tool": "publish",
            "progress": 1.0,
            "total": 2.0,
            "message": "half way",
        },
        {"toolset": "Asking", "tool": "publish", "progress": 2.0, "total": 2.0, "message": None},
    ]


async def test_progress_is_asked_for_only_while_something_listens() -> None:
    toolset = toolset_for(asking_server())
    with anyio.fail_after(10):
        assert await call(toolset, "progress_asked") is False
        with instrumentation.subscribe(lambda event: None):
            assert await call(toolset, "progress_asked") is True


async def test_server_text_in_events_is_cut_to_max_event_text_bytes() -> None:
    server = FakeMCPServer("long")

    @server.tool(description="Say a lot.")
    async def say(ctx: Context) -> str:
        await ctx.info("é" * 10_000, logger_name="l" * 10_000)
        await ctx.report_progress(1, None, "m" * 10_000)
        return "said"

    class Bounded(Asking):
        max_event_text_bytes = 64

    Bounded.server = server

    events: list[instrumentation.Event] = []
    with anyio.fail_after(10), instrumentation.subscribe(events.append):
        assert await call(Bounded, "say") == "said"
    [log] = named(events, "mcp_log_message")
    [progress] = named(events, "mcp_progress")
    for text in (log["data"], log["logger"], progress["message"]):
        assert len(text.encode()) <= 64 and text.endswith("…")
    assert log["data"] == "é" * 30 + "…"  # cut at a character, never inside one


async def test_list_changed_is_an_event_and_the_next_discovery_lists_the_new_tool() -> None:
    server = asking_server()
    toolset = toolset_for(server)
    events: list[instrumentation.Event] = []
    with anyio.fail_after(10), instrumentation.subscribe(events.append):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            async with lg.ToolRegistry([toolset], binding=binding) as registry:
                assert "added" not in registry.names
                assert (await registry.call("grow", {})).value == {"result": "grown"}
                for _ in range(100):  # the notification arrives after the answer, in its own task
                    if named(events, "mcp_list_changed"):
                        break
                    await anyio.sleep(0.01)
                assert "added" not in registry.names  # a run keeps the tools it was shown
            rediscovered = await toolset.tools(binding)
    assert named(events, "mcp_list_changed") == [{"toolset": "Asking"}]
    assert "added" in [tool.tool_name for tool in rediscovered]


async def test_an_agent_run_answers_through_its_toolset(lg_leaks: Any) -> None:
    class Answering(Asking):
        server = asking_server()

        async def elicit(
            self, binding: lg.Binding, params: types.ElicitRequestParams
        ) -> types.ElicitResult:
            return types.ElicitResult(action="accept", content={"name": "Ada"})

    class Greeter(lg.Agent):
        tools = [Answering]

    model = ScriptedModel(lg.ModelResponse(tool_calls=(lg.ToolCall("c1", "greet", {}),)), "done")
    baseline: ResourceSnapshot = lg_leaks()
    events: list[instrumentation.Event] = []
    with anyio.fail_after(10), instrumentation.subscribe(events.append):
        run = await Greeter.ask_async("greet me", model=model)
    await baseline.assert_released()
    [message] = [m for m in run.messages if m.role == "tool"]
    assert message.content == '{"result":"Hello, Ada!"}'
    assert [event["action"] for event in named(events, "mcp_elicitation")] == ["accept"]
