"""Recognising a tool's unhandled exception in what a server answered.

Most servers turn any exception into an ``isError`` result, so a crash on a
valid input looks like a deliberate refusal ("order not found") unless its
shape gives it away. Each server SDK has its own shape, read from its source:

- the MCP Python SDK's ``MCPServer`` (mcp 2.x) answers a crash with exactly
  ``Error executing tool NAME`` (a nested crash adds ``: Error executing tool
  OTHER``), a deliberate ``ToolError`` with ``Error executing tool NAME: its
  message``;
- FastMCP 2.x and 3.x answer ``Error calling tool 'NAME'``, followed by ``: `` and
  the exception's text unless it masks error details; a ``ToolError`` is its
  message alone. Any other exception is worded so, a deliberate ``raise
  ValueError("limit must be >= 1")`` too: only a message that reads as a
  runtime failure makes it a crash (``refusal_in_crash_words`` gives the others);
- the TypeScript SDK's ``McpServer``, the MCP Python SDK 1.x and hand-written
  low-level servers answer with the exception's text (1.x ``FastMCP`` after
  ``Error executing tool NAME: ``): a crash shows as the language runtime's
  own error text (``list index out of range``, ``Cannot read properties of
  undefined (reading 'x')``).

The low-level ``Server`` of mcp 2.x answers a crash with JSON-RPC error
-32603, already a violation for a valid input (``jsonrpc_error``).

A crash in a ``resources/read`` or ``prompts/get`` is always a JSON-RPC
error, so only its text tells it from a refusal (``read_crash``): ``MCPServer``
answers ``Error reading resource URI``, ``Error creating resource from
template URI`` or ``Error rendering prompt NAME``, nothing after (mcp 2.x
withholds the text of any other exception a handler raised: ``Internal server
error``); FastMCP 2.x ``Error reading resource 'URI'``
(``from template`` for a template's), ``Error creating resource from
template`` or ``Error rendering prompt 'NAME'``, each maybe followed by ``: ``
and the exception's text, and ``Error rendering prompt NAME.``; the others
the runtime's own text.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "MAX_EXAMINED_CHARS",
    "MAX_PARSED_CHARS",
    "WITHHELD_CRASH",
    "read_crash",
    "reads_as_error",
    "refusal_in_crash_words",
    "runtime_failure",
    "unhandled_exception",
]

MAX_EXAMINED_CHARS = 1000
"""Crash reports are short: a longer answer text is not one (nothing longer is matched)."""

MAX_PARSED_CHARS = 64 * 1024
"""A success's text is parsed as JSON, to look for an error in it, up to this many characters."""

_PYTHON_RUNTIME = re.compile(
    r"(?:float |integer )?division(?: or modulo)? by zero"
    r"|integer modulo by zero"
    r"|(?:list|string|tuple|bytearray|range object) index out of range"
    r"|(?:list|string|tuple) assignment index out of range"
    r"|pop from (?:an )?empty (?:list|deque|set)"
    r"|'NoneType' object (?:has no attribute '\w+'|is not (?:subscriptable|iterable|callable))"
    r"|unsupported operand type\(s\) for .{1,40}: '\w+' and '\w+'"
    r"|can only concatenate \w+ \(not \"\w+\"\) to \w+"
    r"|'\w+' object has no attribute '\w+'"
    r"|'\w+' object is not (?:subscriptable|iterable|callable)"
    r"|'\w+' codec can't (?:en|de)code (?:character|byte)s? .{1,200}"
    r"|maximum recursion depth exceeded.{0,60}"
    r"|max\(\) (?:arg|iterable argument) is an empty sequence"
    r"|min\(\) (?:arg|iterable argument) is an empty sequence"
    r"|math domain error"
    r"|invalid literal for int\(\) with base \d+: .{1,200}"
    r"|could not convert string to float: .{1,200}"
    r"|not enough values to unpack \(expected \d+, got \d+\)"
    r"|too many values to unpack \(expected \d+(?:, got \d+)?\)"
    r"|Expecting value: line \d+ column \d+ \(char \d+\)"
)
"""CPython's own texts for the errors a tool body raises by accident."""

