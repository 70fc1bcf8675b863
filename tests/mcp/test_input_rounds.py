"""Calls answer ``input_required`` results (SEP-2322, the 2026-07-28 protocol), round after round.

The servers are real SDK tools (``mcp_servers/rounds.py``) that return an
``InputRequiredResult`` until the retried call carries what they asked for,
in memory and over stdio; a scripted transport plays a server that sends one
on a protocol that does not define it.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import anyio
import mcp
import mcp_types as types
import pytest
from mcp_servers.rounds import server
from mcp_servers.scripted import ScriptedTransport, page, tool

import littleghost as lg
from littleghost import instrumentation
from littleghost.mcp import InputRefused, LimitExceeded, MalformedMessage, TimeoutExceeded, Toolset
from littleghost_testing.leaks import ResourceSnapshot

pytestmark = pytest.mark.anyio

Transport = Literal["memory", "stdio"]

INITIALIZED = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "old", "version": "1"},
}
"""The ``initialize`` answer of a scripted 2025-11-25 server."""


class RoundsTools(Toolset):
    """The rounds server's tools on 2026-07-28; it answers none of what they ask."""

    transport: ClassVar[Transport] = "memory"

    def client(self, binding: lg.Binding) -> mcp.Client:
        return server.client(self.transport)


class Answering(RoundsTools):
    """Answers every elicitation (a name, then a title) and every sampling request."""

    async def elicit(
        self, binding: lg.Binding, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        name = "Countess" if params.message == "And your title?" else "Ada"
        return types.ElicitResult(action="accept", content={"name": name})

    async def sample(
        self, binding: lg.Binding, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="An old silent pond"),
            model="scripted",
        )


async def call(
    toolset: type[Toolset], name: str, arguments: dict[str, Any] | None = None
) -> lg.ExecutionResult:
    """Discover ``toolset`` in a run of its own and call one tool."""
    async with lg.Run() as run, lg.ToolRegistry([toolset], binding=lg.Binding(run=run)) as tools:
        return await tools.call(name, arguments or {})


def calls_of(tool_name: str, since: int = 0) -> list[dict[str, Any]]:
    """The ``tools/call`` params the server received for ``tool_name``, without the name."""
    return [
        {key: value for key, value in request.params.items() if key != "name"}
        for request in server.requests[since:]
        if request.method == "tools/call" and request.params["name"] == tool_name
    ]


@pytest.fixture(autouse=True)
def fresh_records() -> None:
    server.reset()


@pytest.mark.parametrize("transport", ["memory", "stdio"])
async def test_an_elicitation_is_answered_and_the_call_sent_again_with_the_state(
    lg_leaks: Any, transport: Transport
) -> None:
    class Over(Answering):
        pass

    Over.transport = transport
    baseline: ResourceSnapshot = lg_leaks()
    events: list[instrumentation.Event] = []
    with anyio.fail_after(30), instrumentation.subscribe(events.append):
        result = await call(Over, "greet")
        await server.wait_for(lambda: len(calls_of("greet")) == 2)
    await baseline.assert_released()
    assert result.value == {"result": 'Hello, Ada! (state {"asked": "name"})'}
    first, retry = calls_of("greet")
    assert first == {"arguments": {}}  # no answers and no state on the first call
    assert retry["arguments"] == {}
    assert retry["inputResponses"] == {"name": {"action": "accept", "content": {"name": "Ada"}}}
    assert isinstance(retry["requestState"], str)  # the server's sealed state, echoed
    [asked] = [event.payload for event in events if event.name == "mcp_elicitation"]
    assert (asked["message"], asked["action"]) == ("What is your name?", "accept")


async def test_a_sampling_request_is_answered_by_the_toolsets_sample() -> None:
    with anyio.fail_after(10):
        result = await call(Answering, "haiku")
    assert result.value == {"result": "scripted: An old silent pond"}
    [_, retry] = calls_of("haiku")
    assert "requestState" not in retry  # the server sent none: none goes back


