"""ECMA-262 patterns the linear-time engine cannot run (issue 7, item 10).

Lookaround and backreferences run on a backtracking engine with a time budget
per match (``Tool.regex_timeout``); a match past it is an invalid-input result
naming the pattern. One such tool no longer breaks an MCP server's catalog.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated, Any

import anyio
import mcp
import pytest
from mcp.server.mcpserver import MCPServer
from pydantic import Field

import littleghost as lg
from littleghost.mcp import Toolset
from littleghost_testing import ResourceSnapshot

from .released import released

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
