"""Planted bugs in a low-level SDK ``Server``: hand-written schemas, hand-rolled validation.

Users of the low-level ``Server`` write each tool's JSON Schema by hand and
check the arguments themselves (here with ``jsonschema``). The planted
validation gaps are the usual ones: the schema a tool enforces is not quite
the one it advertises. Each tool's ``enforced`` schema equals its advertised
``schema`` except for the one planted gap; the controls enforce what they
advertise. Enforced schemas use no ``pattern``: Python's ``re`` is not
ECMA-262 (``$`` matches before a final newline), which would be a second bug.

The reads (resources, resource templates and prompts, after the tools) are
hand-written handlers too, each with one planted bug or none (a control).

In-process: ``tests.corpus.lowlevel_server:server``; over stdio:
``python tests/corpus/lowlevel_server.py``.
"""

from __future__ import annotations

import copy
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
from jsonschema import Draft202012Validator
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    BlobResourceContents,
    CallToolRequestParams,
    CallToolResult,
    CompleteRequestParams,
    CompleteResult,
    Completion,
    GetPromptRequestParams,
    GetPromptResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    PaginatedRequestParams,
    Prompt,
    PromptArgument,
    PromptMessage,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    ResourceTemplateReference,
    TextContent,
    TextResourceContents,
    Tool,
    ToolAnnotations,
)

Handler = Callable[[dict[str, Any]], CallToolResult]


@dataclass(frozen=True)
class CorpusTool:
    """A tool as advertised, the schema its handler really enforces, and the handler."""

    tool: Tool
    enforced: dict[str, Any]
    handler: Handler


TOOLS: dict[str, CorpusTool] = {}


def text(value: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=value)])


def tool(
    name: str,
    description: str,
    schema: dict[str, Any],
    *,
    output_schema: dict[str, Any] | None = None,
    drop: tuple[str, ...] = (),
    replace: dict[str, Any] | None = None,
) -> Callable[[Handler], Handler]:
    """Register a tool; ``drop`` and ``replace`` make its enforced schema (a planted gap).

    Both address one level below ``properties`` with ``"name.keyword"``, or the
    root with ``"keyword"``.
    """
    enforced = copy.deepcopy(schema)
    for path in drop:
        _node(enforced, path)[0].pop(_node(enforced, path)[1])
    for path, value in (replace or {}).items():
        node, key = _node(enforced, path)
        node[key] = value

    def register(handler: Handler) -> Handler:
        advertised = Tool(
            name=name,
            description=description,
            input_schema=schema,
            output_schema=output_schema,
            annotations=ToolAnnotations(read_only_hint=True),
        )
        TOOLS[name] = CorpusTool(advertised, enforced, handler)
        return handler

    return register


def _node(schema: dict[str, Any], path: str) -> tuple[dict[str, Any], str]:
    *parents, key = path.split(".")
    node = schema
    for parent in parents:
        node = node["properties"][parent]
    return node, key


def obj(properties: dict[str, Any], *required: str, closed: bool = False) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": list(required),
    }
    if closed:
        schema["additionalProperties"] = False
    return schema


INTEGER = "integer"

# -- a crash on valid input --------------------------------------------------------
# The low-level Server answers a crash with a JSON-RPC error: `jsonrpc_error` is its finding.


@tool(
    "percent",
    "What percentage a part is of a whole.",
    obj(
        {
            "part": {"type": INTEGER, "minimum": 0, "maximum": 1000},
            "whole": {"type": INTEGER, "minimum": 0, "maximum": 1000},
        },
        "part",
        "whole",
    ),
)
def percent(arguments: dict[str, Any]) -> CallToolResult:
    return text(f"{arguments['part'] * 100 / arguments['whole']:.1f}%")  # bug: ZeroDivisionError


ITEMS = [f"item {number}" for number in range(1, 101)]


