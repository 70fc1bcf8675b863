"""Driving async tool code from Hypothesis: one event loop per check run, in a portal thread.

Hypothesis runs its examples synchronously in the caller's thread; each
example hands its coroutine to one long-lived event loop (asyncio or trio)
in a portal thread. That keeps connections opened by one example usable by
the next, and lets the checks run from plain tests and from inside a running
event loop alike.
"""

from __future__ import annotations

import hashlib
import threading
import unittest
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import hypothesis
import hypothesis.core
import hypothesis.errors
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import example, given
from hypothesis import strategies as st

from ._options import Options

__all__ = ["Failure", "Runner", "TimedOut", "Violation", "in_fresh_thread", "running"]

T = TypeVar("T")


class Violation(AssertionError):
    """One broken rule: what the contract expects and what the tool did instead."""

    def __init__(self, expected: str, observed: str) -> None:
        super().__init__(f"expected {expected}; observed {observed}")
        self.expected = expected
        self.observed = observed


class TimedOut(Violation):
    """A call that did not finish in time: reported as found, never shrunk or retried.

    Shrinking a timeout re-runs the hanging call dozens of times, each one
    waiting out the whole timeout.
    """


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
    ) -> Failure | None:
        """Apply ``rule`` to ``examples`` and generated values; the minimal failure, if any.

        ``rule`` raises ``Violation`` when a value breaks the contract.
        Hypothesis replays the shrunk example last, so the last failure
        recorded is the minimal one. A ``TimedOut`` ends the search at once:
        later examples are not run and nothing is shrunk. ``key`` names the
        search in the profile's example database (a check and its tool), so
        failures found before are replayed first.
        """
        failures: list[Failure] = []
        timeouts: list[Failure] = []

        def checked(value: Any) -> None:
            if timeouts:
                return  # a hanging call was found: nothing more is worth waiting for
            try:
                rule(value)
            except TimedOut as timeout:
                timeouts.append(Failure(value, timeout))
            except Violation as violation:
                failures.append(Failure(value, violation))
                raise

        test: Any = given(strategy)(checked)
        for value in reversed(examples):
            test = example(value)(test)
        test = self.options.profile_settings()(test)
        if self.options.seed is not None:
            test = hypothesis.seed(self.options.seed)(test)
        elif hypothesis.core.global_force_seed is None:
            digest = hashlib.sha256(key.encode()).digest()
            test._hypothesis_internal_database_key = b"littleghost-contract." + digest
        try:
            test()
        except unittest.SkipTest:
            return None  # the profile's phases generate nothing and the database held nothing
        except Violation:
            if not timeouts:
                return failures[-1]
        except hypothesis.errors.Flaky:
            if not timeouts:  # a timeout while shrinking leaves the replay passing: expected
                raise
        return timeouts[0] if timeouts else None


@contextmanager
def running(options: Options) -> Iterator[Runner]:
    """A Runner whose event loop lives for the ``with`` block."""
    with start_blocking_portal(options.backend) as portal:
        yield Runner(portal, options)


def in_fresh_thread(function: Callable[[], T]) -> T:
    """Call ``function`` in a new thread and return (or raise) what it did.

    A portal started from a thread that runs an event loop inherits that
    loop's context and, on trio, never shuts down; a fresh thread starts
    with an empty context, so the checks also work inside ``async`` code.
    """
    outcome: list[Any] = []

    def target() -> None:
        try:
            outcome.append((True, function()))
        except BaseException as error:
            outcome.append((False, error))

    thread = threading.Thread(target=target, name="littleghost-contracts")
    thread.start()
    thread.join()
    succeeded, value = outcome[0]
    if not succeeded:
        raise value
    return value
