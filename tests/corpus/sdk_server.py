"""Planted bugs in an SDK ``MCPServer``, written as users write one: typed functions.

Each tool but the controls (the last section) has exactly one bug, named in
its comment and in ``manifest.json``; the controls have none. So has each
resource, resource template and prompt (the reads, after the tools), with
their own controls. Every argument that is not a
planted validation gap is strict (JSON integers, strict strings, booleans and
floats), so a bug tool breaks its contract in one way only: pydantic's lax
mode would otherwise take ``"5"`` for 5 everywhere.

In-process: ``tests.corpus.sdk_server:server``; over stdio:
``python tests/corpus/sdk_server.py``.
"""

from __future__ import annotations

import traceback
from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.server.mcpserver.prompts.base import UserMessage
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    Completion,
    CompletionArgument,
    ImageContent,
    PromptReference,
    ResourceTemplateReference,
    ToolAnnotations,
)
from pydantic import BaseModel, BeforeValidator, Field, StrictBool, StrictFloat, StrictStr

server = MCPServer("corpus-sdk", log_level="CRITICAL")
READ_ONLY = ToolAnnotations(read_only_hint=True)
HANG_SECONDS = 60
"""How long the hanging tool sleeps: longer than any timeout `check` uses."""


def _json_integer(value: object) -> object:
    """JSON Schema's integers (5 and 5.0), never "5" or true, which pydantic's lax mode takes."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be an integer")
    return value


def _no_text(value: object) -> object:
    """Refuses "5" but, like lax pydantic, lets true through: half a fix (a planted bug)."""
    if isinstance(value, str):
        raise ValueError("must be a number, not text")
    return value


STRICT_INT = BeforeValidator(_json_integer)
"""After Field(...) in Annotated[...]: before it, pydantic leaves the bounds out of the schema."""
JsonInt = Annotated[int, STRICT_INT]

# -- crashes on valid input -------------------------------------------------------


@server.tool(description="The initial of a name, upper-cased.", annotations=READ_ONLY)
def initial(name: StrictStr) -> str:
    return name[0].upper()  # bug: IndexError on "", which the schema allows


@server.tool(
    description="Split a bill evenly: each person's share in cents.", annotations=READ_ONLY
)
def share(
    total_cents: Annotated[int, Field(ge=0, le=1_000_000), STRICT_INT],
    people: Annotated[int, Field(ge=0, le=100), STRICT_INT],
) -> dict[str, int]:
    return {"share_cents": total_cents // people}  # bug: ZeroDivisionError at people=0


@server.tool(description="A URL slug for a title.", annotations=READ_ONLY)
def slug(title: Annotated[StrictStr, Field(max_length=200)]) -> str:
    ascii_title = title.encode("ascii").decode()  # bug: UnicodeEncodeError on non-ASCII text
    return "-".join(ascii_title.lower().split())


@server.tool(description="The highest of some scores.", annotations=READ_ONLY)
def highest(scores: Annotated[list[JsonInt], Field(max_length=50)]) -> int:
    return max(scores)  # bug: ValueError on [], which the schema allows


@server.tool(description="A letter's salutation, with an optional title.", annotations=READ_ONLY)
def salutation(
    name: Annotated[StrictStr, Field(min_length=1, max_length=60)],
    title: Annotated[StrictStr, Field(max_length=20)] | None = None,
) -> str:
    return f"Dear {title.lower()} {name}"  # bug: None.lower() without a title


# -- boundaries --------------------------------------------------------------------


@server.tool(description="A weather outlook for the next days.", annotations=READ_ONLY)
async def forecast(days: Annotated[int, Field(ge=1, le=365), STRICT_INT]) -> str:
    if days > 300:
        await anyio.sleep(HANG_SECONDS)  # bug: hangs for days > 300 (the long-range model)
    return f"Sunny for {days} days."


ARCHIVE = [f"Issue {number}" for number in range(1, 101)]


@server.tool(
    description="The title on one page of the archive (pages 1-100).", annotations=READ_ONLY
)
def archive_page(page: Annotated[int, Field(ge=1, le=100), STRICT_INT]) -> str:
    return ARCHIVE[page]  # bug: 1-based page into a 0-based list, IndexError at the maximum


MEDALS = ["none", "gold", "silver", "bronze", "fourth", "fifth", "sixth", "seventh", "eighth"]


@server.tool(description="The name of a place in a race (1 < 10).", annotations=READ_ONLY)
def place_name(place: Annotated[int, Field(gt=0, lt=10), STRICT_INT]) -> str:
    return MEDALS[place]  # bug: IndexError at 9, the last value under the exclusive bound


PADDING = {4: "0000", 5: "000", 6: "00", 7: "0"}


@server.tool(description="A voucher code padded to 8 characters.", annotations=READ_ONLY)
def voucher(code: Annotated[StrictStr, Field(min_length=4, max_length=8)]) -> str:
    return code + PADDING[len(code)]  # bug: KeyError at the maxLength, 8


# -- combinations ------------------------------------------------------------------

PAGE_SIZES = [10, 20, 30, 40]


@server.tool(description="Search orders, optionally from an offset.", annotations=READ_ONLY)
def search_orders(
    limit: Annotated[int, Field(ge=1, le=50), STRICT_INT],
    offset: Annotated[int, Field(ge=0, le=10_000), STRICT_INT] | None = None,
) -> dict[str, int]:
    if offset is None:
        return {"first": 0, "count": limit}
    size = PAGE_SIZES[limit // 10]  # bug: IndexError for limit >= 40, only with an offset
    return {"first": offset - offset % size, "count": limit}


FROM_CELSIUS = {"celsius": lambda c: c, "fahrenheit": lambda c: c * 9 / 5 + 32}


@server.tool(description="Convert a temperature from Celsius.", annotations=READ_ONLY)
def convert_temperature(
    celsius: Annotated[StrictFloat, Field(ge=-273.15, le=10_000)],
    unit: Literal["celsius", "fahrenheit", "kelvin"],
) -> float:
    return FROM_CELSIUS[unit](celsius)  # bug: KeyError for one enum value, "kelvin"


class Circle(BaseModel):
    kind: Literal["circle"]
    radius: Annotated[StrictFloat, Field(ge=0, le=1000)]


class Square(BaseModel):
    kind: Literal["square"]
    side: Annotated[StrictFloat, Field(ge=0, le=1000)]


UNITS = {"circle": "cm2", "triangle": "cm2"}


@server.tool(description="The area of a circle or a square.", annotations=READ_ONLY)
def area(shape: Annotated[Circle | Square, Field(discriminator="kind")]) -> dict[str, Any]:
    if isinstance(shape, Circle):
        return {"area": 3.14159 * shape.radius**2, "unit": UNITS[shape.kind]}
    return {"area": shape.side**2, "unit": UNITS[shape.kind]}  # bug: KeyError, square branch


# -- validation gaps ---------------------------------------------------------------


@server.tool(description="Repeat a word a few times.", annotations=READ_ONLY)
def repeat_word(
    word: Annotated[StrictStr, Field(max_length=20)],
    times: Annotated[int, Field(ge=1, le=10)],  # bug: lax int, takes "5" (and true)
) -> str:
    return " ".join([word] * times)


@server.tool(description="How many rows a page of results has.", annotations=READ_ONLY)
def page_rows(
    size: Annotated[int, Field(ge=1, le=100), BeforeValidator(_no_text)],  # bug: takes true
) -> dict[str, int]:
    return {"rows": size}


@server.tool(
    description="The latest commits of a repository (try repo 'demo').", annotations=READ_ONLY
)
def commit_log(
    repo: Annotated[StrictStr, Field(max_length=40, examples=["demo"])],
    max_count: Annotated[int, Field(ge=1, le=50)] = 10,  # bug: lax int, takes "1"
) -> list[str]:
    if repo != "demo":
        raise ToolError(f"repository {repo!r} not found")
    return [f"commit {number}" for number in range(max_count)]


# -- protocol and answers ----------------------------------------------------------


@server.tool(description="The state of a region's reporting database.", annotations=READ_ONLY)
def db_status(region: Literal["eu", "us"]) -> str:
    if region == "us":
        # bug: a credential in an error text
        raise ToolError("cannot connect to postgresql://reporting:hunter2@db.us.internal/metrics")
    return "eu: healthy"


def _parse_settings(text: str) -> dict[str, str]:
    key, value = text.split("=")
    return {key.strip(): value.strip()}


@server.tool(description="Parse one 'key = value' settings line.", annotations=READ_ONLY)
def parse_setting(line: Annotated[StrictStr, Field(max_length=80)]) -> dict[str, str]:
    try:
        return _parse_settings(line)
    except ValueError:
        raise ToolError(traceback.format_exc()) from None  # bug: a stack trace in an error text


@server.tool(description="The columns of a table.", annotations=READ_ONLY)
def list_columns(table: Literal["orders", "customers"]) -> dict[str, Any]:
    return {"success": False, "error": f"table {table} is locked"}  # bug: a "success" that failed


@server.tool(description="Read a saved note.", annotations=READ_ONLY)
def read_note(name: Annotated[StrictStr, Field(max_length=40)]) -> str:
    return f"Error: note {name!r} could not be read"  # bug: an error text as a success


# -- hollow answers and unstated rules (issue 29) -----------------------------------


@server.tool(description="The best-selling products, up to a limit.", annotations=READ_ONLY)
def top_sellers(limit: JsonInt) -> list[str]:
    if limit > 20:  # bug: a rule the schema does not state (no maximum: 20)
        raise ToolError("limit must be at most 20")
    return [f"product {rank}" for rank in range(1, max(limit, 0) + 1)]


@server.tool(description="Open a saved report.", annotations=READ_ONLY)
def open_report(name: Annotated[StrictStr, Field(max_length=40)]) -> str:
    return f"Report {name}.pdf does not exist"  # bug: the same refusal, as a success, to every call


@server.tool(description="The slides of the open deck.", annotations=READ_ONLY)
def slide_titles(deck: Annotated[StrictStr, Field(max_length=40)]) -> dict[str, Any] | str:
    # bug: an error in the {"result": {...}} the SDK wraps a returned dict in
    return {"error": "No presentation is currently loaded"}


# -- controls: correct tools, no finding expected ---------------------------------


@server.tool(description="Count the words of a text.", annotations=READ_ONLY)
def word_count(text: Annotated[StrictStr, Field(max_length=1000)]) -> dict[str, int]:
    return {"words": len(text.split()), "characters": len(text)}


@server.tool(description="Clamp a value into a range.", annotations=READ_ONLY)
def clamp(
    value: Annotated[int, Field(ge=-1000, le=1000), STRICT_INT],
    low: Annotated[int, Field(ge=-1000, le=0), STRICT_INT] = 0,
    high: Annotated[int, Field(ge=0, le=1000), STRICT_INT] = 100,
) -> int:
    return min(max(value, low), high)


@server.tool(description="The average of some numbers (0 for none).", annotations=READ_ONLY)
def average(
    values: Annotated[list[Annotated[StrictFloat, Field(ge=-1e6, le=1e6)]], Field(max_length=50)],
) -> float:
    return sum(values) / len(values) if values else 0.0


@server.tool(description="The state of the service, briefly or in full.", annotations=READ_ONLY)
def service_state(detail: Literal["brief", "full"] = "brief") -> str:
    return "all systems nominal"  # the same answer to every input: a control all the same


@server.tool(description="The shipping zone of a country.", annotations=READ_ONLY)
def shipping_zone(country: Literal["DE", "FR", "US"], express: StrictBool = False) -> str:
    zone = "domestic" if country == "DE" else "international"
    return f"{zone} (express)" if express else zone


ARTICLES = {"HC-101": "Refunds are available within 30 days."}


@server.tool(description="Look up a help center article (HC-101).", annotations=READ_ONLY)
def find_article(
    article_id: Annotated[StrictStr, Field(pattern=r"^HC-[0-9]{3}$", examples=["HC-101"])],
) -> str:
    if article_id not in ARTICLES:
        raise ToolError(f"no article {article_id}")  # a deliberate refusal: fine
    return ARTICLES[article_id]


@server.tool(description="The perimeter of a circle or a square.", annotations=READ_ONLY)
def perimeter(shape: Annotated[Circle | Square, Field(discriminator="kind")]) -> float:
    if isinstance(shape, Circle):
        return 2 * 3.14159 * shape.radius
    return 4 * shape.side


# -- reads: resources, resource templates and prompts -----------------------------
# MCPServer answers a crash in a read with JSON-RPC error -32603 "Error reading resource
# URI", and in a prompt with "Error rendering prompt NAME" (in-process "Internal server
# error"): `unhandled_exception`. A typed parameter's refusal reads the same, so `check`
# counts these words only where it made up no value (a listed resource, a prompt got
# without arguments): a crash on one made-up value of a template is not planted here.

SETTINGS = {"theme": "dark"}


@server.resource("corpus://sdk/settings", mime_type="text/plain")
def settings() -> str:
    return f"theme={SETTINGS['theme']}, locale={SETTINGS['locale']}"  # bug: KeyError, always


INVOICES = {1: "Invoice 1: 120.00 EUR, paid."}


@server.resource("corpus://sdk/invoices/{number}", mime_type="text/plain")
def invoice(number: str) -> str:
    try:
        return INVOICES[int(number)]
    except (ValueError, KeyError):
        raise ResourceNotFoundError(traceback.format_exc()) from None  # bug: a stack trace


@server.prompt(description="Greet our customers, by an optional title.")
def greeting(title: str | None = None) -> str:
    return f"Write a greeting to our {title.lower()} customers."  # bug: None.lower()


CHART_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg"
    "=="
)
"""A 1x1 PNG, base64: the chart as the prompt sends it by default."""


@server.prompt(description="Draw a quarter's sales chart, optionally styled, to describe.")
def sales_chart(quarter: str, style: str | None = None) -> list[UserMessage]:
    image = ImageContent(type="image", data=CHART_PNG, mime_type="image/png")
    if style is not None:
        svg = f"<svg class='{style[:10]}'><text>{quarter[:10]}</text></svg>"
        # bug: a styled chart is SVG text sent as the image's data, not base64
        image = ImageContent(type="image", data=svg, mime_type="image/svg+xml")
    return [UserMessage(f"Describe this chart of {quarter[:10]}."), UserMessage(image)]


@server.prompt(description="Summarise a region's sales (eu or us).")
def region_report(region: str) -> str:
    if region == "us":
        # bug: a credential in an error text
        raise MCPError(INTERNAL_ERROR, "no connection to postgresql://sales:hunter2@db.us/sales")
    if region != "eu":
        raise MCPError(INTERNAL_ERROR, f"no region {region[:10]!r}")  # a refusal: fine
    return "Summarise the eu region's sales this quarter."


# controls: correct reads, no finding expected


@server.resource("corpus://sdk/readme", mime_type="text/plain")
def readme() -> str:
    return "The corpus server of the MCP Python SDK's MCPServer."


@server.resource("corpus://sdk/articles/{article_id}", mime_type="text/plain")
def article(article_id: str) -> str:
    if article_id not in ARTICLES:
        raise ResourceNotFoundError(f"no article {article_id[:10]}")  # a refusal: fine
    return ARTICLES[article_id]


@server.prompt(description="Review some code, in a language (python by default).")
def code_review(code: str, language: str = "python") -> str:
    return f"Review this {language} code:\n{code}"


@server.completion()
async def complete(
    ref: PromptReference | ResourceTemplateReference, argument: CompletionArgument, context: Any
) -> Completion | None:
    """Article ids for the article template, regions for the report (us first)."""
    if isinstance(ref, ResourceTemplateReference) and argument.name == "article_id":
        return Completion(values=sorted(ARTICLES))
    if isinstance(ref, PromptReference) and argument.name == "region":
        return Completion(values=["us", "eu"])
    return None


if __name__ == "__main__":
    server.run()
