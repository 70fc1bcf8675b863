"""Which answers report an unhandled exception, and which successes read as errors."""

from __future__ import annotations

from typing import Any

import pytest

from littleghost_testing._engine import Answers, ToolReport
from littleghost_testing._engine._constraints import looser_schema, missing_constraint
from littleghost_testing._engine._crashes import (
    MAX_EXAMINED_CHARS,
    WITHHELD_CRASH,
    read_crash,
    reads_as_error,
    unhandled_exception,
)
from littleghost_testing._engine._findings import unexercised

CRASHES = [
    ("Error executing tool divide", "the MCP Python SDK's MCPServer (an unhandled exception)"),
    (
        "Error executing tool divide: Error executing tool inner",
        "the MCP Python SDK's MCPServer (an unhandled exception)",
    ),
    ("Error calling tool 'divide'", "FastMCP (an unhandled exception)"),
    ("Error calling tool 'divide': division by zero", "FastMCP (an unhandled exception)"),
    ("Error calling tool 'divide': 'parts'", "FastMCP (an unhandled exception)"),  # KeyError
    (
        "Error calling tool 'divide': invalid literal for int() with base 10: 'x'",
        "FastMCP (an unhandled exception)",
    ),
    (
        "Error calling tool 'divide': [Errno 2] No such file or directory: 'a.txt'",
        "FastMCP (an unhandled exception)",
    ),
    (
        "Error calling tool 'divide': Traceback (most recent call last):\n  File \"x.py\"",
        "FastMCP (an unhandled exception)",
    ),
    (
        "Error calling tool 'divide': ZeroDivisionError: division by zero",
        "FastMCP (an unhandled exception)",
    ),
    ("division by zero", "a Python runtime error"),
    ("Error executing tool divide: division by zero", "a Python runtime error"),
    ("string index out of range", "a Python runtime error"),
    ("'NoneType' object has no attribute 'lower'", "a Python runtime error"),
    (
        "'ascii' codec can't encode character '\\xe9' in position 0: ordinal not in range(128)",
        "a Python runtime error",
    ),
    ("Cannot read properties of undefined (reading 'toUpperCase')", "a JavaScript runtime error"),
    ("args.items.map is not a function", "a JavaScript runtime error"),
    ("Reduce of empty array with no initial value", "a JavaScript runtime error"),
    # V8's texts as node 20 throws them (String.fromCodePoint(NaN), "a".repeat(-1), ...)
    ("Invalid code point NaN", "a JavaScript runtime error"),
    ("Invalid count value: -1", "a JavaScript runtime error"),
    ("toFixed() digits argument must be between 0 and 100", "a JavaScript runtime error"),
    ("Invalid regular expression: /(/: Unterminated group", "a JavaScript runtime error"),
    ("undefinedVar is not defined", "a JavaScript runtime error"),
    ("Assignment to constant variable.", "a JavaScript runtime error"),
    ("Do not know how to serialize a BigInt", "a JavaScript runtime error"),
    (
        "Converting circular structure to JSON\n    --> starting at object with constructor "
        "'Object'\n    --- property 'o' closes the circle",
        "a JavaScript runtime error",
    ),
]
DELIBERATE = [
    "Error executing tool divide: parts must not be zero",
    "Error executing tool other",  # another tool's name: not this tool's crash report
    "Error calling tool 'other'",
    # FastMCP words a deliberate ValueError so too: a refusal, not a crash (issue 29.2)
    "Error calling tool 'divide': parts must be an integer >= 1",
    "Error calling tool 'divide': ValueError: parts must be one of 2, 4",
    "order 'ORD-1' not found",
    "MCP error -32602: Input validation error: Invalid arguments for tool divide",
    "repository is not a git repository",
    "division by zero is not allowed here",
    "Invalid code point: use two capital letters",  # a tool's own refusal, not V8's text
    "the user is not defined in this workspace",
    "",
]


@pytest.mark.parametrize(("text", "sdk"), CRASHES)
def test_each_sdks_crash_report_is_recognised(text: str, sdk: str) -> None:
    assert unhandled_exception(text, "divide") == sdk


