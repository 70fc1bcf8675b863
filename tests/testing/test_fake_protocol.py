"""FakeMCPServer beyond tools: resources, prompts, completion, logging, progress, subscriptions,
list_changed notifications and server-to-client requests, with every fault on every method."""

from __future__ import annotations

import time
import warnings
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import mcp
import mcp_types as types
import pytest
from fake_protocol_targets import PIXEL, desk
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from littleghost_testing.fake_server import (
    Crash,
    Delay,
    ErrorResult,
    FakeMCPServer,
    Hang,
    HttpStatus,
    JsonRpcError,
    Malformed,
    Oversized,
    RawBytes,
    Request,
)

pytestmark = [
    pytest.mark.anyio,
    # logging, sampling, roots and resources/subscribe are deprecated at 2026-07-28; still served.
    pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning"),
]

PROMPT_REF = types.PromptReference(type="ref/prompt", name="answer")
TEMPLATE_REF = types.ResourceTemplateReference(type="ref/resource", uri="help://articles/{article}")


@pytest.fixture
def server() -> Iterator[FakeMCPServer]:
    """The module-level desk (stdio children import it), reset and closed around each test."""
    desk.reset()
    yield desk
    desk.close()
    desk.reset()


def text_of(result: types.ReadResourceResult) -> str:
    [contents] = result.contents
    assert isinstance(contents, types.TextResourceContents)
    return contents.text


# -- declaring and answering ------------------------------------------------------------


@pytest.mark.parametrize("transport", ["memory", "http"])
async def test_resources_static_and_templated(server: FakeMCPServer, transport: str) -> None:
    with anyio.fail_after(10):
        async with server.client(transport) as client:  # type: ignore[arg-type]
            [listed] = (await client.list_resources()).resources
            assert (str(listed.uri), listed.mime_type) == ("help://refunds", "text/plain")
            [template] = (await client.list_resource_templates()).resource_templates
            assert template.uri_template == "help://articles/{article}"
            assert text_of(await client.read_resource("help://refunds")).startswith("Refunds")
            assert text_of(await client.read_resource("help://articles/7")) == "Article 7"
    assert server.requests == [
        ("resources/list", {}),
        ("resources/templates/list", {}),
        ("resources/read", {"uri": "help://refunds"}),
        ("resources/read", {"uri": "help://articles/7"}),
    ]
    assert server.calls == []


async def test_prompts_with_arguments_embedded_resources_and_images(server: FakeMCPServer) -> None:
    async with server.client() as client:
        listed = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
        assert [(a.name, a.required) for a in listed["answer"].arguments or []] == [
            ("customer", True),
            ("tone", False),
        ]
        answered = await client.get_prompt("answer", {"customer": "Ada", "tone": "formal"})
        [message] = answered.messages
        assert message.content == types.TextContent(
            type="text", text="Answer Ada in a formal tone."
        )
        policy, image, question = (m.content for m in (await client.get_prompt("review")).messages)
    assert isinstance(policy, types.EmbeddedResource)
    assert str(policy.resource.uri) == "help://refunds"
    assert image == types.ImageContent(type="image", data=PIXEL, mime_type="image/png")
    assert isinstance(question, types.TextContent)
    assert server.requests[1] == (
        "prompts/get",
        {"name": "answer", "arguments": {"customer": "Ada", "tone": "formal"}},
    )


async def test_completion_answers_declared_values_by_prefix(server: FakeMCPServer) -> None:
    async with server.client() as client:
        names = await client.complete(PROMPT_REF, {"name": "customer", "value": "A"})
        assert names.completion.values == ["Ada", "Alan"]
        assert (names.completion.total, names.completion.has_more) == (2, False)
        articles = await client.complete(TEMPLATE_REF, {"name": "article", "value": "10"})
        assert articles.completion.values == ["101", "102"]
        unknown = await client.complete(PROMPT_REF, {"name": "tone", "value": ""})
        assert unknown.completion.values == []
    assert [request.method for request in server.requests] == ["completion/complete"] * 3


