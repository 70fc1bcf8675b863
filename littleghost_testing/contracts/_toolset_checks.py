"""The contract battery for a Toolset: discovery, each discovered tool, and cleanup."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any

import littleghost as lg
from littleghost import _TOOL_NAME as TOOL_NAME
from littleghost.mcp import Toolset

from .._engine import describe
from ..leaks import ResourceSnapshot
from ._report import Check
from ._runner import Runner, Violation
from ._subject import Subject
from ._tool_checks import TOOL_CHECKS

__all__ = ["TOOLSET_CHECKS", "run_toolset_checks"]


TOOLSET_CHECKS = (
    "discovery",
    "discovery_cancellation",
    "discovery_deadline",
    *(name for name in TOOL_CHECKS if name != "cleanup"),
    "cleanup",
)
"""Check names in the order they run; the tool checks run once per discovered tool."""


def run_toolset_checks(
    toolset_class: type[Toolset],
    runner: Runner,
    selected: Sequence[str],
    examples: Callable[[str], Sequence[Any]],
) -> list[Check]:
    checks: list[Check] = []
    session = _Session(toolset_class, runner)
    try:
        try:
            classes = session.open()
        except Violation as violation:
            return [_failed("discovery", "discovery failed", violation)]
        if "discovery" in selected:
            names = ", ".join(cls.tool_name for cls in classes) or "no tools"
            checks.append(Check("discovery", True, f"{len(classes)} tools: {names}"))
        for name, stop in (
            ("discovery_cancellation", _cancelled),
            ("discovery_deadline", _expired),
        ):
            if name in selected:
                checks.append(
                    _stopped_discovery(name, toolset_class, runner, session.binding, stop)
                )
        lost = False
        for tool_class in classes:
            subject = session.subject(tool_class, examples(tool_class.tool_name))
            subject.lost = lost  # a connection the tool before lost is renewed first
            for name in TOOL_CHECKS:
                if name not in selected or name == "cleanup":
                    continue
                if subject.lost and not subject.renew():
                    checks.append(_unreachable(subject, name, session.unreachable))
                    continue
                checks.append(TOOL_CHECKS[name](subject))
            lost = subject.lost
        if "cleanup" in selected:
            checks.append(_cleanup(toolset_class, runner))
    finally:
        session.close()
    return checks


class _Session:
    """The toolset's tools over one connection, opened afresh once a call lost it.

    Every tool's checks share a connection, as a run's tools do; a tool that
    kills the server gets its own verdict, and the tools checked after it a
    new connection (``check`` reconnects alike).
    """

    def __init__(self, toolset_class: type[Toolset], runner: Runner) -> None:
        self.toolset_class = toolset_class
        self.runner = runner
        self.run = lg.Run()
        self.binding = runner.options.binding().replace(run=self.run)
        self.classes: dict[str, type[lg.Tool]] = {}
        self.unreachable = ""  # why the last reconnection failed

    def open(self) -> list[type[lg.Tool]]:
        """Discover over a new connection; ``Violation`` if discovery fails."""
        classes = self.runner.run(_discover, self.toolset_class, self.binding)
        self.classes = {cls.tool_name: cls for cls in classes}
        return classes

    def subject(self, tool_class: type[lg.Tool], examples: Sequence[Any]) -> Subject:
        """The tool, over the current connection (a class per connection)."""
        name = tool_class.tool_name
        return Subject(
            self.classes.get(name, tool_class),
            self._runner(examples),
            name,
            reconnect=lambda: self._reconnect(name, examples),
        )

    def _runner(self, examples: Sequence[Any]) -> Runner:
        binding = self.binding
        options = dataclasses.replace(
            self.runner.options, binding=lambda: binding, examples=tuple(examples)
        )
        return Runner(self.runner.portal, options)

    def _reconnect(self, name: str, examples: Sequence[Any]) -> tuple[type[lg.Tool], Runner] | None:
        """Close the lost connection, discover over a new one: ``name``'s class and runner."""
        self.close()
        self.run = lg.Run()
        self.binding = self.runner.options.binding().replace(run=self.run)
        try:
            self.open()
        except Violation as violation:
            self.unreachable = f"discovery failed: {violation.observed}"
            return None
        tool_class = self.classes.get(name)
        if tool_class is None:
            self.unreachable = f"the server no longer lists {name}"
            return None
        return tool_class, self._runner(examples)

    def close(self) -> None:
        self.runner.run(self.run.aclose)


