"""Tools that answer ``tools/call`` with ``input_required`` results (SEP-2322, 2026-07-28).

Each tool is a real SDK tool that returns an ``InputRequiredResult`` until the
client's retry carries what it asked for; module-level, so a stdio child can
import it (``mcp_servers.rounds:server``).
"""

from __future__ import annotations

import mcp_types as types
from mcp.server.mcpserver import Context

from littleghost_testing.fake_server import FakeMCPServer

server = FakeMCPServer("rounds")

NAME_FORM = types.ElicitRequestFormParams(
    message="What is your name?",
    requested_schema={"type": "object", "properties": {"name": {"type": "string"}}},
)
HAIKU = types.CreateMessageRequestParams(
    messages=[
        types.SamplingMessage(role="user", content=types.TextContent(type="text", text="A haiku"))
    ],
    max_tokens=20,
)


def elicitation(message: str = "What is your name?") -> types.ElicitRequest:
    return types.ElicitRequest(params=NAME_FORM.model_copy(update={"message": message}))


def _answer(ctx: Context, key: str) -> types.InputResponse | None:
    return (ctx.input_responses or {}).get(key)


@server.tool(description="Greet the user by the name they give.")
async def greet(ctx: Context) -> str | types.InputRequiredResult:
    answer = _answer(ctx, "name")
    if not isinstance(answer, types.ElicitResult):
        return types.InputRequiredResult(
            input_requests={"name": elicitation()}, request_state='{"asked": "name"}'
        )
    if answer.action != "accept" or answer.content is None:
        return f"no name ({answer.action})"
    return f"Hello, {answer.content['name']}! (state {ctx.request_state})"


@server.tool(description="Ask the client's model for a haiku.")
async def haiku(ctx: Context) -> str | types.InputRequiredResult:
    answer = _answer(ctx, "haiku")
    if not isinstance(answer, types.CreateMessageResult):
        return types.InputRequiredResult(
            input_requests={"haiku": types.CreateMessageRequest(params=HAIKU)}
        )
    assert isinstance(answer.content, types.TextContent)
    return f"{answer.model}: {answer.content.text}"


@server.tool(description="Ask for the client's roots.")
async def roots(ctx: Context) -> str | types.InputRequiredResult:
    answer = _answer(ctx, "roots")
    if not isinstance(answer, types.ListRootsResult):
        return types.InputRequiredResult(input_requests={"roots": types.ListRootsRequest()})
    return f"{len(answer.roots)} roots"


@server.tool(description="Ask a name, then in a second round a title.")
async def introduce(ctx: Context) -> str | types.InputRequiredResult:
    state = ctx.request_state
    answer = _answer(ctx, "ask")
    if state is None:
        return types.InputRequiredResult(input_requests={"ask": elicitation()}, request_state="1")
    assert isinstance(answer, types.ElicitResult) and answer.content is not None
    if state == "1":
        name = answer.content["name"]
        return types.InputRequiredResult(
            input_requests={"ask": elicitation("And your title?")}, request_state=f"2:{name}"
        )
    return f"{answer.content['name']} {state.removeprefix('2:')}"


@server.tool(description="Work in the background, polled by state alone.")
async def poll(ctx: Context) -> str | types.InputRequiredResult:
    polls = int(ctx.request_state or "0")
    if polls < 3:
        return types.InputRequiredResult(request_state=str(polls + 1))
    return f"ready after {polls} polls"


@server.tool(description="Ask again, forever.")
async def endless(ctx: Context) -> str | types.InputRequiredResult:
    rounds = int(ctx.request_state or "0")
    return types.InputRequiredResult(
        input_requests={"again": elicitation()}, request_state=str(rounds + 1)
    )


@server.tool(description="Ask many questions in one round.")
async def survey(ctx: Context, questions: int) -> str | types.InputRequiredResult:
    if ctx.input_responses is None:
        return types.InputRequiredResult(
            input_requests={f"q{number}": elicitation() for number in range(questions)}
        )
    return f"{len(ctx.input_responses)} answers"


@server.tool(description="Send a request state of the given size.")
async def heavy(ctx: Context, size: int) -> str | types.InputRequiredResult:
    if ctx.request_state is None:
        return types.InputRequiredResult(request_state="s" * size)
    return f"state of {len(ctx.request_state)}"


@server.tool(description="A tool that asks nothing.")
async def plain() -> str:
    return "plain"


@server.tool(description="Say which of elicitation and sampling the client offers.")
async def offered(ctx: Context) -> str:
    capabilities = ctx.client_capabilities or types.ClientCapabilities()
    kinds = {"elicitation": capabilities.elicitation, "sampling": capabilities.sampling}
    return " ".join(name for name, capability in kinds.items() if capability is not None)
