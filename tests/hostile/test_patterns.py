"""ECMA-262 patterns the linear-time engine cannot run (issue 7, item 10).

Lookaround and backreferences run on a backtracking engine with a time budget
per match (``Tool.regex_timeout``); a match past it is an invalid-input result
naming the pattern. One such tool no longer breaks an MCP server's catalog.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import anyio
import mcp
import pytest
from mcp.server.mcpserver import MCPServer
from pydantic import Field

import littleghost as lg
from littleghost._validation import MAX_PATTERN_REPETITIONS
from littleghost._validation._regex_syntax import pattern_size
from littleghost.mcp import Toolset
from littleghost_testing import ResourceSnapshot

from .released import released
from .sandbox import run_limited

pytestmark = pytest.mark.anyio
__all__ = ["released"]  # autouse: no test leaves a process, socket or thread

PASSWORD = r"^(?=.*\d)(?=.*[a-z])[a-z0-9]{8,}$"
# Catastrophic for a backtracking engine: (a|a)* explores 2**n paths before the
# lookahead at the end fails.
EVIL = r"^(a|a)*(?=b)$"


class Password(lg.Tool):
    description = "Sets a password."
    input_schema = {
        "type": "object",
        "properties": {"password": {"type": "string", "pattern": PASSWORD}},
        "required": ["password"],
    }

    def call(self, input: Any) -> Any:
        return "set"


class Evil(lg.Tool):
    description = "Takes a string under a catastrophic pattern."
    input_schema = {"type": "object", "properties": {"text": {"type": "string", "pattern": EVIL}}}
    regex_timeout = 0.05

    def call(self, input: Any) -> Any:
        return "matched"


async def test_a_lookahead_pattern_is_enforced() -> None:
    tool = Password()
    assert (await tool.execute({"password": "hunter22"})).content == "set"
    result = await tool.execute({"password": "hunterxx"})
    assert result.content == f"Invalid tool input: $.password must match pattern /{PASSWORD}/"


async def test_a_match_past_the_budget_is_an_invalid_input_result_naming_the_pattern() -> None:
    started = time.monotonic()
    result = await Evil().execute({"text": "a" * 100_000})
    elapsed = time.monotonic() - started
    assert result.content == (
        f"Invalid tool input: $.text took too long to match pattern /{EVIL}/ (regex_timeout)"
    )
    assert elapsed < 2  # two matches (the check, then the report) of 0.05 s each, under load


def test_regex_timeout_must_be_a_positive_number() -> None:
    for bad in (0, -1.0, "fast", True):
        with pytest.raises(lg.ConfigurationError, match="regex_timeout"):
            type("Bad", (Evil,), {"regex_timeout": bad})


def test_invalid_ecma_patterns_still_fail_class_creation() -> None:
    for pattern in ("(?<=a", "a{2,1}", "\\k<nope>"):
        with pytest.raises(lg.ConfigurationError, match="'pattern'"):
            type("Bad", (lg.Tool,), {"description": "d", "input_schema": {"pattern": pattern}})


server = MCPServer("accounts")


@server.tool(description="Create an account.")
def create_account(
    name: str, password: Annotated[str, Field(json_schema_extra={"pattern": PASSWORD})]
) -> str:
    return f"created {name}"


@server.tool(description="Look an account up.")
def lookup(name: str) -> str:
    return f"found {name}"


class AccountTools(Toolset):
    def client(self, binding: lg.Binding) -> mcp.Client:
        return mcp.Client(server)


async def test_an_mcp_tool_with_a_lookahead_pattern_is_discovered_and_enforced(
    lg_leaks: Callable[..., ResourceSnapshot],
) -> None:
    snapshot = lg_leaks()
    with anyio.fail_after(15):
        async with lg.Run() as run:
            binding = lg.Binding(run=run)
            async with lg.ToolRegistry([AccountTools], binding=binding) as registry:
                assert sorted(registry.names) == ["create_account", "lookup"]
                schema = registry["create_account"].input_schema
                assert schema["properties"]["password"]["pattern"] == PASSWORD
                ok = await registry.call("create_account", {"name": "ann", "password": "s3cretpw"})
                assert ok.value == {"result": "created ann"}
                weak = await registry.call(
                    "create_account", {"name": "ann", "password": "secretpw"}
                )
                assert weak.content == (
                    f"Invalid tool input: $.password must match pattern /{PASSWORD}/"
                )
                assert (await registry.call("lookup", {"name": "ann"})).is_success
    await snapshot.assert_released()


# -- patterns measured before any engine compiles them (issue 19, point 1) ---------------

# 14 bytes that took gigabytes on the backtracking engine; and nesting that multiplies.
HUGE = ("^a{100000000}$", "^(a{10000}){1000}$")
# Where a pattern hides in a schema: every place is compiled, used or not.
PLACES = {
    "pattern": lambda p: {"type": "string", "pattern": p},
    "propertyNames": lambda p: {"type": "object", "propertyNames": {"pattern": p}},
    "unused $defs": lambda p: {"$defs": {"unused": {"pattern": p}}, "type": "string"},
    "patternProperties": lambda p: {"type": "object", "patternProperties": {p: {}}},
}

_LIMITED = """
import json, sys, anyio
import littleghost as lg
from littleghost.mcp import Toolset
from littleghost_testing.fake_server import FakeMCPServer
from littleghost_testing.strategies import SchemaError, from_schema

