"""Demo MCP servers for ``littleghost check``: a well-behaved one and a deliberately faulty one.

``server`` is a plain SDK ``MCPServer`` whose tools honour their schemas, and
whose resources (an index, an article template with completions) and prompt
answer, so ``littleghost check littleghost_testing.demo_server:server`` exits 0.
``faulty`` is a ``FakeMCPServer`` advertising schemas its handlers do not
enforce, so ``littleghost check littleghost_testing.demo_server:faulty``
exits 1 and shows what violations look like:

- ``create_ticket`` advertises ``additionalProperties: false``, a
  ``priority`` enum and a ``subject`` length limit, yet accepts anything;
- ``order_status`` declares an ``outputSchema`` whose ``status`` enum it
  breaks for orders ending in ``0``.

Read-only tools are annotated ``readOnlyHint: true``; ``create_ticket``
changes state, so ``check`` calls it only with ``--allow-side-effects``.

Over stdio: ``python -m littleghost_testing.demo_server`` serves ``server``
(``python -m littleghost_testing.demo_server faulty`` serves ``faulty``).
"""

from __future__ import annotations

import sys
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp_types import (
    Completion,
    CompletionArgument,
    PromptReference,
    ResourceTemplateReference,
    ToolAnnotations,
)
from pydantic import BaseModel, BeforeValidator, Field

from .fake_server import FakeMCPServer

__all__ = ["faulty", "server"]

ARTICLES = {
    "HC-101": "Refunds are available within 30 days of delivery.",
    "HC-204": "Orders ship within 2 business days.",
}
STATUSES = ("processing", "shipped", "delivered")


def _json_integer(value: object) -> object:
    """JSON Schema's integers: 5 and 5.0, never "5" or true (pydantic's lax mode takes both)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be an integer")
    return value


# Strict strings and booleans, JSON integers: the handlers accept exactly what the schemas say.
# Examples are the inputs `littleghost check` tries first: a real article gets a success.
ArticleId = Annotated[str, Field(pattern=r"^HC-[0-9]{3,5}$", strict=True, examples=["HC-101"])]
OrderId = Annotated[str, Field(pattern=r"^ORD-[0-9]{4}$", strict=True)]
Locale = Literal["en", "de", "fr"]

server = MCPServer("demo-help-desk", log_level="WARNING")
# Every tool here only reads: annotated so, `littleghost check` calls them without
# --allow-side-effects (MCP's rule: an unannotated tool may change state).
READ_ONLY = ToolAnnotations(read_only_hint=True)


class OrderStatus(BaseModel):
    order_id: str
    status: Literal["processing", "shipped", "delivered"]
    events: list[str]


@server.tool(description="Look up a help center article by its id (HC-101).", annotations=READ_ONLY)
def help_center_lookup(article_id: ArticleId, locale: Locale = "en") -> str:
    text = ARTICLES.get(article_id)
    if text is None:
        raise ToolError(f"No help center article {article_id}")
    return text if locale == "en" else f"[{locale}] {text}"


@server.tool(
    description="The status of an order (ORD-1234) and its latest events.", annotations=READ_ONLY
)
def order_status(
    order_id: OrderId,
    include_history: Annotated[bool, Field(strict=True)] = False,
    max_events: Annotated[int, Field(ge=1, le=20), BeforeValidator(_json_integer)] = 5,
) -> OrderStatus:
    status = STATUSES[int(order_id[-1]) % len(STATUSES)]
    events = [f"{order_id} {status}"] * (max_events if include_history else 1)
    return OrderStatus(order_id=order_id, status=status, events=events)


@server.tool(description="Quote a refund for an amount in cents.", annotations=READ_ONLY)
def refund_quote(
    amount_cents: Annotated[int, Field(ge=1, le=100_000), BeforeValidator(_json_integer)],
    currency: Literal["EUR", "USD", "GBP"],
) -> dict[str, Any]:
    return {"refund_cents": amount_cents, "currency": currency, "fee_cents": 0}


@server.resource("help://articles", mime_type="application/json")
def article_index() -> dict[str, list[str]]:
    """Every help center article id (resources are read-only: `check` reads them)."""
    return {"articles": sorted(ARTICLES)}


@server.resource("help://articles/{article_id}", mime_type="text/plain")
def article(article_id: str) -> str:
    text = ARTICLES.get(article_id)
    if text is None:
        raise ResourceNotFoundError(f"No help center article {article_id}")
    return text


@server.completion()
async def complete(
    ref: PromptReference | ResourceTemplateReference, argument: CompletionArgument, context: Any
) -> Completion | None:
    """Article ids for the article template: what `check` fills the template with."""
    if isinstance(ref, ResourceTemplateReference) and argument.name == "article_id":
        return Completion(values=[key for key in ARTICLES if key.startswith(argument.value)])
    return None


@server.prompt(description="Draft an answer to a customer's question.")
def answer_customer(question: str, tone: str = "friendly") -> str:
    return f"Answer this customer question in a {tone} tone, citing help articles: {question}"


faulty = FakeMCPServer(
    "demo-faulty-help-desk", import_path="littleghost_testing.demo_server:faulty"
)


@faulty.tool(
    description="Look up a help center article by its id (HC-101).",
    annotations={"readOnlyHint": True},
)
def lookup(article_id: str) -> str:
    return ARTICLES.get(article_id, "No such article.")


@faulty.tool(
    description="Open a support ticket.",
    annotations={"readOnlyHint": False, "destructiveHint": False},
    input_schema={
        "type": "object",
        "properties": {
            "subject": {"type": "string", "minLength": 1, "maxLength": 120},
            "priority": {"enum": ["low", "normal", "urgent"]},
        },
        "required": ["subject", "priority"],
        "additionalProperties": False,
    },
)
def create_ticket(subject: Any = None, priority: Any = None) -> str:
    # The deliberate violation: nothing here enforces the advertised schema.
    return f"Opened ticket SUP-481 ({priority}): {subject}"


@faulty.tool(
    name="order_status",
    description="The status of an order (ORD-1234).",
    annotations={"readOnlyHint": True},
    input_schema={
        "type": "object",
        "properties": {"order_id": {"type": "string", "pattern": "^ORD-[0-9]{4}$"}},
        "required": ["order_id"],
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "properties": {"status": {"enum": list(STATUSES)}},
        "required": ["status"],
    },
)
def faulty_order_status(order_id: Any = None) -> dict[str, Any]:
    # The deliberate violation: orders ending in 0 break the advertised outputSchema.
    return {"status": "unknown" if str(order_id).endswith("0") else "shipped"}


if __name__ == "__main__":
    if sys.argv[1:] == ["faulty"]:
        faulty.serve_stdio()
    else:
        server.run()
