"""The tool under check and what every check does with it: make, call, search, close."""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException, Unsatisfiable

import littleghost as lg

from .._engine import coverage_inputs, describe
from ..strategies import SchemaError, from_schema
from ._report import Check
from ._rules import connection_lost
from ._runner import Failure, Runner, Searched, TimedOut, Violation

__all__ = ["Subject", "close_quietly", "execute_within", "first_drawn", "simplest"]


@dataclass
class Subject:
    """One Tool class under check, with the runner driving it."""

    tool_class: type[lg.Tool]
    runner: Runner
    label: str | None = None  # the tool's name, in a report that covers a whole toolset
    searched: dict[str, Searched] = field(default_factory=dict[str, Searched])
    reconnect: Callable[[], tuple[type[lg.Tool], Runner] | None] | None = None
    """For a toolset's tool: its class and runner over a fresh connection (``None``: gone)."""
    lost: bool = False
    """Whether a call lost the connection: the next check needs a fresh one."""

    def make(self) -> lg.Tool:
        return self.tool_class(self.runner.options.binding())

    def renew(self) -> bool:
        """Go on over a fresh connection (a toolset's tool); False when there is none."""
        fresh = None if self.reconnect is None else self.reconnect()
        if fresh is None:
            return False
        self.tool_class, self.runner = fresh
        self.lost = False
        return True

    def call(self, tool: lg.Tool, value: Any) -> lg.ExecutionResult:
        """``execute`` within ``call_timeout``, noting a lost connection."""
        result = self.runner.run(
            execute_within, tool, value, None, self.runner.options.call_timeout
        )
        self.lost = self.lost or connection_lost(result.error)
        return result

    def passed(self, name: str, detail: str) -> Check:
        return Check(name, True, detail, tool=self.label)

    def failed(self, name: str, detail: str, violation: Violation, **extra: Any) -> Check:
        return Check(
            name,
            False,
            detail,
            tool=self.label,
            expected=violation.expected,
            observed=violation.observed,
            **extra,
        )

    def cannot_generate(self, name: str, error: BaseException) -> Check:
        return Check(name, False, f"could not generate inputs: {describe(error)}", tool=self.label)

    def search(
        self,
        name: str,
        strategy: st.SearchStrategy[Any],
        rule: Callable[[Any], None],
        examples: tuple[Any, ...],
    ) -> Failure | Check | None:
        """Run the search; a strategy that cannot produce inputs becomes a failed check."""
        searched = self.searched[name] = Searched()
        try:
            return self.runner.search(
                strategy, rule, key=self._key(name), examples=examples, searched=searched
            )
        except (SchemaError, HypothesisException) as error:
            return self.cannot_generate(name, error)

    def ran(self, name: str, what: str) -> str:
        """How many inputs check ``name`` ran, and whether its time budget ended it."""
        return self.searched[name].describe(what, self.runner.options.time_budget)

    def close(self, tool: lg.Tool) -> None:
        """Close an instance a check made; how closing goes is the cleanup check's business."""
        self.runner.run(close_quietly, tool, self.runner.options.call_timeout)

    def generated(self, count: int) -> list[Any]:
        """Up to ``count`` more valid inputs, derandomized: the same ones every run."""
        return first_drawn(from_schema(self.tool_class.input_schema), count)

    @functools.cached_property
    def coverage(self) -> tuple[Any, ...]:
        """The coverage phase's valid inputs, as ``check`` sends them first.

        Bounds, empty values, enum members, optional keys absent and present:
        tried before any random input, a bug at a schema's edge is found on
        every run, at any ``max_examples``.
        """
        return tuple(coverage_inputs(self.tool_class.input_schema))

    @property
    def first_inputs(self) -> tuple[Any, ...]:
        """What every search of valid inputs tries first: the examples given, then ``coverage``."""
        given = tuple(self.runner.options.examples)
        return given + tuple(value for value in self.coverage if value not in given)

    @functools.cached_property
    def sample(self) -> Any:
        """An input valid for the schema: the first example given, else the simplest generated."""
        examples = self.runner.options.examples
        if examples:
            return examples[0]
        return simplest(from_schema(self.tool_class.input_schema))

    def _key(self, name: str) -> str:
        """Names one check of this tool in the example database, across runs and processes."""
        cls = self.tool_class
        schema = json.dumps(cls.input_schema, sort_keys=True, default=repr)
        return f"{name}|{cls.__module__}.{cls.__qualname__}|{cls.tool_name}|{schema}"


def simplest(strategy: st.SearchStrategy[Any]) -> Any:
    """The first value a derandomized Hypothesis draws: its simplest (``find`` costs 0.3 s more)."""
    drawn = first_drawn(strategy, 1)
    if not drawn:
        raise Unsatisfiable("the schema's strategy produced no value")
    return drawn[0]


def first_drawn(strategy: st.SearchStrategy[Any], count: int) -> list[Any]:
    """Up to ``count`` distinct values a derandomized Hypothesis draws first, simplest first."""
    drawn: list[Any] = []

    @settings(
        database=None,
        derandomize=True,
        max_examples=count,
        phases=[Phase.generate],
        suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
    )
    @given(strategy)
    def draw(value: Any) -> None:
        if value not in drawn:
            drawn.append(value)

    draw()
    return drawn


async def execute_within(
    tool: lg.Tool, value: Any, context: lg.RunContext | None, seconds: float
) -> lg.ExecutionResult:
    """``execute`` that must return a result, within ``seconds`` seconds."""
    with anyio.move_on_after(seconds) as scope:
        try:
            return await tool.execute(value, context=context)
        except (Exception, lg.CancelledError, lg.DeadlineExceededError) as error:
            raise Violation(
                "execute to return an ExecutionResult", f"it raised {describe(error)}"
            ) from None
    assert scope.cancelled_caught
    raise TimedOut(f"execute to finish within {seconds:g} s", "it was still running")


async def close_quietly(tool: lg.Tool, seconds: float) -> None:
    """``close()``, giving up after ``seconds``; a failure here is left to the cleanup check."""
    with anyio.move_on_after(seconds):
        try:
            outcome = tool.close()
            if inspect.isawaitable(outcome):
                await outcome
        except Exception:
            pass  # reported by the cleanup check, not by every check