async def test_rounds_follow_one_another_until_the_server_answers() -> None:
    with anyio.fail_after(10):
        result = await call(Answering, "introduce")
    assert result.value == {"result": "Countess Ada"}
    assert len(calls_of("introduce")) == 3


async def test_a_round_that_asks_nothing_is_sent_again_with_its_state_alone() -> None:
    with anyio.fail_after(10):
        result = await call(RoundsTools, "poll")
    assert result.value == {"result": "ready after 3 polls"}
    first, *polls = calls_of("poll")
    assert len(polls) == 3 and "requestState" not in first
    assert all("inputResponses" not in each and each["requestState"] for each in polls)


@pytest.mark.parametrize(
    ("tool_name", "method", "refusal"),
    [
        ("greet", "elicitation/create", "Elicitation not supported"),
        ("haiku", "sampling/createMessage", "Sampling not supported"),
        ("roots", "roots/list", "List roots not supported"),
    ],
)
async def test_what_the_toolset_does_not_answer_ends_the_call_in_input_refused(
    lg_leaks: Any, tool_name: str, method: str, refusal: str
) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(10):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            async with lg.ToolRegistry([RoundsTools], binding=binding) as tools:
                refused = await tools.call(tool_name, {})
                plain = await tools.call("plain", {})  # the connection goes on
    await baseline.assert_released()
    assert isinstance(refused.error, InputRefused) and isinstance(refused.error, lg.ToolError)
    assert (refused.error.method, refused.error.code) == (method, types.INVALID_REQUEST)
    assert str(refused.error).startswith(f"MCP tool {tool_name} asked for ")
    assert str(refused.error).endswith(f"({method}), which the client refused: {refusal}")
    assert plain.value == {"result": "plain"}
    assert len(calls_of(tool_name)) == 1  # nothing was sent again


async def test_a_sample_that_declines_through_super_names_the_policy() -> None:
    class Declining(RoundsTools):
        async def sample(
            self, binding: lg.Binding, params: types.CreateMessageRequestParams
        ) -> types.CreateMessageResult | types.ErrorData:
            return await super().sample(binding, params)

    with anyio.fail_after(10):
        result = await call(Declining, "haiku")
    assert isinstance(result.error, InputRefused)
    assert str(result.error).endswith(
        "which the client refused: sampling declined: Declining does not sample "
        "(override Toolset.sample)"
    )


async def test_past_max_input_rounds_the_call_is_a_limit_exceeded(lg_leaks: Any) -> None:
    class Bounded(Answering):
        max_input_rounds = 3

    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(10):
        result = await call(Bounded, "endless")
    await baseline.assert_released()
    error = result.error
    assert isinstance(error, LimitExceeded)
    assert (error.limit, error.value) == ("max_input_rounds", 3)
    assert str(error) == (
        "MCP server exceeded max_input_rounds (3): "
        "tool endless still asked for input after 3 rounds"
    )
    assert len(calls_of("endless")) == 4  # the call and three rounds


async def test_too_many_inputs_in_one_round_is_a_limit_exceeded() -> None:
    class Bounded(Answering):
        max_input_requests = 2

    with anyio.fail_after(10):
        async with (
            lg.Run() as run,
            lg.ToolRegistry([Bounded], binding=lg.Binding(run=run)) as tools,
        ):
            within = await tools.call("survey", {"questions": 2})
            past = await tools.call("survey", {"questions": 3})
    assert within.value == {"result": "2 answers"}
    assert isinstance(past.error, LimitExceeded) and past.error.limit == "max_input_requests"
    assert str(past.error) == (
        "MCP server exceeded max_input_requests (2): tool survey asked for 3 inputs in one round"
    )


async def test_a_request_state_past_max_request_state_bytes_is_a_limit_exceeded() -> None:
    class Bounded(RoundsTools):
        max_request_state_bytes = 2000

    with anyio.fail_after(10):
        async with (
            lg.Run() as run,
            lg.ToolRegistry([Bounded], binding=lg.Binding(run=run)) as tools,
        ):
            within = await tools.call("heavy", {"size": 10})
            past = await tools.call("heavy", {"size": 5000})
    assert within.value == {"result": "state of 10"}
    assert isinstance(past.error, LimitExceeded) and past.error.limit == "max_request_state_bytes"
    assert str(past.error).startswith(
        "MCP server exceeded max_request_state_bytes (2000): tool heavy sent a requestState of "
    )


