"""The conformance fixture answers as the suite expects, checked here without Node.

``.ci/conformance`` runs the official suite against it; these tests keep the
fixture from rotting between those runs.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest
from fixture_server import server
from mcp.shared.exceptions import MCPError

pytestmark = pytest.mark.anyio


async def elicit(_context: Any, params: Any) -> types.ElicitResult:
    field = next(iter(params.requested_schema["properties"]))
    return types.ElicitResult(action="accept", content={field: "Ada"})


async def test_multi_round_input_required() -> None:
    async with server.client(elicitation_callback=elicit) as client:
        result = await client.call_tool("test_input_required_result_multi_round", {})
    assert result.content == [types.TextContent(type="text", text="Both steps done")]
    calls = [r.params for r in server.requests if r.method == "tools/call"]
    server.reset()
    # Recorded inside the SDK's request-state boundary: the state as the tool wrote it.
    assert [call.get("requestState") for call in calls] == [None, "round-1", "round-2"]


async def test_tampered_request_state_is_refused() -> None:
    async with server.client() as client:
        first = await client.session.call_tool(
            "test_input_required_result_tampered_state", {}, allow_input_required=True
        )
        assert isinstance(first, types.InputRequiredResult) and first.request_state
        answers = {"confirm": types.ElicitResult(action="accept", content={"ok": True})}
        with pytest.raises(MCPError):
            await client.session.call_tool(
                "test_input_required_result_tampered_state",
                {},
                input_responses=answers,
                request_state=first.request_state[:-4] + "AAAA",
                allow_input_required=True,
            )
    server.reset()


async def test_resources_prompts_and_completion() -> None:
    async with server.client() as client:
        [data] = (await client.read_resource("test://template/123/data")).contents
        assert isinstance(data, types.TextResourceContents) and '"id": "123"' in data.text
        prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
        assert prompt.messages[0].content == types.TextContent(
            type="text", text="Prompt with arguments: arg1='a', arg2='b'"
        )
        reference = types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments")
        completed = await client.complete(reference, {"name": "arg1", "value": "test"})
        assert completed.completion.values == ["test-value", "testing"]
    server.reset()