_JAVASCRIPT_RUNTIME = re.compile(
    r"Cannot (?:read|set) propert(?:y|ies) of (?:undefined|null)(?: \(\w+ '[^']{0,100}'\))?"
    r"|Cannot destructure property '[^']{0,100}' of '[^']{0,200}' as it is (?:undefined|null)\."
    r"|Cannot convert undefined or null to object"
    r"|Cannot access '[\w$]+' before initialization"
    r"|[\w$.\[\]()]{1,200} is not (?:a function|iterable|a constructor)"
    r"|Maximum call stack size exceeded"
    r"|Invalid (?:array|string) length"
    r"|Invalid time value"
    r"|Invalid code point -?[\w.]{1,40}"
    r"|Invalid count value: -?[\w.]{1,40}"
    r"|Invalid typed array length: -?[\w.]{1,40}"
    r"|to(?:Fixed|Precision|String)\(\) (?:digits |radix )?argument must be between \d+ and \d+"
    r"|Invalid regular expression: .{1,300}"
    r"|[\w$]{1,100} is not defined"
    r"|Assignment to constant variable\."
    r"|Cannot mix BigInt and other types, use explicit conversions"
    r"|Do not know how to serialize a BigInt"
    r"|Converting circular structure to JSON[\s\S]{0,500}"
    r"|Reduce of empty array with no initial value"
    r"|Unexpected end of JSON input"
    r"|Unexpected token .{1,40} in JSON at position \d+"
    r"|.{1,200} is not valid JSON"
)
"""V8's own texts for the errors a tool body throws by accident (``error.message`` only)."""

_PYTHON_FAILURE = re.compile(
    r"Traceback \(most recent call last\):[\s\S]*"
    r"|'[^'\n]{0,200}'|\"[^\"\n]{0,200}\""  # a KeyError's text: the missing key's repr
    r"|\[Errno -?\d+\] .{1,300}"  # an OSError's
)
"""What else only an accident words so: a traceback, a ``KeyError``, an ``OSError``."""

_EXCEPTION_CLASS = re.compile(r"[A-Z]\w{0,60}(?:Error|Exception): ")
"""``ZeroDivisionError: `` before a message: the class a server named, not the message."""

_RUNTIMES = (
    ("a Python runtime error", _PYTHON_RUNTIME),
    ("a JavaScript runtime error", _JAVASCRIPT_RUNTIME),
)


def unhandled_exception(text: str, tool_name: str) -> str | None:
    """Whose report of an unhandled exception ``text`` is (an ``isError`` text), or ``None``.

    ``tool_name`` is the name the server lists the tool under. FastMCP words any
    exception but its ``ToolError`` as a crash, a ``raise ValueError("limit must be
    >= 1")`` too: only a message that reads as a runtime failure (or none, or one too
    long for a sentence) is a crash; the others are ``refusal_in_crash_words``.
    """
    fastmcp = f"Error calling tool {tool_name!r}"
    if text == fastmcp:  # its details masked
        return "FastMCP (an unhandled exception)"
    if text.startswith(fastmcp + ": "):
        message = text[len(fastmcp) + 2 :]
        if len(text) > MAX_EXAMINED_CHARS or runtime_failure(message, reported=True):
            return "FastMCP (an unhandled exception)"
        return None
    if len(text) > MAX_EXAMINED_CHARS:
        return None
    name = re.escape(tool_name)
    if re.fullmatch(rf"Error executing tool {name}(?:: Error executing tool \S+)*", text):
        return "the MCP Python SDK's MCPServer (an unhandled exception)"
    return runtime_failure(text.removeprefix(f"Error executing tool {tool_name}: "))


def refusal_in_crash_words(text: str, tool_name: str) -> str | None:
    """The message of an exception FastMCP (2.x, 3.x) reports in a crash's words though it
    reads as a deliberate refusal (``max_results must be an integer >= 1``), or ``None``."""
    fastmcp = f"Error calling tool {tool_name!r}: "
    if text.startswith(fastmcp) and unhandled_exception(text, tool_name) is None:
        return text[len(fastmcp) :]
    return None


