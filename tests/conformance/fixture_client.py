"""The conformance fixture client: a ``Toolset`` that does what each client scenario asks.

The official suite runs a client as ``COMMAND URL`` with the scenario's name in
``MCP_CONFORMANCE_SCENARIO``, its protocol revision in
``MCP_CONFORMANCE_PROTOCOL_VERSION`` and, for some, a JSON context in
``MCP_CONFORMANCE_CONTEXT``. ``python tests/conformance/fixture_client.py URL``
is such a client: it discovers the server's tools through a
``littleghost.mcp.Toolset`` under a run, calls them as a scenario asks, and
exits 0 when discovery and every call succeeded. Each call's outcome goes to
stdout, which the suite keeps with the scenario's results.

What it calls: the tools the context names (``toolCalls``), else every tool
discovery kept, with the arguments a scenario needs (``add_numbers`` adds 5
and 3; ``json_schema_echo`` gets back the schema littleghost kept for
``json_schema_2020_12_tool``) or the plainest ones its schema allows. Calling
every kept tool is what makes the catalog scenarios able to fail: a tool
littleghost should have left out would be called.

``--serve SOCKET`` imports once, warms up with one run against a local
``FakeMCPServer``, and forks one process per run instead, for
``.ci/conformance`` (see forkserver.py): a fresh interpreter spends about two
seconds of CPU importing the SDK and most of another on its first run, and the
suite starts every scenario at once.

With ``LITTLEGHOST_CONFORMANCE_OUTCOMES`` set, each run appends one JSON line
(revision, scenario, exit code) to that file, so the judge can tell a client
that failed from a scenario whose checks missed it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import anyio
import mcp
import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

import littleghost as lg
import littleghost.mcp
from littleghost.mcp import Toolset

SCENARIO_SECONDS = 50.0
"""How long one scenario's discovery or call may take; .ci/conformance gives a run 60 s."""

MAX_CONTEXT_BYTES = 64 * 1024
"""The largest ``MCP_CONFORMANCE_CONTEXT`` read; the suite's contexts are about 1 KiB."""

OUTCOMES_VARIABLE = "LITTLEGHOST_CONFORMANCE_OUTCOMES"
"""Names the file each run appends its outcome to, when set."""

PLAIN_VALUES: Mapping[str, Any] = {
    "string": "conformance",
    "integer": 1,
    "number": 1,
    "boolean": True,
    "array": [],
    "object": {},
    "null": None,
}
"""The value a required property of each JSON type gets when a scenario names none."""