class Slow(Answering):
    """Takes ``seconds`` to answer each elicitation (``None``: forever)."""

    seconds: ClassVar[float | None] = None

    async def elicit(
        self, binding: lg.Binding, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        if self.seconds is None:
            await anyio.sleep_forever()
        await anyio.sleep(self.seconds)
        return await super().elicit(binding, params)


async def test_call_timeout_covers_every_round(lg_leaks: Any) -> None:
    class Patient(Slow):
        seconds = 0.1
        call_timeout = 0.5  # each answer is well within it; all of them are not
        max_input_rounds = 1000

    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(10):
        result = await call(Patient, "endless")
    await baseline.assert_released()
    assert isinstance(result.error, TimeoutExceeded) and result.error.timeout == "call_timeout"
    assert 2 < len(calls_of("endless")) < 10


@pytest.mark.parametrize("how", ["deadline", "cancel scope"])
async def test_a_call_cancelled_while_its_input_is_answered_ends_at_once(
    lg_leaks: Any, how: str
) -> None:
    baseline: ResourceSnapshot = lg_leaks()
    with anyio.fail_after(10):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            async with lg.ToolRegistry([Slow], binding=binding) as tools:
                started = anyio.current_time()
                if how == "deadline":
                    with pytest.raises(lg.DeadlineExceededError):
                        await tools.call("greet", {}, context=lg.RunContext.with_timeout(0.2))
                else:
                    with anyio.move_on_after(0.2) as scope:
                        await tools.call("greet", {})
                    assert scope.cancelled_caught
                assert anyio.current_time() - started < 2
                plain = await tools.call("plain", {})  # the connection goes on
    await baseline.assert_released()
    assert plain.value == {"result": "plain"}
    assert len(calls_of("greet")) == 1


async def test_input_required_on_a_protocol_that_does_not_define_it_is_malformed() -> None:
    async def handler(method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            return INITIALIZED
        if method == "tools/list":
            return page([tool("ask")])
        return {"resultType": "input_required", "requestState": "s"}

    class Old(Answering):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return mcp.Client(ScriptedTransport(handler), mode="legacy")

    with anyio.fail_after(10):
        result = await call(Old, "ask")
    assert isinstance(result.error, MalformedMessage)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_result_without_result_type_is_complete(mode: str) -> None:
    """SEP-2322: clients MUST take a missing resultType as "complete" (the SDK's models don't)."""

    async def handler(method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            return INITIALIZED
        if method == "tools/list":
            return page([tool("plain")])
        return {"content": [{"type": "text", "text": "done"}]}

    class Unmarked(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return mcp.Client(ScriptedTransport(handler), mode=mode)

    with anyio.fail_after(10):
        result = await call(Unmarked, "plain")
    assert result.value == "done"


@pytest.mark.parametrize(
    ("toolset", "offered"),
    [(RoundsTools, ""), (Answering, "elicitation sampling")],
)
async def test_elicitation_and_sampling_are_offered_only_by_a_toolset_that_answers(
    toolset: type[Toolset], offered: str
) -> None:
    with anyio.fail_after(10):
        result = await call(toolset, "offered")
    assert result.value == {"result": offered}


async def test_the_applications_own_sampling_callback_is_offered_and_answers() -> None:
    async def sampling(context: Any, params: Any) -> types.CreateMessageResult:
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="mine"), model="app"
        )

    class Own(RoundsTools):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return server.client(sampling_callback=sampling)

    with anyio.fail_after(10):
        offered = await call(Own, "offered")
        haiku = await call(Own, "haiku")
    assert offered.value == {"result": "sampling"}
    assert haiku.value == {"result": "app: mine"}
