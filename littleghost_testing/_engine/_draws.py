"""Generated inputs that are prefix-stable and bounded in time.

Each example is drawn on its own, from a random seed fixed by the run's seed
and the example's index, so the first N examples of a run with more
``--examples`` are exactly the examples of a run with N: more examples send a
superset of fewer. Every choice a draw makes first checks the tool's
generation budget, so a schema that takes minutes to draw ends at the budget
(``OutOfBudget``), never stalling the run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from hypothesis.strategies import SearchStrategy

from .._compat import StopTest, building, seeded_data, simplest_data
from ..strategies import _check_clock as check_clock
from ..strategies import _choices_until as choices_until
from ..strategies import _OutOfTime as OutOfTime
from ..strategies import _SeedsFirst as SeedsFirst

__all__ = ["GENERATION_BUDGET", "Budget", "Drawn", "OutOfBudget", "draw", "example_seed", "plain"]

GENERATION_BUDGET = 30.0
"""Seconds one tool's input generation may take in all (draws, coverage inputs), calls apart."""

OutOfBudget = OutOfTime
"""A draw ran past its budget; a BaseException, so no strategy takes it for its own error."""


class Budget:
    """Generation time left for one tool, and the run's deadline (``time.monotonic()``)."""

    def __init__(self, seconds: float, deadline: float | None = None) -> None:
        self.seconds = seconds
        self.left = seconds
        self.deadline = deadline

    @property
    def past_deadline(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def ends(self) -> float:
        """When a draw starting now must stop."""
        ends = time.monotonic() + max(self.left, 0.0)
        return ends if self.deadline is None else min(ends, self.deadline)

    def spend(self, seconds: float) -> None:
        self.left -= seconds


@dataclass(frozen=True, slots=True)
class Drawn:
    """One value a draw gave (``None`` is a value, so it is wrapped)."""

    value: Any


def plain(strategy: SearchStrategy[Any]) -> SearchStrategy[Any]:
    """``strategy`` without its seeds: the engine's coverage phase reaches the shapes itself."""
    return strategy.plain if isinstance(strategy, SeedsFirst) else strategy


def draw(strategy: SearchStrategy[Any], budget: Budget, seed: int | None) -> Drawn | None:
    """One value of ``strategy``: its simplest (``seed=None``) or the one ``seed`` fixes.

    ``None`` when the strategy gave none (a filter ran dry); ``OutOfBudget``
    when the budget or the deadline ran out while drawing.
    """
    if budget.left <= 0 or budget.past_deadline:
        raise OutOfBudget
    data = simplest_data() if seed is None else seeded_data(seed)
    started = time.monotonic()
    try:
        # The clock binds the seeds a strategy draws on first use too (``draw_outside``).
        with choices_until(budget.ends()), building(data, draw):
            check_clock(data)
            return Drawn(data.draw(strategy))
    except StopTest:
        return None
    finally:
        budget.spend(time.monotonic() - started)


def example_seed(run_seed: int, index: int) -> int:
    """The random seed of example ``index``: the same in every run with the same seed."""
    return run_seed * 1_000_003 + index
