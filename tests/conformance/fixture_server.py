"""The conformance fixture: a ``FakeMCPServer`` with what the official suite's server scenarios ask.

``python tests/conformance/fixture_server.py`` serves it over Streamable HTTP on
127.0.0.1 and an ephemeral port, prints the endpoint's URL on one line, and
serves until stdin closes (``.ci/conformance`` runs it that way). The names,
URIs and texts are the ones each scenario's description asks for.
"""

from __future__ import annotations

import base64
import json
import sys
from typing import Annotated, Any

import anyio
import mcp_types as types
from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from pydantic import BaseModel, Field

from littleghost_testing.fake_server import FakeMCPServer

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAF"
    "BQIAX8jx0gAAAABJRU5ErkJggg=="
)
"""A 1x1 PNG."""
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA="
"""An empty 8 kHz mono WAV."""

server = FakeMCPServer("littleghost-conformance")


def _image() -> types.ImageContent:
    return types.ImageContent(type="image", data=PNG, mime_type="image/png")


def _embedded(uri: str, text: str, mime_type: str = "text/plain") -> types.EmbeddedResource:
    contents = types.TextResourceContents(uri=uri, mime_type=mime_type, text=text)
    return types.EmbeddedResource(type="resource", resource=contents)


# -- tools ----------------------------------------------------------------------


@server.tool(description="Answers one text block.")
def test_simple_text():
    return "This is a simple text response for testing."


@server.tool(description="Answers one image block.")
def test_image_content() -> list[types.ImageContent]:
    return [_image()]


@server.tool(description="Answers one audio block.")
def test_audio_content() -> list[types.AudioContent]:
    return [types.AudioContent(type="audio", data=WAV, mime_type="audio/wav")]


@server.tool(description="Answers one embedded resource.")
def test_embedded_resource() -> list[types.EmbeddedResource]:
    return [_embedded("test://embedded-resource", "This is an embedded resource content.")]


@server.tool(description="Answers a text, an image and an embedded resource.")
def test_multiple_content_types() -> list[types.ContentBlock]:
    data = json.dumps({"test": "data", "value": 123})
    return [
        types.TextContent(type="text", text="Multiple content types test:"),
        _image(),
        _embedded("test://mixed-content-resource", data, "application/json"),
    ]


@server.tool(description="Sends three log messages while it runs.")
async def test_tool_with_logging(ctx: Context) -> str:
    for step, message in enumerate(
        ["Tool execution started", "Tool processing data", "Tool execution completed"]
    ):
        if step:
            await anyio.sleep(0.05)
        await ctx.info(message)
    return "Tool with logging executed successfully"


@server.tool(description="Reports progress three times while it runs.")
async def test_tool_with_progress(ctx: Context) -> str:
    for progress in (0, 50, 100):
        await ctx.report_progress(progress, 100, f"Completed step {progress} of 100")
        await anyio.sleep(0.05)
    return "Tool with progress executed successfully"


@server.tool(description="Always fails.")
def test_error_handling():
    raise ToolError("This tool intentionally returns an error for testing")


def _said(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


def _sample(prompt: str) -> Sample:
    content = types.TextContent(type="text", text=prompt)
    message = types.SamplingMessage(role="user", content=content)
    return Sample([message], max_tokens=100)


@server.tool(description="Asks the client's model to answer a prompt.")
async def test_sampling(
    prompt: str, sampled: Annotated[types.CreateMessageResult, Resolve(_sample)]
) -> str:
    content = sampled.content
    text = content.text if isinstance(content, types.TextContent) else "No response"
    return f"LLM response: {text}"


class UserResponse(BaseModel):
    response: str = Field(description="The user's response")


def _ask(message: str) -> Elicit[UserResponse]:
    return Elicit(message, UserResponse)


@server.tool(description="Asks the user for a response.")
async def test_elicitation(
    message: str, answer: Annotated[ElicitationResult[UserResponse], Resolve(_ask)]
) -> str:
    content = answer.data.model_dump_json() if answer.action == "accept" else "{}"
    return f"User response: action={answer.action}, content={content}"


class Defaults(BaseModel):
    name: str = Field(default="John Doe", description="User name")
    age: int = Field(default=30, description="User age")
    score: float = Field(default=95.5, description="User score")
    status: str = Field(
        default="active",
        description="User status",
        json_schema_extra={"enum": ["active", "inactive", "pending"]},
    )
    verified: bool = Field(default=True, description="Verification status")


def _ask_defaults() -> Elicit[Defaults]:
    return Elicit("Please provide user information", Defaults)


@server.tool(description="Asks for values that all have defaults.")
async def test_elicitation_sep1034_defaults(
    answer: Annotated[ElicitationResult[Defaults], Resolve(_ask_defaults)],
) -> str:
    content = answer.data.model_dump_json() if answer.action == "accept" else "{}"
    return f"Elicitation completed: action={answer.action}, content={content}"


def _choices(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"const": value, "title": title} for value, title in pairs]