def runtime_failure(message: str, *, reported: bool = False) -> str | None:
    """Which runtime's own words for an accident ``message`` is, or ``None``.

    ``reported``: the message is an exception's, as FastMCP reports any exception
    but its ``ToolError``: a traceback, a ``KeyError``'s or an ``OSError``'s text is
    then an accident too, where a tool's own error text may quote one on purpose.
    """
    if len(message) > MAX_EXAMINED_CHARS:
        return None
    unnamed = _EXCEPTION_CLASS.sub("", message, count=1) if _EXCEPTION_CLASS.match(message) else ""
    for runtime, pattern in _RUNTIMES:
        if pattern.fullmatch(message) or (unnamed and pattern.fullmatch(unnamed)):
            return runtime
    if reported and (_PYTHON_FAILURE.fullmatch(message) or _PYTHON_FAILURE.fullmatch(unnamed)):
        return "a Python runtime error"
    return None


WITHHELD_CRASH = "Internal server error"
"""The whole error text mcp 2.x answers for any exception a handler raised that is not an
``MCPError`` (the exception's own text stays in the server's log)."""


def read_crash(text: str, subject: str, *, prompt: bool, made_up: bool) -> str | None:
    """Whose report of an unhandled exception a read's or get's JSON-RPC error text is, or
    ``None``. ``subject`` is the URI read, or the prompt's name (``prompt``).

    For a request holding values ``check`` made up (``made_up``) only a runtime's own
    text counts, and for a read mcp 2.x's withheld one: ``MCPServer`` and FastMCP
    answer a typed parameter's refusal of a value in the words of a crash, and
    ``MCPServer`` has mcp 2.x withhold a prompt's refusal as it withholds a crash.
    """
    if prompt:
        mcpserver = [f"Error rendering prompt {subject}"]
        fastmcp = [f"Error rendering prompt {subject!r}"]
        fastmcp_whole = [f"Error rendering prompt {subject}."]
    else:
        mcpserver = [
            f"Error reading resource {subject}",
            f"Error creating resource from template {subject}",
        ]
        fastmcp = [
            f"Error reading resource {subject!r}",
            f"Error reading resource from template {subject!r}",
            "Error creating resource from template",
        ]
        fastmcp_whole = []
    message = text
    for shape in fastmcp:
        message = message.removeprefix(shape + ": ")
    runtime = runtime_failure(message)
    if runtime is not None:
        return runtime if message == text else "FastMCP (an unhandled exception)"
    if text == WITHHELD_CRASH and not (prompt and made_up):
        return "the MCP Python SDK 2.x (an unhandled exception, its text withheld)"
    if made_up:
        return None
    if text in mcpserver:
        return "the MCP Python SDK's MCPServer (an unhandled exception)"
    if text in fastmcp_whole or any(
        text == shape or text.startswith(shape + ": ") for shape in fastmcp
    ):
        return "FastMCP (an unhandled exception)"
    return None


_ERROR_PREFIX = re.compile(r"\s*(?:(?!no\b)[a-z]\w{0,30} ){0,2}error\s*:", re.IGNORECASE)
"""``Error:``, ``Database error:``, ``Parser Error:``: a refusal's first words."""


def reads_as_error(value: Any, tool_name: str) -> str | None:
    """Why a success's ``value`` reads as an error, or ``None``.

    ``{"success": false}``, a top-level ``error`` key that holds something (in
    structured content or a JSON text, also inside ``{"result": ...}``, the shape
    mcp 1.x and FastMCP give a returned dict), a text in a crash report's shape, or
    a text that opens with ``Error:`` or two words and ``error:`` (``Database
    error:``: a refusal a server forgot to flag isError).
    """
    if isinstance(value, dict) and len(value) == 1 and "result" in value:
        value = value["result"]  # the SDKs' and FastMCP's structured wrapping of a return value
    if isinstance(value, str):
        if unhandled_exception(value, tool_name) is not None:
            return "its text is an unhandled exception's report"
        if refusal_in_crash_words(value, tool_name) is not None:
            return "its text is an exception's report"
        if _ERROR_PREFIX.match(value):
            return 'its text opens with "Error:"'
        value = _parsed(value)
    if isinstance(value, dict):
        if value.get("success") is False:
            return '"success" is false'
        if value.get("error") not in (None, False, "", [], {}):
            return 'it has an "error"'
    return None


def _parsed(text: str) -> Any:
    """The JSON object ``text`` holds, if it is one and short enough to parse."""
    stripped = text.strip()
    if not stripped.startswith("{") or len(stripped) > MAX_PARSED_CHARS:
        return None
    try:
        return json.loads(stripped)
    except (ValueError, RecursionError):
        return None
