"""The pytest plugin: fixtures for testing littleghost tools.

Registered through the ``pytest11`` entry point, so it is active as soon as
``littleghost[testing]`` is installed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

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
    "fake_mcp_server_factory",
    "lg_events",
    "lg_leaks",
    "run_context",
    "scripted_model",
    "tool_binding",
]


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Close the connections ``from_target(...).parametrize()`` opened in this process."""
    fuzzing = sys.modules.get("littleghost_testing._server_fuzzing")
    if fuzzing is not None:
        fuzzing.close_all()


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> None:
    """Fail the item of a ``from_target`` server that could not be reached, with the reason.

    Whatever the test does with ``case``: only this item fails, the session runs on.
    """
    fuzzing = sys.modules.get("littleghost_testing._server_fuzzing")
    callspec = getattr(pyfuncitem, "callspec", None)
    if fuzzing is None or callspec is None:
        return
    case = callspec.params.get("case")
    if isinstance(case, fuzzing.UnreachableCase):
        pytest.fail(case.reason, pytrace=False)


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
def scripted_model() -> Iterator[Callable[..., ScriptedModel]]:
    """Build a ScriptedModel: ``model = scripted_model(ModelResponse(...), "final text")``.

    Teardown fails the test if a model still has scripted steps left, unless
    it was built with ``allow_unused=True``.
    """
    models: list[ScriptedModel] = []

    def build(*steps: Step, allow_unused: bool = False) -> ScriptedModel:
        model = ScriptedModel(*steps, allow_unused=allow_unused)
        models.append(model)
        return model

    yield build
    problems = [problem for model in models if (problem := model.unused()) is not None]
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture
def fake_mcp_server_factory() -> Iterator[Callable[..., FakeMCPServer]]:
    """Build FakeMCPServers: ``server = fake_mcp_server_factory("help-center")``.

    Each is closed at teardown, which then fails the test if a client
    session it served was left open.
    """
    from .fake_server import FakeMCPServer

    servers: list[FakeMCPServer] = []

    def build(name: str = "fake", **options: Any) -> FakeMCPServer:
        server = FakeMCPServer(name, **options)
        servers.append(server)
        return server

    yield build
    for server in servers:
        server.close()
    left_open = [
        f"{server.name!r} ({server.sessions_opened - server.sessions_closed} of "
        f"{server.sessions_opened})"
        for server in servers
        if server.sessions_opened != server.sessions_closed
    ]
    if left_open:
        pytest.fail(
            f"client sessions still open at teardown: {', '.join(left_open)}; "
            "close every client (`async with server.client() as client:`)",
            pytrace=False,
        )


@pytest.fixture
def fake_mcp_server(
    fake_mcp_server_factory: Callable[..., FakeMCPServer],
) -> FakeMCPServer:
    """A ready ``FakeMCPServer`` named ``"fake"``: declare tools on it, then connect.

    Closed and checked at teardown like every server ``fake_mcp_server_factory`` builds.
    """
    return fake_mcp_server_factory("fake")
