"""While a tool is fuzzed, its call thread gets the interpreter lock promptly; then as before."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator

import mcp
import pytest
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from servers.engine_harness import connected

from littleghost_testing._engine import FuzzOptions
from littleghost_testing._engine._handoff import SWITCH_INTERVAL, prompt_handoffs


def approx(seconds: float) -> object:
    """CPython keeps the interval in whole microseconds."""
    return pytest.approx(seconds, abs=2e-6)


@pytest.fixture
def interval() -> Iterator[float]:
    """The default interval for the test, whatever the process had."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)
    yield 0.005
    sys.setswitchinterval(before)


def test_the_interval_is_short_within_and_restored_by_the_last_to_leave(interval: float) -> None:
    with prompt_handoffs():
        assert sys.getswitchinterval() == approx(SWITCH_INTERVAL)
        with prompt_handoffs():
            assert sys.getswitchinterval() == approx(SWITCH_INTERVAL)
        assert sys.getswitchinterval() == approx(SWITCH_INTERVAL)
    assert sys.getswitchinterval() == approx(interval)


def test_concurrent_users_share_it_and_a_shorter_interval_is_kept(interval: float) -> None:
    inside, leave = threading.Event(), threading.Event()

    def worker() -> None:
        with prompt_handoffs():
            inside.set()
            leave.wait(5)

    thread = threading.Thread(target=worker)
    thread.start()
    assert inside.wait(5)
    with prompt_handoffs():
        pass  # leaving first: the worker still runs with the short interval
    assert sys.getswitchinterval() == approx(SWITCH_INTERVAL)
    leave.set()
    thread.join(5)
    assert sys.getswitchinterval() == approx(interval)

    sys.setswitchinterval(SWITCH_INTERVAL / 2)
    with prompt_handoffs():
        assert sys.getswitchinterval() == approx(SWITCH_INTERVAL / 2)


def test_calls_made_while_fuzzing_run_with_the_short_interval(
    anyio_backend: str, interval: float
) -> None:
    seen: list[float] = []
    server = MCPServer("handoff")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def echo(text: str) -> str:
        seen.append(sys.getswitchinterval())
        return text

    with connected(anyio_backend, lambda: mcp.Client(server)) as engine:
        report = engine.fuzz("echo", FuzzOptions(examples=3, timeout=10.0))
    assert report.calls and seen
    assert max(seen) == approx(SWITCH_INTERVAL)
    assert sys.getswitchinterval() == approx(interval)
