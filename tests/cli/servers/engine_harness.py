"""Driving the fuzzing engine as its callers do: a blocking portal and a Toolset's tools."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp.client.stdio import StdioServerParameters

import littleghost as lg
from littleghost.mcp import Toolset
from littleghost_testing._engine import (
    FuzzOptions,
    PlannedTool,
    ToolReport,
    TransportFaults,
    fuzz_tool,
    plan,
)
from littleghost_testing.leaks import ResourceSnapshot

RAW_SERVER = Path(__file__).with_name("engine_raw.py")


@dataclass
class Engine:
    """A connected server: its tools, planned with ``options``, ready for ``fuzz_tool``."""

    portal: BlockingPortal
    tools: list[lg.Tool]
    faults: TransportFaults

    def plan(self, options: FuzzOptions) -> dict[str, PlannedTool]:
        return {planned.name: planned for planned in plan(self.tools, options)}

    def fuzz(self, name: str, options: FuzzOptions, **keywords: Any) -> ToolReport:
        return fuzz_tool(
            self.portal, self.plan(options)[name], options, faults=self.faults, **keywords
        )


@contextmanager
def connected(backend: str, client: Callable[[], mcp.Client]) -> Iterator[Engine]:
    """Discover the server's tools on ``backend``; afterwards nothing it started is left."""
    snapshot = ResourceSnapshot.take()
    faults = TransportFaults()

    class Checked(Toolset):
        def client(self, binding: lg.Binding) -> mcp.Client:
            return faults.attach(client())

    with start_blocking_portal(backend) as portal:
        run = lg.Run()
        binding = lg.Binding(run=run)
        try:
            classes = portal.call(Checked.tools, binding)
            yield Engine(portal, [tool_class(binding) for tool_class in classes], faults)
        finally:
            portal.call(run.aclose)
    released(snapshot)


def released(snapshot: ResourceSnapshot, within: float = 5.0) -> None:
    """``assert_released`` without an event loop (a new loop would hold sockets of its own)."""
    deadline = time.monotonic() + within
    while left := snapshot.leftovers():
        assert time.monotonic() < deadline, f"still held after {within} s: {left}"
        time.sleep(0.02)


def raw_client(records: Path) -> Callable[[], mcp.Client]:
    """A fresh client for a new ``engine_raw.py`` process recording into ``records``."""
    parameters = StdioServerParameters(command=sys.executable, args=[str(RAW_SERVER), str(records)])
    return lambda: mcp.Client(parameters, mode="legacy")


def recorded(records: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every ``tools/call`` the raw server received: ``(tool, arguments)``."""
    if not records.exists():
        return []
    lines = records.read_text().splitlines()
    return [(entry["tool"], entry["arguments"]) for entry in map(json.loads, lines)]
