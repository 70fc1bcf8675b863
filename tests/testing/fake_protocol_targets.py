"""A module-level FakeMCPServer speaking the whole protocol, importable by stdio children."""

from __future__ import annotations

import base64
from typing import Annotated, Any

import mcp_types as types
from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from pydantic import BaseModel

from littleghost_testing.fake_server import FakeMCPServer

desk = FakeMCPServer("desk")

PIXEL = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()


@desk.resource("help://refunds", description="The refund policy.", mime_type="text/plain")
def refunds() -> str:
    return "Refunds are available within 30 days."


@desk.resource("help://articles/{article}", description="One article.")
def article(article: str) -> str:
    return f"Article {article}"


@desk.prompt(description="Answer a customer.")
def answer(customer: str, tone: str = "friendly") -> str:
    return f"Answer {customer} in a {tone} tone."


@desk.prompt(description="Review a screenshot with the policy.")
def review() -> list[Any]:
    policy = types.TextResourceContents(
        uri="help://refunds", mime_type="text/plain", text="Refunds are available within 30 days."
    )
    return [
        types.EmbeddedResource(type="resource", resource=policy),
        types.ImageContent(type="image", data=PIXEL, mime_type="image/png"),
        "Does the screenshot follow the policy?",
    ]


desk.completion("customer", ["Ada", "Alan", "Grace"], prompt="answer")
desk.completion("article", ["101", "102", "201"], template="help://articles/{article}")


@desk.tool(description="Work in three steps, reporting progress and logging each.")
async def work(ctx: Context) -> str:
    for step in (1, 2, 3):
        await ctx.report_progress(step, 3, f"step {step}")
        await ctx.info(f"step {step} done")
    return "done"


@desk.tool(description="Change the refund policy and tell subscribers.")
async def change_policy(ctx: Context) -> str:
    await ctx.session.send_resource_updated("help://refunds")
    await ctx.session.send_resource_list_changed()
    await ctx.session.send_tool_list_changed()
    await ctx.session.send_prompt_list_changed()
    return "changed"


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


def ask_model(topic: str) -> Sample:
    content = types.TextContent(type="text", text=f"Summarize {topic}")
    return Sample([types.SamplingMessage(role="user", content=content)], max_tokens=50)


def ask_roots() -> ListRoots:
    return ListRoots()


@desk.tool(description="Greet the user by the name they give.")
async def greet(answer: Annotated[ElicitationResult[Name], Resolve(ask_name)]) -> str:
    return (
        f"Hello, {answer.data.name}!" if answer.action == "accept" else f"No name ({answer.action})"
    )


@desk.tool(description="Summarize a topic with the client's model.")
async def summarize(
    topic: str, sampled: Annotated[types.CreateMessageResult, Resolve(ask_model)]
) -> str:
    content = sampled.content
    return content.text if isinstance(content, types.TextContent) else "no text"


@desk.tool(description="List the client's roots.")
async def roots(listed: Annotated[types.ListRootsResult, Resolve(ask_roots)]) -> str:
    return ", ".join(str(root.uri) for root in listed.roots)