@pytest.mark.parametrize("text", DELIBERATE)
def test_deliberate_errors_are_not_crashes(text: str) -> None:
    assert unhandled_exception(text, "divide") is None


def test_only_a_prefix_shape_is_recognised_in_a_long_text() -> None:
    long = "x" * MAX_EXAMINED_CHARS
    assert unhandled_exception(f"Error calling tool 'divide': {long}", "divide") is not None
    assert unhandled_exception(f"division by zero {long}", "divide") is None


URI = "pages://example"
MCPSERVER = "the MCP Python SDK's MCPServer (an unhandled exception)"
FASTMCP = "FastMCP (an unhandled exception)"
WITHHELD = "the MCP Python SDK 2.x (an unhandled exception, its text withheld)"
# (text, prompt?, whose report with no value made up, whose with made-up values)
READ_CRASHES = [
    (f"Error reading resource {URI}", False, MCPSERVER, None),
    (f"Error creating resource from template {URI}", False, MCPSERVER, None),
    ("Error rendering prompt greet", True, MCPSERVER, None),
    (f"Error reading resource '{URI}'", False, FASTMCP, None),
    (f"Error reading resource from template '{URI}': boom", False, FASTMCP, None),
    ("Error creating resource from template", False, FASTMCP, None),
    ("Error rendering prompt 'greet': boom", True, FASTMCP, None),
    ("Error rendering prompt greet.", True, FASTMCP, None),
    (WITHHELD_CRASH, False, WITHHELD, WITHHELD),
    (WITHHELD_CRASH, True, WITHHELD, None),
    ("division by zero", False, "a Python runtime error", "a Python runtime error"),
    (
        f"Error reading resource from template '{URI}': invalid literal for int() with base 10: "
        "'example'",
        False,
        FASTMCP,
        FASTMCP,
    ),
    (
        "Cannot read properties of undefined (reading 'toUpperCase')",
        True,
        "a JavaScript runtime error",
        "a JavaScript runtime error",
    ),
]
DELIBERATE_READS = [
    f"no page {URI}",
    f"Error reading resource {URI}: permission denied",  # MCPServer's ResourceError is the text
    "Error reading resource other://index",  # another resource's words
    "Error rendering prompt other",
    "Internal error",
    "Resource pages://example not found",
    "",
]


@pytest.mark.parametrize(("text", "prompt", "listed", "made_up"), READ_CRASHES)
def test_each_sdks_read_crash_report_is_recognised(
    text: str, prompt: bool, listed: str, made_up: str | None
) -> None:
    subject = "greet" if prompt else URI
    assert read_crash(text, subject, prompt=prompt, made_up=False) == listed
    # MCPServer and FastMCP word a typed parameter's refusal of a made-up value as a crash:
    # only a runtime's own text (or, for a read, mcp 2.x's withheld one) tells them apart.
    assert read_crash(text, subject, prompt=prompt, made_up=True) == made_up


@pytest.mark.parametrize("text", DELIBERATE_READS)
@pytest.mark.parametrize("prompt", [False, True])
def test_deliberate_read_errors_are_not_crashes(text: str, prompt: bool) -> None:
    subject = "greet" if prompt else URI
    assert read_crash(text, subject, prompt=prompt, made_up=False) is None


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ({"success": False}, '"success" is false'),
        ('{"success": false, "rows": []}', '"success" is false'),
        ({"error": "no such table"}, 'it has an "error"'),
        ('  {"error": {"code": 3}}', 'it has an "error"'),
        ("Error executing tool divide", "its text is an unhandled exception's report"),
        ("Error calling tool 'divide': no such order", "its text is an exception's report"),
        # mcp 1.x's and FastMCP's structured wrapping of a returned dict (issue 29.1)
        ({"result": {"error": "No presentation is currently loaded"}}, 'it has an "error"'),
        ({"result": {"success": False}}, '"success" is false'),
        ('Database error: Parser Error: syntax error at "x"', 'its text opens with "Error:"'),
    ],
)
def test_successes_that_read_as_errors(value: Any, why: str) -> None:
    assert reads_as_error(value, "divide") == why


