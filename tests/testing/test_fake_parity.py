"""A fake tool's results are converted exactly as the SDK's own MCPServer converts them."""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Callable
from typing import Any, TypedDict

import mcp
import mcp_types as types
import pydantic
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.utilities.types import Image

from littleghost_testing.fake_server import FakeMCPServer

pytestmark = pytest.mark.anyio

PNG = b"\x89PNG\r\n\x1a\n"


class Point(TypedDict):
    x: int
    y: int


class Article(pydantic.BaseModel):
    id: int
    title: str


@dataclasses.dataclass
class Quote:
    amount: float
    currency: str


def returns_str() -> str:
    return "hi"


def returns_int() -> int:
    return 3


def returns_float() -> float:
    return 2.5


def returns_bool() -> bool:
    return True


def returns_none() -> None:
    return None


def returns_dict() -> dict[str, int]:
    return {"words": 2}


def returns_list() -> list[int]:
    return [1, 2]


def returns_tuple() -> tuple[int, str]:
    return (1, "a")


def returns_typed_dict() -> Point:
    return {"x": 1, "y": 2}


def returns_model() -> Article:
    return Article(id=7, title="Refunds")


def returns_dataclass() -> Quote:
    return Quote(9.5, "EUR")


def returns_image() -> Image:
    return Image(data=PNG, format="png")


def returns_image_content() -> types.ImageContent:
    return types.ImageContent(
        type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png"
    )


def returns_blocks() -> list[types.TextContent]:
    return [types.TextContent(type="text", text="a"), types.TextContent(type="text", text="b")]


def unannotated_str():  # no return type at all
    return "plain"


def unannotated_dict():  # no return type at all
    return {"words": 2}


async def returns_str_async() -> str:
    return "async hi"


FUNCTIONS: list[Callable[[], Any]] = [
    returns_str,
    returns_int,
    returns_float,
    returns_bool,
    returns_none,
    returns_dict,
    returns_list,
    returns_tuple,
    returns_typed_dict,
    returns_model,
    returns_dataclass,
    returns_image,
    returns_image_content,
    returns_blocks,
    unannotated_str,
    unannotated_dict,
    returns_str_async,
]


async def answers(client: mcp.Client, name: str) -> tuple[Any, ...]:
    [listed] = [tool for tool in (await client.list_tools()).tools if tool.name == name]
    result = await client.call_tool(name, {})
    return (
        listed.output_schema,
        [block.model_dump() for block in result.content],
        result.structured_content,
        result.is_error,
    )


@pytest.mark.parametrize("function", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
async def test_results_match_the_sdk_server(function: Callable[[], Any]) -> None:
    sdk = MCPServer("sdk")
    sdk.tool(description="A return type.")(function)
    fake = FakeMCPServer("fake")
    fake.tool(description="A return type.")(function)
    async with mcp.Client(sdk) as client:
        expected = await answers(client, function.__name__)
    async with fake.client() as client:
        observed = await answers(client, function.__name__)
    assert observed == expected
    fake.close()


async def test_a_str_tool_is_structured_as_on_the_sdk_server() -> None:
    fake = FakeMCPServer("fake")
    fake.tool(description="Say hi.")(returns_str)
    async with fake.client() as client:
        result = await client.call_tool("returns_str", {})
    assert result.structured_content == {"result": "hi"}