class Enums(BaseModel):
    untitledSingle: str = Field(
        description="Simple enum", json_schema_extra={"enum": ["option1", "option2", "option3"]}
    )
    titledSingle: str = Field(
        description="Titled enum",
        json_schema_extra={
            "oneOf": _choices(("value1", "First Option"), ("value2", "Second Option"))
        },
    )
    legacyEnum: str = Field(
        description="Legacy titled enum",
        json_schema_extra={
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
    )
    untitledMulti: list[str] = Field(
        description="Multi-select",
        json_schema_extra={"items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
    )
    titledMulti: list[str] = Field(
        description="Titled multi-select",
        json_schema_extra={
            "items": {"anyOf": _choices(("value1", "First Choice"), ("value2", "Second Choice"))}
        },
    )


def _ask_enums() -> Elicit[Enums]:
    return Elicit("Please select values using different enum schema types", Enums)


@server.tool(description="Asks for values of every enum kind.")
async def test_elicitation_sep1330_enums(
    answer: Annotated[ElicitationResult[Enums], Resolve(_ask_enums)],
) -> str:
    content = answer.data.model_dump_json() if answer.action == "accept" else "{}"
    return f"Elicitation completed: action={answer.action}, content={content}"


def _roots() -> ListRoots:
    return ListRoots()


@server.tool(description="Lists the client's roots.")
async def test_list_roots(roots: Annotated[types.ListRootsResult, Resolve(_roots)]) -> str:
    return "Roots: " + ", ".join(str(root.uri) for root in roots.roots)


@server.tool(description="Needs the client's sampling capability.")
async def test_missing_capability(
    sampled: Annotated[types.CreateMessageResult, Resolve(lambda: _sample("Hello"))],
) -> str:
    return "sampled"


JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


@server.tool(
    description="Advertises a JSON Schema 2020-12 input schema verbatim.",
    input_schema=JSON_SCHEMA_2020_12,
)
def json_schema_2020_12_tool(**arguments: Any) -> str:
    return f"Received: {json.dumps(arguments, sort_keys=True)}"


@server.tool(description="Mirrors its region argument into the Mcp-Param-Region header.")
def test_custom_headers(
    region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})],
) -> str:
    return f"Region: {region}"


# -- input required (2026-07-28): questions the client answers on its retry ----------


def _elicit(message: str, field: str, kind: str = "string") -> types.ElicitRequest:
    schema = {"type": "object", "properties": {field: {"type": kind}}, "required": [field]}
    params = types.ElicitRequestFormParams(message=message, requested_schema=schema)
    return types.ElicitRequest(params=params)


def _sampling(text: str, max_tokens: int) -> types.CreateMessageRequest:
    message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text=text))
    params = types.CreateMessageRequestParams(messages=[message], max_tokens=max_tokens)
    return types.CreateMessageRequest(params=params)


def _roots_request() -> types.ListRootsRequest:
    return types.ListRootsRequest()


def _answered(ctx: Context, *keys: str) -> dict[str, Any] | None:
    """The client's answers to ``keys`` as JSON, or ``None`` when one is missing."""
    responses = ctx.input_responses or {}
    if not all(key in responses for key in keys):
        return None
    return {key: responses[key].model_dump(mode="json", by_alias=True) for key in keys}


def _ask_for(requests: types.InputRequests, state: str | None = None) -> types.InputRequiredResult:
    return types.InputRequiredResult(input_requests=requests, request_state=state)


@server.tool(description="Asks the user's name, then greets them.")
async def test_input_required_result_elicitation(
    ctx: Context,
) -> types.CallToolResult | types.InputRequiredResult:
    answers = _answered(ctx, "user_name")
    if answers is None:
        return _ask_for({"user_name": _elicit("What is your name?", "name")})
    name = (answers["user_name"].get("content") or {}).get("name")
    return _said(f"Hello, {name}!")


@server.tool(description="Asks the client's model a question.")
async def test_input_required_result_sampling(
    ctx: Context,
) -> types.CallToolResult | types.InputRequiredResult:
    answers = _answered(ctx, "capital_question")
    if answers is None:
        return _ask_for({"capital_question": _sampling("What is the capital of France?", 100)})
    text = answers["capital_question"]["content"].get("text", "")
    return _said(f"Model said: {text}")


@server.tool(description="Asks the client for its roots.")
async def test_input_required_result_list_roots(
    ctx: Context,
) -> types.CallToolResult | types.InputRequiredResult:
    answers = _answered(ctx, "client_roots")
    if answers is None:
        return _ask_for({"client_roots": _roots_request()})
    uris = [root["uri"] for root in answers["client_roots"]["roots"]]
    return _said(f"Roots: {uris}")


