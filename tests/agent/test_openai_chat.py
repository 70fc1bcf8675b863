"""OpenAIChatModel against a mocked Chat Completions API (respx; no network)."""

import json

import anyio
import httpx
import pytest
import respx

import littleghost as lg
from littleghost.models import ModelRequestsBlockedError, OpenAIChatModel

pytestmark = [pytest.mark.anyio, pytest.mark.allow_model_requests]

BASE_URL = "http://models.test/v1"
ENDPOINT = f"{BASE_URL}/chat/completions"
SECRET = "sk-test-secret"


class WeatherTool(lg.Tool):
    description = "Current weather in a city."
    input_schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    }

    def call(self, input):
        return {"city": input["city"], "sky": "clear"}


class WeatherAgent(lg.Agent):
    instructions = "Answer with the weather."
    tools = [WeatherTool]


def answer(content=None, tool_calls=None):
    message = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return httpx.Response(200, json={"id": "x", "choices": [{"index": 0, "message": message}]})


def function_call(id, name, arguments):
    return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


def sent(route: respx.Route, index: int) -> dict:
    return json.loads(route.calls[index].request.content)


def model(**options) -> OpenAIChatModel:
    return OpenAIChatModel("test-model", base_url=BASE_URL, api_key=SECRET, **options)


async def test_a_tool_calling_conversation_maps_both_ways(lg_leaks):
    snapshot = lg_leaks()
    with respx.mock(assert_all_called=True) as api:
        route = api.post(ENDPOINT).mock(
            side_effect=[
                answer(tool_calls=[function_call("c1", "weather_tool", '{"city": "Oslo"}')]),
                answer("Clear skies in Oslo."),
            ]
        )
        run = await WeatherAgent.ask_async("Weather in Oslo?", model=model(options={"seed": 1}))

    assert run.response == "Clear skies in Oslo."
    first, second = sent(route, 0), sent(route, 1)
    assert route.calls[0].request.headers["Authorization"] == f"Bearer {SECRET}"
    assert first == {
        "seed": 1,
        "model": "test-model",
        "messages": [
            {"role": "system", "content": "Answer with the weather."},
            {"role": "user", "content": "Weather in Oslo?"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "weather_tool",
                    "description": "Current weather in a city.",
                    "parameters": dict(WeatherTool.input_schema),
                },
            }
        ],
    }
    assert second["messages"][2:] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [function_call("c1", "weather_tool", '{"city": "Oslo"}')],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"city":"Oslo","sky":"clear"}'},
    ]
    await snapshot.assert_released()


async def test_an_unknown_tool_and_invalid_json_arguments_are_fed_back_to_the_model(lg_leaks):
    snapshot = lg_leaks()
    with respx.mock(assert_all_called=True) as api:
        route = api.post(ENDPOINT).mock(
            side_effect=[
                answer(
                    tool_calls=[
                        function_call("c1", "teleport", '{"to": "Mars"}'),
                        function_call("c2", "weather_tool", '{"city": "Oslo"'),
                        function_call("c3", "weather_tool", "[" * 100_000),
                        function_call("c4", "weather_tool", '{"town": "Oslo"}'),
                    ]
                ),
                answer("Sorry."),
            ]
        )
        run = await WeatherAgent.ask_async("Weather?", model=model())

    assert run.response == "Sorry."
    replies = {m["tool_call_id"]: m["content"] for m in sent(route, 1)["messages"][3:]}
    assert replies == {
        "c1": "Unknown tool: teleport",
        "c2": "Invalid tool input: arguments are not valid JSON "
        "(Expecting ',' delimiter: line 1 column 16 (char 15))",
        "c3": "Invalid tool input: arguments are not valid JSON (nested too deeply to parse)",
        "c4": replies["c4"],
    }
    assert replies["c4"].startswith("Invalid tool input: ") and "city" in replies["c4"]
    # What the model sent goes back to it verbatim, even when it was not JSON.
    echoed = sent(route, 1)["messages"][2]["tool_calls"]
    assert [call["function"]["arguments"] for call in echoed][1] == '{"city": "Oslo"'
    await snapshot.assert_released()


async def test_arguments_the_server_sends_as_an_object_or_empty_are_accepted():
    class ClockTool(lg.Tool):
        description = "The time."

        def call(self, input):
            return "noon"

    class ClockAgent(WeatherAgent):
        tools = [ClockTool]

    with respx.mock(assert_all_called=True) as api:
        api.post(ENDPOINT).mock(
            side_effect=[
                answer(
                    tool_calls=[
                        function_call("c1", "weather_tool", {"city": "Rome"}),
                        function_call("c2", "clock_tool", ""),
                    ]
                ),
                answer("ok"),
            ]
        )
        run = await ClockAgent.ask_async("Weather and time?", model=model())

    results = [m.content for m in run.messages if m.role == "tool"]
    assert results == ['{"city":"Rome","sky":"clear"}', "noon"]


