"""The pytest plugin: fixtures for testing littleghost tools.

Registered through the ``pytest11`` entry point, so it is active as soon as
``littleghost[testing]`` is installed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest

import littleghost as lg
from littleghost.instrumentation import Event

from .leaks import ResourceSnapshot
from .scripted_model import ScriptedModel, Step

if TYPE_CHECKING:  # imported lazily: the MCP server stack is heavy for suites that don't use it
    from .fake_server import FakeMCPServer

# Agent testing (lg_runs, the model request guard, the allow_model_requests marker).
pytest_plugins = ["littleghost_testing.agent_fixtures"]

__all__ = [
    "fake_mcp_server",
    "lg_events",
    "lg_leaks",
    "run_context",
    "scripted_model",
    "tool_binding",
]


@pytest.fixture
def run_context() -> lg.RunContext:
    """A fresh RunContext: empty state, an active token, no deadline."""
    return lg.RunContext()


@pytest.fixture
def tool_binding(run_context: lg.RunContext) -> Iterator[lg.Binding]:
    """A Binding whose run (with no actor and an empty invocation context) uses ``run_context``.

    A resource registered on the run (an MCP connection, say) must be closed
    by the test, on its own event loop: ``async with tool_binding.run: ...``.
    Teardown fails, naming them, if any are still open.
    """
    run = lg.Run(context=run_context)
    yield lg.Binding(run=run)
    if run.resources:
        pytest.fail(
            f"tool_binding's run still owns {len(run.resources)} open resource(s) "
            f"{list(run.resources)!r}: close the run in the test (`async with tool_binding.run:`)",
            pytrace=False,
        )


@pytest.fixture
def lg_events() -> Iterator[list[Event]]:
    """Every instrumentation event emitted during the test, in order."""
    events: list[Event] = []
    with lg.instrumentation.subscribe(events.append):
        yield events


@pytest.fixture
def lg_leaks() -> Callable[..., ResourceSnapshot]:
    """``ResourceSnapshot.take``: call it on the test's event loop, then ``assert_released()``."""
    return ResourceSnapshot.take


@pytest.fixture
def scripted_model() -> Callable[..., ScriptedModel]:
    """Build a ScriptedModel: ``model = scripted_model(ModelResponse(...), "final text")``."""

    def build(*steps: Step) -> ScriptedModel:
        return ScriptedModel(*steps)

    return build


@pytest.fixture
def fake_mcp_server() -> Iterator[Callable[..., FakeMCPServer]]:
    """Build FakeMCPServers: ``server = fake_mcp_server("help-center")``; all closed at teardown."""
    from .fake_server import FakeMCPServer

    servers: list[FakeMCPServer] = []

    def build(name: str = "fake") -> FakeMCPServer:
        server = FakeMCPServer(name)
        servers.append(server)
        return server

    yield build
    for server in servers:
        server.close()
