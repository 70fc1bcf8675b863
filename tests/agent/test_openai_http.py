"""OpenAIChatModel over real HTTP: a Chat Completions server on 127.0.0.1 (uvicorn).

The respx tests cover every answer shape; these prove the socket path: a
client per request that is closed afterwards, a body that never ends cut at
``max_response_bytes``, a server that never answers cut at ``timeout``.
"""

import asyncio
import json

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

import littleghost as lg
from littleghost.models import OpenAIChatModel
from littleghost_testing.fake_server._http import HttpServer

pytestmark = [pytest.mark.anyio, pytest.mark.allow_model_requests]

RECEIVED: list[dict] = []


class AddTool(lg.Tool):
    description = "Add two integers."
    input_schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    }

    def call(self, input):
        return input["a"] + input["b"]


class Calculator(lg.Agent):
    instructions = "Use the tools to compute."
    tools = [AddTool]


def assistant(message: dict) -> JSONResponse:
    return JSONResponse({"id": "1", "choices": [{"index": 0, "message": message}]})


async def endless_body():
    chunk = b" " * 65_536
    while True:
        yield chunk
        await asyncio.sleep(0)


async def completions(request: Request) -> Response:
    body = await request.json()
    RECEIVED.append(body)
    scenario = body.get("scenario")
    if scenario == "endless":
        return StreamingResponse(endless_body(), media_type="application/json")
    if scenario == "silent":  # the body is read: the next ASGI message is the disconnect
        assert (await request.receive())["type"] == "http.disconnect"
        return Response(status_code=499)
    last = body["messages"][-1]
    if last["role"] == "tool":
        return assistant({"role": "assistant", "content": f"The sum is {last['content']}."})
    call = {"name": "add_tool", "arguments": json.dumps({"a": 2, "b": 40})}
    return assistant(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call-1", "type": "function", "function": call}],
        }
    )


@pytest.fixture(scope="module")
def server():
    with HttpServer(
        lambda: Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])]),
        name="chat-completions",
    ) as running:
        yield running


@pytest.fixture(autouse=True)
def _clear_received():
    RECEIVED.clear()


def model(server: HttpServer, **options) -> OpenAIChatModel:
    return OpenAIChatModel("local-model", base_url=f"{server.url}/v1", **options)


async def test_a_conversation_over_http_closes_every_connection(server, lg_leaks):
    snapshot = lg_leaks()

    run = await Calculator.ask_async("What is 2 + 40?", model=model(server))

    assert run.response == "The sum is 42."
    assert [body["messages"][-1]["role"] for body in RECEIVED] == ["user", "tool"]
    await snapshot.assert_released()


async def test_a_body_that_never_ends_is_cut_at_max_response_bytes(server, lg_leaks):
    snapshot = lg_leaks()
    endless = model(server, options={"scenario": "endless"}, max_response_bytes=1_000_000)

    with pytest.raises(lg.ProtocolError, match="more than 1000000 bytes"):
        await Calculator.ask_async("go", model=endless)

    await snapshot.assert_released()


async def test_a_server_that_never_answers_is_cut_at_timeout(server, lg_leaks):
    snapshot = lg_leaks()
    silent = model(server, options={"scenario": "silent"}, timeout=0.3)

    with pytest.raises(lg.ProviderError, match=r"within 0\.3 s"):
        await Calculator.ask_async("go", model=silent)

    await snapshot.assert_released()


async def test_the_run_deadline_beats_the_model_timeout(server, lg_leaks):
    snapshot = lg_leaks()
    silent = model(server, options={"scenario": "silent"})

    with pytest.raises(lg.DeadlineExceededError):
        await Calculator.ask_async("go", model=silent, context=lg.RunContext.with_timeout(0.3))

    await snapshot.assert_released()


async def test_a_server_that_is_not_there_is_a_provider_error(lg_leaks):
    snapshot = lg_leaks()
    with HttpServer(lambda: Starlette(), name="gone") as gone:
        url = gone.url
    nowhere = OpenAIChatModel("m", base_url=f"{url}/v1")

    with pytest.raises(lg.ProviderError, match="could not be reached: ConnectError"):
        await Calculator.ask_async("go", model=nowhere)

    await snapshot.assert_released()
