"""The conformance fixture client does what the suite's client scenarios ask, checked without Node.

``.ci/conformance`` runs the official suite's client scenarios against it; these
tests run the same scenarios' plans against local ``FakeMCPServer``s over
Streamable HTTP, on both wires, and check the forkserver that runs it in CI.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from fixture_client import main, plain_arguments, planned_calls, run_scenario
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

from littleghost_testing.fake_server import Call, FakeMCPServer

HERE = Path(__file__).parent
WIRES = ["2025-11-25", "2026-07-28"]

SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object"}},
    "properties": {"address": {"$ref": "#/$defs/address"}, "phone": {"type": "string"}},
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["address"]}]}],
    "if": {"required": ["phone"]},
    "then": {"properties": {"phone": {"minLength": 3}}},
    "else": {"required": ["address"]},
    "additionalProperties": False,
}


def adder() -> FakeMCPServer:
    server = FakeMCPServer("adder")

    @server.tool(description="Add two numbers together.")
    def add_numbers(a: float, b: float) -> float:  # pyright: ignore[reportUnusedFunction]
        return a + b

    return server


@pytest.mark.anyio
@pytest.mark.parametrize("wire", WIRES)
async def test_tools_call_adds_five_and_three(wire: str) -> None:
    async with adder() as server:
        assert await run_scenario("tools_call", server.url, wire, {}) == 0
        assert server.calls == [Call("add_numbers", {"a": 5, "b": 3})]


class Profile(BaseModel):
    name: str = Field(default="John Doe")
    age: int = 30
    verified: bool = True


@pytest.mark.anyio
async def test_elicitation_is_accepted_with_the_schemas_defaults() -> None:
    answers: list[Any] = []
    server = FakeMCPServer("asking")

    @server.tool(description="Asks for a profile whose every field has a default.")
    async def ask(ctx: Context) -> str:  # pyright: ignore[reportUnusedFunction]
        answer = await ctx.elicit("Please provide user information", Profile)
        answers.append((answer.action, answer.data if answer.action == "accept" else None))
        return answer.action

    async with server:
        # The server asks mid-call on the handshake wire.
        assert (
            await run_scenario("elicitation-sep1034-client-defaults", server.url, WIRES[0], {}) == 0
        )
    assert answers == [("accept", Profile())]


@pytest.mark.anyio
@pytest.mark.parametrize("wire", WIRES)
async def test_the_listed_schema_is_echoed_unchanged(wire: str) -> None:
    echoed: list[dict[str, Any]] = []
    server = FakeMCPServer("schemas")

    @server.tool(description="Has a rich schema.", input_schema=SCHEMA_2020_12)
    def json_schema_2020_12_tool(**arguments: Any) -> str:  # pyright: ignore[reportUnusedFunction]
        return "ok"

    @server.tool(description="Echoes a schema.")
    def json_schema_echo(schema: dict[str, Any]) -> str:  # pyright: ignore[reportUnusedFunction]
        echoed.append(schema)
        return "echoed"

    async with server:
        assert await run_scenario("json-schema-2020-12-preservation", server.url, wire, {}) == 0
    assert echoed == [SCHEMA_2020_12]


@pytest.mark.anyio
async def test_an_unusable_tool_is_left_out_and_every_other_one_called() -> None:
    server = adder()

    @server.tool(
        description="Its schema points at the network.",
        input_schema={"type": "object", "properties": {"p": {"$ref": "http://127.0.0.1:9/s.json"}}},
    )
    def lookup_user(**arguments: Any) -> str:  # pyright: ignore[reportUnusedFunction]
        return "never called"

    async with server:
        assert await run_scenario("json-schema-ref-no-deref", server.url, WIRES[1], {}) == 0
        # Called with the plainest arguments its schema allows; lookup_user never.
        assert server.calls == [Call("add_numbers", {"a": 1, "b": 1})]


@pytest.mark.anyio
async def test_a_failed_call_fails_the_run() -> None:
    server = FakeMCPServer("failing")

    @server.tool(description="Always fails.")
    def broken() -> str:  # pyright: ignore[reportUnusedFunction]
        raise ToolError("broken on purpose")

    async with server:
        assert await run_scenario("initialize", server.url, WIRES[0], {}) == 1


def test_context_tool_calls_are_made_as_given_with_nulls_left_out() -> None:
    context = {"toolCalls": [{"name": "t", "arguments": {"region": "us", "verbose": None}}]}
    assert planned_calls("http-custom-headers", {}, context) == [("t", {"region": "us"})]


def test_plain_arguments_fill_each_required_property() -> None:
    schema = {
        "type": "object",
        "properties": {
            "s": {"type": "string"},
            "n": {"type": ["integer", "null"]},
            "e": {"enum": ["x", "y"]},
            "d": {"type": "string", "default": "given"},
            "optional": {"type": "string"},
        },
        "required": ["s", "n", "e", "d"],
    }
    assert plain_arguments(schema) == {"s": "conformance", "n": 1, "e": "x", "d": "given"}


def test_main_records_a_failed_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outcomes = tmp_path / "outcomes.jsonl"
    monkeypatch.setenv("LITTLEGHOST_CONFORMANCE_OUTCOMES", str(outcomes))
    monkeypatch.setenv("MCP_CONFORMANCE_SCENARIO", "initialize")
    monkeypatch.setenv("MCP_CONFORMANCE_PROTOCOL_VERSION", "2025-11-25")
    assert main(["http://127.0.0.1:9/mcp"]) == 1  # nothing listens on port 9
    line = {"revision": "2025-11-25", "scenario": "initialize", "exit": 1}
    assert [json.loads(text) for text in outcomes.read_text().splitlines()] == [line]


def test_main_needs_a_scenario_and_a_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCP_CONFORMANCE_SCENARIO", raising=False)
    assert main(["http://127.0.0.1:9/mcp"]) == 2


SERVE = textwrap.dedent(
    """
    import os, sys, threading, time
    sys.path.insert(0, sys.argv[2])
    from forkserver import serve

    def main(argv):
        print("ran", os.getpid() != PARENT, os.environ["MCP_CONFORMANCE_SCENARIO"], *argv)
        if argv[-1] == "sleep":
            time.sleep(60)
        return int(argv[-1]) if argv[-1].isdigit() else 0

    def warm_up():  # like an event loop's worker, a thread that ends soon after
        threading.Thread(target=time.sleep, args=(0.2,)).start()

    PARENT = os.getpid()
    serve(sys.argv[1], main, warm_up)
    """
)


@pytest.mark.parametrize("stop", ["stdin", "sigterm"])
def test_the_forkserver_runs_each_request_in_a_child_with_the_stubs_streams(
    tmp_path: Path, stop: str
) -> None:
    path = str(tmp_path / "client.sock")
    server = subprocess.Popen(
        [sys.executable, "-c", SERVE, path, str(HERE)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        assert server.stdout.readline() == "ready\n"
        stub = [sys.executable, "-I", "-S", str(HERE / "client_stub.py"), path]
        environment = {"MCP_CONFORMANCE_SCENARIO": "tools_call", "UNRELATED": "x"}
        ran = subprocess.run(
            [*stub, "http://x", "3"], env=environment, capture_output=True, text=True, timeout=30
        )
        assert (ran.returncode, ran.stdout) == (3, "ran True tools_call http://x 3\n")
        sleeping = subprocess.Popen([*stub, "sleep"], env=environment, stdout=subprocess.PIPE)
        assert sleeping.stdout is not None and sleeping.stdout.readline().startswith(b"ran")
    finally:
        # Either way the server stops, killing the child that still sleeps.
        if stop == "sigterm":
            server.terminate()
        server.stdin.close()
        assert server.wait(timeout=30) == (0 if stop == "stdin" else 128 + signal.SIGTERM)
    assert sleeping.wait(timeout=30) == 1  # its run ended without sending a code
    assert not Path(path).exists()