@pytest.mark.parametrize(
    ("response", "error", "message"),
    [
        (
            httpx.Response(429, json={"error": {"message": "Rate limit reached"}}),
            lg.ProviderError,
            "answered HTTP 429: Rate limit reached",
        ),
        (
            httpx.Response(502, text="<html>bad gateway</html>"),
            lg.ProviderError,
            "HTTP 502: <html>",
        ),
        (httpx.Response(500, json={"error": "x" * 10_000}), lg.ProviderError, r"x{300}\.\.\.$"),
        (httpx.Response(200, text="not json"), lg.ProtocolError, "not JSON"),
        (httpx.Response(200, text="[" * 100_000), lg.ProtocolError, "nested too deeply"),
        (httpx.Response(200, json={"choices": []}), lg.ProtocolError, "no choices"),
        (httpx.Response(200, json={"choices": [{}]}), lg.ProtocolError, "no message"),
        (
            httpx.Response(200, json={"choices": [{"message": {"content": 5}}]}),
            lg.ProtocolError,
            "content is int",
        ),
        (
            httpx.Response(200, json={"choices": [{"message": {"tool_calls": [{"id": "1"}]}}]}),
            lg.ProtocolError,
            "Tool call 0 .* no function name",
        ),
        (httpx.ConnectError("refused"), lg.ProviderError, "could not be reached: ConnectError"),
        (httpx.ReadTimeout("slow"), lg.ProviderError, "could not be reached: ReadTimeout"),
    ],
    ids=[
        "429",
        "502-html",
        "huge-error",
        "not-json",
        "deep-json",
        "no-choices",
        "no-message",
        "bad-content",
        "no-function",
        "connect-error",
        "read-timeout",
    ],
)
async def test_provider_failures_are_provider_errors_that_never_show_the_key(
    response, error, message
):
    with respx.mock(assert_all_called=False) as api:
        api.post(ENDPOINT).mock(side_effect=[response])
        with pytest.raises(error, match=message) as raised:
            await WeatherAgent.ask_async("Weather?", model=model())

    assert SECRET not in str(raised.value)
    assert len(str(raised.value)) < 1024


async def test_a_server_slower_than_timeout_is_a_provider_error_naming_the_limit(lg_leaks):
    snapshot = lg_leaks()

    async def slow(request):
        await anyio.sleep(30)
        return answer("late")

    with respx.mock(assert_all_called=False) as api:
        api.post(ENDPOINT).mock(side_effect=slow)
        with anyio.fail_after(5), pytest.raises(lg.ProviderError, match=r"within 0\.2 s.*timeout"):
            await WeatherAgent.ask_async("Weather?", model=model(timeout=0.2))
    await snapshot.assert_released()


async def test_an_oversized_answer_stops_at_max_response_bytes():
    with respx.mock(assert_all_called=False) as api:
        api.post(ENDPOINT).mock(return_value=answer("x" * 5_000))
        with pytest.raises(lg.ProtocolError, match=r"more than 1000 bytes.*max_response_bytes"):
            await WeatherAgent.ask_async("Weather?", model=model(max_response_bytes=1000))


async def test_a_shared_http_client_is_used_and_left_open():
    async with httpx.AsyncClient() as client:
        with respx.mock(assert_all_called=False) as api:
            api.post(ENDPOINT).mock(return_value=answer("hi"))
            run = await WeatherAgent.ask_async("hi", model=model(http_client=client))
        assert not client.is_closed
    assert run.response == "hi"


def test_configuration_is_checked_and_the_key_never_shown():
    assert SECRET not in repr(model())
    assert repr(model()) == "<OpenAIChatModel 'test-model' at http://models.test/v1>"
    with_credentials = OpenAIChatModel("m", base_url="https://user:pw@[::1]:8443/v1/?key=k")
    assert repr(with_credentials) == "<OpenAIChatModel 'm' at https://[::1]:8443/v1/>"
    assert with_credentials.endpoint == "https://user:pw@[::1]:8443/v1/chat/completions?key=k"
    with pytest.raises(lg.ConfigurationError, match="base_url"):
        OpenAIChatModel("m", base_url="models.test")
    with pytest.raises(lg.ConfigurationError, match="timeout"):
        OpenAIChatModel("m", timeout=0)
    with pytest.raises(lg.ConfigurationError, match="max_response_bytes"):
        OpenAIChatModel("m", max_response_bytes=-1)
    with pytest.raises(lg.ConfigurationError, match=r"cannot set \['messages'\]"):
        OpenAIChatModel("m", options={"messages": []})
    with pytest.raises(lg.ConfigurationError, match="model"):
        OpenAIChatModel("")


async def test_the_guard_blocks_requests_before_anything_is_sent():
    from littleghost.models import allow_model_requests

    with respx.mock(assert_all_called=False) as api:
        route = api.post(ENDPOINT).mock(return_value=answer("hi"))
        with allow_model_requests(False), pytest.raises(ModelRequestsBlockedError):
            await WeatherAgent.ask_async("hi", model=model())

    assert not route.called