@server.tool(description="Asks for a confirmation, with state to echo.")
async def test_input_required_result_request_state(
    ctx: Context,
) -> types.CallToolResult | types.InputRequiredResult:
    if _answered(ctx, "confirm") is None or ctx.request_state != "confirm-round-1":
        return _ask_for({"confirm": _elicit("Please confirm", "ok", "boolean")}, "confirm-round-1")
    return _said("state-ok")


@server.tool(description="Asks three questions at once.")
async def test_input_required_result_multiple_inputs(
    ctx: Context,
) -> types.CallToolResult | types.InputRequiredResult:
    keys = ("user_name", "greeting", "client_roots")
    if _answered(ctx, *keys) is None or ctx.request_state != "multiple-round-1":
        requests: types.InputRequests = {
            "user_name": _elicit("What is your name?", "name"),
            "greeting": _sampling("Generate a greeting", 50),
            "client_roots": _roots_request(),
        }
        return _ask_for(requests, "multiple-round-1")
    return _said("All answered")


@server.tool(description="Asks one question, then another.")
async def test_input_required_result_multi_round(
    ctx: Context,
) -> types.CallToolResult | types.InputRequiredResult:
    if ctx.request_state == "round-2" and _answered(ctx, "step2") is not None:
        return _said("Both steps done")
    if ctx.request_state == "round-1" and _answered(ctx, "step1") is not None:
        step2 = _elicit("Step 2: What is your favorite color?", "color")
        return _ask_for({"step2": step2}, "round-2")
    return _ask_for({"step1": _elicit("Step 1: What is your name?", "name")}, "round-1")


@server.tool(description="Asks a question; its state is sealed, so tampering is refused.")
async def test_input_required_result_tampered_state(
    ctx: Context,
) -> types.CallToolResult | types.InputRequiredResult:
    if ctx.request_state == "sealed-round-1" and _answered(ctx, "confirm") is not None:
        return _said("state-ok")
    return _ask_for({"confirm": _elicit("Please confirm", "ok", "boolean")}, "sealed-round-1")


@server.tool(description="Asks only what the client declared it can answer.")
async def test_input_required_result_capabilities(
    ctx: Context,
) -> types.CallToolResult | types.InputRequiredResult:
    if ctx.input_responses:
        return _said("Answered")
    capabilities = ctx.client_capabilities or types.ClientCapabilities()
    requests: types.InputRequests = {}
    if capabilities.elicitation is not None:
        requests["user_name"] = _elicit("What is your name?", "name")
    if capabilities.sampling is not None:
        requests["greeting"] = _sampling("Generate a greeting", 50)
    if capabilities.roots is not None:
        requests["client_roots"] = _roots_request()
    if not requests:
        return _said("Nothing to ask")
    return _ask_for(requests)


# -- resources --------------------------------------------------------------------


@server.resource("test://static-text", description="A static text.", mime_type="text/plain")
def static_text() -> str:
    return "This is the content of the static text resource."


@server.resource("test://static-binary", description="A static PNG.", mime_type="image/png")
def static_binary() -> bytes:
    return base64.b64decode(PNG)


@server.resource(
    "test://template/{id}/data", description="Data for an id.", mime_type="application/json"
)
def template_data(id: str) -> str:
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


@server.resource("test://watched-resource", description="Subscribe to it.", mime_type="text/plain")
def watched() -> str:
    return "Watched resource content"


# -- prompts ----------------------------------------------------------------------


@server.prompt(description="A prompt without arguments.")
def test_simple_prompt() -> str:
    return "This is a simple prompt for testing."


@server.prompt(description="A prompt with two arguments.")
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@server.prompt(description="A prompt embedding a resource.")
def test_prompt_with_embedded_resource(resourceUri: str) -> list[Any]:
    return [
        _embedded(resourceUri, "Embedded resource content for testing."),
        "Please process the embedded resource above.",
    ]


@server.prompt(description="A prompt with an image.")
def test_prompt_with_image() -> list[Any]:
    return [_image(), "Please analyze the image above."]


@server.prompt(description="Asks what context to use first.")
async def test_input_required_result_prompt(ctx: Context) -> Any:
    answers = _answered(ctx, "user_context")
    if answers is None:
        return _ask_for({"user_context": _elicit("What context should the prompt use?", "context")})
    context = (answers["user_context"].get("content") or {}).get("context")
    return f"Use this context: {context}"


server.completion("arg1", ["test-value", "testing"], prompt="test_prompt_with_arguments")
server.completion("id", ["123", "124"], template="test://template/{id}/data")


def main() -> None:
    """Serve over HTTP, print the URL, and stop when stdin closes."""
    print(server.url, flush=True)
    sys.stdin.read()
    server.close()


if __name__ == "__main__":
    main()