@tool(
    "item_at",
    "The item at a position, 1 to 100.",
    obj({"position": {"type": INTEGER, "minimum": 1, "maximum": 100}}, "position"),
)
def item_at(arguments: dict[str, Any]) -> CallToolResult:
    # bug: TypeError on 3.0, an integer by JSON Schema (and by jsonschema) but a float here
    return text(ITEMS[arguments["position"] - 1])


# -- validation gaps ---------------------------------------------------------------

COUNTRIES = {"DE": "Germany", "FR": "France", "US": "United States"}


@tool(
    "country_name",
    "The name of a country by its ISO code (DE).",
    obj({"code": {"type": "string", "pattern": "^[A-Z]{2}$"}}, "code"),
    drop=("code.pattern",),  # bug: the pattern is not enforced
)
def country_name(arguments: dict[str, Any]) -> CallToolResult:
    return text(COUNTRIES.get(arguments["code"], "unknown country"))


OFFSETS = {"UTC": 0, "CET": 1, "EST": -5}


@tool(
    "timezone_offset",
    "The UTC offset of a time zone, in hours.",
    obj({"zone": {"enum": list(OFFSETS)}}, "zone"),
    drop=("required",),  # bug: a missing zone is taken as UTC
)
def timezone_offset(arguments: dict[str, Any]) -> CallToolResult:
    return text(str(OFFSETS[arguments.get("zone", "UTC")]))


FORMATS = {"iso": "2026-12-01", "us": "12/01/2026", "eu": "01.12.2026"}


@tool(
    "date_format",
    "Today's date in one of three styles.",
    obj({"style": {"type": "string", "enum": list(FORMATS)}}, "style"),
    drop=("style.enum",),  # bug: any style is taken, unknown ones as iso
)
def date_format(arguments: dict[str, Any]) -> CallToolResult:
    return text(FORMATS.get(arguments["style"], FORMATS["iso"]))


@tool(
    "top_items",
    "The top 1 to 20 items.",
    obj({"count": {"type": INTEGER, "minimum": 1, "maximum": 20}}, "count"),
    drop=("count.maximum",),  # bug: the maximum is not enforced
)
def top_items(arguments: dict[str, Any]) -> CallToolResult:
    return text(", ".join(ITEMS[: int(arguments["count"])]))  # 3.0 is an integer too


@tool(
    "retry_delay",
    "The delay before a retry attempt (1 to 5), in seconds.",
    obj({"attempt": {"type": INTEGER, "exclusiveMinimum": 0, "exclusiveMaximum": 6}}, "attempt"),
    drop=("attempt.exclusiveMaximum",),
    replace={"attempt.maximum": 6},  # bug: off by one at the exclusive bound, 6 is taken
)
def retry_delay(arguments: dict[str, Any]) -> CallToolResult:
    return text(str(2 ** arguments["attempt"]))


UNIT_NAMES = {"m": "metre", "kg": "kilogram", "s": "second"}


@tool(
    "unit_name",
    "The name of an SI unit by its symbol.",
    obj({"symbol": {"enum": list(UNIT_NAMES)}}, "symbol", closed=True),
    drop=("additionalProperties",),  # bug: unknown properties are ignored
)
def unit_name(arguments: dict[str, Any]) -> CallToolResult:
    return text(UNIT_NAMES[arguments["symbol"]])


def outline(title: dict[str, Any], sections: dict[str, Any]) -> dict[str, Any]:
    """A document outline: a titled section whose ``sections`` are sections too."""
    return {
        "type": "object",
        "properties": {"outline": {"$ref": "#/$defs/section"}},
        "required": ["outline"],
        "$defs": {"section": obj({"title": title, "sections": sections}, "title")},
    }


TITLE = {"type": "string", "minLength": 1, "maxLength": 40}
SECTIONS = {"type": "array", "items": {"$ref": "#/$defs/section"}, "maxItems": 10}


def titles(section: Any) -> list[str]:
    """Every title of an outline, depth first (lenient: nested sections may be anything)."""
    if not isinstance(section, dict):
        return []
    nested = section.get("sections")
    below = nested if isinstance(nested, list) else []
    return [str(section.get("title", "")), *(title for child in below for title in titles(child))]