def test_completion_declarations_are_checked() -> None:
    server = FakeMCPServer("checked")
    with pytest.raises(TypeError, match="exactly one of prompt= or template="):
        server.completion("x", ["a"])
    with pytest.raises(TypeError, match="exactly one of prompt= or template="):
        server.completion("x", ["a"], prompt="p", template="t://{x}")
    with pytest.raises(TypeError, match="sequence of str"):
        server.completion("x", "abc", prompt="p")
    with pytest.raises(ValueError, match="MAX_COMPLETION_VALUES"):
        server.completion("x", [str(n) for n in range(101)], prompt="p")


async def test_logging_set_level_and_messages(server: FakeMCPServer) -> None:
    messages: list[types.LoggingMessageNotificationParams] = []

    async def log(params: types.LoggingMessageNotificationParams) -> None:
        messages.append(params)

    async with server.client(mode="legacy", logging_callback=log) as client:
        await client.set_logging_level("info")
        assert (await client.call_tool("work", {})).is_error is False
    assert [(m.level, m.data) for m in messages] == [("info", f"step {n} done") for n in (1, 2, 3)]
    assert server.requests[0] == ("logging/setLevel", {"level": "info"})
    # At 2026-07-28 a request opts in to log messages itself.
    messages.clear()
    async with server.client(logging_callback=log, log_level="info") as client:
        await client.call_tool("work", {})
    assert len(messages) == 3


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_progress_notifications(server: FakeMCPServer, mode: str) -> None:
    progress: list[tuple[float, float | None, str | None]] = []

    async def report(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async with server.client(mode=mode) as client:
        await client.call_tool("work", {}, progress_callback=report)
    assert progress == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


async def test_subscribe_and_update_notifications(server: FakeMCPServer) -> None:
    notified: list[Any] = []

    async def handle(message: Any) -> None:
        notified.append(message)

    async with server.client(mode="legacy", message_handler=handle) as client:
        await client.subscribe_resource("help://refunds")
        await client.call_tool("change_policy", {})
        await client.unsubscribe_resource("help://refunds")
    assert [m.method for m in notified] == [
        "notifications/resources/updated",
        "notifications/resources/list_changed",
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
    ]
    assert notified[0].params.uri == "help://refunds"
    # The SDK's client lists the tools again when told the list changed.
    assert [r.method for r in server.requests] == [
        "resources/subscribe",
        "tools/call",
        "tools/list",
        "resources/unsubscribe",
    ]


async def test_capabilities_are_all_advertised(server: FakeMCPServer) -> None:
    async with server.client(mode="legacy") as client:
        capabilities = client.session.server_capabilities
    assert capabilities is not None
    assert capabilities.resources is not None and capabilities.resources.subscribe is True
    assert capabilities.prompts is not None and capabilities.completions is not None
    assert capabilities.logging is not None


# -- server-to-client requests, answered by scripted client callbacks ----------------------


async def elicit(
    _context: Any, params: types.ElicitRequestParams
) -> types.ElicitResult | types.ErrorData:
    return types.ElicitResult(action="accept", content={"name": "Ada"})


async def sample(
    _context: Any, params: types.CreateMessageRequestParams
) -> types.CreateMessageResult:
    [message] = params.messages
    assert isinstance(message.content, types.TextContent)
    reply = types.TextContent(type="text", text=f"summary of: {message.content.text}")
    return types.CreateMessageResult(role="assistant", content=reply, model="scripted")


async def list_roots(_context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///srv/desk")])


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_sampling_elicitation_and_roots(server: FakeMCPServer, mode: str) -> None:
    callbacks = {
        "elicitation_callback": elicit,
        "sampling_callback": sample,
        "list_roots_callback": list_roots,
    }
    async with server.client(mode=mode, **callbacks) as client:
        greeted = await client.call_tool("greet", {})
        summarized = await client.call_tool("summarize", {"topic": "refunds"})
        rooted = await client.call_tool("roots", {})
    answers = [r.content[0].text for r in (greeted, summarized, rooted)]  # type: ignore[union-attr]
    assert answers == ["Hello, Ada!", "summary of: Summarize refunds", "file:///srv/desk"]
    calls = [r.params for r in server.requests if r.method == "tools/call"]
    if mode == "auto":  # 2026-07-28: the call returns the questions; the retry carries the answers
        assert [c["name"] for c in calls] == [*["greet"] * 2, *["summarize"] * 2, *["roots"] * 2]
        [answered] = calls[1]["inputResponses"].values()
        assert answered == {"action": "accept", "content": {"name": "Ada"}}
    else:  # 2025-11-25: the server asks mid-call
        assert [c["name"] for c in calls] == ["greet", "summarize", "roots"]


async def test_a_client_without_callbacks_is_not_asked(server: FakeMCPServer) -> None:
    async with server.client(mode="legacy") as client:
        with pytest.raises(MCPError, match="did not declare the form elicitation capability"):
            await client.call_tool("greet", {})


# -- faults on every method ------------------------------------------------------------

Call = Callable[[mcp.Client], Awaitable[Any]]
# method -> (how to script a fault for it, a request of it, the connection mode)
METHODS: dict[str, tuple[Callable[[FakeMCPServer, Any], None], Call, str]] = {
    "resources/read": (
        lambda s, f: s.fault_resource("help://refunds", f),
        lambda c: c.read_resource("help://refunds"),
        "auto",
    ),
    "resources/read (template)": (
        lambda s, f: s.fault_resource("help://articles/{article}", f),
        lambda c: c.read_resource("help://articles/9"),
        "auto",
    ),
    "prompts/get": (
        lambda s, f: s.fault_prompt("answer", f),
        lambda c: c.get_prompt("answer", {"customer": "Ada"}),
        "auto",
    ),
    "resources/list": (
        lambda s, f: s.fault_request("resources/list", f),
        lambda c: c.list_resources(),
        "auto",
    ),
    "resources/templates/list": (
        lambda s, f: s.fault_request("resources/templates/list", f),
        lambda c: c.list_resource_templates(),
        "auto",
    ),
    "prompts/list": (
        lambda s, f: s.fault_request("prompts/list", f),
        lambda c: c.list_prompts(),
        "auto",
    ),
    "completion/complete": (
        lambda s, f: s.fault_request("completion/complete", f),
        lambda c: c.complete(PROMPT_REF, {"name": "customer", "value": "A"}),
        "auto",
    ),
    "logging/setLevel": (
        lambda s, f: s.fault_request("logging/setLevel", f),
        lambda c: c.set_logging_level("info"),
        "legacy",
    ),
    "resources/subscribe": (
        lambda s, f: s.fault_request("resources/subscribe", f),
        lambda c: c.subscribe_resource("help://refunds"),
        "legacy",
    ),
    "resources/unsubscribe": (
        lambda s, f: s.fault_request("resources/unsubscribe", f),
        lambda c: c.unsubscribe_resource("help://refunds"),
        "legacy",
    ),
    "ping": (lambda s, f: s.fault_request("ping", f), lambda c: c.send_ping(), "legacy"),
}
TARGETED = ["resources/read", "resources/read (template)", "prompts/get"]
WHOLE_METHODS = [m for m in METHODS if m not in TARGETED]


def method_of(case: str) -> str:
    return case.split(" ")[0]


async def faulted(server: FakeMCPServer, case: str, fault: Any, within: float = 10) -> Any:
    """Script ``fault`` for ``case``, make its request once, and return the result."""
    script, call, mode = METHODS[case]
    script(server, fault)
    with anyio.fail_after(within), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        async with server.client(mode=mode) as client:
            try:
                return await call(client)
            except Exception as error:  # raised here, not out of the client's task group
                failure = error
    raise failure


@pytest.mark.parametrize("case", METHODS)
async def test_jsonrpc_error_on_every_method(server: FakeMCPServer, case: str) -> None:
    with pytest.raises(MCPError) as error:
        await faulted(server, case, JsonRpcError(4004, "desk unavailable"))
    assert (error.value.code, error.value.message) == (4004, "desk unavailable")
    assert server.requests[-1].method == method_of(case)


@pytest.mark.parametrize("case", [c for c in METHODS if c != "ping"])
async def test_malformed_on_every_method(server: FakeMCPServer, case: str) -> None:
    with pytest.raises(ValidationError):
        await faulted(server, case, Malformed())


async def test_malformed_answers_a_given_result_verbatim(server: FakeMCPServer) -> None:
    weird = {
        "contents": [{"uri": "help://refunds", "text": "verbatim", "x-extra": 1}],
        "resultType": "complete",
    }
    assert text_of(await faulted(server, "resources/read", Malformed(weird))) == "verbatim"


@pytest.mark.parametrize("case", TARGETED)
async def test_oversized_contents(server: FakeMCPServer, case: str) -> None:
    result = await faulted(server, case, Oversized(5000, "text"))
    if isinstance(result, types.ReadResourceResult):
        assert text_of(result) == "x" * 5000
    else:
        [message] = result.messages
        assert message.content.text == "x" * 5000


async def test_oversized_image_contents(server: FakeMCPServer) -> None:
    [blob] = (await faulted(server, "resources/read", Oversized(3000))).contents
    assert isinstance(blob, types.BlobResourceContents) and len(blob.blob) == 4000
    [message] = (await faulted(server, "prompts/get", Oversized(3000))).messages
    assert isinstance(message.content, types.ImageContent) and len(message.content.data) == 4000


@pytest.mark.parametrize("case", [c for c in WHOLE_METHODS if c != "ping"])
async def test_oversized_pads_every_other_answer(server: FakeMCPServer, case: str) -> None:
    result = await faulted(server, case, Oversized(5000))
    assert result.meta["padding"] == "x" * 5000


@pytest.mark.parametrize("case", METHODS)
async def test_delay_on_every_method(server: FakeMCPServer, case: str) -> None:
    started = time.monotonic()
    await faulted(server, case, Delay(0.2))
    assert time.monotonic() - started >= 0.2


@pytest.mark.parametrize("case", METHODS)
async def test_hang_on_every_method(server: FakeMCPServer, case: str) -> None:
    script, call, mode = METHODS[case]
    script(server, Hang())
    with anyio.fail_after(10), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        async with server.client(mode=mode) as client:
            with anyio.move_on_after(0.2) as waited:
                await call(client)
            assert waited.cancelled_caught
            script(server, None)
            await call(client)  # the connection survives a cancelled request
    assert [r.method for r in server.requests] == [method_of(case)] * 2


@pytest.mark.parametrize("case", METHODS)
async def test_crash_on_every_method(server: FakeMCPServer, case: str) -> None:
    with pytest.raises(MCPError) as error:
        await faulted(server, case, Crash())
    assert error.value.code == types.CONNECTION_CLOSED


@pytest.mark.parametrize("case", METHODS)
async def test_http_status_applies_to_http_only(server: FakeMCPServer, case: str) -> None:
    with pytest.raises(MCPError, match="applies to HTTP only"):
        await faulted(server, case, HttpStatus(503))


@pytest.mark.parametrize("case", [*TARGETED, "resources/list", "completion/complete"])
async def test_raw_bytes_on_every_method(server: FakeMCPServer, case: str) -> None:
    seen: list[Any] = []

    async def handle(message: Any) -> None:
        seen.append(message)

    script, call, mode = METHODS[case]
    script(server, RawBytes(b"this line is not JSON"))
    with anyio.fail_after(10):
        async with server.client(mode=mode, message_handler=handle) as client:
            with anyio.move_on_after(0.3):
                await call(client)  # never answered: the client read a line it cannot parse
    assert [type(item) for item in seen] == [ValidationError] or all(
        isinstance(item, Exception) for item in seen
    )
    assert seen


@pytest.mark.parametrize("case", ["resources/read", "prompts/get", "prompts/list"])
async def test_wire_faults_over_http(server: FakeMCPServer, case: str) -> None:
    script, call, _mode = METHODS[case]
    with anyio.fail_after(10):
        async with server.client("http") as client:
            script(server, HttpStatus(503, "maintenance"))
            with pytest.raises(MCPError, match="Server returned an error response"):
                await call(client)
            script(server, RawBytes(b"this body is not JSON"))
            with pytest.raises(MCPError):
                await call(client)
            script(server, None)
            await call(client)
    assert [r.method for r in server.requests] == [method_of(case)] * 3


async def test_faults_and_records_over_stdio(server: FakeMCPServer) -> None:
    with anyio.fail_after(30):
        async with server.client("stdio") as client:
            server.fault_resource("help://articles/{article}", JsonRpcError(4004, "gone"))
            with pytest.raises(MCPError, match="gone"):
                await client.read_resource("help://articles/3")
            server.fault_request("prompts/list", Malformed())
            with pytest.raises(ValidationError):
                await client.list_prompts()
            server.reset()
            answered = await client.complete(PROMPT_REF, {"name": "customer", "value": "G"})
            assert answered.completion.values == ["Grace"]
            server.fault_prompt("answer", Crash())
            with pytest.raises(MCPError, match="Connection closed"):
                await client.get_prompt("answer", {"customer": "Ada"})
    assert [r.method for r in server.requests] == ["completion/complete", "prompts/get"]


# -- scripting is checked ----------------------------------------------------------------


def test_faults_name_what_the_server_has(server: FakeMCPServer) -> None:
    with pytest.raises(ValueError, match=r"no resource 'help://nope'; its resources are \["):
        server.fault_resource("help://nope", Hang())
    with pytest.raises(
        ValueError, match=r"no prompt 'nope'; its prompts are \['answer', 'review'\]"
    ):
        server.fault_prompt("nope", Hang())
    with pytest.raises(ValueError, match=r"does not serve 'tasks/get'; it serves \["):
        server.fault_request("tasks/get", Hang())
    with pytest.raises(TypeError, match="a resource read cannot return it"):
        server.fault_resource("help://refunds", ErrorResult())
    with pytest.raises(TypeError, match="a prompt cannot return it"):
        server.fault_prompt("answer", ErrorResult())
    with pytest.raises(TypeError, match="pass a fault instance, Hang\\(\\), not the class Hang"):
        server.fault_request("ping", Hang)
    with pytest.raises(TypeError, match="a prompts/list request cannot return it"):
        server.fault_request("prompts/list", ErrorResult())


async def test_a_method_wide_fault_reaches_every_tool_call(server: FakeMCPServer) -> None:
    server.fault_request("tools/call", ErrorResult("every tool is down"))
    async with server.client() as client:
        refused = await client.call_tool("work", {})
    assert refused.is_error and refused.content[0].text == "every tool is down"  # type: ignore[union-attr]
    assert server.calls == [("work", {})]


async def test_a_targets_own_fault_wins_over_its_methods(server: FakeMCPServer) -> None:
    server.fault_request("resources/read", JsonRpcError(4000, "every read"))
    server.fault_resource("help://refunds", JsonRpcError(4001, "this read"))
    async with server.client() as client:
        with pytest.raises(MCPError, match="this read"):
            await client.read_resource("help://refunds")
        with pytest.raises(MCPError, match="every read"):
            await client.read_resource("help://articles/1")
        server.fault_resource("help://refunds", None)
        with pytest.raises(MCPError, match="every read"):
            await client.read_resource("help://refunds")


async def test_requests_leave_out_the_handshake_and_meta(server: FakeMCPServer) -> None:
    for mode in ("auto", "legacy"):
        async with server.client(mode=mode) as client:
            await client.list_prompts()
    assert server.requests == [Request("prompts/list", {}), Request("prompts/list", {})]


async def test_faults_declared_with_the_resource_or_prompt() -> None:
    server = FakeMCPServer("declared")
    with pytest.raises(TypeError, match="a resource read cannot return it"):
        server.resource("help://never", fault=ErrorResult())
    assert server.requests == []

    @server.resource("help://down", fault=JsonRpcError(4003, "resource down"))
    def down() -> str:
        return "never read"

    @server.prompt(fault=JsonRpcError(4004, "prompt down"))
    def hello() -> str:
        return "never got"

    async with server.client() as client:
        assert [str(r.uri) for r in (await client.list_resources()).resources] == ["help://down"]
        with pytest.raises(MCPError, match="resource down"):
            await client.read_resource("help://down")
        with pytest.raises(MCPError, match="prompt down"):
            await client.get_prompt("hello")
