"""SDK servers (``MCPServer``, in memory) with bugs planted where the coverage phase looks.

Written as users write them: pydantic annotations, lax by default. Every
argument a tool receives is recorded in ``received`` (after the SDK's own
validation), so tests can see what reached the tool's code.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import AfterValidator, BaseModel, Field, WithJsonSchema

READ_ONLY = ToolAnnotations(readOnlyHint=True)

planted = MCPServer("planted")
received: list[tuple[str, dict[str, Any]]] = []


@planted.tool(annotations=READ_ONLY)
async def forecast(days: Annotated[int, Field(ge=1, le=365)]) -> str:
    """A hang on the schema's own maximum."""
    received.append(("forecast", {"days": days}))
    if days == 365:
        await anyio.sleep(30)
    return f"{days} days"


@planted.tool(annotations=READ_ONLY)
async def usage(days: Annotated[int, Field(ge=1, le=365)], detailed: bool | None = None) -> str:
    """A hang past 300 days, only when the optional ``detailed`` is given."""
    received.append(("usage", {"days": days, "detailed": detailed}))
    if detailed is not None and days > 300:
        await anyio.sleep(30)
    return f"{days} days"


@planted.tool(annotations=READ_ONLY)
def count(limit: Annotated[int, Field(ge=1, le=10)]) -> str:
    """Correct, but pydantic's lax mode takes ``"5"`` for 5."""
    return "x" * limit


@planted.tool(annotations=READ_ONLY)
def log(repo: str, max_count: Annotated[int, Field(ge=1)] = 10) -> str:
    """Refuses every input without the one repository it knows, before any other check."""
    if repo != "/srv/repo":
        raise ToolError(f"repository not found: {repo!r}")  # a deliberate refusal
    return f"{max_count} commits"


correct = MCPServer("correct")


@correct.tool(annotations=READ_ONLY)
def pick(
    mode: Literal["fast", "slow", "auto"],
    ratio: Annotated[float, Field(gt=0, lt=1)] = 0.5,
    tags: Annotated[list[str], Field(max_length=3)] | None = None,
) -> str:
    """No bug: the superset test's schema with an enum, exclusive bounds and an array."""
    return f"{mode} {ratio} {tags}"


@correct.tool(annotations=READ_ONLY)
def window(
    start: Annotated[int, Field(ge=0, le=1000)],
    label: Annotated[str, Field(min_length=1, max_length=12)] | None = None,
) -> str:
    """No bug: bounds and an optional string."""
    return f"{start} {label}"


class Row(BaseModel):
    name: Annotated[str, Field(min_length=20)]


@planted.tool(annotations=READ_ONLY)
def bulk(rows: Annotated[list[Row], Field(min_length=3000)]) -> str:
    """Correct, but a random input takes seconds to draw."""
    return f"{len(rows)} rows"


def _given(value: str | None) -> str | None:
    """An explicit ``null`` is refused (the schema says string); an absent key stays ``None``."""
    if value is None:
        raise ValueError("a string is required")
    return value


Digit = Annotated[
    int, Field(strict=True), WithJsonSchema({"type": "integer", "minimum": 0, "maximum": 9})
]
Text = Annotated[
    str | None, Field(strict=True), AfterValidator(_given), WithJsonSchema({"type": "string"})
]

gated = MCPServer("gated")


@gated.tool(annotations=READ_ONLY)
def tagged(
    n: Digit,
    tag: Text = None,
    a: Text = None,
    b: Text = None,
    c: Text = None,
    d: Text = None,
    e: Text = None,
    f: Text = None,
    g: Text = None,
    h: Text = None,
) -> str:
    """Checks ``n``'s range itself, and forgets to when ``tag`` is given: ``{"n": -1, "tag": ""}``
    is accepted, as is any ``n`` out of range beside a ``tag`` and any other keys."""
    if tag is None and not 0 <= n <= 9:
        raise ToolError(f"n must be 0..9, not {n}")
    return f"n={n}"