@tool(
    "outline_words",
    "How many words the titles of a document outline hold (sections nest).",
    outline(TITLE, SECTIONS),
    # bug: nested sections are checked only for being objects with a title, as the top
    # section is checked in full: a nested title too long (or no string) is taken
    replace={
        "$defs": {
            "section": obj(
                {"title": TITLE, "sections": {**SECTIONS, "items": obj({}, "title")}}, "title"
            )
        }
    },
)
def outline_words(arguments: dict[str, Any]) -> CallToolResult:
    return text(str(sum(len(title.split()) for title in titles(arguments["outline"]))))


# -- protocol ----------------------------------------------------------------------

STOCK = {"SKU-0001": 12, "SKU-0002": 0}


@tool(
    "stock_level",
    "How many of a product are in stock.",
    obj({"sku": {"type": "string", "maxLength": 12, "examples": ["SKU-0001"]}}, "sku"),
    output_schema=obj(
        {"sku": {"type": "string"}, "quantity": {"type": INTEGER, "minimum": 0}}, "sku", "quantity"
    ),
)
def stock_level(arguments: dict[str, Any]) -> CallToolResult:
    sku = arguments["sku"]
    level = {"sku": sku, "quantity": STOCK.get(sku)}  # bug: null for an unknown sku
    return CallToolResult(
        content=[TextContent(type="text", text=str(level))], structured_content=level
    )


RATES = {"EUR": 1.0, "USD": 1.08}


@tool(
    "exchange_rate",
    "The exchange rate of a currency against the euro.",
    obj({"currency": {"enum": ["EUR", "USD", "JPY"]}}, "currency"),
)
def exchange_rate(arguments: dict[str, Any]) -> CallToolResult:
    currency = arguments["currency"]
    if currency not in RATES:
        # bug: a protocol error for a value the schema allows
        raise MCPError(code=INVALID_PARAMS, message=f"unsupported currency {currency}")
    return text(str(RATES[currency]))


# -- hollow answers and unstated rules (issue 29) -----------------------------------


@tool(
    "page_size",
    "How many rows a page of a report holds.",
    obj({"rows": {"type": INTEGER}}, "rows", closed=True),
)
def page_size(arguments: dict[str, Any]) -> CallToolResult:
    rows = arguments["rows"]
    if rows > 500:  # bug: a rule the schema does not state (no maximum: 500)
        return CallToolResult(
            content=[TextContent(type="text", text="rows must be no more than 500")], is_error=True
        )
    return text(f"{rows} rows a page")


@tool(
    "read_sheet",
    "Read a saved spreadsheet.",
    obj({"sheet": {"type": "string", "maxLength": 40}}, "sheet", closed=True),
)
def read_sheet(arguments: dict[str, Any]) -> CallToolResult:
    # bug: the same refusal, as a success, to every call
    return text(f"Spreadsheet {arguments['sheet']!r} could not be opened: no such file")


# -- controls: correct tools, no finding expected ---------------------------------


@tool(
    "unit_symbol",
    "The symbol of an SI unit, optionally as a plural word.",
    obj(
        {"unit": {"enum": ["metre", "kilogram", "second"]}, "plural": {"type": "boolean"}},
        "unit",
        closed=True,
    ),
)
def unit_symbol(arguments: dict[str, Any]) -> CallToolResult:
    symbols = {"metre": "m", "kilogram": "kg", "second": "s"}
    unit = arguments["unit"]
    return text(f"{unit}s" if arguments.get("plural") else symbols[unit])