@pytest.mark.parametrize(
    "value",
    [
        {"success": True},
        {"error": None},
        {"error": ""},
        {"results": [{"error": "per-item"}]},
        {"result": {"rows": []}},
        {"result": None},
        "No error: all fine",
        "Errors found: 0",
        '{"error": null}',
        "{not json",
        "no error here",
        ["error"],
        None,
        3,
    ],
)
def test_successes_that_do_not(value: Any) -> None:
    assert reads_as_error(value, "divide") is None


def _report(valid: int, is_error: int = 0, jsonrpc_error: int = 0) -> ToolReport:
    report = ToolReport("t", valid_calls=valid)
    report.answers = Answers(0, is_error, jsonrpc_error)
    return report


def test_unexercised_suggests_inputs_only_when_they_could_help() -> None:
    refused = unexercised(_report(3, is_error=3), 'no "repo"\n')
    assert refused == (
        "no valid call of 3 succeeded (3 isError, 0 JSON-RPC errors, 0 without an answer); "
        'the first answered "no \\"repo\\"\\n"; give inputs that work with --inputs FILE'
    )
    # Every call timed out: other inputs would not help.
    assert unexercised(_report(1), None) == (
        "no valid call of 1 succeeded (0 isError, 0 JSON-RPC errors, 1 without an answer)"
    )
    # No valid input could be sent at all: given ones would be.
    assert unexercised(_report(0), None).endswith("; give inputs that work with --inputs FILE")


SCHEMA = {"type": "object", "properties": {"max_results": {"type": "integer"}, "q": {}}}


@pytest.mark.parametrize(
    ("message", "constraint"),
    [
        ("max_results must be an integer >= 1", "minimum: 1 at $.max_results"),
        ("max_results must be at least 1", "minimum: 1 at $.max_results"),
        ("q must be at most 100 characters", "maxLength: 100 at $.q"),
        ("max_results must be between 1 and 50", "minimum: 1, maximum: 50 at $.max_results"),
        ("give at least 2 items", "minItems: 2"),
        ("max_results must be greater than 0", "exclusiveMinimum: 0 at $.max_results"),
        ("max_results must be positive", "exclusiveMinimum: 0 at $.max_results"),
        ("order must be one of: asc, desc", "enum"),
        ("q cannot be empty", "minLength: 1 at $.q"),
        ("q must match ^[a-z]+$", "pattern at $.q"),
        ("q must be a string", "type: string at $.q"),
        ("order 'ORD-1' not found", None),
        ("the catalog is closed", None),
    ],
)
def test_the_rule_a_refusal_names_is_read_from_its_words(
    message: str, constraint: str | None
) -> None:
    assert missing_constraint(message, SCHEMA) == constraint


def test_a_schema_looser_than_its_tool_is_told_only_where_a_refusal_shows_it() -> None:
    fastmcp = "Error calling tool 'search': max_results must be an integer >= 1"
    assert looser_schema(fastmcp, "search", SCHEMA) == (
        f"the schema lacks minimum: 1 at $.max_results: the tool refused {fastmcp!r}"
    )
    unnamed = "Error calling tool 'search': the index is being rebuilt"
    assert looser_schema(unnamed, "search", SCHEMA) == (
        f"the schema admits an input the tool refuses: {unnamed!r}"
    )
    # Any other refusal only when it names a rule: "not found" is a fine answer.
    assert looser_schema("limit must be at most 10", "search", SCHEMA) is not None
    assert looser_schema("order 'ORD-1' not found", "search", SCHEMA) is None
    assert looser_schema("Error calling tool 'search': division by zero", "search", SCHEMA) is None
    # The input's own strings name no rule, its numbers may be the rule's bound.
    echoed = "Error calling tool 'search': unexpected keyword argument 'x<5'"
    assert looser_schema(echoed, "search", SCHEMA, {"q": "a", "x<5": 1}) == (
        f"the schema admits an input the tool refuses: {echoed!r}"
    )
    assert looser_schema("max_results must be greater than 0", "search", SCHEMA, {"max_results": 0})
    # An SDK's own validation report is not the tool's refusal.
    assert looser_schema("1 validation error: q must be at most 3", "search", SCHEMA) is None