class ConformanceTools(Toolset):
    """The server under test's tools; ``url`` and ``mode`` are set per run by ``toolset_for``."""

    url: ClassVar[str]
    mode: ClassVar[str]
    discovery_timeout: ClassVar[float] = SCENARIO_SECONDS
    call_timeout: ClassVar[float] = SCENARIO_SECONDS

    def client(self, binding: lg.Binding) -> mcp.Client:
        return littleghost.mcp.client(self.url, mode=self.mode)

    async def elicit(
        self, binding: lg.Binding, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        """Accept, with every default the requested schema offers (SEP-1034).

        A stand-in for a person who presses OK on a form filled with its defaults.
        """
        content: dict[str, Any] = {}
        if isinstance(params, types.ElicitRequestFormParams):
            properties = params.requested_schema.get("properties", {})
            content = {
                name: field["default"] for name, field in properties.items() if "default" in field
            }
        return types.ElicitResult(action="accept", content=content)


def toolset_for(url: str, protocol_version: str) -> type[ConformanceTools]:
    """A ``ConformanceTools`` for one server, on the wire of the revision the scenario runs at.

    Up to 2025-11-25 that is the ``initialize`` handshake (``mode="legacy"``);
    for 2026-07-28 it is the SDK's default ``auto``, which probes with
    ``server/discover`` and retries at a version the server names, as a
    user's client would.
    """
    mode = "auto" if protocol_version in MODERN_PROTOCOL_VERSIONS else "legacy"
    return type("ConformanceTools", (ConformanceTools,), {"url": url, "mode": mode})


def plain_arguments(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The plainest input ``schema`` allows: each required property, at its default or type."""
    properties: Mapping[str, Any] = schema.get("properties", {})
    arguments: dict[str, Any] = {}
    for name in schema.get("required", []):
        field: Mapping[str, Any] = properties.get(name, {})
        if "default" in field:
            arguments[name] = field["default"]
        elif "const" in field:
            arguments[name] = field["const"]
        elif field.get("enum"):
            arguments[name] = field["enum"][0]
        else:
            kind = field.get("type", "string")
            arguments[name] = PLAIN_VALUES.get(kind if isinstance(kind, str) else kind[0])
    return arguments


def planned_calls(
    scenario: str, catalog: Mapping[str, type[lg.Tool]], context: Mapping[str, Any]
) -> list[tuple[str, dict[str, Any]]]:
    """The (server tool name, arguments) calls a scenario asks for, in order."""
    named = context.get("toolCalls")
    if isinstance(named, list):
        # An argument given as null is left out: littleghost validates input, and
        # null is not a value of an optional boolean; left out, it is "not provided".
        return [
            (
                call["name"],
                {k: v for k, v in (call.get("arguments") or {}).items() if v is not None},
            )
            for call in named
        ]
    if scenario == "tools_call":
        return [("add_numbers", {"a": 5, "b": 3})]
    if scenario == "json-schema-2020-12-preservation":
        kept = catalog["json_schema_2020_12_tool"].input_schema
        return [("json_schema_echo", {"schema": kept})]
    return [(name, plain_arguments(tool.input_schema)) for name, tool in catalog.items()]


async def run_scenario(
    scenario: str, url: str, protocol_version: str, context: Mapping[str, Any]
) -> int:
    """Discover, make the scenario's calls, print each outcome; 0 when everything succeeded."""
    toolset = toolset_for(url, protocol_version)
    async with lg.Run() as run:
        binding = lg.Binding(run=run)
        classes = await toolset.tools(binding)
        catalog = {tool.mcp_tool.name: tool for tool in classes}  # pyright: ignore[reportAttributeAccessIssue]
        print(f"discovered: {', '.join(catalog) or 'no tools'}", flush=True)
        failed = 0
        for name, arguments in planned_calls(scenario, catalog, context):
            if name not in catalog:
                print(f"{name}: not in the catalog", flush=True)
                failed += 1
                continue
            result = await catalog[name](binding).execute(arguments, context=run.context)
            print(f"{name}: {result.status}: {result.content[:500]}", flush=True)
            failed += result.is_error
    return 1 if failed else 0


def warm_up() -> None:
    """One ``tools_call`` run over HTTP, so the SDK's lazily built parts exist before a fork."""
    from littleghost_testing.fake_server import FakeMCPServer

    server = FakeMCPServer("warm-up")

    @server.tool(description="Add two numbers together.")
    def add_numbers(a: float, b: float) -> float:  # pyright: ignore[reportUnusedFunction]
        return a + b

    try:
        with contextlib.redirect_stdout(sys.stderr):  # stdout says "ready", and only that
            code = anyio.run(run_scenario, "tools_call", server.url, "2025-11-25", {})
    finally:
        server.close()
    if code:
        raise RuntimeError("the fixture client's warm-up run failed")


def _context() -> dict[str, Any]:
    text = os.environ.get("MCP_CONFORMANCE_CONTEXT", "")
    if len(text) > MAX_CONTEXT_BYTES:
        raise ValueError(f"MCP_CONFORMANCE_CONTEXT is past {MAX_CONTEXT_BYTES} bytes")
    return json.loads(text) if text else {}


def main(argv: list[str]) -> int:
    """Run the scenario the environment names against ``argv[-1]``; record the outcome."""
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    revision = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "2025-11-25")
    if not argv or not scenario:
        print("usage: MCP_CONFORMANCE_SCENARIO=NAME fixture_client.py URL", file=sys.stderr)
        return 2
    try:
        code = anyio.run(run_scenario, scenario, argv[-1], revision, _context())
    except Exception as error:  # the client's failure is the outcome, reported on stderr
        print(f"{scenario}: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
        code = 1
    outcomes = os.environ.get(OUTCOMES_VARIABLE)
    if outcomes:
        line = json.dumps({"revision": revision, "scenario": scenario, "exit": code})
        with Path(outcomes).open("a") as file:  # one short append: atomic beside the others
            file.write(line + "\n")
    return code


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        from forkserver import serve

        serve(sys.argv[2], main, warm_up)
    else:
        sys.exit(main(sys.argv[1:]))
