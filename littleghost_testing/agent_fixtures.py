"""Pytest fixtures and hooks for testing agents: ``lg_runs`` and the model request guard.

Loaded by the kit's plugin (``littleghost_testing.plugin`` lists it in
``pytest_plugins``). During every test the guard is closed, so a real model
provider raises ``ModelRequestsBlockedError``; ``@pytest.mark.allow_model_requests``
opens it for one test.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

import littleghost as lg
from littleghost import watch_runs
from littleghost.models import allow_model_requests

__all__ = ["RecordedRun", "RunLog", "lg_runs"]

# One transcript line quotes at most this much of a message or of arguments.
TRANSCRIPT_LINE_CHARS = 500
_RUN_LOG = pytest.StashKey["RunLog"]()


@dataclass(eq=False)
class RecordedRun:
    """One agent run seen during a test: its Run, and how it ended (``error`` if it raised)."""

    agent: type[lg.Agent]
    run: lg.Run
    finished: bool = False
    error: BaseException | None = None

    @property
    def messages(self) -> tuple[lg.Message, ...]:
        return self.run.messages

    @property
    def tool_calls(self) -> list[tuple[lg.ToolCall, lg.Message | None]]:
        """Each tool call the model asked for, with the tool message answering it (if any)."""
        answers = {m.tool_call_id: m for m in self.messages if m.role == "tool"}
        return [
            (call, answers.get(call.id)) for message in self.messages for call in message.tool_calls
        ]

    def transcript(self) -> str:
        """The run as readable lines: every message, tool calls with results, and the outcome."""
        if self.error is not None:
            outcome = f"raised {type(self.error).__name__}: {self.error}"
        elif self.finished:
            outcome = "finished"
        else:
            outcome = "still running"
        actor = self.run.invocation.actor_id
        lines = [f"{self.agent.__name__} run (actor_id={actor!r}) {outcome}"]
        for message in self.messages:
            lines.extend(_describe(message))
        return "\n".join(_clip(line) for line in lines)


class RunLog(list[RecordedRun]):
    """Every agent run started while the fixture is active, oldest first."""

    @property
    def last(self) -> RecordedRun:
        if not self:
            raise LookupError("No agent run was started in this test")
        return self[-1]

    def run_started(self, agent: type[lg.Agent], run: lg.Run) -> None:
        self.append(RecordedRun(agent, run))

    def run_finished(self, run: lg.Run, error: BaseException | None) -> None:
        for recorded in reversed(self):
            if recorded.run is run:
                recorded.finished, recorded.error = True, error
                return


def _describe(message: lg.Message) -> list[str]:
    if message.role == "tool":
        status = "error" if message.is_error else "ok"
        return [f"  tool [{message.tool_call_id}] {status}: {message.content}"]
    lines = [f"  {message.role}: {message.content}"] if message.content else []
    for call in message.tool_calls:
        problem = f" (problem: {call.problem})" if call.problem else ""
        lines.append(f"  {message.role} calls {call.name} [{call.id}] {_arguments(call)}{problem}")
    return lines


def _arguments(call: lg.ToolCall) -> str:
    if isinstance(call.arguments, str):
        return repr(call.arguments[: TRANSCRIPT_LINE_CHARS + 1])
    try:
        return json.dumps(call.arguments, ensure_ascii=False)
    except (TypeError, ValueError):  # arguments from a custom model that are not JSON
        return repr(type(call.arguments))


def _clip(line: str) -> str:
    return line if len(line) <= TRANSCRIPT_LINE_CHARS else line[:TRANSCRIPT_LINE_CHARS] + " ..."


@pytest.fixture
def lg_runs(request: pytest.FixtureRequest) -> Iterator[RunLog]:
    """Every agent run started in the test; a failing test's report shows the last transcript."""
    log = RunLog()
    request.node.stash[_RUN_LOG] = log
    with watch_runs(log):
        yield log


@pytest.fixture(autouse=True)
def _lg_model_request_guard(request: pytest.FixtureRequest) -> Iterator[None]:
    """Close the request guard for the test, unless it is marked ``allow_model_requests``."""
    allowed = request.node.get_closest_marker("allow_model_requests") is not None
    with allow_model_requests(allowed):
        yield


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "allow_model_requests: let real model providers send requests in this test "
        "(the littleghost request guard blocks them otherwise)",
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
    report = yield
    log = item.stash.get(_RUN_LOG, None)
    if report.failed and log:
        report.sections.append(("littleghost: last agent run", log.last.transcript()))
    return report