def say(case, place, error):
    print(case, place, type(error).__name__, str(error).replace("\\n", " "))

async def refused(case, schema):
    try:
        type("Huge", (lg.Tool,), {"description": "d", "input_schema": schema})
    except lg.ConfigurationError as error:
        say(case, "class", error)
    try:
        from_schema(schema)
    except SchemaError as error:
        say(case, "strategy", error)
    server = FakeMCPServer("huge")

    @server.tool(description="d", input_schema={"type": "object", "properties": {"x": schema}})
    def fine(x: str) -> str:
        return x

    class Huge(Toolset):
        strict = True  # else the tool is left out, and discovery raises nothing

        def client(self, binding):
            return server.client()

    class Optional(Huge):
        optional = True

    async with lg.Run() as run:
        try:
            await Huge.tools(lg.Binding(run=run))
        except lg.ProtocolError as error:
            say(case, "discovery", error)
        print(case, "optional", len(await Optional.tools(lg.Binding(run=run))))

async def main():
    for case, schema in enumerate(json.loads(sys.argv[1])):
        await refused(case, schema)

anyio.run(main)
"""


def test_a_huge_pattern_is_refused_everywhere_under_a_memory_cap() -> None:
    cases = [(place, pattern) for place in sorted(PLACES) for pattern in HUGE]
    schemas = json.dumps([PLACES[place](pattern) for place, pattern in cases])
    done = run_limited(
        f"import sys\nsys.argv[1:] = [{schemas!r}]\n" + _LIMITED, memory_mb=1024, seconds=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert [line.split()[:3] for line in lines] == [
        [str(case), *outcome]
        for case in range(len(cases))
        for outcome in (
            ["class", "ConfigurationError"],
            ["strategy", "SchemaError"],
            ["discovery", "InvalidSchema"],  # a MalformedMessage, a ProtocolError
            ["optional", "0"],
        )
    ]
    for case, (place, _) in enumerate(cases):
        keyword = "patternProperties" if place == "patternProperties" else "pattern"
        reported = lines[4 * case : 4 * case + 3]
        assert all("(MAX_PATTERN_REPETITIONS)" in line for line in reported), reported
        assert all(f"more than {MAX_PATTERN_REPETITIONS:,} atoms" in line for line in reported)
        assert f"keyword {keyword!r}" in reported[0]


def test_littleghost_check_names_a_huge_pattern_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "huge_pattern_server.py").write_text(
        "from littleghost_testing.fake_server import FakeMCPServer\n"
        "server = FakeMCPServer('huge')\n"
        "@server.tool(description='Takes a code.', input_schema={'type': 'object', "
        f"'properties': {{'code': {{'type': 'string', 'pattern': {HUGE[0]!r}}}}}}})\n"
        "def lookup(code: str) -> str:\n"
        "    return code\n"
    )
    code = f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from littleghost_testing.cli import main
        print("EXIT", main(["check", "huge_pattern_server:server", "--examples", "2"]))
    """
    done = run_limited(code, memory_mb=1024, seconds=120)
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "EXIT 1", done.stdout + done.stderr  # a violation
    named = [line for line in done.stdout.splitlines() if "MAX_PATTERN_REPETITIONS" in line]
    assert len(named) == 1, done.stdout
    assert named[0].startswith("(tools/list): malformed_catalog (violation): ")