@tool(
    "measure",
    "The area of a circle or a square.",
    obj(
        {
            "shape": {
                "oneOf": [
                    obj(
                        {
                            "kind": {"const": "circle"},
                            "radius": {"type": "number", "minimum": 0, "maximum": 1000},
                        },
                        "kind",
                        "radius",
                    ),
                    obj(
                        {
                            "kind": {"const": "square"},
                            "side": {"type": "number", "minimum": 0, "maximum": 1000},
                        },
                        "kind",
                        "side",
                    ),
                ]
            }
        },
        "shape",
    ),
)
def measure(arguments: dict[str, Any]) -> CallToolResult:
    shape = arguments["shape"]
    if shape["kind"] == "circle":
        return text(str(3.14159 * shape["radius"] ** 2))
    return text(str(shape["side"] ** 2))


@tool(
    "outline_depth",
    "How deep a document outline's sections nest.",
    outline(TITLE, SECTIONS),
)
def outline_depth(arguments: dict[str, Any]) -> CallToolResult:
    def depth(section: dict[str, Any]) -> int:
        return 1 + max((depth(child) for child in section.get("sections", ())), default=0)

    return text(str(depth(arguments["outline"])))


@tool(
    "bounded_sum",
    "The sum of 1 to 10 small numbers.",
    obj(
        {
            "values": {
                "type": "array",
                "items": {"type": INTEGER, "minimum": 0, "maximum": 100},
                "minItems": 1,
                "maxItems": 10,
            }
        },
        "values",
        closed=True,
    ),
    output_schema=obj({"sum": {"type": INTEGER}}, "sum"),
)
def bounded_sum(arguments: dict[str, Any]) -> CallToolResult:
    total = {"sum": int(sum(arguments["values"]))}
    return CallToolResult(
        content=[TextContent(type="text", text=str(total))], structured_content=total
    )


# -- reads: resources, resource templates and prompts -----------------------------
# Over stdio the low-level Server answers a crash in a handler with a JSON-RPC error
# holding the exception's text (`list index out of range`), in-process with "Internal
# server error": `unhandled_exception` (for a prompt got with made-up arguments, only the
# former: MCPServer's refusals of typed arguments are withheld so too).

RESOURCE_NOT_FOUND = -32002
"""MCP's JSON-RPC error code for a resource that does not exist."""
PREFIX = "corpus://lowlevel/"
DOWNTIMES_MINUTES: list[int] = []
ARTICLES = {"HC-101": "Refunds are available within 30 days."}
LOGO_SVG = "<svg><circle r='4'/></svg>"

RESOURCES = [
    Resource(uri=f"{PREFIX}uptime", name="uptime", mime_type="text/plain"),
    Resource(uri=f"{PREFIX}logo", name="logo", mime_type="image/svg+xml"),
    Resource(uri=f"{PREFIX}readme", name="readme", mime_type="text/plain"),  # control
]
TEMPLATES = [
    ResourceTemplate(uri_template=f"{PREFIX}items/{{position}}", name="item"),
    ResourceTemplate(uri_template=f"{PREFIX}articles/{{article_id}}", name="article"),  # control
]
PROMPTS = [
    Prompt(
        name="announce",
        description="Announce the latest release, in an optional tone.",
        arguments=[PromptArgument(name="tone", required=False)],
    ),
    Prompt(
        name="explain_status",
        description="Explain an HTTP status code (a number).",
        arguments=[PromptArgument(name="code", required=True)],
    ),
    Prompt(  # control
        name="summarize",
        description="Summarise a text, in an optional number of words.",
        arguments=[
            PromptArgument(name="text", required=True),
            PromptArgument(name="words", required=False),
        ],
    ),
]


def contents(uri: str, value: str) -> ReadResourceResult:
    return ReadResourceResult(contents=[TextResourceContents(uri=uri, text=value)])