def _unreachable(subject: Subject, name: str, why: str) -> Check:
    """A check that cannot run: the server died, and reconnecting failed."""
    violation = Violation("a fresh connection after the server died", why)
    return subject.failed(name, "the server could not be reached again", violation)


async def _discover(toolset_class: type[Toolset], binding: lg.Binding) -> list[type[lg.Tool]]:
    try:
        classes = await toolset_class.tools(binding)
    except (Exception, lg.CancelledError, lg.DeadlineExceededError) as error:
        raise Violation("tools(binding) to discover the server's tools", describe(error)) from None
    seen: set[str] = set()
    for cls in classes:
        if not (isinstance(cls, type) and issubclass(cls, lg.Tool)):
            raise Violation("a list of Tool subclasses", repr(cls))
        if not TOOL_NAME.fullmatch(cls.tool_name) or cls.tool_name in seen:
            raise Violation("unique names of 1 to 64 of A-Z a-z 0-9 _ -", repr(cls.tool_name))
        seen.add(cls.tool_name)
    return classes


def _cancelled() -> lg.RunContext:
    context = lg.RunContext()
    context.cancellation.cancel("cancelled by the contract check")
    return context


def _expired() -> lg.RunContext:
    return lg.RunContext(deadline=time.monotonic() - 1.0)


def _stopped_discovery(
    name: str,
    toolset_class: type[Toolset],
    runner: Runner,
    binding: lg.Binding,
    context: Callable[[], lg.RunContext],
) -> Check:
    error_type = lg.CancelledError if name == "discovery_cancellation" else lg.DeadlineExceededError
    try:
        runner.run(_discover_stopped, toolset_class, binding, context(), error_type)
    except Violation as violation:
        return _failed(name, f"{error_type.__name__} did not propagate from discovery", violation)
    return Check(name, True, f"discovery raises {error_type.__name__} and connects nothing")


async def _discover_stopped(
    toolset_class: type[Toolset],
    binding: lg.Binding,
    context: lg.RunContext,
    error_type: type[BaseException],
) -> None:
    async with lg.Run(context=context) as run:
        expected = f"tools(binding) to raise {error_type.__name__}"
        try:
            classes = await toolset_class.tools(binding.replace(run=run))
        except error_type:
            return
        except (Exception, lg.CancelledError, lg.DeadlineExceededError) as error:
            raise Violation(expected, f"it raised {describe(error)}") from None
        raise Violation(expected, f"it discovered {len(classes)} tools")


PROCESS_EXIT_SECONDS = 5.0
"""How long a server process may take to exit after its connection is closed."""


def _cleanup(toolset_class: type[Toolset], runner: Runner) -> Check:
    try:
        runner.run(_registry_closes, toolset_class, runner.options.binding())
    except Violation as violation:
        return _failed("cleanup", "closing through a ToolRegistry went wrong", violation)
    return Check(
        "cleanup",
        True,
        "a ToolRegistry without a run closes its tools without error and leaves no process",
    )


async def _registry_closes(toolset_class: type[Toolset], binding: lg.Binding) -> None:
    before = ResourceSnapshot.take()
    registry = lg.ToolRegistry([toolset_class], binding=binding)
    try:
        await registry.open()
    except (Exception, lg.CancelledError, lg.DeadlineExceededError) as error:
        raise Violation("a ToolRegistry to open with the toolset", describe(error)) from None
    try:
        await registry.aclose()
    except Exception as error:
        raise Violation("closing the registry to succeed", describe(error)) from None
    # Only child processes: an in-process server may start its own threads and
    # sockets on first use and keep them, which is no leak of the toolset's.
    try:
        await before.assert_released(within=PROCESS_EXIT_SECONDS, kinds=("processes",))
    except AssertionError as leak:
        raise Violation(
            "every process the toolset started to end once the registry is closed", str(leak)
        ) from None


def _failed(name: str, detail: str, violation: Violation) -> Check:
    return Check(name, False, detail, expected=violation.expected, observed=violation.observed)
