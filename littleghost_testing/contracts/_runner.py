"""Driving async tool code from Hypothesis: one event loop per check run, in a portal thread.

Hypothesis runs its examples synchronously in the caller's thread; each
example hands its coroutine to one long-lived event loop (asyncio or trio)
in a portal thread. That keeps connections opened by one example usable by
the next, and lets the checks run from plain tests and from inside a running
event loop alike.
"""

from __future__ import annotations

import hashlib
import time
import unittest
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import hypothesis
import hypothesis.errors
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import example, given
from hypothesis import strategies as st

from .._compat import global_seed, set_database_key
from ._options import Options

__all__ = [
    "ConnectionLost",
    "Failure",
    "Runner",
    "Searched",
    "TimedOut",
    "Violation",
    "running",
]

T = TypeVar("T")


class Violation(AssertionError):
    """One broken rule: what the contract expects and what the tool did instead."""

    def __init__(self, expected: str, observed: str) -> None:
        super().__init__(f"expected {expected}; observed {observed}")
        self.expected = expected
        self.observed = observed


class Final(Violation):
    """A violation reported on the input that caused it: never shrunk or retried."""


class TimedOut(Final):
    """A call that did not finish in time.

    Shrinking a timeout re-runs the hanging call dozens of times, each one
    waiting out the whole timeout.
    """


class ConnectionLost(Final):
    """A call that left the connection unusable (the server died).

    Every later call on it fails as well, so shrinking would "find" the
    simplest input of all; the checks after it need a fresh connection.
    """


class _OutOfTime(BaseException):
    """Ends a search whose time budget is spent; a BaseException, so Hypothesis lets it through."""


@dataclass
class Searched:
    """How one search went: the inputs it ran, and whether its time budget ended it."""

    examples: int = 0
    out_of_time: bool = False

    def describe(self, what: str, budget: float | None) -> str:
        """``12 generated inputs``, or ``3 ... (the 30 s time_budget ended the search)``."""
        text = f"{self.examples} {what}"
        if self.out_of_time:
            text += f" (the {budget:g} s time_budget ended the search)"
        return text


@dataclass(frozen=True, slots=True)
class Failure:
    """The minimal input Hypothesis found that breaks a rule, and the violation."""

    input: Any
    violation: Violation


class Runner:
    """Runs coroutines in the portal's loop and searches inputs with Hypothesis."""

    def __init__(self, portal: BlockingPortal, options: Options) -> None:
        self.portal = portal
        self.options = options

    def run(self, function: Callable[..., Awaitable[T]], *args: Any) -> T:
        return self.portal.call(function, *args)

    def search(
        self,
        strategy: st.SearchStrategy[Any],
        rule: Callable[[Any], None],
        *,
        key: str,
        examples: tuple[Any, ...] = (),
        searched: Searched | None = None,
    ) -> Failure | None:
        """Apply ``rule`` to ``examples`` and generated values; the minimal failure, if any.

        ``rule`` raises ``Violation`` when a value breaks the contract.
        Hypothesis replays the shrunk example last, so the last failure
        recorded is the minimal one. A ``Final`` violation (a timeout, a lost
        connection) ends the search at once: later examples are not run and
        nothing is shrunk. ``key`` names the
        search in the profile's example database (a check and its tool), so
        failures found before are replayed first. Once ``time_budget`` is
        spent, no further input runs (the first always does): the search ends
        with the smallest failure found so far, if any; ``searched`` counts
        the inputs run.
        """
        failures: list[Failure] = []
        finals: list[Failure] = []
        searched = searched if searched is not None else Searched()
        budget = self.options.time_budget
        ends = None if budget is None else time.monotonic() + budget

        def checked(value: Any) -> None:
            if finals:
                return  # a hang or a dead server was found: nothing more is worth running
            if ends is not None and searched.examples and time.monotonic() >= ends:
                searched.out_of_time = True
                raise _OutOfTime
            searched.examples += 1
            try:
                rule(value)
            except Final as final:
                finals.append(Failure(value, final))
            except Violation as violation:
                failures.append(Failure(value, violation))
                raise

        try:
            self._test(strategy, checked, key, examples)()
        except _OutOfTime:
            if failures and not finals:  # each raised on its own input; the last is smallest
                return failures[-1]
        except unittest.SkipTest:
            return None  # the profile's phases generate nothing and the database held nothing
        except Violation:
            if not finals:
                return failures[-1]
        except hypothesis.errors.Flaky:
            if not finals:  # a final violation while shrinking leaves the replay passing
                raise
        return finals[0] if finals else None

    def _test(
        self,
        strategy: st.SearchStrategy[Any],
        checked: Callable[[Any], None],
        key: str,
        examples: tuple[Any, ...],
    ) -> Callable[[], None]:
        """``checked`` as a Hypothesis test: the examples first, the profile's settings."""
        test: Any = given(strategy)(checked)
        for value in reversed(examples):
            test = example(value)(test)
        test = self.options.profile_settings()(test)
        if self.options.seed is not None:
            test = hypothesis.seed(self.options.seed)(test)
        elif global_seed() is None:
            digest = hashlib.sha256(key.encode()).digest()
            set_database_key(test, b"littleghost-contract." + digest)
        return test


@contextmanager
def running(options: Options) -> Iterator[Runner]:
    """A Runner whose event loop lives for the ``with`` block."""
    with start_blocking_portal(options.backend) as portal:
        yield Runner(portal, options)