def test_a_pattern_at_the_limit_still_compiles() -> None:
    for pattern in ("^a{99998}$", "^(a{1000}){99}$", "^.{0,65535}$"):
        type("Large", (lg.Tool,), {"description": "d", "input_schema": {"pattern": pattern}})
    assert pattern_size("(a{1000}){100}") == MAX_PATTERN_REPETITIONS


# -- patterns outside ECMA-262 (issue 17, point 5) -----------------------------------------

NOT_ECMA = {
    "^(?P<id>[0-9]+)$": "the group syntax '(?P<'",
    "(?i)^abc$": "the group syntax '(?i)'",
    "^(?#note)a$": "the group syntax '(?#n'",
    "^(?>a+)b$": "the group syntax '(?>a'",
    "\\Aabc\\Z": "the escape '\\A'",
    "^abc\\z": "the escape '\\z'",
    "^a++$": "the quantifier '+' follows another",
    "^a{2}{3}$": "the quantifier '{3}' follows another",
    "^[[:alpha:]]+$": "the POSIX class syntax '[:'",
    "*abc": "the quantifier '*' repeats nothing",
}


@pytest.mark.parametrize("pattern", sorted(NOT_ECMA))
def test_a_pattern_outside_ecma_262_fails_class_creation_naming_it(pattern: str) -> None:
    schema = {"type": "object", "properties": {"id": {"type": "string", "pattern": pattern}}}
    with pytest.raises(lg.ConfigurationError) as raised:
        type("Python", (lg.Tool,), {"description": "d", "input_schema": schema})
    message = str(raised.value)
    assert "keyword 'pattern' at properties.id.pattern" in message
    assert "is not ECMA-262" in message
    assert NOT_ECMA[pattern] in message


@pytest.mark.parametrize(
    "pattern",
    ["^(?<year>\\d{4})-\\k<year>$", "^(?i:abc)$", "^\\p{L}+$", "^[\\]\\[]+$", "^a{2,}?b*?$"],
)
def test_ecma_262_patterns_stay_accepted(pattern: str) -> None:
    type("Ecma", (lg.Tool,), {"description": "d", "input_schema": {"pattern": pattern}})


named_group = MCPServer("named")


@named_group.tool(description="Looks an order up.")
def order(order_id: Annotated[str, Field(pattern="^(?P<id>[0-9]+)$")]) -> str:
    return order_id


class NamedGroupTools(Toolset):
    def client(self, binding: lg.Binding) -> mcp.Client:
        return mcp.Client(named_group)


class StrictNamedGroupTools(NamedGroupTools):
    strict = True


async def test_a_python_named_group_fails_discovery_naming_the_tool_and_pattern(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with anyio.fail_after(15):
        async with lg.Run() as run:
            with pytest.raises(lg.ProtocolError) as raised:
                await StrictNamedGroupTools.tools(lg.Binding(run=run))
            with caplog.at_level(logging.WARNING, logger="littleghost.mcp"):
                assert await NamedGroupTools.tools(lg.Binding(run=run)) == []  # left out
    message = str(raised.value)
    [warning] = [record for record in caplog.records if record.name == "littleghost.mcp"]
    assert message in warning.getMessage()
    assert "MCP tool 'order' has an invalid inputSchema" in message
    assert "'^(?P<id>[0-9]+)$' is not ECMA-262: the group syntax '(?P<'" in message
