"""Planted bugs in a FastMCP server (PyPI ``fastmcp``), written as its users write one.

The same file serves FastMCP 2.x and 3.x, which answer alike: any exception but a
``ToolError`` as ``Error calling tool 'NAME': its text``.
FastMCP pins ``mcp<2``, so it cannot live beside this project's SDK: run it
from a throw-away virtual environment, ``python -m venv /tmp/fastmcp2 &&
/tmp/fastmcp2/bin/pip install 'fastmcp<3'`` (or ``'fastmcp-slim[server]>=3,<4'``), then
``/tmp/fastmcp2/bin/python tests/corpus/fastmcp_server.py`` serves it over stdio
(``bench/kill_rate.py --fastmcp-python /tmp/fastmcp2/bin/python``). Strict
types everywhere but the planted gap, as in ``sdk_server.py``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from pydantic import BeforeValidator, Field, StrictBool, StrictInt, StrictStr

server = FastMCP("corpus-fastmcp")
READ_ONLY = {"readOnlyHint": True}


def _json_integer(value: object) -> object:
    """JSON Schema's integers (5 and 5.0), never "5" or true, which pydantic's lax mode takes."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be an integer")
    return value


STRICT_INT = BeforeValidator(_json_integer)


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


@server.tool(description="Repeat a word a few times.", annotations=READ_ONLY)
def repeat_word(
    word: Annotated[StrictStr, Field(max_length=20)],
    times: Annotated[int, Field(ge=1, le=10)],  # bug: lax int, takes "5" (and true)
) -> str:
    return " ".join([word] * times)


@server.tool(description="The columns of a table.", annotations=READ_ONLY)
def list_columns(table: Literal["orders", "customers"]) -> dict[str, Any]:
    return {"success": False, "error": f"table {table} is locked"}  # bug: a "success" that failed


# -- hollow answers and unstated rules (issue 29) -----------------------------------


@server.tool(description="Search the catalog.", annotations=READ_ONLY)
def search(query: Annotated[StrictStr, Field(max_length=40)], max_results: StrictInt) -> list[str]:
    if max_results < 1:  # bug: a rule the schema does not state; FastMCP words it as a crash
        raise ValueError("max_results must be an integer >= 1")
    return [f"{query} {rank}" for rank in range(1, min(max_results, 5) + 1)]


@server.tool(description="Run a read-only SQL query.", annotations=READ_ONLY)
def run_query(sql: Annotated[StrictStr, Field(max_length=200)]) -> str:
    # bug: a database refusal as the success text, to every call
    return f'Database error: Parser Error: syntax error at or near "{sql[:4]}"'


@server.tool(description="The titles of the open deck's slides.", annotations=READ_ONLY)
def slide_titles(deck: Annotated[StrictStr, Field(max_length=40)]) -> Any:
    return {"error": "No presentation is currently loaded"}  # bug: wrapped {"result": {"error"}}


# -- controls: correct tools, no finding expected ---------------------------------


@server.tool(description="Count the words of a text.", annotations=READ_ONLY)
def word_count(text: Annotated[StrictStr, Field(max_length=1000)]) -> dict[str, int]:
    return {"words": len(text.split()), "characters": len(text)}


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


# -- reads: a resource template and a prompt, each with a control -------------------
# FastMCP 2.x answers a crash in a read with "Error reading resource ... URI: its text",
# and in a prompt with "Error rendering prompt NAME.": `unhandled_exception` (the bare
# words only for a prompt got without arguments: a typed argument's refusal reads so too).

ARCHIVE = [f"Issue {number}" for number in range(1, 101)]


@server.resource("corpus://fastmcp/pages/{number}", mime_type="text/plain")
def page(number: str) -> str:
    return ARCHIVE[int(number) - 1]  # bug: ValueError on a number that is not digits


@server.prompt(description="Greet our customers, by an optional title.")
def greeting(title: str | None = None) -> str:
    return f"Write a greeting to our {title.lower()} customers."  # bug: None.lower()


@server.resource("corpus://fastmcp/readme", mime_type="text/plain")
def readme() -> str:
    return "The corpus server of FastMCP 2.x."


@server.prompt(description="Review some code, in a language (python by default).")
def code_review(code: str, language: str = "python") -> str:
    return f"Review this {language} code:\n{code}"


if __name__ == "__main__":
    server.run(show_banner=False)