def read(uri: str) -> ReadResourceResult:
    if uri == f"{PREFIX}uptime":
        average = sum(DOWNTIMES_MINUTES) / len(DOWNTIMES_MINUTES)  # bug: ZeroDivisionError
        return contents(uri, f"mean downtime: {average:.1f} min")
    if uri == f"{PREFIX}logo":
        # bug: a blob of SVG text, not base64
        blob = BlobResourceContents(uri=uri, blob=LOGO_SVG, mime_type="image/svg+xml")
        return ReadResourceResult(contents=[blob])
    if uri == f"{PREFIX}readme":
        return contents(uri, "The corpus server of the MCP Python SDK's low-level Server.")
    name, _, value = uri.removeprefix(PREFIX).partition("/")
    if name == "items" and value:
        return contents(uri, ITEMS[int(value) - 1])  # bug: ValueError on a non-number
    if name == "articles" and value in ARTICLES:
        return contents(uri, ARTICLES[value])
    raise MCPError(code=RESOURCE_NOT_FOUND, message=f"no resource {uri[:80]}")


def user(value: str) -> GetPromptResult:
    return GetPromptResult(
        messages=[PromptMessage(role="user", content=TextContent(type="text", text=value))]
    )


STATUSES = {200: "OK", 404: "Not Found"}


def get_prompt(name: str, arguments: dict[str, str]) -> GetPromptResult:
    if name == "announce":
        tone = arguments.get("tone")
        # bug: AttributeError on None, without the optional tone
        return user(f"Announce the latest release in a {tone.lower()} tone.")
    if name == "explain_status":
        try:
            code = int(arguments["code"])
        except ValueError:
            # bug: a stack trace in an error text
            raise MCPError(code=INVALID_PARAMS, message=traceback.format_exc()) from None
        return user(f"Explain HTTP status {code} ({STATUSES.get(code, 'unknown')}).")
    if name == "summarize":
        words = arguments.get("words") or "50"
        return user(f"Summarise in at most {words} words: {arguments['text']}")
    raise MCPError(code=INVALID_PARAMS, message=f"unknown prompt {name[:40]}")


async def list_resources(ctx: Any, params: PaginatedRequestParams | None) -> ListResourcesResult:
    return ListResourcesResult(resources=RESOURCES)


async def list_resource_templates(
    ctx: Any, params: PaginatedRequestParams | None
) -> ListResourceTemplatesResult:
    return ListResourceTemplatesResult(resource_templates=TEMPLATES)


async def read_resource(ctx: Any, params: ReadResourceRequestParams) -> ReadResourceResult:
    return read(str(params.uri))


async def list_prompts(ctx: Any, params: PaginatedRequestParams | None) -> ListPromptsResult:
    return ListPromptsResult(prompts=PROMPTS)


async def get_prompt_handler(ctx: Any, params: GetPromptRequestParams) -> GetPromptResult:
    return get_prompt(params.name, dict(params.arguments or {}))


async def complete(ctx: Any, params: CompleteRequestParams) -> CompleteResult:
    """Article ids for the article template; nothing for the rest."""
    ref = params.ref
    if isinstance(ref, ResourceTemplateReference) and params.argument.name == "article_id":
        return CompleteResult(completion=Completion(values=sorted(ARTICLES)))
    return CompleteResult(completion=Completion(values=[]))


# -- the server --------------------------------------------------------------------


async def list_tools(ctx: Any, params: PaginatedRequestParams | None) -> ListToolsResult:
    return ListToolsResult(tools=[entry.tool for entry in TOOLS.values()])


async def call_tool(ctx: Any, params: CallToolRequestParams) -> CallToolResult:
    entry = TOOLS.get(params.name)
    if entry is None:
        raise MCPError(code=INVALID_PARAMS, message=f"unknown tool {params.name}")
    arguments = params.arguments or {}
    error = next(iter(Draft202012Validator(entry.enforced).iter_errors(arguments)), None)
    if error is not None:
        return CallToolResult(
            content=[TextContent(type="text", text=f"invalid input: {error.message}")],
            is_error=True,
        )
    return entry.handler(arguments)


server = Server(
    "corpus-lowlevel",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_resources=list_resources,
    on_list_resource_templates=list_resource_templates,
    on_read_resource=read_resource,
    on_list_prompts=list_prompts,
    on_get_prompt=get_prompt_handler,
    on_completion=complete,
)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
