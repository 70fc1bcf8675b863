"""OpenAIChatModel never lets its API key into an error, whatever the server echoes."""

import httpx
import pytest
import respx
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

import littleghost as lg
from littleghost.models import OpenAIChatModel
from littleghost_testing.fake_server._http import HttpServer

pytestmark = [pytest.mark.anyio, pytest.mark.allow_model_requests]

BASE_URL = "http://models.test/v1"
ENDPOINT = f"{BASE_URL}/chat/completions"
KEY = "sk-proj-4f8a9c2e71d04b6a"


class Plain(lg.Agent):
    instructions = "Answer."


def every_text(error: BaseException) -> str:
    """The error's message and notes, and those of every exception chained to it."""
    texts, seen, pending = [], set(), [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        texts += [repr(current), str(current), *getattr(current, "__notes__", [])]
        texts += [repr(argument) for argument in current.args]
        pending += [current.__cause__, current.__context__]
    return "\n".join(texts)


async def failure(response, key: str = KEY) -> lg.LittleGhostError:
    model = OpenAIChatModel("m", base_url=BASE_URL, api_key=key)
    with respx.mock() as api:
        api.post(ENDPOINT).mock(side_effect=[response])
        with pytest.raises(lg.LittleGhostError) as raised:
            await Plain.ask_async("hi", model=model)
    return raised.value


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(
            401,
            json={"error": {"message": f"Incorrect API key provided: {KEY}. Find yours at ..."}},
        ),
        httpx.Response(500, text=f"upstream rejected headers {{'Authorization': 'Bearer {KEY}'}}"),
        httpx.Response(401, json={"error": {"message": f"Incorrect API key: {KEY[:12]}***"}}),
        httpx.Response(401, json={"error": {"message": f"key ends with {KEY[-9:]}"}}),
        httpx.LocalProtocolError(f"Illegal header value b'Bearer {KEY}'"),
    ],
    ids=["401-echo", "500-headers", "key-prefix", "key-suffix", "transport-error"],
)
async def test_an_echoed_key_is_redacted_from_the_error_and_its_chain(response):
    error = await failure(response)

    assert isinstance(error, lg.ProviderError)
    assert "[redacted]" in str(error)
    text = every_text(error)
    for start in range(len(KEY) - 7):
        assert KEY[start : start + 8] not in text


async def test_the_rest_of_the_message_stays_readable():
    error = await failure(httpx.Response(401, json={"error": {"message": f"Bad key: {KEY}."}}))

    assert str(error).endswith("answered HTTP 401: Bad key: [redacted].")


async def test_a_key_with_a_line_break_is_redacted_in_its_escaped_form_too():
    key = "sk-first-half-\r\nsecond-half-0123"
    error = await failure(httpx.LocalProtocolError(f"Illegal header value {key!r}"), key=key)

    text = every_text(error)
    assert "first-half" not in text and "second-half" not in text
    assert error.__cause__ is None and error.__context__ is None


@pytest.mark.parametrize("status", [301, 302, 307, 308])
async def test_a_redirect_with_a_json_body_is_not_the_answer(status):
    body = {"choices": [{"message": {"role": "assistant", "content": "hijacked"}}]}
    response = httpx.Response(status, json=body, headers={"Location": "http://elsewhere.test/"})

    error = await failure(response)

    assert isinstance(error, lg.ProviderError)
    assert f"answered HTTP {status}" in str(error)


async def test_a_key_with_a_line_break_never_reaches_an_error_over_real_http(lg_leaks):
    snapshot = lg_leaks()

    async def never(request):
        return JSONResponse({})

    key = "sk-live-\nX-Injected: 1-and-the-rest"
    with HttpServer(
        lambda: Starlette(routes=[Route("/v1/chat/completions", never, methods=["POST"])]),
        name="keys",
    ) as server:
        model = OpenAIChatModel("m", base_url=f"{server.url}/v1", api_key=key)
        with pytest.raises(lg.ProviderError, match="could not be reached") as raised:
            await Plain.ask_async("hi", model=model)

    text = every_text(raised.value)
    assert "X-Injected" not in text and "and-the-rest" not in text
    await snapshot.assert_released()
